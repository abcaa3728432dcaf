"""The PyTorch twin of revnet.mlir (gen_revnet.py): the same RevNet — a stem
(conv 3x3 16, no bias -> batch norm -> ReLU -> max pool 2) feeding both
streams of BLOCKS blocks y1 = x1 + F(x2), y2 = x2 + G(y1), F and G conv 3x3
(no bias) -> batch norm -> ReLU -> conv 3x3 (16 channels, pad 1), then
ReLU(y1 + y2) -> max pool 2 -> dense 10 — with gen_revnet.py's
initializers (He-normal fan-in convs, N(0, 0.01) second convs, Glorot-uniform
output, zero biases), batch norm with PyTorch's defaults, Adam (lr 1e-3,
betas 0.9/0.999, eps 1e-8), batch 100, float32. PyTorch's autograd stores
the blocks' activations (no reconstruction): the twin of the model and its
training, not of its memory. Prints the held-out accuracy after each epoch
(batch norm in eval mode) and the time per epoch (training steps only).

usage: torch_revnet.py [EPOCHS] [THREADS] [BLOCKS]   (default 2 epochs, torch's threads, 8)"""

import sys

import torch

from torch_twin import fit, load

nn = torch.nn
C = 16


def conv(cin, cout, bias):
    return nn.Conv2d(cin, cout, 3, padding=1, bias=bias)


class Residual(nn.Module):
    """F or G: conv -> batch norm -> ReLU -> conv (the last near zero)."""

    def __init__(self):
        super().__init__()
        self.c1, self.bn, self.c2 = conv(C, C, False), nn.BatchNorm2d(C), conv(C, C, True)
        nn.init.kaiming_normal_(self.c1.weight, mode="fan_in", nonlinearity="relu")
        nn.init.normal_(self.c2.weight, std=0.01)
        nn.init.zeros_(self.c2.bias)

    def forward(self, x):
        return self.c2(torch.relu(self.bn(self.c1(x))))


class RevNet(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.stem, self.bn0 = conv(1, C, False), nn.BatchNorm2d(C)
        nn.init.kaiming_normal_(self.stem.weight, mode="fan_in", nonlinearity="relu")
        self.f = nn.ModuleList(Residual() for _ in range(blocks))
        self.g = nn.ModuleList(Residual() for _ in range(blocks))
        self.out = nn.Linear(7 * 7 * C, 10)
        nn.init.xavier_uniform_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x):
        h = torch.max_pool2d(torch.relu(self.bn0(self.stem(x))), 2)
        x1, x2 = h, h
        for f, g in zip(self.f, self.g):
            x1 = x1 + f(x2)
            x2 = x2 + g(x1)
        h = torch.max_pool2d(torch.relu(x1 + x2), 2)
        return self.out(torch.flatten(h, 1))


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    if len(sys.argv) > 2:
        torch.set_num_threads(int(sys.argv[2]))
    blocks = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    torch.manual_seed(0)
    (xtr, ytr), (xte, yte) = load("train"), load("t10k")
    fit(RevNet(blocks), xtr.unsqueeze(1), ytr, xte.unsqueeze(1), yte, epochs)


if __name__ == "__main__":
    main()

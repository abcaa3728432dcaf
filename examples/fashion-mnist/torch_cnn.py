"""The PyTorch twin of cnn.mlir: the same CNN ([conv 3x3 pad 1 -> batch norm
-> ReLU -> max pool 2] with 32 and 64 channels, dense 128, ReLU, dense 10),
He-normal (fan-in) conv and hidden weights, Glorot-uniform output weights,
zero biases, batch norm with PyTorch's defaults (eps 1e-5, momentum 0.1),
Adam (lr 1e-3, betas 0.9/0.999, eps 1e-8), batch 100, epochs of 600 steps
over a seeded permutation, float32; prints the held-out accuracy after each
epoch (batch norm in eval mode) and the time per epoch (training steps
only). The time per step is also measured by bench/cnn_step.py.

usage: torch_cnn.py [EPOCHS] [THREADS]   (default 10 epochs, torch's threads)"""

import sys

import torch

from torch_twin import fit, load


def make_model():
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(7 * 7 * 64, 128), nn.ReLU(), nn.Linear(128, 10))
    weighted = [m for m in model if isinstance(m, (nn.Conv2d, nn.Linear))]
    for layer in weighted[:-1]:
        nn.init.kaiming_normal_(layer.weight, mode="fan_in", nonlinearity="relu")
    nn.init.xavier_uniform_(weighted[-1].weight)
    for layer in weighted:
        nn.init.zeros_(layer.bias)
    return model


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    if len(sys.argv) > 2:
        torch.set_num_threads(int(sys.argv[2]))
    torch.manual_seed(0)
    (xtr, ytr), (xte, yte) = load("train"), load("t10k")
    xtr, xte = xtr.unsqueeze(1), xte.unsqueeze(1)
    model = make_model()
    fit(model, xtr, ytr, xte, yte, epochs)

if __name__ == "__main__":
    main()

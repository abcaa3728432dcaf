"""The PyTorch twin of model.mlir: the same MLP (784 -> 256 -> 128 -> 10,
ReLU), Glorot-uniform weights and zero biases, Adam (lr 1e-3, betas
0.9/0.999, eps 1e-8), batch 100, epochs of 600 steps over a seeded
permutation (the remainder dropped, as trellis-train does), float32; prints
the held-out accuracy after each epoch and the time per epoch (training
steps only, the evaluation apart).

usage: torch_twin.py [EPOCHS] [THREADS]   (default 10 epochs, torch's threads)"""

import gzip
import struct
import sys
import time

import numpy as np
import torch

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(name):
    with gzip.open(f"{DATA}/{name}") as f:
        data = f.read()
    rank = data[3]
    dims = struct.unpack(f">{rank}I", data[4:4 + 4 * rank])
    return np.frombuffer(data, np.uint8, offset=4 + 4 * rank).reshape(dims)


def load(prefix):
    """The images as Nx28x28 float32 in [0, 1] (byte / 255), the labels."""
    x = torch.from_numpy(read_idx(f"{prefix}-images-idx3-ubyte.gz").astype(np.float32) / 255)
    y = torch.from_numpy(read_idx(f"{prefix}-labels-idx1-ubyte.gz").astype(np.int64))
    return x, y


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    if len(sys.argv) > 2:
        torch.set_num_threads(int(sys.argv[2]))
    torch.manual_seed(0)
    (xtr, ytr), (xte, yte) = load("train"), load("t10k")
    xtr, xte = xtr.reshape(-1, 784), xte.reshape(-1, 784)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 10))
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.xavier_uniform_(layer.weight)
            torch.nn.init.zeros_(layer.bias)
    fit(model, xtr, ytr, xte, yte, epochs)


def fit(model, xtr, ytr, xte, yte, epochs):
    """Adam (lr 1e-3, betas 0.9/0.999, eps 1e-8), batch 100, epochs of a
    seeded permutation (the remainder dropped, as trellis-train does); after
    each epoch the time of its training steps and the test accuracy
    (evaluated in eval mode, batches of 1000). Shared by torch_cnn.py."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    loss_fn = torch.nn.CrossEntropyLoss()
    batch, steps = 100, len(xtr) // 100
    print(f"threads {torch.get_num_threads()}, {steps} steps of {batch} per epoch")
    times = []
    for epoch in range(epochs):
        order = torch.randperm(len(xtr))
        model.train()
        start = time.perf_counter()
        for k in range(steps):
            rows = order[k * batch:(k + 1) * batch]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xtr[rows]), ytr[rows])
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - start)
        model.eval()
        with torch.no_grad():
            acc = np.mean([(model(xte[i:i + 1000]).argmax(1) == yte[i:i + 1000]).double().mean().item()
                           for i in range(0, len(xte), 1000)])
        print(f"epoch {epoch + 1}: {times[-1]:.2f} s, loss {loss.item():.4f}, "
              f"test accuracy {100 * acc:.2f} %", flush=True)
    print(f"median time per epoch {np.median(times):.2f} s; "
          f"final test accuracy {100 * acc:.2f} %")


if __name__ == "__main__":
    main()

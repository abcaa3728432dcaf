"""A small model for the training loop's tests: linear regression
y ≈ x·w + b by SGD, batch B, D inputs, K outputs, learning rate LR (a
constant of @train_step), with an @eval returning the mean squared error.

    from linear_model import write_linear_model, write_linear_data
    model = write_linear_model(work, lr=0.1)
    data = write_linear_data(work, n=64)
"""

import os

import numpy as np


def write_linear_model(work, lr=0.1, batch=8, d=4, k=3, name="linear.mlir",
                       with_eval=True):
    x_t, w_t, b_t = (f"tensor<{batch}x{d}xf32>", f"tensor<{d}x{k}xf32>",
                     f"tensor<{k}xf32>")
    y_t = f"tensor<{batch}x{k}xf32>"
    # MLIR spells an infinite f32 in hex.
    lr_text = "0x7F800000" if lr == float("inf") else f"{lr:e}"
    text = f"""
func.func private @loss(%w: {w_t}, %b: {b_t}, %x: {x_t}, %y: {y_t}) -> tensor<f32> {{
  %p = nn.dense %x, %w, %b : ({x_t}, {w_t}, {b_t}) -> {y_t}
  %d = arith.subf %p, %y : {y_t}
  %s = arith.mulf %d, %d : {y_t}
  %l = nn.mean %s : ({y_t}) -> tensor<f32>
  return %l : tensor<f32>
}}

func.func @train_step(%w: {w_t}, %b: {b_t}, %x: {x_t} {{trellis.batch = "x"}}, %y: {y_t} {{trellis.batch = "y"}}) -> ({w_t}, {b_t}, tensor<f32>) {{
  %l, %gw, %gb = ad.value_and_grad @loss(%w, %b, %x, %y) {{argnums = array<i64: 0, 1>}}
      : ({w_t}, {b_t}, {x_t}, {y_t}) -> (tensor<f32>, {w_t}, {b_t})
  %lrw = arith.constant dense<{lr_text}> : {w_t}
  %lrb = arith.constant dense<{lr_text}> : {b_t}
  %uw = arith.mulf %gw, %lrw : {w_t}
  %ub = arith.mulf %gb, %lrb : {b_t}
  %w2 = arith.subf %w, %uw : {w_t}
  %b2 = arith.subf %b, %ub : {b_t}
  return %w2, %b2, %l : {w_t}, {b_t}, tensor<f32>
}}
"""
    if with_eval:
        text += f"""
func.func @eval(%w: {w_t}, %b: {b_t}, %x: {x_t} {{trellis.batch = "x"}}, %y: {y_t} {{trellis.batch = "y"}}) -> (tensor<f32> {{trellis.name = "mse"}}) {{
  %l = func.call @loss(%w, %b, %x, %y) : ({w_t}, {b_t}, {x_t}, {y_t}) -> tensor<f32>
  return %l : tensor<f32>
}}
"""
    path = os.path.join(work, name)
    os.makedirs(work, exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def write_linear_data(work, n=64, d=4, k=3, seed=0, name="linear.npz"):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    w = rng.standard_normal((d, k)).astype(np.float32)
    y = (x @ w + 0.01 * rng.standard_normal((n, k))).astype(np.float32)
    path = os.path.join(work, name)
    os.makedirs(work, exist_ok=True)
    np.savez(path, x=x, y=y)
    return path

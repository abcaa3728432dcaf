"""Model programs shared by the integration tests.

  mlp_sgd_module(batch, d, h, c)   a 2-layer tanh MLP with cross-entropy
                                   (@loss), one SGD step of rate 0.5 on its
                                   four weights (@step) and three steps in
                                   one call (@train, returning the weights
                                   after each step: 12 results)
  mlp_problem(rng, ranks, shard, d, h, c)
                                   its weights, a batch of ranks * shard
                                   examples and each rank's inputs
"""

import numpy as np


def mlp_sgd_module(batch, d, h, c):
    W = (f"tensor<{d}x{h}xf32>, tensor<{h}xf32>, tensor<{h}x{c}xf32>, "
         f"tensor<{c}xf32>")
    X = f"tensor<{batch}x{d}xf32>, tensor<{batch}xi32>"
    return f"""
func.func @loss(%w1: tensor<{d}x{h}xf32>, %b1: tensor<{h}xf32>,
                %w2: tensor<{h}x{c}xf32>, %b2: tensor<{c}xf32>,
                %x: tensor<{batch}x{d}xf32>, %y: tensor<{batch}xi32>) -> tensor<f32> {{
  %h = nn.dense %x, %w1, %b1 : (tensor<{batch}x{d}xf32>, tensor<{d}x{h}xf32>, tensor<{h}xf32>) -> tensor<{batch}x{h}xf32>
  %a = nn.tanh %h : tensor<{batch}x{h}xf32>
  %z = nn.dense %a, %w2, %b2 : (tensor<{batch}x{h}xf32>, tensor<{h}x{c}xf32>, tensor<{c}xf32>) -> tensor<{batch}x{c}xf32>
  %l = nn.cross_entropy %z, %y : (tensor<{batch}x{c}xf32>, tensor<{batch}xi32>) -> tensor<f32>
  return %l : tensor<f32>
}}
func.func @step(%w1: tensor<{d}x{h}xf32>, %b1: tensor<{h}xf32>,
                %w2: tensor<{h}x{c}xf32>, %b2: tensor<{c}xf32>,
                %x: tensor<{batch}x{d}xf32>, %y: tensor<{batch}xi32>) -> ({W}) {{
  %g:4 = ad.grad @loss(%w1, %b1, %w2, %b2, %x, %y) {{argnums = array<i64: 0, 1, 2, 3>}}
      : ({W}, {X}) -> ({W})
  %lr1 = arith.constant dense<0.5> : tensor<{d}x{h}xf32>
  %lr2 = arith.constant dense<0.5> : tensor<{h}xf32>
  %lr3 = arith.constant dense<0.5> : tensor<{h}x{c}xf32>
  %lr4 = arith.constant dense<0.5> : tensor<{c}xf32>
  %s1 = arith.mulf %g#0, %lr1 : tensor<{d}x{h}xf32>
  %s2 = arith.mulf %g#1, %lr2 : tensor<{h}xf32>
  %s3 = arith.mulf %g#2, %lr3 : tensor<{h}x{c}xf32>
  %s4 = arith.mulf %g#3, %lr4 : tensor<{c}xf32>
  %n1 = arith.subf %w1, %s1 : tensor<{d}x{h}xf32>
  %n2 = arith.subf %b1, %s2 : tensor<{h}xf32>
  %n3 = arith.subf %w2, %s3 : tensor<{h}x{c}xf32>
  %n4 = arith.subf %b2, %s4 : tensor<{c}xf32>
  return %n1, %n2, %n3, %n4 : {W}
}}
func.func @train(%w1: tensor<{d}x{h}xf32>, %b1: tensor<{h}xf32>,
                 %w2: tensor<{h}x{c}xf32>, %b2: tensor<{c}xf32>,
                 %x: tensor<{batch}x{d}xf32>, %y: tensor<{batch}xi32>)
    -> ({W}, {W}, {W}) {{
  %a:4 = call @step(%w1, %b1, %w2, %b2, %x, %y) : ({W}, {X}) -> ({W})
  %b:4 = call @step(%a#0, %a#1, %a#2, %a#3, %x, %y) : ({W}, {X}) -> ({W})
  %c:4 = call @step(%b#0, %b#1, %b#2, %b#3, %x, %y) : ({W}, {X}) -> ({W})
  return %a#0, %a#1, %a#2, %a#3, %b#0, %b#1, %b#2, %b#3, %c#0, %c#1, %c#2, %c#3
      : {W}, {W}, {W}
}}
"""


def mlp_problem(rng, ranks, shard, d, h, c):
    """Returns (weights, x, y, shards): the MLP's four weights, a batch of
    ranks * shard examples and labels, and each rank's inputs of @train
    (the weights and its shard)."""
    weights = [rng.standard_normal((d, h)).astype(np.float32) * 0.5,
               rng.standard_normal(h).astype(np.float32) * 0.1,
               rng.standard_normal((h, c)).astype(np.float32) * 0.5,
               rng.standard_normal(c).astype(np.float32) * 0.1]
    x = rng.standard_normal((ranks * shard, d)).astype(np.float32)
    y = rng.integers(0, c, ranks * shard).astype(np.int32)
    shards = [[*weights, x[r * shard:(r + 1) * shard],
               y[r * shard:(r + 1) * shard]] for r in range(ranks)]
    return weights, x, y, shards

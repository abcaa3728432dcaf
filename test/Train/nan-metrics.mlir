// A NaN or infinite eval metric is written to metrics.jsonl as null, so that
// every line stays JSON (issue 20: it wrote `"log_zero": -inf`, `nan`). A
// non-finite loss stops the run before it is written (the trainer's own
// check).
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/d.npz', x=np.ones((8, 4), np.float32))"
// RUN: trellis-train %s --data=%t/d.npz --eval-data=%t/d.npz --output-dir=%t/out --steps=4 --eval-every=2 --log-every=1 > /dev/null
// RUN: %python -c "import json, sys; [print(json.dumps(json.loads(l, parse_constant=lambda c: sys.exit('not JSON: ' + c)))) for l in open('%t/out/metrics.jsonl')]" | FileCheck %s
// CHECK: {"step": 1, "loss": 1}
// CHECK: {"step": 2, "eval": {"log_zero": null, "not_a_number": null, "mean": 1}}
// CHECK: {"step": 4, "eval": {"log_zero": null, "not_a_number": null, "mean": 1}}

func.func @train_step(%w: tensor<f32> {trellis.init = "zeros"}, %x: tensor<8x4xf32> {trellis.batch = "x"}) -> (tensor<f32>, tensor<f32>) {
  %l = nn.mean %x : (tensor<8x4xf32>) -> tensor<f32>
  return %w, %l : tensor<f32>, tensor<f32>
}

func.func @eval(%w: tensor<f32>, %x: tensor<8x4xf32> {trellis.batch = "x"}) -> (tensor<f32> {trellis.name = "log_zero"}, tensor<f32> {trellis.name = "not_a_number"}, tensor<f32> {trellis.name = "mean"}) {
  %l = math.log %w : tensor<f32>
  %n = arith.divf %w, %w : tensor<f32>
  %m = nn.mean %x : (tensor<8x4xf32>) -> tensor<f32>
  return %l, %n, %m : tensor<f32>, tensor<f32>, tensor<f32>
}

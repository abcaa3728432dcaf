// trellis-run --profile: where the time of a call goes, per class and per
// source op (docs/profiling.md). Checked by profile.py on a dense + gelu +
// mean step differentiated by ad.value_and_grad with respect to the weight
// and the bias: the table's header and rows parse (3 calls: the 2 --warmup
// calls are not in it); the GEMM class runs
// exactly 2 library calls per call (the forward product and the weight
// gradient's; no input gradient is asked for); the classes' times and the
// time between sites add up to the call's, and so do the kinds of source
// op (nn.dense, nn.gelu, nn.mean); the slowest source ops
// are named with their location in this file; and the results with
// --profile equal those without, bit for bit.
// REQUIRES: numpy
// RUN: %python %S/profile.py %s %t | FileCheck %s

// CHECK: HEADER profile of @step: 3 calls
// CHECK: PASS classes: gemm runs 2.0 per call
// CHECK: PASS sum: classes + between sites = call time
// CHECK: PASS sources: nn.dense at profile.mlir:[[#]]:8, nn.gelu at profile.mlir:[[#]]:8
// CHECK: PASS kinds: nn.dense, nn.gelu, nn.mean; the kinds add up to the call
// CHECK: PASS results: bit for bit
// CHECK: ALL CHECKS PASSED
func.func @loss(%x: tensor<256x512xf32>, %w: tensor<512x256xf32>, %b: tensor<256xf32>) -> tensor<f32> {
  %h = nn.dense %x, %w, %b : (tensor<256x512xf32>, tensor<512x256xf32>, tensor<256xf32>) -> tensor<256x256xf32>
  %g = nn.gelu %h : tensor<256x256xf32>
  %m = nn.mean %g : (tensor<256x256xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @step(%x: tensor<256x512xf32>, %w: tensor<512x256xf32>, %b: tensor<256xf32>) -> (tensor<f32>, tensor<512x256xf32>, tensor<256xf32>) {
  %l, %gw, %gb = ad.value_and_grad @loss(%x, %w, %b) {argnums = array<i64: 1, 2>} : (tensor<256x512xf32>, tensor<512x256xf32>, tensor<256xf32>) -> (tensor<f32>, tensor<512x256xf32>, tensor<256xf32>)
  return %l, %gw, %gb : tensor<f32>, tensor<512x256xf32>, tensor<256xf32>
}

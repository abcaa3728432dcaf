// Several results, aliasing each other and an input: every program-allocated
// buffer is freed exactly once (a double free would crash) and host buffers
// never; nn.relu lowers through the default pipeline.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/a.npy "np.array([[-1, 2, -3], [4, -5, 6]], np.float32)"
// RUN: trellis-run %s --entry=aliases --input=%t/a.npy --output-dir=%t/out --repeat=3
// RUN: %python %S/npy_tool.py check %t/out/result0.npy "np.maximum(np.array([[-1, 2, -3], [4, -5, 6]], np.float32), 0)"
// RUN: %python %S/npy_tool.py check %t/out/result1.npy "np.maximum(np.array([[-1, 2, -3], [4, -5, 6]], np.float32), 0)"
// RUN: %python %S/npy_tool.py check %t/out/result2.npy "np.array([[-1, 2, -3], [4, -5, 6]], np.float32)"
// RUN: %python %S/npy_tool.py check %t/out/result3.npy "np.array([[-1, 2, -3], [4, -5, 6]], np.float32)"
// RUN: not ls %t/out/result4.npy
//
// A function without results runs and writes nothing.
// RUN: trellis-run %s --entry=nothing --input=%t/a.npy --output-dir=%t/none
// RUN: ls %t/none | count 0

func.func @aliases(%a: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %r = "nn.relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r, %r, %a, %a
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @nothing(%a: tensor<2x3xf32>) {
  return
}

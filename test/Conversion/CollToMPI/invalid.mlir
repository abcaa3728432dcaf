// RUN: trellis-opt %s --convert-coll-to-mpi -split-input-file -verify-diagnostics

func.func @unknown_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{uses the axis 'model', but only 'batch' (all ranks) is defined}}
  %0 = coll.psum %x {axis = "model"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

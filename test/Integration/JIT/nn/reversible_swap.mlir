// A top-level nn.reversible_swap of differently shaped values: the function
// returns its own arguments, exchanged, bit for bit.
// REQUIRES: numpy
// RUN: %python %S/reversible_swap.py %s %t | FileCheck %s

// CHECK: PASS rev_swap.first:
// CHECK: PASS rev_swap.second:
// CHECK: ALL CHECKS PASSED

func.func @rev_swap(%a: tensor<3x4xf32>, %b: tensor<5xf32>)
    -> (tensor<5xf32>, tensor<3x4xf32>) {
  %p, %q = nn.reversible_swap %a, %b : tensor<3x4xf32>, tensor<5xf32>
  return %p, %q : tensor<5xf32>, tensor<3x4xf32>
}

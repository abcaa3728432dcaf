// Round trip of every nn op, through the custom and the generic form.
// RUN: trellis-opt %s | trellis-opt | FileCheck %s
// RUN: trellis-opt %s --mlir-print-op-generic | trellis-opt | FileCheck %s
// RUN: trellis-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @layers
// GENERIC-LABEL: sym_name = "layers"
func.func @layers(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>,
                  %s: tensor<16xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  // CHECK: %[[H:.*]] = nn.dense %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // GENERIC: "nn.dense"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %h = nn.dense %x, %w, %b : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: %[[R:.*]] = nn.relu %[[H]] : tensor<4x16xf32>
  %r = nn.relu %h : tensor<4x16xf32>
  // CHECK: %[[G:.*]] = nn.gelu %[[R]] : tensor<4x16xf32>
  %g = nn.gelu %r : tensor<4x16xf32>
  // CHECK: %[[GA:.*]] = nn.gelu %[[G]] {approximate = true} : tensor<4x16xf32>
  // GENERIC: "nn.gelu"(%{{.*}}) <{approximate = true}>
  %ga = nn.gelu %g {approximate = true} : tensor<4x16xf32>
  // CHECK: %[[T:.*]] = nn.tanh %[[GA]] : tensor<4x16xf32>
  %t = nn.tanh %ga : tensor<4x16xf32>
  // CHECK: %[[N:.*]] = nn.layer_norm %[[T]], %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32}
  // GENERIC: "nn.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 9.99999974E-6 : f32}>
  %n = nn.layer_norm %t, %s, %b {epsilon = 1.0e-5 : f32} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: nn.layer_norm %[[N]], %{{.*}}, %{{.*}} : (tensor<4x16xf32>
  %n2 = nn.layer_norm %n, %s, %b : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: %[[SM:.*]] = nn.softmax %{{.*}} : tensor<4x16xf32>
  %sm = nn.softmax %n2 : tensor<4x16xf32>
  // CHECK: %[[LSM:.*]] = nn.log_softmax %[[SM]] : tensor<4x16xf32>
  %lsm = nn.log_softmax %sm : tensor<4x16xf32>
  // CHECK: nn.cross_entropy %[[LSM]], %{{.*}} : (tensor<4x16xf32>, tensor<4xi32>) -> tensor<f32>
  %ce = nn.cross_entropy %lsm, %labels : (tensor<4x16xf32>, tensor<4xi32>) -> tensor<f32>
  // CHECK: nn.cross_entropy %{{.*}}, %{{.*}} : (tensor<2x2x16xf32>, tensor<2x2xi32>) -> tensor<f32>
  %lsm3 = tensor.expand_shape %lsm [[0, 1], [2]] output_shape [2, 2, 16] : tensor<4x16xf32> into tensor<2x2x16xf32>
  %labels3 = tensor.expand_shape %labels [[0, 1]] output_shape [2, 2] : tensor<4xi32> into tensor<2x2xi32>
  %ce3 = nn.cross_entropy %lsm3, %labels3 : (tensor<2x2x16xf32>, tensor<2x2xi32>) -> tensor<f32>
  // CHECK: nn.layer_norm %{{.*}} {epsilon = 1.000000e-300 : f64} : (tensor<4x16xf64>
  %x64 = arith.extf %lsm : tensor<4x16xf32> to tensor<4x16xf64>
  %s64 = arith.constant dense<1.0> : tensor<16xf64>
  %ln64 = nn.layer_norm %x64, %s64, %s64 {epsilon = 1.0e-300 : f64} : (tensor<4x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  // CHECK: nn.mean %{{.*}} : (tensor<4x16xf32>) -> tensor<f32>
  %m = nn.mean %lsm : (tensor<4x16xf32>) -> tensor<f32>
  return %ce : tensor<f32>
}

// CHECK-LABEL: func.func @sequence
func.func @sequence(%ids: tensor<2x6xi32>, %table: tensor<100x8xf32>,
                    %key: tensor<2xui32>, %ikey: tensor<2xi32>,
                    %kv: tensor<2x5x8xf32>) -> tensor<2x6x8xf32> {
  // CHECK: %[[E:.*]] = nn.embedding %{{.*}}, %{{.*}} : (tensor<2x6xi32>, tensor<100x8xf32>) -> tensor<2x6x8xf32>
  %e = nn.embedding %ids, %table : (tensor<2x6xi32>, tensor<100x8xf32>) -> tensor<2x6x8xf32>
  // CHECK: nn.embedding %{{.*}}, %{{.*}} {checked = true} : (tensor<2x6xi32>, tensor<100x8xf32>) -> tensor<2x6x8xf32>
  %ec = nn.embedding %ids, %table {checked = true} : (tensor<2x6xi32>, tensor<100x8xf32>) -> tensor<2x6x8xf32>
  // CHECK: %[[A:.*]] = nn.attention %[[E]], %[[E]], %[[E]] {causal = true, num_heads = 2 : i64}
  // GENERIC: "nn.attention"(%{{.*}}, %{{.*}}, %{{.*}}) <{causal = true, num_heads = 2 : i64}>
  %a = nn.attention %e, %e, %e {num_heads = 2 : i64, causal = true} : (tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  // CHECK: nn.attention %[[A]], %{{.*}}, %{{.*}} {num_heads = 4 : i64} : (tensor<2x6x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>)
  %c = nn.attention %a, %kv, %kv {num_heads = 4 : i64} : (tensor<2x6x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x6x8xf32>
  // CHECK: %[[D:.*]] = nn.dropout %{{.*}}, %{{.*}} {rate = 1.000000e-01 : f32} : (tensor<2x6x8xf32>, tensor<2xui32>) -> tensor<2x6x8xf32>
  // GENERIC: "nn.dropout"(%{{.*}}, %{{.*}}) <{rate = 1.000000e-01 : f32}>
  %d = nn.dropout %c, %key {rate = 0.1 : f32} : (tensor<2x6x8xf32>, tensor<2xui32>) -> tensor<2x6x8xf32>
  // CHECK: nn.dropout %[[D]], %{{.*}} {rate = 0.000000e+00 : f32} : (tensor<2x6x8xf32>, tensor<2xi32>)
  %d2 = nn.dropout %d, %ikey {rate = 0.0 : f32} : (tensor<2x6x8xf32>, tensor<2xi32>) -> tensor<2x6x8xf32>
  return %d2 : tensor<2x6x8xf32>
}

// CHECK-LABEL: func.func @reversible
func.func @reversible(%x1: tensor<8x16xf32>, %x2: tensor<8x16xf32>,
                      %w: tensor<16x16xf32>, %b: tensor<16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  // CHECK: %[[Y:.*]]:2 = nn.reversible_serial %{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<8x16xf32> {
  // CHECK: ^bb0(%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x16xf32>):
  // CHECK:   %[[H:.*]]:2 = nn.reversible_half_residual %[[A]], %[[B]] : tensor<8x16xf32>, tensor<8x16xf32> {
  // CHECK:   ^bb0(%[[C:.*]]: tensor<8x16xf32>):
  // CHECK:     %[[F:.*]] = nn.dense %[[C]]
  // CHECK:     nn.yield %[[F]] : tensor<8x16xf32>
  // CHECK:   %[[S1:.*]], %[[S2:.*]] = nn.reversible_swap %[[H]]#0, %[[H]]#1 : tensor<8x16xf32>, tensor<8x16xf32>
  // CHECK:   %[[I:.*]]:2 = nn.reversible_serial %[[S1]], %[[S2]]
  // CHECK:   nn.yield %[[I]]#0, %[[I]]#1 : tensor<8x16xf32>, tensor<8x16xf32>
  // GENERIC: "nn.reversible_serial"
  // GENERIC: "nn.reversible_half_residual"
  // GENERIC: "nn.yield"
  // GENERIC: "nn.reversible_swap"
  %y1, %y2 = nn.reversible_serial %x1, %x2 : tensor<8x16xf32>, tensor<8x16xf32> {
  ^bb0(%a: tensor<8x16xf32>, %bb: tensor<8x16xf32>):
    %a1, %b1 = nn.reversible_half_residual %a, %bb : tensor<8x16xf32>, tensor<8x16xf32> {
    ^bb0(%c: tensor<8x16xf32>):
      %f = nn.dense %c, %w, %b : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
      nn.yield %f : tensor<8x16xf32>
    }
    %s1, %s2 = nn.reversible_swap %a1, %b1 : tensor<8x16xf32>, tensor<8x16xf32>
    %i1, %i2 = nn.reversible_serial %s1, %s2 : tensor<8x16xf32>, tensor<8x16xf32> {
    ^bb0(%p: tensor<8x16xf32>, %q: tensor<8x16xf32>):
      %p1, %q1 = nn.reversible_half_residual %p, %q : tensor<8x16xf32>, tensor<8x16xf32> {
      ^bb0(%c: tensor<8x16xf32>):
        %t = nn.tanh %c : tensor<8x16xf32>
        nn.yield %t : tensor<8x16xf32>
      }
      nn.yield %p1, %q1 : tensor<8x16xf32>, tensor<8x16xf32>
    }
    nn.yield %i1, %i2 : tensor<8x16xf32>, tensor<8x16xf32>
  }
  return %y1, %y2 : tensor<8x16xf32>, tensor<8x16xf32>
}

// Layer state out of a reversible block (RevNet: batch norm's running
// statistics), through a nested serial.
// CHECK-LABEL: func.func @reversible_state
// CHECK: %[[Y:.*]]:4 = nn.reversible_serial
// CHECK:   %[[S:.*]], %[[T:.*]] = nn.reversible_swap
// CHECK:   %[[I:.*]]:4 = nn.reversible_serial %[[S]], %[[T]]
// CHECK:     %[[H:.*]]:4 = nn.reversible_half_residual
// CHECK:       nn.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK:     nn.yield %[[H]]#0, %[[H]]#1, %[[H]]#2, %[[H]]#3
// CHECK:   nn.yield %[[I]]#0, %[[I]]#1, %[[I]]#2, %[[I]]#3
// CHECK: return %[[Y]]#0, %[[Y]]#1, %[[Y]]#2, %[[Y]]#3
// GENERIC: "nn.reversible_serial"
// GENERIC: "nn.reversible_serial"
// GENERIC: "nn.reversible_half_residual"
// GENERIC: (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
func.func @reversible_state(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>, %s: tensor<4xf32>,
                            %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y1, %y2, %nm, %nv = nn.reversible_serial %x1, %x2 : tensor<2x4xf32>, tensor<2x4xf32> {
  ^bb0(%a: tensor<2x4xf32>, %bb: tensor<2x4xf32>):
    %s1, %s2 = nn.reversible_swap %a, %bb : tensor<2x4xf32>, tensor<2x4xf32>
    %i1, %i2, %i3, %i4 = nn.reversible_serial %s1, %s2 : tensor<2x4xf32>, tensor<2x4xf32> {
    ^bb0(%p: tensor<2x4xf32>, %q: tensor<2x4xf32>):
      %a1, %b1, %m1, %v1 = nn.reversible_half_residual %p, %q : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%c: tensor<2x4xf32>):
        %y, %m2, %v2 = nn.batch_norm %c, %s, %b, %m, %v
            : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
            -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
        nn.yield %y, %m2, %v2 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
      }
      nn.yield %a1, %b1, %m1, %v1 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
    }
    nn.yield %i1, %i2, %i3, %i4 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return %y1, %y2, %nm, %nv : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A half-residual with several context values, a different accumulator
// shape and f64.
// CHECK-LABEL: func.func @multi_context
func.func @multi_context(%acc: tensor<4xf64>, %c1: tensor<4x3xf64>, %c2: tensor<3x4xf64>, %bias: tensor<4xf64>)
    -> (tensor<4xf64>, tensor<4x3xf64>, tensor<3x4xf64>) {
  // CHECK: nn.reversible_half_residual %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf64>, tensor<4x3xf64>, tensor<3x4xf64>
  %r:3 = nn.reversible_half_residual %acc, %c1, %c2 : tensor<4xf64>, tensor<4x3xf64>, tensor<3x4xf64> {
  ^bb0(%a: tensor<4x3xf64>, %b: tensor<3x4xf64>):
    %m = nn.mean %a : (tensor<4x3xf64>) -> tensor<f64>
    %d = nn.dense %a, %b, %bias : (tensor<4x3xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<4x4xf64>
    %s = nn.softmax %d : tensor<4x4xf64>
    %row = tensor.extract_slice %s[0, 0] [1, 4] [1, 1] : tensor<4x4xf64> to tensor<4xf64>
    nn.yield %row : tensor<4xf64>
  }
  return %r#0, %r#1, %r#2 : tensor<4xf64>, tensor<4x3xf64>, tensor<3x4xf64>
}

// CHECK-LABEL: func.func @sigmoid
// GENERIC-LABEL: sym_name = "sigmoid"
func.func @sigmoid(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
  // CHECK: nn.sigmoid %{{.*}} : tensor<3x5xf64>
  // GENERIC: "nn.sigmoid"(%{{.*}}) : (tensor<3x5xf64>) -> tensor<3x5xf64>
  %y = nn.sigmoid %x : tensor<3x5xf64>
  return %y : tensor<3x5xf64>
}

// Generic form: the attribute names of SPEC's vision table; defaults apply
// when they are left out (and are elided when printed).
// CHECK-LABEL: func.func @conv2d_flatten
// GENERIC-LABEL: sym_name = "conv2d_flatten"
func.func @conv2d_flatten(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x144xf32> {
  // CHECK: nn.conv2d %{{.*}}, %{{.*}}, %{{.*}} {padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>}
  // GENERIC: "nn.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) <{dilations = array<i64: 1, 1>, padding = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>}>
  %y = "nn.conv2d"(%x, %w, %b) {strides = array<i64: 2, 2>, padding = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1>}
      : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  // CHECK: nn.conv2d %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<2x6x6x4xf32>
  %z = nn.conv2d %x, %w, %b : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<2x6x6x4xf32>
  // CHECK: nn.flatten %{{.*}} : (tensor<2x6x6x4xf32>) -> tensor<2x144xf32>
  // GENERIC: "nn.flatten"(%{{.*}}) : (tensor<2x6x6x4xf32>) -> tensor<2x144xf32>
  %f = nn.flatten %z : (tensor<2x6x6x4xf32>) -> tensor<2x144xf32>
  return %f : tensor<2x144xf32>
}

// Pools: strides default to the window (left out when not given), padding
// to zeros; batch_norm's defaults (epsilon 1e-5, momentum 0.1, training).
// CHECK-LABEL: func.func @pools_batch_norm
// GENERIC-LABEL: sym_name = "pools_batch_norm"
func.func @pools_batch_norm(%x: tensor<2x8x8x3xf32>, %c: tensor<3xf32>)
    -> (tensor<2x4x4x3xf32>, tensor<2x4x7x3xf32>, tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  // CHECK: nn.max_pool2d %{{.*}} {window = array<i64: 2, 2>} : (tensor<2x8x8x3xf32>) -> tensor<2x4x4x3xf32>
  // GENERIC: "nn.max_pool2d"(%{{.*}}) <{padding = array<i64: 0, 0, 0, 0>, window = array<i64: 2, 2>}>
  %m = "nn.max_pool2d"(%x) {window = array<i64: 2, 2>} : (tensor<2x8x8x3xf32>) -> tensor<2x4x4x3xf32>
  // CHECK: nn.avg_pool2d %{{.*}} {padding = array<i64: 0, 1, 1, 0>, strides = array<i64: 2, 1>, window = array<i64: 3, 2>} : (tensor<2x8x8x3xf32>) -> tensor<2x4x8x3xf32>
  // GENERIC: "nn.avg_pool2d"(%{{.*}}) <{padding = array<i64: 0, 1, 1, 0>, strides = array<i64: 2, 1>, window = array<i64: 3, 2>}>
  %a = nn.avg_pool2d %x {window = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 0, 1, 1, 0>}
      : (tensor<2x8x8x3xf32>) -> tensor<2x4x8x3xf32>
  %a2 = nn.avg_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 2, 1>} : (tensor<2x8x8x3xf32>) -> tensor<2x4x7x3xf32>
  // CHECK: nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // GENERIC: "nn.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 9.99999974E-6 : f32, momentum = 1.000000e-01 : f32, training = true}>
  %y, %nm, %nv = "nn.batch_norm"(%m, %c, %c, %c, %c)
      : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32, momentum = 3.000000e-01 : f32, training = false}
  %z, %zm, %zv = nn.batch_norm %y, %c, %c, %nm, %nv {epsilon = 1.0e-03 : f32, momentum = 3.0e-01 : f32, training = false}
      : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %m, %a2, %z, %zm, %zv : tensor<2x4x4x3xf32>, tensor<2x4x7x3xf32>, tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>
}

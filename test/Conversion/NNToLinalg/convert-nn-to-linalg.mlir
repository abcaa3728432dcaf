// RUN: trellis-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s
// RUN: trellis-opt %s -split-input-file --convert-nn-to-linalg | FileCheck %s --check-prefix=NONN

// No nn op survives the conversion.
// NONN-NOT: {{(= |^ *)"?nn\.}}

// dense: the batch dims are merged, the bias broadcast is the matmul's init.
// CHECK-LABEL: func.func @dense_rank3
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>) outs(%{{.*}} : tensor<6x4xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[X2]], %[[W]] : tensor<6x8xf32>, tensor<8x4xf32>) outs(%[[INIT]] : tensor<6x4xf32>)
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 4]
// CHECK: return %[[Y]]
func.func @dense_rank3(%x: tensor<2x3x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.dense %x, %w, %b : (tensor<2x3x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @dense_rank1
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: linalg.matmul
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x4xf32> into tensor<4xf32>
func.func @dense_rank1(%x: tensor<8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.dense %x, %w, %b : (tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK: linalg.generic
// CHECK:   arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK: linalg.generic
// CHECK:   math.tanh
// CHECK: linalg.generic
// CHECK:   arith.constant -0.70710678118654757 : f64
// CHECK:   math.erfc
// CHECK: linalg.generic
// CHECK:   arith.constant 4.471500e-02 : f64
// CHECK:   arith.constant 0.79788456080286541 : f64
// CHECK:   math.tanh
func.func @activations(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
  %0 = nn.relu %x : tensor<3x5xf64>
  %1 = nn.tanh %0 : tensor<3x5xf64>
  %2 = nn.gelu %1 : tensor<3x5xf64>
  %3 = nn.gelu %2 {approximate = true} : tensor<3x5xf64>
  return %3 : tensor<3x5xf64>
}

// -----

// sigmoid: 1 / (1 + e^-x), one linalg.generic.
// CHECK-LABEL: func.func @sigmoid
// CHECK: linalg.generic
// CHECK:   arith.negf
// CHECK:   math.exp
// CHECK:   arith.addf
// CHECK:   arith.divf
// CHECK-NOT: nn.sigmoid
func.func @sigmoid(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
  %0 = nn.sigmoid %x : tensor<3x5xf64>
  return %0 : tensor<3x5xf64>
}

// -----

// softmax subtracts the row maximum (initialised to -inf) before exp.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NINF]] : f32)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:   arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[MAX]] :
// CHECK:   %[[S:.*]] = arith.subf
// CHECK:   %[[E:.*]] = math.exp %[[S]]
// CHECK:   arith.addf %[[E]]
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[MAX]], %[[SUM]] :
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK:   arith.divf
func.func @softmax(%x: tensor<2x4x10xf32>) -> tensor<2x4x10xf32> {
  %0 = nn.softmax %x : tensor<2x4x10xf32>
  return %0 : tensor<2x4x10xf32>
}

// -----

// log_softmax: x - max - log(sum).
// CHECK-LABEL: func.func @log_softmax
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK:   %[[SH:.*]] = arith.subf
// CHECK:   %[[L:.*]] = math.log
// CHECK:   arith.subf %[[SH]], %[[L]]
// CHECK-NOT: arith.divf
func.func @log_softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = nn.log_softmax %x : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// cross-entropy: logsumexp minus the label's logit, picked by a masked sum
// (no gather), then the batch mean.
// CHECK-LABEL: func.func @cross_entropy
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x10xf32>, tensor<4xi32>)
// CHECK:   linalg.index 1
// CHECK:   arith.cmpi eq
// CHECK:   arith.select
// CHECK: linalg.generic
// CHECK:   math.log
// CHECK:   arith.addf
// CHECK:   arith.subf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK: arith.constant 2.500000e-01 : f32
func.func @cross_entropy(%l: tensor<4x10xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  %0 = nn.cross_entropy %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// cross-entropy of BxLxC logits: the label picked along the last loop, the
// mean over all B·L positions (1/6).
// CHECK-LABEL: func.func @cross_entropy_rank3
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x3x10xf32>, tensor<2x3xi32>)
// CHECK:   linalg.index 2
// CHECK:   arith.cmpi eq
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.constant 0.166666672 : f32
func.func @cross_entropy_rank3(%l: tensor<2x3x10xf32>, %y: tensor<2x3xi32>) -> tensor<f32> {
  %0 = nn.cross_entropy %l, %y : (tensor<2x3x10xf32>, tensor<2x3xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @mean
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.constant 0.083333333333333329 : f64
func.func @mean(%x: tensor<3x4xf64>) -> tensor<f64> {
  %0 = nn.mean %x : (tensor<3x4xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// layer_norm: two-pass variance, epsilon added before the square root.
// CHECK-LABEL: func.func @layer_norm
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:   arith.subf
// CHECK:   arith.mulf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:   %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK:   %[[VE:.*]] = arith.addf %{{.*}}, %[[EPS]]
// CHECK:   math.sqrt %[[VE]]
// CHECK:   arith.divf
func.func @layer_norm(%x: tensor<4x16xf32>, %s: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = nn.layer_norm %x, %s, %b {epsilon = 1.0e-5 : f32} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// f64 layer_norm: an f64 epsilon is used exactly; an f32 one (and the
// default) as the decimal that was written, not its f32 rounding.
// CHECK-LABEL: func.func @layer_norm_f64
// CHECK:   arith.constant 1.000000e-300 : f64
// CHECK:   arith.constant 9.9999999999999998E-13 : f64
// CHECK:   arith.constant 9.9999999999999995E-7 : f64
func.func @layer_norm_f64(%x: tensor<4x16xf64>, %s: tensor<16xf64>, %b: tensor<16xf64>) -> (tensor<4x16xf64>, tensor<4x16xf64>, tensor<4x16xf64>) {
  %0 = nn.layer_norm %x, %s, %b {epsilon = 1.0e-300 : f64} : (tensor<4x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  %1 = nn.layer_norm %x, %s, %b {epsilon = 1.0e-12 : f32} : (tensor<4x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  %2 = nn.layer_norm %x, %s, %b : (tensor<4x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  return %0, %1, %2 : tensor<4x16xf64>, tensor<4x16xf64>, tensor<4x16xf64>
}

// -----

// embedding: ids clamped to [0, V) and gathered in the body.
// CHECK-LABEL: func.func @embedding
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x6xi32>) outs(%{{.*}} : tensor<2x6x8xf32>)
// CHECK:   %[[HI:.*]] = arith.constant 99 : i32
// CHECK:   arith.maxsi
// CHECK:   arith.minsi %{{.*}}, %[[HI]]
// CHECK:   %[[ROW:.*]] = arith.index_cast
// CHECK:   %[[COL:.*]] = linalg.index 2
// CHECK:   tensor.extract %{{.*}}[%[[ROW]], %[[COL]]] : tensor<100x8xf32>
func.func @embedding(%ids: tensor<2x6xi32>, %t: tensor<100x8xf32>) -> tensor<2x6x8xf32> {
  %0 = nn.embedding %ids, %t : (tensor<2x6xi32>, tensor<100x8xf32>) -> tensor<2x6x8xf32>
  return %0 : tensor<2x6x8xf32>
}

// -----

// embedding {checked = true}: an OR over all ids of "outside [0, 100)"
// guards a call of the runtime's one-line error exit, before the gather.
// CHECK-DAG: llvm.mlir.global private constant @__trellis_check_message_0("nn.embedding ({{.*}}convert-nn-to-linalg.mlir:{{[0-9]+}}:{{[0-9]+}}): an id is outside [0, 100) (checked = true)\00")
// CHECK-DAG: func.func private @trellis_coll_abort(!llvm.ptr, i32)
// CHECK-LABEL: func.func @embedding_checked
// CHECK: %[[ANY:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]{{.*}} ins(%{{.*}} : tensor<2x6xi32>) outs(%{{.*}} : tensor<i1>)
// CHECK:   %[[LO:.*]] = arith.cmpi slt
// CHECK:   %[[HI:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK:   arith.ori %[[LO]], %[[HI]]
// CHECK: %[[BAD:.*]] = tensor.extract %[[ANY]][] : tensor<i1>
// CHECK: scf.if %[[BAD]] {
// CHECK:   %[[MSG:.*]] = llvm.mlir.addressof @__trellis_check_message_0 : !llvm.ptr
// CHECK:   func.call @trellis_coll_abort(%[[MSG]], %{{.*}}) : (!llvm.ptr, i32) -> ()
// CHECK: }
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x6xi32>) outs(%{{.*}} : tensor<2x6x8xf32>)
func.func @embedding_checked(%ids: tensor<2x6xi32>, %t: tensor<100x8xf32>) -> tensor<2x6x8xf32> {
  %0 = nn.embedding %ids, %t {checked = true} : (tensor<2x6xi32>, tensor<100x8xf32>) -> tensor<2x6x8xf32>
  return %0 : tensor<2x6x8xf32>
}

// -----

// attention: heads split by expand_shape, scores contracted over the head
// dim, scaled by 1/sqrt(Dh), future keys masked with -inf, softmax, weighted
// sum over keys, heads merged back.
// CHECK-LABEL: func.func @attention
// CHECK: %[[Q:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 6, 2, 4] : tensor<2x6x8xf32> into tensor<2x6x2x4xf32>
// CHECK: %[[SC:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]], %{{.*}} : tensor<2x6x2x4xf32>, tensor<2x6x2x4xf32>) outs(%{{.*}} : tensor<2x2x6x6xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SC]] : tensor<2x2x6x6xf32>)
// CHECK:   arith.constant 5.000000e-01 : f32
// CHECK:   %[[I:.*]] = linalg.index 2
// CHECK:   %[[J:.*]] = linalg.index 3
// CHECK:   %[[FUT:.*]] = arith.cmpi ugt, %[[J]], %[[I]]
// CHECK:   arith.select %[[FUT]], %{{.*}}, %{{.*}}
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: %[[O:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x6x2x4xf32>)
// CHECK: tensor.collapse_shape %[[O]] {{\[\[}}0], [1], [2, 3]] : tensor<2x6x2x4xf32> into tensor<2x6x8xf32>
func.func @attention(%q: tensor<2x6x8xf32>) -> tensor<2x6x8xf32> {
  %0 = nn.attention %q, %q, %q {num_heads = 2 : i64, causal = true} : (tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
  return %0 : tensor<2x6x8xf32>
}

// -----

// Without causal there is no mask.
// CHECK-LABEL: func.func @attention_cross
// CHECK-NOT: arith.cmpi
// CHECK: return
func.func @attention_cross(%q: tensor<1x3x8xf32>, %kv: tensor<1x5x8xf32>) -> tensor<1x3x8xf32> {
  %0 = nn.attention %q, %kv, %kv {num_heads = 4 : i64} : (tensor<1x3x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>) -> tensor<1x3x8xf32>
  return %0 : tensor<1x3x8xf32>
}

// -----

// dropout: Threefry-2x32 of the linear index under the key; keep when the
// first word >= round(rate * 2^32) = 1073741824 for rate 0.25; scale 4/3.
// CHECK-LABEL: func.func @dropout
// CHECK: %[[K0:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<2xui32>
// CHECK: builtin.unrealized_conversion_cast %[[K0]] : ui32 to i32
// CHECK: linalg.generic
// CHECK:   linalg.index 0
// CHECK:   linalg.index 1
// CHECK:   arith.index_castui %{{.*}} : index to i64
// CHECK:   arith.constant 466688986 : i32
// CHECK-COUNT-20: arith.shli
// CHECK:   %[[T:.*]] = arith.constant 1073741824 : i32
// CHECK:   %[[KEEP:.*]] = arith.cmpi uge, %{{.*}}, %[[T]] : i32
// CHECK:   arith.constant 1.33333337 : f32
// CHECK:   arith.select %[[KEEP]]
func.func @dropout(%x: tensor<4x10xf32>, %k: tensor<2xui32>) -> tensor<4x10xf32> {
  %0 = nn.dropout %x, %k {rate = 0.25 : f32} : (tensor<4x10xf32>, tensor<2xui32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// A signless key needs no cast.
// CHECK-LABEL: func.func @dropout_i32_key
// CHECK-NOT: unrealized_conversion_cast
// CHECK: return
func.func @dropout_i32_key(%x: tensor<4xf32>, %k: tensor<2xi32>) -> tensor<4xf32> {
  %0 = nn.dropout %x, %k {rate = 0.5 : f32} : (tensor<4xf32>, tensor<2xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The reversible ops' forward meaning: bodies inlined, the residual added to
// the accumulator, swaps forwarding their operands crosswise.
// CHECK-LABEL: func.func @reversible
// CHECK-SAME: (%[[X1:.*]]: tensor<4x8xf32>, %[[X2:.*]]: tensor<4x8xf32>)
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%[[X2]] : tensor<4x8xf32>)
// CHECK:   math.tanh
// CHECK: %[[Y1:.*]] = linalg.generic {{.*}} ins(%[[X1]], %[[F]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   arith.addf
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[Y1]] : tensor<4x8xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[Y2:.*]] = linalg.generic {{.*}} ins(%[[X2]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   arith.addf
// CHECK: return %[[Y2]], %[[Y1]]
func.func @reversible(%x1: tensor<4x8xf32>, %x2: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %y:2 = nn.reversible_serial %x1, %x2 : tensor<4x8xf32>, tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %p:2 = nn.reversible_half_residual %a, %b : tensor<4x8xf32>, tensor<4x8xf32> {
    ^bb0(%c: tensor<4x8xf32>):
      %t = nn.tanh %c : tensor<4x8xf32>
      nn.yield %t : tensor<4x8xf32>
    }
    %s:2 = nn.reversible_swap %p#0, %p#1 : tensor<4x8xf32>, tensor<4x8xf32>
    %inner:2 = nn.reversible_serial %s#0, %s#1 : tensor<4x8xf32>, tensor<4x8xf32> {
    ^bb0(%u: tensor<4x8xf32>, %v: tensor<4x8xf32>):
      %q:2 = nn.reversible_half_residual %u, %v : tensor<4x8xf32>, tensor<4x8xf32> {
      ^bb0(%c: tensor<4x8xf32>):
        %r = nn.relu %c : tensor<4x8xf32>
        nn.yield %r : tensor<4x8xf32>
      }
      nn.yield %q#0, %q#1 : tensor<4x8xf32>, tensor<4x8xf32>
    }
    %s2:2 = nn.reversible_swap %inner#0, %inner#1 : tensor<4x8xf32>, tensor<4x8xf32>
    nn.yield %s2#0, %s2#1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %y#1, %y#0 : tensor<4x8xf32>, tensor<4x8xf32>
}

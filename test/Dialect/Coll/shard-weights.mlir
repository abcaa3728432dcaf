// RUN: trellis-opt %s --coll-shard-weights='shards=2 ranks=4' | FileCheck %s
// RUN: trellis-opt %s --coll-shard-weights='shards=1' | FileCheck %s --check-prefix=CHECK-ONE
// RUN: not trellis-opt %s --coll-shard-weights='shards=3 ranks=4' 2>&1 | FileCheck %s --check-prefix=CHECK-BAD
// RUN: trellis-opt %s --coll-shard-weights='shards=2 ranks=4' --coll-average-gradients --ad-differentiate --inline --canonicalize | FileCheck %s --check-prefix=CHECK-GRAD

// A training step: the parameters are the leading arguments without
// trellis.batch; %w (8x4) and %m (8x4, a moment) are split in halves over
// the shard groups [0, 1] and [2, 3]; %b (3: odd) and %t (a scalar) stay
// whole. The gradient is taken of a wrapper of @loss that gathers the
// shard inside an ad.checkpoint; the gradient of the shard, divided by 2,
// is this rank's part of the group's mean gradient, and the update is
// recomputed on shards (so %m is never gathered).

// CHECK-LABEL: func.func private @loss.weight_shards
// CHECK-SAME: (%[[SW:.*]]: tensor<4x4xf32>, %[[SB:.*]]: tensor<3xf32>, %[[SX:.*]]: tensor<2x8xf32>) -> tensor<f32>
// CHECK: %[[WF:.*]] = ad.checkpoint -> tensor<8x4xf32> {
// CHECK: coll.all_gather %[[SW]] {axis = "batch", dim = 0 : i64, groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK: %[[L:.*]] = call @loss(%[[WF]], %[[SB]], %[[SX]])
// CHECK: return %[[L]]

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[W:.*]]: tensor<4x4xf32> {coll.replica_groups = dense<{{\[\[}}0, 2], [1, 3]]> : tensor<2x2xi64>, trellis.init = "glorot_uniform"}, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<4x4xf32> {coll.replica_groups = {{.*}}}, %[[T:.*]]: tensor<f32>, %[[X:.*]]: tensor<2x8xf32> {trellis.batch = "x"})
// CHECK-SAME: -> (tensor<4x4xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<f32>, tensor<f32>)
// CHECK-NOT: coll.all_gather
// CHECK: %[[LG:.*]]:3 = ad.value_and_grad @loss.weight_shards(%[[W]], %[[B]], %[[X]]) {argnums = array<i64: 0, 1>} : (tensor<4x4xf32>, tensor<3xf32>, tensor<2x8xf32>) -> (tensor<f32>, tensor<4x4xf32>, tensor<3xf32>)
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<4x4xf32>
// CHECK: %[[G:.*]] = arith.mulf %[[LG]]#1, %[[HALF]] : tensor<4x4xf32>
// CHECK: %[[NM:.*]] = arith.addf %[[M]], %[[G]] : tensor<4x4xf32>
// CHECK: %[[NW:.*]] = arith.subf %[[W]], %[[NM]] : tensor<4x4xf32>
// CHECK-NOT: tensor<8x4xf32>
// CHECK: return %[[NW]], %{{.*}}, %[[NM]], %[[T]], %[[LG]]#0 : tensor<4x4xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<f32>, tensor<f32>

// @eval takes the same parameters and returns metrics: its sharded
// arguments are gathered, its results are left alone.
// CHECK-LABEL: func.func @eval
// CHECK-SAME: (%[[EW:.*]]: tensor<4x4xf32> {coll.replica_groups = {{.*}}}, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<4x4xf32> {coll.replica_groups = {{.*}}}, %{{.*}}: tensor<f32>, %{{.*}}: tensor<2x8xf32> {trellis.batch = "x"}) -> tensor<f32>
// CHECK: coll.all_gather %[[EW]]
// CHECK-NOT: tensor.extract_slice

// Other functions are not touched.
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%{{.*}}: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: coll.all_gather

// Differentiated: the gather's derivative is a reduce-scatter within the
// shard group (coll.psum_scatter: this rank's rows of the sum), then
// coll-average-gradients
// averages the shard's gradient over the ranks holding the same shard
// (coll.replica_groups), the whole bias's over all ranks.
// CHECK-GRAD-LABEL: func.func @train_step
// CHECK-GRAD-DAG: coll.psum_scatter %{{.*}} {axis = "batch", dim = 0 : i64, groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK-GRAD-DAG: coll.pmean %{{.*}} {axis = "batch", groups = dense<{{\[\[}}0, 2], [1, 3]]> : tensor<2x2xi64>} : tensor<4x4xf32>
// CHECK-GRAD-DAG: coll.pmean %{{.*}} {axis = "batch"} : tensor<3xf32>

// CHECK-ONE-LABEL: func.func @train_step
// CHECK-ONE-SAME: tensor<8x4xf32>
// CHECK-ONE-NOT: coll.all_gather

// CHECK-BAD: error: coll-shard-weights: shards=3 must be at least 1 and divide ranks=4
func.func private @loss(%w: tensor<8x4xf32>, %b: tensor<3xf32>, %x: tensor<2x8xf32>) -> tensor<f32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %p = nn.dense %x, %w, %zero : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l1 = nn.mean %p : (tensor<2x4xf32>) -> tensor<f32>
  %l2 = nn.mean %b : (tensor<3xf32>) -> tensor<f32>
  %l = arith.addf %l1, %l2 : tensor<f32>
  return %l : tensor<f32>
}

func.func @train_step(%w: tensor<8x4xf32> {trellis.init = "glorot_uniform"}, %b: tensor<3xf32>,
                      %m: tensor<8x4xf32>, %t: tensor<f32>,
                      %x: tensor<2x8xf32> {trellis.batch = "x"})
    -> (tensor<8x4xf32>, tensor<3xf32>, tensor<8x4xf32>, tensor<f32>, tensor<f32>) {
  %l, %gw, %gb = ad.value_and_grad @loss(%w, %b, %x) {argnums = array<i64: 0, 1>}
      : (tensor<8x4xf32>, tensor<3xf32>, tensor<2x8xf32>) -> (tensor<f32>, tensor<8x4xf32>, tensor<3xf32>)
  %nm = arith.addf %m, %gw : tensor<8x4xf32>
  %nw = arith.subf %w, %nm : tensor<8x4xf32>
  %nb = arith.subf %b, %gb : tensor<3xf32>
  return %nw, %nb, %nm, %t, %l : tensor<8x4xf32>, tensor<3xf32>, tensor<8x4xf32>, tensor<f32>, tensor<f32>
}

func.func @eval(%w: tensor<8x4xf32>, %b: tensor<3xf32>, %m: tensor<8x4xf32>, %t: tensor<f32>,
                %x: tensor<2x8xf32> {trellis.batch = "x"}) -> tensor<f32> {
  %s = nn.mean %w : (tensor<8x4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

func.func @helper(%w: tensor<8x4xf32>) -> tensor<8x4xf32> {
  return %w : tensor<8x4xf32>
}

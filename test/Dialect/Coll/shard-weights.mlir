// RUN: trellis-opt %s --allow-unregistered-dialect --coll-shard-weights='shards=2 ranks=4' | FileCheck %s
// RUN: trellis-opt %s --allow-unregistered-dialect --coll-shard-weights='shards=1' | FileCheck %s --check-prefix=CHECK-ONE
// RUN: not trellis-opt %s --allow-unregistered-dialect --coll-shard-weights='shards=3 ranks=4' 2>&1 | FileCheck %s --check-prefix=CHECK-BAD

// A training step: the parameters are the leading arguments without
// trellis.batch; %w (8x4) and %m (8x4, a moment) are split in halves over
// the groups [0, 1] and [2, 3]; %b (3: odd) and %t (a scalar) stay whole.
// %w, which the loss reads, is gathered at the entry; the update is
// recomputed on the shards (the arguments, and a slice of the gradient at
// this rank's rows: its column in its group times 4), so %m, which only
// the update reads, is never gathered, and the whole update is gone.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[W:.*]]: tensor<4x4xf32> {trellis.init = "glorot_uniform"}, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<4x4xf32>, %[[T:.*]]: tensor<f32>, %[[X:.*]]: tensor<2x8xf32> {trellis.batch = "x"})
// CHECK-SAME: -> (tensor<4x4xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<f32>, tensor<f32>)
// CHECK: %[[WF:.*]] = coll.all_gather %[[W]] {axis = "batch", dim = 0 : i64, groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NOT: coll.all_gather
// CHECK: %[[G:.*]] = "test.gradient"(%[[WF]], %[[X]])
// CHECK: %[[RANK:.*]] = coll.axis_index {axis = "batch"} : index
// CHECK: %[[TABLE:.*]] = arith.constant dense<[0, 1, 0, 1]> : tensor<4xindex>
// CHECK: %[[POS:.*]] = tensor.extract %[[TABLE]][%[[RANK]]] : tensor<4xindex>
// CHECK: %[[OFF:.*]] = arith.muli %[[POS]], %{{.*}} : index
// CHECK: %[[GS:.*]] = tensor.extract_slice %[[G]][%[[OFF]], 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
// CHECK: %[[NM:.*]] = arith.addf %[[M]], %[[GS]] : tensor<4x4xf32>
// CHECK: %[[NW:.*]] = arith.subf %[[W]], %[[NM]] : tensor<4x4xf32>
// CHECK-NOT: tensor<8x4xf32>
// CHECK: return %[[NW]], %[[B]], %[[NM]], %[[T]], %{{.*}} : tensor<4x4xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<f32>, tensor<f32>

// @eval takes the same parameters and returns metrics: its sharded
// arguments are gathered, its results are left alone.
// CHECK-LABEL: func.func @eval
// CHECK-SAME: (%[[EW:.*]]: tensor<4x4xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<2x8xf32> {trellis.batch = "x"}) -> tensor<f32>
// CHECK: coll.all_gather %[[EW]]
// CHECK-NOT: tensor.extract_slice

// Other functions are not touched.
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%{{.*}}: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: coll.all_gather

// CHECK-ONE-LABEL: func.func @train_step
// CHECK-ONE-SAME: tensor<8x4xf32>
// CHECK-ONE-NOT: coll.all_gather

// CHECK-BAD: error: coll-shard-weights: shards=3 must be at least 1 and divide ranks=4
func.func @train_step(%w: tensor<8x4xf32> {trellis.init = "glorot_uniform"}, %b: tensor<3xf32>,
                      %m: tensor<8x4xf32>, %t: tensor<f32>,
                      %x: tensor<2x8xf32> {trellis.batch = "x"})
    -> (tensor<8x4xf32>, tensor<3xf32>, tensor<8x4xf32>, tensor<f32>, tensor<f32>) {
  %g = "test.gradient"(%w, %x) : (tensor<8x4xf32>, tensor<2x8xf32>) -> tensor<8x4xf32>
  %nm = arith.addf %m, %g : tensor<8x4xf32>
  %nw = arith.subf %w, %nm : tensor<8x4xf32>
  %l = nn.mean %x : (tensor<2x8xf32>) -> tensor<f32>
  return %nw, %b, %nm, %t, %l : tensor<8x4xf32>, tensor<3xf32>, tensor<8x4xf32>, tensor<f32>, tensor<f32>
}

func.func @eval(%w: tensor<8x4xf32>, %b: tensor<3xf32>, %m: tensor<8x4xf32>, %t: tensor<f32>,
                %x: tensor<2x8xf32> {trellis.batch = "x"}) -> tensor<f32> {
  %s = nn.mean %w : (tensor<8x4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

func.func @helper(%w: tensor<8x4xf32>) -> tensor<8x4xf32> {
  return %w : tensor<8x4xf32>
}

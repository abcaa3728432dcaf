// RUN: trellis-opt %s --coll-shard-weights='shards=2 ranks=2 functions=step' | FileCheck %s

// An update whose body reads its iteration index (linalg.index) is not
// elementwise in the sense the shards need: recomputed on rows 0..3 it
// would see indices 0..3 on both ranks. It runs on the whole parameter and
// its result is sliced at this rank's rows.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: tensor<4x2xf32> {coll.replica_groups = {{.*}}}) -> tensor<4x2xf32>
// CHECK: %[[WF:.*]] = coll.all_gather %[[W]] {{.*}} : tensor<4x2xf32> -> tensor<8x2xf32>
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[WF]] : tensor<8x2xf32>)
// CHECK: linalg.index 0
// CHECK: %[[S:.*]] = tensor.extract_slice %[[U]][%{{.*}}, 0] [4, 2] [1, 1] : tensor<8x2xf32> to tensor<4x2xf32>
// CHECK: return %[[S]] : tensor<4x2xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @step(%w: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %e = tensor.empty() : tensor<8x2xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<8x2xf32>) outs(%e : tensor<8x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<8x2xf32>
  return %u : tensor<8x2xf32>
}

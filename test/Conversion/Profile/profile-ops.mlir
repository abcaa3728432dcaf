// trellis-profile-ops brackets each piece of work of bufferized code with
// the profiler hooks and lists the sites, in order, as [class, location].
// RUN: trellis-opt %s --trellis-profile-ops --mlir-print-debuginfo --mlir-print-local-scope --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: module attributes {trellis.profile_sites = [
// CHECK-SAME: ["allocation", loc("alloc.here")]
// CHECK-SAME: ["fill", loc("fill.here")]
// CHECK-SAME: ["gemm", loc("gemm.here")]
// CHECK-SAME: ["elementwise", loc("map.here")]
// CHECK-SAME: ["reduction", loc("rows.here")]
// CHECK-SAME: ["loop-contraction", loc("matvec.here")]
// CHECK-SAME: ["copy", loc("copy.here")]
// CHECK-SAME: ["allocation", loc("dealloc.here")]
// CHECK-LABEL: func.func @step
// CHECK: %[[S0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @trellis_profile_begin(%[[S0]])
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: call @trellis_profile_end(%[[S0]])
// CHECK: %[[S2:.*]] = arith.constant 2 : i64
// CHECK-NEXT: call @trellis_profile_begin(%[[S2]])
// CHECK-NEXT: call @dnnl_sgemm
// CHECK-NEXT: call @trellis_profile_end(%[[S2]])
// The body of a linalg op is part of its work: no hooks inside.
// CHECK: linalg.generic
// CHECK-NOT: trellis_profile
// CHECK: linalg.yield
// CHECK: func.func private @trellis_profile_begin(i64)
// CHECK: func.func private @trellis_profile_end(i64)
func.func private @dnnl_sgemm(i8, i8, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32) -> i32
func.func @step(%a: memref<4x8xf32>, %v: memref<8xf32>, %p: !llvm.ptr, %t: i8, %n: i32, %f: f32) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<4x8xf32> loc("alloc.here")
  linalg.fill ins(%zero : f32) outs(%buf : memref<4x8xf32>) loc("fill.here")
  %r = func.call @dnnl_sgemm(%t, %t, %n, %n, %n, %f, %p, %n, %p, %n, %f, %p, %n) : (i8, i8, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32) -> i32 loc("gemm.here")
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%buf : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } loc("map.here")
  %sums = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%buf : memref<4x8xf32>) outs(%sums : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } loc("rows.here")
  linalg.matvec ins(%a, %v : memref<4x8xf32>, memref<8xf32>) outs(%sums : memref<4xf32>) loc("matvec.here")
  memref.copy %a, %buf : memref<4x8xf32> to memref<4x8xf32> loc("copy.here")
  memref.dealloc %buf : memref<4x8xf32> loc("dealloc.here")
  return %sums : memref<4xf32>
}

// -----

// A module with nothing to time gets an empty site table and no hooks.
// CHECK-LABEL: module attributes {trellis.profile_sites = []}
// CHECK-NOT: trellis_profile_begin
func.func @nothing(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}

// -----

// Instrumenting twice would time everything twice.
// expected-error @+1 {{the module is instrumented already ('trellis.profile_sites' is set)}}
module attributes {trellis.profile_sites = []} {
}

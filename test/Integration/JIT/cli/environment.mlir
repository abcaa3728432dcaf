// The environment is read once, when a tool starts (RuntimeConfig,
// docs/environment.md): an invalid value is an error naming the variable
// before anything is compiled; an empty one counts as unset; valid ones
// reach the allocator.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/x.npy "np.arange(4, dtype=np.float32)"
//
// RUN: env TRELLIS_MEMORY_LIMIT=lots %python %S/expect_error.py trellis-run %s --entry=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-LIMIT
// CHECK-LIMIT: LAST: trellis-run: error: TRELLIS_MEMORY_LIMIT: 'lots' is not a size (e.g. 4G, 1.5GiB, 512M, 1000000){{$}}
// RUN: env TRELLIS_ALLOC_CACHE_MB=1G %python %S/expect_error.py trellis-run %s --entry=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-CACHE
// CHECK-CACHE: LAST: trellis-run: error: TRELLIS_ALLOC_CACHE_MB: '1G' is not a number of MiB (e.g. 1024, 0 = off){{$}}
// RUN: env TRELLIS_NUM_THREADS=0 %python %S/expect_error.py trellis-run %s --entry=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-THREADS
// CHECK-THREADS: LAST: trellis-run: error: TRELLIS_NUM_THREADS: '0' is not a number of threads (e.g. 4){{$}}
//
// Every invalid variable is named, on the one line.
// RUN: env TRELLIS_MEMORY_LIMIT=lots TRELLIS_NUM_THREADS=many %python %S/expect_error.py trellis-run %s --entry=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-BOTH
// CHECK-BOTH: LAST: trellis-run: error: TRELLIS_MEMORY_LIMIT: 'lots' is not a size (e.g. 4G, 1.5GiB, 512M, 1000000) TRELLIS_NUM_THREADS: 'many' is not a number of threads (e.g. 4){{$}}
//
// The other tools read the same variables the same way.
// RUN: env TRELLIS_MEMORY_LIMIT=lots not trellis-equiv %s --entry=double --test-entry=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-EQUIV
// CHECK-EQUIV: trellis-equiv: error: TRELLIS_MEMORY_LIMIT: 'lots' is not a size
// RUN: env TRELLIS_MEMORY_LIMIT=lots not trellis-train %s --data=%t/none.npz --output-dir=%t/train 2>&1 | FileCheck %s --check-prefix=CHECK-TRAIN
// CHECK-TRAIN: trellis-train: error: TRELLIS_MEMORY_LIMIT: 'lots' is not a size
// RUN: env TRELLIS_MEMORY_LIMIT=lots not trellis-aot %s --function=double -o %t/double.o 2>&1 | FileCheck %s --check-prefix=CHECK-AOT
// CHECK-AOT: trellis-aot: error: TRELLIS_MEMORY_LIMIT: 'lots' is not a size
//
// Empty is unset; the tracing of allocations sees the result buffer come and
// go (it is copied out).
// RUN: env TRELLIS_MEMORY_LIMIT= TRELLIS_ALLOC_CACHE_MB= TRELLIS_NUM_THREADS= TRELLIS_TRACE_ALLOC=1 trellis-run %s --entry=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-TRACE
// CHECK-TRACE: alloc [[SIZE:[0-9]+]] live [[SIZE]]
// CHECK-TRACE-NEXT: free [[SIZE]] live 0
// CHECK-TRACE: result0: float32 (4,) [0, 2, 4, 6]
// RUN: env -u TRELLIS_TRACE_ALLOC trellis-run %s --entry=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-NOTRACE
// CHECK-NOTRACE-NOT: alloc
// CHECK-NOTRACE: result0: float32 (4,) [0, 2, 4, 6]

func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

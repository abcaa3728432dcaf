// The persistent compile cache (--cache-dir, TRELLIS_CACHE_DIR;
// docs/compile-cache.md): a first run misses and keeps the object code, a
// second links it without lowering (mlir_ms and llvm_ms 0) and computes the
// same bits as the miss and as no cache at all; an option, an entry or the
// module changed is a miss, a location is not; an entry that is damaged in
// any way is reported in one line and compiled anew (and overwritten); a
// directory that cannot be created or written is reported and the run goes
// on, exit status 0. The step has a oneDNN GEMM and vectorized tanh
// (libmvec): libraries the hit must load.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../cli/npy_tool.py save %t/x.npy "np.linspace(-1, 1, 64 * 16, dtype=np.float32).reshape(64, 16)"
// RUN: %python %S/../cli/npy_tool.py save %t/w.npy "np.cos(np.arange(256, dtype=np.float32)).reshape(16, 16) * 0.5"
// RUN: %python %S/../cli/npy_tool.py save %t/b.npy "np.full(16, 0.25, np.float32)"
//
// No cache: the reference results.
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --output-dir=%t/off > %t/off.txt
// RUN: FileCheck %s --check-prefix=CHECK-OFF < %t/off.txt
// CHECK-OFF: {"compile_ms": {{[0-9.]+}}, "run_ms": {{[0-9.]+}}, "peak_tensor_bytes": {{[0-9]+}}, "compile_phases": {"mlir_ms": {{[0-9.]+}}, "llvm_ms": {{[0-9.]+}}, "cache_ms": 0.000, "tuning_ms": {{[0-9.]+}}, "cache": "off"}}
//
// A miss compiles and keeps one entry, <key>.a and <key>.json, and no
// temporary file; the hit after it lowers and compiles nothing.
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --output-dir=%t/miss > %t/miss.txt 2>&1
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/miss.txt
// CHECK-MISS-NOT: trellis:
// CHECK-MISS: "compile_phases": {"mlir_ms": {{[0-9.]+}}, "llvm_ms": {{[0-9.]+}}, "cache_ms": {{[0-9.]+}}, "tuning_ms": {{[0-9.]+}}, "cache": "miss"}}
// RUN: %python %S/cache_tool.py entries %t/cache | FileCheck %s --check-prefix=CHECK-ONE
// CHECK-ONE: 1 entries, 0 other files
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --output-dir=%t/hit > %t/hit.txt 2>&1
// RUN: FileCheck %s --check-prefix=CHECK-HIT < %t/hit.txt
// CHECK-HIT-NOT: trellis:
// CHECK-HIT: "compile_phases": {"mlir_ms": 0.000, "llvm_ms": 0.000, "cache_ms": {{[0-9.]+}}, "tuning_ms": {{[0-9.]+}}, "cache": "hit"}}
// RUN: %python %S/cache_tool.py same %t/off/result0.npy %t/miss/result0.npy %t/hit/result0.npy
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/miss/result1.npy %t/hit/result1.npy
// RUN: %python %S/cache_tool.py entries %t/cache | FileCheck %s --check-prefix=CHECK-ONE
//
// The manifest: the libraries the hit loads, the number of objects (one per
// code generation thread), the archive's size and digest.
// RUN: cat %t/cache/*.json | FileCheck %s --check-prefix=CHECK-MANIFEST
// CHECK-MANIFEST: "format": 3,
// CHECK-MANIFEST: "libraries": [
// CHECK-MANIFEST-DAG: libmlir_c_runner_utils.so"
// CHECK-MANIFEST-DAG: {{libdnnl.so|libopenblas}}
// CHECK-MANIFEST-DAG: libmvec.so
// CHECK-MANIFEST: "communicates": false,
// CHECK-MANIFEST: "objects": {{[1-9][0-9]*}},
// CHECK-MANIFEST: "archive_bytes": {{[1-9][0-9]*}},
// CHECK-MANIFEST: "archive_sha256": "{{[0-9a-f]+}}"
//
// The module is keyed as parsed, without locations: moved lines and columns
// still hit. An option, another entry, a changed module: misses, each a new
// entry (5 in all); then each of them hits.
// RUN: sed -e 's/^func.func/\n\n  func.func/' %s > %t/moved.mlir
// RUN: trellis-run %t/moved.mlir --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache | FileCheck %s --check-prefix=CHECK-HIT
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --vector-math=false --output-dir=%t/scalar | FileCheck %s --check-prefix=CHECK-MISS
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --opt-level=1 | FileCheck %s --check-prefix=CHECK-MISS
// RUN: trellis-run %s --entry=loss --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache | FileCheck %s --check-prefix=CHECK-MISS
// RUN: sed -e 's/0.5 : f32/0.25 : f32/' %s > %t/changed.mlir
// RUN: trellis-run %t/changed.mlir --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --output-dir=%t/changed | FileCheck %s --check-prefix=CHECK-MISS
// RUN: not %python %S/cache_tool.py same %t/off/result1.npy %t/changed/result1.npy
// RUN: %python %S/cache_tool.py entries %t/cache | FileCheck %s --check-prefix=CHECK-FIVE
// CHECK-FIVE: 5 entries, 0 other files
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --vector-math=false --output-dir=%t/scalar-hit | FileCheck %s --check-prefix=CHECK-HIT
// RUN: %python %S/cache_tool.py same %t/scalar/result1.npy %t/scalar-hit/result1.npy
// RUN: trellis-run %t/changed.mlir --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --output-dir=%t/changed-hit | FileCheck %s --check-prefix=CHECK-HIT
// RUN: %python %S/cache_tool.py same %t/changed/result1.npy %t/changed-hit/result1.npy
//
// A hit runs the module's global constructors as a compile does
// (Inputs/constructor.mlir's @init stores the 42 that @get loads).
// RUN: trellis-run %S/Inputs/constructor.mlir --entry=get --stats --cache-dir=%t/constructor > %t/constructor-miss.txt
// RUN: FileCheck %s --check-prefix=CHECK-42 < %t/constructor-miss.txt
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/constructor-miss.txt
// RUN: trellis-run %S/Inputs/constructor.mlir --entry=get --stats --cache-dir=%t/constructor > %t/constructor-hit.txt
// RUN: FileCheck %s --check-prefix=CHECK-42 < %t/constructor-hit.txt
// RUN: FileCheck %s --check-prefix=CHECK-HIT < %t/constructor-hit.txt
// CHECK-42: result0: int32 () [42]
//
// TRELLIS_CACHE_DIR is the default; the flag wins, and --cache-dir= turns
// the cache off. An LLVM IR dump (a hit has no IR) does not use the cache.
// RUN: env TRELLIS_CACHE_DIR=%t/cache trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats | FileCheck %s --check-prefix=CHECK-HIT
// RUN: env TRELLIS_CACHE_DIR=%t/cache trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir= | FileCheck %s --check-prefix=CHECK-OFF
// RUN: env TRELLIS_CACHE_DIR=%t/elsewhere trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache | FileCheck %s --check-prefix=CHECK-HIT
// RUN: not ls %t/elsewhere
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/cache --dump-llvm-ir=%t/step.ll | FileCheck %s --check-prefix=CHECK-OFF
// RUN: FileCheck %s --check-prefix=CHECK-IR < %t/step.ll
// CHECK-IR: define {{.*}}@_mlir_step(
//
// Damaged entries: each is reported in one line, compiled anew with the
// reference's results, and overwritten, so that the next run hits.
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --cache-dir=%t/damaged > /dev/null
// RUN: %python %S/cache_tool.py corrupt truncate %t/damaged
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged --output-dir=%t/truncate > %t/truncate.txt 2> %t/truncate.err
// RUN: FileCheck %s --check-prefix=CHECK-TRUNCATE < %t/truncate.err
// CHECK-TRUNCATE: trellis: cache entry {{.*}}damaged/{{[0-9a-f]+}} ignored: the archive has {{[0-9]+}} bytes, the manifest says {{[0-9]+}}{{$}}
// CHECK-TRUNCATE-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/truncate.txt
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/truncate/result1.npy
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged 2>&1 | FileCheck %s --check-prefix=CHECK-HIT
//
// RUN: %python %S/cache_tool.py corrupt flip %t/damaged
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged --output-dir=%t/flip > %t/flip.txt 2> %t/flip.err
// RUN: FileCheck %s --check-prefix=CHECK-FLIP < %t/flip.err
// CHECK-FLIP: trellis: cache entry {{.*}} ignored: the archive's SHA-256 is not the manifest's{{$}}
// CHECK-FLIP-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/flip.txt
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/flip/result1.npy
//
// RUN: %python %S/cache_tool.py corrupt manifest %t/damaged
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged --output-dir=%t/manifest > %t/manifest.txt 2> %t/manifest.err
// RUN: FileCheck %s --check-prefix=CHECK-MALFORMED < %t/manifest.err
// CHECK-MALFORMED: trellis: cache entry {{.*}} ignored: malformed manifest: {{.+}}
// CHECK-MALFORMED-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/manifest.txt
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/manifest/result1.npy
//
// RUN: %python %S/cache_tool.py corrupt library %t/damaged
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged > %t/library.txt 2> %t/library.err
// RUN: FileCheck %s --check-prefix=CHECK-GONE < %t/library.err
// CHECK-GONE: trellis: cache entry {{.*}} ignored: its library /nonexistent/libgone.so is gone{{$}}
// CHECK-GONE-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/library.txt
//
// An entry that passes every check but is no archive does not parse:
// reported, compiled anew.
// RUN: %python %S/cache_tool.py corrupt garbage %t/damaged
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged --output-dir=%t/garbage > %t/garbage.txt 2> %t/garbage.err
// RUN: FileCheck %s --check-prefix=CHECK-GARBAGE < %t/garbage.err
// CHECK-GARBAGE: trellis: cache entry {{.*}} ignored: the archive does not parse: {{.+}}
// CHECK-GARBAGE-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/garbage.txt
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/garbage/result1.npy
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged 2>&1 | FileCheck %s --check-prefix=CHECK-HIT
// RUN: %python %S/cache_tool.py entries %t/damaged | FileCheck %s --check-prefix=CHECK-ONE
//
// An archive whose object is no object file fails to link: reported,
// compiled anew.
// RUN: %python %S/cache_tool.py corrupt member %t/damaged
// RUN: %python %S/cache_tool.py members %t/damaged | FileCheck %s --check-prefix=CHECK-MEMBER
// CHECK-MEMBER: {{^}}0.o{{$}}
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged --output-dir=%t/member > %t/member.txt 2> %t/member.err
// RUN: FileCheck %s --check-prefix=CHECK-NOT-OBJECT < %t/member.err
// CHECK-NOT-OBJECT: trellis: cache entry {{.*}} ignored: {{.+}}
// CHECK-NOT-OBJECT-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/member.txt
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/member/result1.npy
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/damaged 2>&1 | FileCheck %s --check-prefix=CHECK-HIT
//
// A directory that cannot be created (its parent is a file) or written
// (/proc/self): one line, the results, exit status 0, every time.
// RUN: touch %t/file
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=%t/file/cache --output-dir=%t/uncreatable > %t/uncreatable.txt 2> %t/uncreatable.err
// RUN: FileCheck %s --check-prefix=CHECK-UNCREATABLE < %t/uncreatable.err
// CHECK-UNCREATABLE: trellis: cache directory '{{.*}}file/cache' not used: cannot create it: {{.+}}
// CHECK-UNCREATABLE-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/uncreatable.txt
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/uncreatable/result1.npy
// RUN: trellis-run %s --entry=step --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --stats --cache-dir=/proc/self --output-dir=%t/unwritable > %t/unwritable.txt 2> %t/unwritable.err
// RUN: FileCheck %s --check-prefix=CHECK-UNWRITABLE < %t/unwritable.err
// CHECK-UNWRITABLE: trellis: cache directory '/proc/self' not used: cannot write /proc/self/{{[0-9a-f]+}}.a: {{.+}}
// CHECK-UNWRITABLE-NOT: trellis
// RUN: FileCheck %s --check-prefix=CHECK-MISS < %t/unwritable.txt
// RUN: %python %S/cache_tool.py same %t/off/result1.npy %t/unwritable/result1.npy

func.func @loss(%x: tensor<64x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %d = nn.dense %x, %w, %b : (tensor<64x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  %h = nn.tanh %d : tensor<64x16xf32>
  %l = nn.mean %h : (tensor<64x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// The loss and the SGD update of the weight.
func.func @step(%x: tensor<64x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
  %l, %g = ad.value_and_grad @loss(%x, %w, %b) {argnums = array<i64: 1>}
      : (tensor<64x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> (tensor<f32>, tensor<16x16xf32>)
  %lr = arith.constant 0.5 : f32
  %rate = tensor.splat %lr : tensor<16x16xf32>
  %s = arith.mulf %rate, %g : tensor<16x16xf32>
  %w2 = arith.subf %w, %s : tensor<16x16xf32>
  return %l, %w2 : tensor<f32>, tensor<16x16xf32>
}

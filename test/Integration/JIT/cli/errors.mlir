// Every way trellis-run can be misused ends with exit code 1 and one
// `trellis-run: error: ...` line, the last on stderr (expect_error.py checks
// both and prints that line as LAST).
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/a.npy "np.zeros((2, 3), np.float32)"
// RUN: %python %S/npy_tool.py save %t/b.npy "np.zeros(3, np.float64)"
// RUN: %python %S/npy_tool.py save %t/transposed.npy "np.zeros((3, 2), np.float32)"
// RUN: %python %S/npy_tool.py save %t/f64.npy "np.zeros((2, 3), np.float64)"
// RUN: %python %S/npy_tool.py save %t/rank1.npy "np.zeros(6, np.float32)"
// RUN: %python %S/npy_tool.py save %t/scalar.npy "np.float32(1)"
// RUN: %python %S/npy_tool.py save %t/i8.npy "np.zeros(2, np.int8)"
//
// Inputs that do not match the signature: the argument, expected, got.
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/transposed.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-SHAPE
// CHECK-SHAPE: LAST: trellis-run: error: input 0 ('{{.*}}transposed.npy'): expected tensor<2x3xf32>, got float32 array of shape (3, 2){{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/f64.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-DTYPE
// CHECK-DTYPE: LAST: trellis-run: error: input 0 ('{{.*}}f64.npy'): expected tensor<2x3xf32>, got float64 array of shape (2, 3){{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/a.npy --input=%t/rank1.npy 2>&1 | FileCheck %s --check-prefix=CHECK-RANK
// CHECK-RANK: LAST: trellis-run: error: input 1 ('{{.*}}rank1.npy'): expected tensor<3xf64>, got float32 array of shape (6,){{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/scalar.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-SCALAR
// CHECK-SCALAR: LAST: trellis-run: error: input 0 ('{{.*}}scalar.npy'): expected tensor<2x3xf32>, got float32 array of shape (){{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=scalar --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=CHECK-NOT-SCALAR
// CHECK-NOT-SCALAR: LAST: trellis-run: error: input 0 ('{{.*}}a.npy'): expected f32, got float32 array of shape (2, 3){{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/i8.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-I8
// CHECK-I8: LAST: trellis-run: error: input 0 ('{{.*}}i8.npy'): unsupported dtype '|i1' (supported: <f4, <f8, <i4, <i8, <u4){{$}}
//
// Wrong number of inputs, both ways.
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=CHECK-FEW
// CHECK-FEW: LAST: trellis-run: error: @two takes 2 argument(s) but 1 --input file(s) were given{{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/a.npy --input=%t/b.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-MANY
// CHECK-MANY: LAST: trellis-run: error: @two takes 2 argument(s) but 3 --input file(s) were given{{$}}
//
// Entries that cannot run.
// RUN: %python %S/expect_error.py trellis-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=CHECK-ENTRY
// CHECK-ENTRY: LAST: trellis-run: error: no func.func named @nope in the module (functions: @two, @scalar, @declared, @bytes, @unranked){{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=declared 2>&1 | FileCheck %s --check-prefix=CHECK-DECL
// CHECK-DECL: LAST: trellis-run: error: entry @declared is a declaration; it needs a body to run{{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=bytes --input=%t/i8.npy 2>&1 | FileCheck %s --check-prefix=CHECK-TYPE
// CHECK-TYPE: LAST: trellis-run: error: argument 0 of @bytes: unsupported type tensor<2xi8> (supported: f32, f64, i32, i64, ui32 scalars and ranked tensors or memrefs of them){{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=unranked --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=CHECK-UNRANKED
// CHECK-UNRANKED: LAST: trellis-run: error: result 0 of @unranked: unsupported type tensor<*xf32>
//
// Files that are missing or not .npy.
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/missing.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-MISSING
// CHECK-MISSING: LAST: trellis-run: error: input 0 ('{{.*}}missing.npy'): cannot open: No such file or directory{{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-DIR
// CHECK-DIR: LAST: trellis-run: error: input 0 ('{{.*}}'): not a regular file (a directory){{$}}
//
// RUN: %python %S/npy_tool.py corrupt empty %t/empty.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/empty.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-EMPTY
// CHECK-EMPTY: LAST: trellis-run: error: input 0 ('{{.*}}empty.npy'): not a NumPy .npy file (bad magic){{$}}
// RUN: %python %S/npy_tool.py corrupt bad-magic %t/magic.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/magic.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-MAGIC
// CHECK-MAGIC: LAST: trellis-run: error: input 0 ('{{.*}}magic.npy'): not a NumPy .npy file (bad magic){{$}}
// RUN: %python %S/npy_tool.py corrupt magic-only %t/magic-only.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/magic-only.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-MAGIC-ONLY
// CHECK-MAGIC-ONLY: LAST: trellis-run: error: input 0 ('{{.*}}magic-only.npy'): truncated .npy header{{$}}
// RUN: %python %S/npy_tool.py corrupt bad-version %t/version.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/version.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-VERSION
// CHECK-VERSION: LAST: trellis-run: error: input 0 ('{{.*}}version.npy'): unsupported .npy format version 7.0{{$}}
// RUN: %python %S/npy_tool.py corrupt truncated-header %t/header.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/header.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-HEADER
// CHECK-HEADER: LAST: trellis-run: error: input 0 ('{{.*}}header.npy'): truncated .npy header: it claims 118 bytes, the file has 30{{$}}
// RUN: %python %S/npy_tool.py corrupt huge-header-length %t/huge.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/huge.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-HUGE
// CHECK-HUGE: LAST: trellis-run: error: input 0 ('{{.*}}huge.npy'): truncated .npy header: it claims 4294967295 bytes, the file has 1{{$}}
// RUN: %python %S/npy_tool.py corrupt truncated-data %t/short.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/short.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-SHORT
// CHECK-SHORT: LAST: trellis-run: error: input 0 ('{{.*}}short.npy'): truncated data: shape (2, 3) of float32 needs 24 bytes, the file has 20{{$}}
// RUN: %python %S/npy_tool.py corrupt extra-data %t/long.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/long.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-LONG
// CHECK-LONG: LAST: trellis-run: error: input 0 ('{{.*}}long.npy'): data size mismatch: shape (2, 3) of float32 needs 24 bytes, the file has 28{{$}}
// RUN: %python %S/npy_tool.py corrupt fortran %t/fortran.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/fortran.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-FORTRAN
// CHECK-FORTRAN: LAST: trellis-run: error: input 0 ('{{.*}}fortran.npy'): fortran_order arrays are not supported (save in C order){{$}}
// RUN: %python %S/npy_tool.py corrupt big-endian %t/big.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/big.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-BIG
// CHECK-BIG: LAST: trellis-run: error: input 0 ('{{.*}}big.npy'): big-endian dtype '>f4' is not supported (use little-endian){{$}}
// RUN: %python %S/npy_tool.py corrupt unknown-dtype %t/complex.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/complex.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-COMPLEX
// CHECK-COMPLEX: LAST: trellis-run: error: input 0 ('{{.*}}complex.npy'): unsupported dtype '<c8' (supported: <f4, <f8, <i4, <i8, <u4){{$}}
// RUN: %python %S/npy_tool.py corrupt structured %t/structured.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/structured.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-STRUCT
// CHECK-STRUCT: LAST: trellis-run: error: input 0 ('{{.*}}structured.npy'): unsupported dtype: structured arrays are not supported{{$}}
// RUN: %python %S/npy_tool.py corrupt bad-dict %t/dict.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/dict.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-DICT
// CHECK-DICT: LAST: trellis-run: error: input 0 ('{{.*}}dict.npy'): malformed .npy header: missing 'descr', 'fortran_order' or 'shape'{{$}}
// RUN: %python %S/npy_tool.py corrupt bad-shape %t/neg.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/neg.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-NEG
// CHECK-NEG: LAST: trellis-run: error: input 0 ('{{.*}}neg.npy'): malformed .npy header: bad shape dimension{{$}}
// RUN: %python %S/npy_tool.py corrupt overflow-shape %t/overflow.npy
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/overflow.npy --input=%t/b.npy 2>&1 | FileCheck %s --check-prefix=CHECK-OVERFLOW
// CHECK-OVERFLOW: LAST: trellis-run: error: input 0 ('{{.*}}overflow.npy'): shape (4611686018427387904, 4611686018427387904) is too large{{$}}
//
// IR that is missing, malformed, invalid, or cannot be lowered or linked.
// RUN: %python %S/expect_error.py trellis-run %t/missing.mlir --entry=f 2>&1 | FileCheck %s --check-prefix=CHECK-NO-IR
// CHECK-NO-IR: LAST: trellis-run: error: '{{.*}}missing.mlir': cannot open: No such file or directory{{$}}
// RUN: %python %S/expect_error.py trellis-run %S/Inputs/parse_error.mlir --entry=f 2>&1 | FileCheck %s --check-prefix=CHECK-PARSE
// CHECK-PARSE: LAST: trellis-run: error: cannot parse '{{.*}}parse_error.mlir'{{$}}
// RUN: %python %S/expect_error.py trellis-run %S/Inputs/verify_error.mlir --entry=f 2>&1 | FileCheck %s --check-prefix=CHECK-VERIFY
// CHECK-VERIFY: LAST: trellis-run: error: '{{.*}}verify_error.mlir' failed verification{{$}}
// RUN: %python %S/expect_error.py trellis-run %S/Inputs/lowering_error.mlir --entry=f 2>&1 | FileCheck %s --check-prefix=CHECK-LOWER
// CHECK-LOWER: LAST: trellis-run: error: lowering to the LLVM dialect failed{{$}}
// RUN: %python %S/expect_error.py trellis-run %S/Inputs/unconverted.mlir --entry=f --input=%t/scalar.npy 2>&1 | FileCheck %s --check-prefix=CHECK-LEFT
// CHECK-LEFT: LAST: trellis-run: error: lowering left 'builtin.unrealized_conversion_cast' outside the LLVM dialect{{$}}
// RUN: %python %S/expect_error.py trellis-run %S/Inputs/missing_symbol.mlir --entry=f --input=%t/scalar.npy 2>&1 | FileCheck %s --check-prefix=CHECK-LINK
// CHECK-LINK: LAST: trellis-run: error: JIT compilation failed: @external is called but defined nowhere {{.*}}
//
// Bad options and an output directory that cannot be made.
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/a.npy --input=%t/b.npy --repeat=0 2>&1 | FileCheck %s --check-prefix=CHECK-REPEAT
// CHECK-REPEAT: LAST: trellis-run: error: --repeat must be at least 1{{$}}
// RUN: %python %S/expect_error.py trellis-run %s --entry=two --input=%t/a.npy --input=%t/b.npy --output-dir=%t/a.npy/out 2>&1 | FileCheck %s --check-prefix=CHECK-OUTDIR
// CHECK-OUTDIR: LAST: trellis-run: error: cannot create output directory '{{.*}}a.npy/out': Not a directory{{$}}

func.func @two(%a: tensor<2x3xf32>, %b: tensor<3xf64>)
    -> (tensor<2x3xf32>, tensor<3xf64>) {
  %r = "nn.relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r, %b : tensor<2x3xf32>, tensor<3xf64>
}

func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}

func.func private @declared(tensor<2xf32>) -> tensor<2xf32>

func.func @bytes(%a: tensor<2xi8>) -> tensor<2xi8> {
  return %a : tensor<2xi8>
}

func.func @unranked(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = tensor.cast %a : tensor<2x3xf32> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

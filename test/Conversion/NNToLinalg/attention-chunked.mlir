// Chunked attention and its VJP: no tensor with two sequence-length
// dimensions (200, or 256 after padding to whole chunks of 64), neither in
// the lowered tensor code nor after bufferization. The whole lowering
// (attention-chunk=0) and short sequences hold the 200x200 scores.
// RUN: trellis-opt %s --ad-differentiate --convert-nn-to-linalg=attention-chunk=64 | FileCheck %s --check-prefix=CHECK-CHUNKED
// RUN: trellis-opt %s --ad-differentiate --convert-nn-to-linalg=attention-chunk=64 | FileCheck %s --check-prefix=CHECK-NOSQUARE
// RUN: trellis-opt %s --ad-differentiate --convert-nn-to-linalg=attention-chunk=64 --canonicalize --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" | FileCheck %s --check-prefix=CHECK-BUFFERS
// RUN: trellis-opt %s --ad-differentiate --convert-nn-to-linalg=attention-chunk=0 | FileCheck %s --check-prefix=CHECK-WHOLE
// RUN: trellis-opt %s --ad-differentiate --convert-nn-to-linalg=attention-chunk=256 | FileCheck %s --check-prefix=CHECK-WHOLE
// RUN: not trellis-opt %s --convert-nn-to-linalg=attention-chunk=-1 2>&1 | FileCheck %s --check-prefix=CHECK-NEGATIVE

// The whole output: the NOTs before and after the one positive match, the
// first 64x64 score tile (so the squared scores are there, chunk-sized).
// CHECK-NOSQUARE-NOT: {{(200|256)x(200|256)}}
// CHECK-NOSQUARE: -> tensor<1x2x64x64xf32>
// CHECK-NOSQUARE-NOT: {{(200|256)x(200|256)}}

// CHECK-CHUNKED-LABEL: func.func @loss
// Forward: a loop over query chunks, one over key chunks up to the
// diagonal, and the masked diagonal tile after it.
// CHECK-CHUNKED: scf.for
// CHECK-CHUNKED: tensor.extract_slice {{.*}} to tensor<1x64x2x16xf32>
// CHECK-CHUNKED: scf.for
// CHECK-CHUNKED: linalg.generic
// CHECK-CHUNKED: } -> tensor<1x2x64x64xf32>
// CHECK-CHUNKED: math.exp
// CHECK-CHUNKED-LABEL: func.func private @loss__grad_0_1_2
// The VJP (after the forward's recomputation): per query row, Σ dO·O and
// the log-sum-exp statistics, then the loop over key chunks, and in it the
// masked diagonal tile and a loop over the later query chunks.
// CHECK-CHUNKED: tensor<1x2x256xf32>
// CHECK-CHUNKED: scf.for
// CHECK-CHUNKED: math.log
// CHECK-CHUNKED: scf.yield {{.*}} : tensor<1x2x256xf32>
// CHECK-CHUNKED: scf.for {{.*}} -> (tensor<1x256x2x16xf32>, tensor<1x256x2x16xf32>, tensor<1x256x2x16xf32>)
// CHECK-CHUNKED: scf.for {{.*}} -> (tensor<1x256x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>)

// One positive check, so the NOTs before and after it cover the whole output.
// CHECK-BUFFERS-NOT: {{(200|256)x(200|256)}}
// CHECK-BUFFERS: memref.alloc() {{.*}} : memref<1x2x64x64xf32>
// CHECK-BUFFERS-NOT: {{(200|256)x(200|256)}}

// CHECK-WHOLE-NOT: scf.for
// CHECK-WHOLE: tensor<1x2x200x200xf32>

// CHECK-NEGATIVE: attention-chunk must be ≥ 0, got -1

func.func @loss(%q: tensor<1x200x32xf32>, %k: tensor<1x200x32xf32>,
                %v: tensor<1x200x32xf32>) -> tensor<f32> {
  %o = nn.attention %q, %k, %v {num_heads = 2 : i64, causal = true}
      : (tensor<1x200x32xf32>, tensor<1x200x32xf32>, tensor<1x200x32xf32>)
      -> tensor<1x200x32xf32>
  %l = nn.mean %o : (tensor<1x200x32xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad(%q: tensor<1x200x32xf32>, %k: tensor<1x200x32xf32>,
                %v: tensor<1x200x32xf32>)
    -> (tensor<1x200x32xf32>, tensor<1x200x32xf32>, tensor<1x200x32xf32>) {
  %gq, %gk, %gv = ad.grad @loss(%q, %k, %v) {argnums = array<i64: 0, 1, 2>}
      : (tensor<1x200x32xf32>, tensor<1x200x32xf32>, tensor<1x200x32xf32>)
      -> (tensor<1x200x32xf32>, tensor<1x200x32xf32>, tensor<1x200x32xf32>)
  return %gq, %gk, %gv
      : tensor<1x200x32xf32>, tensor<1x200x32xf32>, tensor<1x200x32xf32>
}

//===- Passes.td - Trellis conversion passes ---------------*- tablegen -*-===//

#ifndef TRELLIS_CONVERSION_PASSES
#define TRELLIS_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertNNToLinalg : Pass<"convert-nn-to-linalg"> {
  let summary = "Lower nn layers to linalg, tensor, arith and math on tensors";
  let description = [{
    Gives every `nn` op its meaning as destination-style tensor code:

    * `dense` becomes `linalg.matmul` on the batch-flattened input plus a
      broadcast bias add, so a later BLAS rewrite sees the matmul;
    * activations, softmax, log-softmax, layer_norm, mean and cross-entropy
      become `linalg.generic` ops, in numerically careful forms: the row
      maximum is subtracted before `exp`, cross-entropy is
      `logsumexp − picked logit`, layer_norm adds `epsilon` to the variance;
    * `embedding` becomes a gather in a `linalg.generic` body (ids clamped);
    * `attention` splits heads with `tensor.expand_shape` and contracts with
      `linalg.generic`. Sequences of at most `attention-chunk` rows are
      lowered whole (scores, masked max-subtracted softmax, weighted sum);
      longer ones in `scf.for` loops over query and key chunks with an
      online softmax, so that no tensor has two sequence dimensions; causal
      attention skips the chunks above the diagonal. `attention_grad` (the
      VJP the autodiff emits) is lowered the same two ways, the chunked one
      recomputing each tile from per-row log-sum-exp statistics
      (docs/attention.md);
    * `dropout` computes Threefry-2x32 of each element's linear index under
      the key inside the body, so the mask depends on nothing else;
    * the reversible ops are given their forward meaning: the bodies are
      inlined, `reversible_half_residual` adds the residual, `reversible_swap`
      exchanges its operands.

    After the pass no `nn` op is left; an op it cannot lower is an error.
  }];
  let options = [
    Option<"attentionChunk", "attention-chunk", "int64_t",
           /*default=*/"128",
           "Rows per query and key chunk of attention over longer sequences "
           "(0: never chunk)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def ConvertCollToMPI : Pass<"convert-coll-to-mpi", "::mlir::ModuleOp"> {
  let summary = "Lower coll collectives to the mpi dialect and the Trellis "
                "collectives runtime";
  let description = [{
    Runs on tensors, before bufferization: each collective reads its operand
    through `bufferization.to_buffer`, writes a fresh buffer, and hands it
    back with `bufferization.to_tensor`. Tensors are flattened to 1-D buffers
    (the `mpi` ops count elements along the first dimension only).

    * Every communicating collective becomes a call into the Trellis
      collectives runtime (`lib/ExecutionEngine/CollectivesRuntime.cpp`),
      whose MPI calls are nonblocking and wait at most the collective
      timeout (upstream's `mpi.allreduce` blocks; `comm_split` results are
      read as 32-bit ints although OpenMPI communicators are pointers;
      `comm_size`, `isend`, `irecv` and `wait` are not lowered in LLVM 22):
      psum/pmean (`MPI_Iallreduce`, on the communicator of their groups or
      all ranks), ppermute (deadlock-free for any pairs), all_gather
      (`MPI_Iallgather`, then a transpose for `dim > 0`), Adasum
      (vector-halving, distance-doubling) and axis_size. They get
      `max-count` and the op's source location as their last arguments and
      split their MPI calls into pieces of at most `max-count` elements.
    * `axis_index` becomes `mpi.comm_rank`.
    * With `upstream-allreduce`, `psum` without groups becomes upstream
      `mpi.allreduce` (`MPI_SUM`) on `mpi.comm_world` instead (blocking: no
      timeout); `pmean` divides it by the axis size. A buffer of more than
      `max-count` elements is reduced by an `scf.for` over pieces of at
      most `max-count` (`memref.subview`s), since the upstream lowering
      passes the count as a 32-bit int. Every `mpi.allreduce`'s return code
      goes to the runtime's `trellis_coll_check_result`, which ends the job
      with one line naming the collective if it is an error.

    The module gets `dlti.map<"MPI:Implementation" = "OpenMPI">` unless it
    names an implementation already. Only the axis `"batch"` (all ranks) is
    defined; another axis is an error.

    The `mpi` ops have no memory effects in LLVM 22; the pass attaches them
    (reads of the send buffer, writes of the receive buffer) so that
    buffer deallocation can place frees around them.

    With `check-agreement` (on in the tools' pipeline unless
    `--check-collectives=false`), every communicating collective is
    preceded by a call
    `trellis_coll_check(what, where)`: `what` describes the collective as
    all ranks must agree on it (op, operand dtype and shape, result type,
    `groups`, `pairs`, `dim`), `where` is its source location. The runtime
    all-gathers a fixed-size fingerprint of both on a communicator of its
    own and, if the ranks disagree, ends the job with one line naming each
    rank's collective instead of hanging or reducing mismatched buffers:

    ```
    trellis: collective mismatch at collective #3: rank 0: coll.psum f32[4x8]
    (model.mlir:5:8); rank 1: coll.all_gather f32[4x8] -> f32[8x8] dim=0
    (model.mlir:9:8)
    ```
  }];
  let options = [
    Option<"checkAgreement", "check-agreement", "bool", /*default=*/"false",
           "Check before each collective that all ranks are about to run "
           "the same one (op, dtype, shape, groups/pairs); a mismatch ends "
           "the job with one line naming the ranks">,
    Option<"upstreamAllreduce", "upstream-allreduce", "bool",
           /*default=*/"false",
           "Lower psum and pmean without groups to upstream mpi.allreduce "
           "(a blocking MPI_Allreduce, without the collective timeout)">,
    Option<"maxCount", "max-count", "int64_t", /*default=*/"2147483647",
           "The most elements one MPI call moves (MPI counts are 32-bit "
           "ints): larger buffers go in pieces of this size. Lower it only "
           "to test the pieces (1 to 2147483647)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::DLTIDialect", "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect",
    "mlir::mpi::MPIDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def FixOpenMPISymbols : Pass<"fix-openmpi-symbols", "::mlir::ModuleOp"> {
  let summary = "Rename the MPI reduction-op globals of the upstream "
                "lowering to the names OpenMPI exports";
  let description = [{
    LLVM 22's MPI-to-LLVM lowering for OpenMPI refers to reduction ops as
    `ompi_mpi_sum`, `ompi_mpi_max`, … while OpenMPI 4 exports
    `ompi_mpi_op_sum`, `ompi_mpi_op_max`, …; a program linked as lowered
    fails to resolve them. This pass renames the `llvm.mlir.global`
    declarations and their `llvm.mlir.addressof` uses. Run it after
    `convert-to-llvm`.
  }];
}

def TrellisPrepareContractions : Pass<"trellis-prepare-contractions"> {
  let summary = "Fold transposes into GEMM-shaped contractions and give each "
                "its own zero fill (tensors, before bufferization)";
  let description = [{
    Readies the GEMM-shaped contractions that `convert-linalg-to-blas` will
    hand to a BLAS after bufferization (the contractions `trellis::matchGemm`
    accepts: named `linalg.matmul` / `batch_matmul` or a `linalg.generic`
    whose body is `out + a * b`):

    * an input produced by a pure permutation copy (`linalg.transpose`, or a
      generic that only yields its input under permutation maps) is replaced
      by the copy's source and the permutation is folded into the input's
      indexing map; the contraction becomes a `linalg.generic`. The BLAS call
      then reads the source with `Trans` instead of a materialized transpose
      (the adjoints of `ad-differentiate` transpose weights and activations);
    * an init produced by `linalg.fill` is re-created (with its
      `tensor.empty`) right before the contraction when the fill has other
      uses or sits elsewhere, so that after bufferization the fill directly
      precedes the contraction on its own buffer and the BLAS call can absorb
      it (`beta = 0`) instead of copying a shared zero buffer.

    Example:

    ```mlir
    %t = linalg.transpose ins(%w : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
    %r = linalg.matmul ins(%x, %t : tensor<2x8xf32>, tensor<8x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
    // becomes
    %r = linalg.generic {indexing_maps = [(m, n, k) -> (m, k), (m, n, k) -> (n, k), (m, n, k) -> (m, n)], ...}
           ins(%x, %w : tensor<2x8xf32>, tensor<4x8xf32>) outs(%z : tensor<2x4xf32>) { out + a * b }
    ```
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"
  ];
}

def TrellisOrientContractions : Pass<"trellis-orient-contractions"> {
  let summary = "Compute short GEMMs as their transposes where the host's "
                "library runs that form faster, and carry the transposed "
                "layout through the element-wise ops after them";
  let description = [{
    An f32 GEMM over few rows (M at most 128, the `short` class of
    `convert-linalg-to-blas`) that reads its right operand transposed,
    `C = A·Bᵀ` — a dense layer's input gradient `dY·Wᵀ` over a short batch —
    runs at two thirds of the rate of the plain product on some hosts' oneDNN
    (Zen 5: 64×1024×1024 `A·Bᵀ` 142 GFLOP/s, `A·B` 192). Its transpose
    `Cᵀ = B·Aᵀ` has the same operands; if `A` is itself held transposed the
    transposed product reads both operands plain. With `transpose-short`
    set, the pass

    * rewrites such a contraction (on tensors, 2-D, not batched, produced
      by `trellis-prepare-contractions`) to compute `Cᵀ` (a `linalg.generic`
      with its inputs swapped and its result map transposed);
    * replaces each use of `C` by a read of `Cᵀ`: a linalg op's input gets
      the transposed indexing map; an element-wise `linalg.generic` (2-D,
      parallel, identity result map) whose results only linalg ops read is
      instead turned around — it iterates over the transposed domain and
      yields its result transposed, which its own users then read the same
      way; anything else (a return, an init, a non-linalg op) reads a
      `linalg.transpose` of `Cᵀ`;
    * does the same for a short contraction that reads both operands
      transposed (`Aᵀ·Bᵀ`, which such a transposed gradient leads to): its
      transpose `B·A` reads both plain.

    In a dense chain's backward pass the input gradient, the ReLU mask after
    it and the next input gradient then run as `W·dHᵀ`, plain products; the
    weight gradients `Xᵀ·dH` read `dH` transposed (a `thin` product, as fast
    either way). Whether the host's libraries favour the transposed form is
    measured with the library choice (docs/performance.md, "Orientation");
    off, the pass changes nothing.
  }];
  let options = [
    Option<"transposeShort", "transpose-short", "bool", /*default=*/"false",
           "Compute short A·Bᵀ and Aᵀ·Bᵀ contractions as their transposes">,
  ];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"
  ];
}

def TrellisFuseGemmUpdates : Pass<"trellis-fuse-gemm-updates",
                                  "mlir::func::FuncOp"> {
  let summary = "Fold an SGD update into the GEMM that computes its gradient";
  let description = [{
    A training step's update `p - lr · g` (or `p + c · g`, `p ± g`) of a
    weight whose gradient `g` a GEMM computes from a zero init, when the
    update is `g`'s only reader, becomes that GEMM accumulated into `p`:
    a contraction whose body is `out - (a · b) · lr`, which
    `convert-linalg-to-blas` calls with `alpha = -lr` and `beta = 1`.
    The gradient is never written out and read back, and the update's
    element-wise pass over the weight disappears.

    The update must be element-wise with identity maps (the factor may be a
    float from above or a rank-0 input), and the parameter must not be read
    after it: the fused GEMM is placed after the GEMM and after the
    parameter's last other reader, so that bufferization writes it into
    the parameter's buffer instead of a copy. A step's parameter is its
    own argument, which the compiled code may write (docs/embedding.md);
    `trellis-return-arguments` then returns that buffer without the copy
    the deallocation pipeline makes of a returned argument.

    Example:

    ```mlir
    %g = linalg.generic {A·B} ins(%x, %dy) outs(%zero) -> tensor<64x32xf32>
    %u = linalg.generic {p - g * lr} ins(%w, %g) outs(%e) -> tensor<64x32xf32>
    // becomes
    %u = linalg.generic {out - (a * b) * lr} ins(%x, %dy) outs(%w)
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect"
  ];
}
def TrellisFuseElementwise : Pass<"trellis-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops (upstream linalg-fuse-elementwise-"
                "ops) without touching GEMM-shaped contractions";
  let description = [{
    The upstream elementwise fusion with one difference in what it may fuse:
    nothing into or out of a contraction (a linalg op whose body is a
    multiply-accumulate, `linalg::isaContractionOpInterface`). Upstream
    fusion would otherwise

    * push reshapes through matmuls: a dense layer's `linalg.matmul` whose
      result is split into attention heads (`tensor.expand_shape`) becomes a
      five-loop `linalg.generic` with two `N` loops, which
      `convert-linalg-to-blas` cannot hand to a GEMM (its adjoint likewise
      gets two `K` loops);
    * fuse an elementwise producer (a bias add, an exp) into a contraction's
      input, so that its body is no longer `out + a * b`.

    Both leave the contraction to scalar loops. Elementwise producers are
    fused into elementwise ops and row reductions as upstream (a producer
    with a single use), and reshapes are still folded into elementwise ops,
    as long as the fused body has at most 256 ops (`kMaxFusedBodyOps`):
    each fusion clones both bodies, so an unbounded chain of n ops took time
    quadratic in n; bounded, longer chains are fused in pieces and the pass
    is linear.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def ConvertLinalgToBlas : Pass<"convert-linalg-to-blas", "mlir::ModuleOp"> {
  let summary = "Lower GEMM-shaped linalg ops on memrefs to CBLAS ?gemm calls";
  let description = [{
    Rewrites every contraction `trellis::matchGemm` accepts (`linalg.matmul`,
    `linalg.batch_matmul`, transposed variants through `indexing_maps`, and
    `linalg.generic` contractions `out + a * b` such as attention's batched
    products and the adjoints autodiff emits) on bufferized memrefs into calls
    of `cblas_sgemm` (f32; oneDNN's `dnnl_sgemm` with `sgemm=dnnl`) or
    `cblas_dgemm` (f64), when:

    * all three operands are memrefs of the same element type, f32 or f64,
      with static shapes and static strides (offsets may be dynamic);
    * each operand's two matrix dimensions (after fixing the batch indices)
      can be described to a BLAS: one of them has stride 1 and the other a
      leading dimension no smaller than the row length. Transposed storage
      becomes `Trans` (A, B) or a column-major call (C);
    * every size fits a 32-bit BLAS integer and none is zero.

    Batch dimensions become `scf.for` loops around the call; with
    `parallel-batches`, a oneDNN GEMM below the large class whose batch has
    two or more entries gets one `scf.parallel` over the batch instead
    (`convert-scf-to-openmp` makes it an OpenMP loop; oneDNN called inside
    a parallel region runs on its calling thread), so that the threads share
    the batch rather than each small product. CBLAS calls keep the serial
    loop: OpenBLAS's own thread pool is not nested under OpenMP. The call keeps
    linalg's accumulate semantics (`beta = 1`: the init is added to); when
    the nearest preceding memory-touching op is a `linalg.fill` of zero of
    the same init buffer, the fill is dropped and `beta = 0`. Pointers are
    the aligned base plus the offset (`memref.extract_aligned_pointer_as_index`,
    `memref.extract_strided_metadata`). Anything not matched is left for
    `convert-linalg-to-loops`. The JIT loads OpenBLAS when the lowered
    module calls `cblas_*`, oneDNN when it calls `dnnl_*`.

    The library of an f32 GEMM is its size class's: `sgemm-small` (M·N·K
    below 64³), `sgemm-medium` (below 256³), `sgemm-large`, `sgemm-thin`,
    `sgemm-short` or `sgemm-narrow`, each `sgemm`'s unless given. The JIT
    sets them from a measurement of both libraries on the host, and, built
    from C++ with a `GemmShapeChooser` (`createConvertLinalgToBlas`), the
    pass asks it once for the library of each distinct call shape beyond
    the medium class — the JIT's chooses from the rates of each shape
    measured on the host (docs/performance.md, "Library choice").

    Example:

    ```mlir
    linalg.fill ins(%zero : f32) outs(%c : memref<64x1024xf32>)
    linalg.matmul ins(%a, %b : memref<64x784xf32>, memref<784x1024xf32>)
                  outs(%c : memref<64x1024xf32>)
    // becomes
    func.call @cblas_sgemm(%rowMajor, %noTrans, %noTrans, %c64, %c1024, %c784,
        %one, %pa, %c784, %pb, %c1024, %zero, %pc, %c1024) : (...) -> ()
    ```
  }];
  let options = [
    Option<"sgemm", "sgemm", "::trellis::GemmLibrary",
           /*default=*/"::trellis::GemmLibrary::Cblas",
           "Library of the f32 GEMMs (f64 always uses cblas_dgemm)",
           [{::trellis::gemmLibraryValues()}]>,
    Option<"sgemmSmall", "sgemm-small", "::trellis::GemmLibrary",
           /*default=*/"::trellis::GemmLibrary::Cblas",
           "Library of the f32 GEMMs with M·N·K below 64^3 (default: sgemm)",
           [{::trellis::gemmLibraryValues()}]>,
    Option<"sgemmMedium", "sgemm-medium", "::trellis::GemmLibrary",
           /*default=*/"::trellis::GemmLibrary::Cblas",
           "Library of the f32 GEMMs with M·N·K below 256^3 (default: sgemm)",
           [{::trellis::gemmLibraryValues()}]>,
    Option<"sgemmLarge", "sgemm-large", "::trellis::GemmLibrary",
           /*default=*/"::trellis::GemmLibrary::Cblas",
           "Library of the larger f32 GEMMs but the thin and short ones "
           "(default: sgemm)",
           [{::trellis::gemmLibraryValues()}]>,
    Option<"sgemmThin", "sgemm-thin", "::trellis::GemmLibrary",
           /*default=*/"::trellis::GemmLibrary::Cblas",
           "Library of the larger f32 GEMMs with K at most 128 (default: sgemm)",
           [{::trellis::gemmLibraryValues()}]>,
    Option<"sgemmShort", "sgemm-short", "::trellis::GemmLibrary",
           /*default=*/"::trellis::GemmLibrary::Cblas",
           "Library of the larger f32 GEMMs with M at most 128, not thin "
           "(default: sgemm)",
           [{::trellis::gemmLibraryValues()}]>,
    Option<"sgemmNarrow", "sgemm-narrow", "::trellis::GemmLibrary",
           /*default=*/"::trellis::GemmLibrary::Cblas",
           "Library of the larger f32 GEMMs with N at most 32, neither thin "
           "nor short (default: sgemm)",
           [{::trellis::gemmLibraryValues()}]>,
    Option<"parallelBatches", "parallel-batches", "bool", /*default=*/"false",
           "Share the batch of small and medium oneDNN GEMMs among OpenMP "
           "threads (an scf.parallel around the calls)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def TrellisParallelizeLinalg : Pass<"trellis-parallelize-linalg",
                                    "mlir::func::FuncOp"> {
  let summary = "Lower linalg ops with enough work to loops whose leading "
                "parallel loops are one scf.parallel";
  let description = [{
    Runs on bufferized code before `convert-linalg-to-loops`. A linalg op
    with static loop ranges whose first loops are parallel and whose
    iteration space has at least `min-iterations` points becomes the loop
    nest of upstream's `linalgOpToLoops`, with its leading parallel loops
    (up to the first reduction loop) fused into one `scf.parallel`:
    `convert-scf-to-openmp` then makes it an OpenMP worksharing loop
    (`omp.parallel` + `omp.wsloop`), so elementwise maps, row reductions and
    attention's softmax rows are shared among the threads
    (`OMP_NUM_THREADS`, set from `TRELLIS_NUM_THREADS`). The inner loops
    stay sequential and are vectorized by LLVM as before.

    Not parallelized: ops with dynamic sizes, ops whose first loop is a
    reduction (column sums: their rows would need a parallel reduction),
    ops whose parallel loops have a single iteration, and ops below
    `min-iterations` (the fork and join of a parallel region costs a few
    microseconds). Those, and everything else, are left to
    `convert-linalg-to-loops`; `min-iterations=0` parallelizes nothing.

    Example (`min-iterations` 1024):

    ```mlir
    linalg.generic {iterator_types = ["parallel", "parallel"], ...}
        ins(%x : memref<64x128xf32>) outs(%y : memref<64x128xf32>) {...}
    // becomes
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<64x128xf32>
      ...
      memref.store %r, %y[%i, %j] : memref<64x128xf32>
    }
    ```
  }];
  let options = [
    Option<"minIterations", "min-iterations", "int64_t",
           /*default=*/"::trellis::kMinParallelIterations",
           "Iterations of an op's loop body below which it stays sequential "
           "(0: parallelize nothing)">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::memref::MemRefDialect"];
}

def TrellisStridedCopiesToLinalg : Pass<"trellis-strided-copies-to-linalg",
                                        "mlir::func::FuncOp"> {
  let summary = "Rewrite memref.copy ops between strided buffers into "
                "linalg.copy";
  let description = [{
    Bufferization writes `tensor.insert_slice` and `tensor.extract_slice`
    (padding an image, cropping a gradient) as `memref.copy` into or out of
    a strided subview. A copy of contiguous buffers becomes a `memcpy`, but
    one with a strided side becomes a call of the C runner utilities'
    `memrefCopy`, which walks the elements one at a time through their
    strides on one thread (the Fashion-MNIST CNN spent 4 ms of a 45 ms step
    in two such copies). This pass rewrites every `memref.copy` with static
    shapes and a non-contiguous side into `linalg.copy`, which the loop
    lowering vectorizes over the innermost dimension and
    `trellis-parallelize-linalg` shares among the threads. Copies of two
    contiguous buffers stay.

    Example:

    ```mlir
    memref.copy %x, %sub : memref<100x14x14x32xf32>
        to memref<100x14x14x32xf32, strided<[8192, 512, 32, 1], offset: 544>>
    // becomes
    linalg.copy ins(%x : memref<100x14x14x32xf32>)
        outs(%sub : memref<100x14x14x32xf32, strided<[8192, 512, 32, 1], offset: 544>>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def TrellisInlineAllocaScopes : Pass<"trellis-inline-alloca-scopes",
                                     "mlir::func::FuncOp"> {
  let summary = "Inline the memref.alloca_scope ops that allocate nothing";
  let description = [{
    `convert-scf-to-openmp` wraps the body of each worksharing loop in a
    `memref.alloca_scope`, whose region must stay one block, so that
    `convert-scf-to-cf` then fails on the sequential loops inside ("expects
    region #0 to have 0 or 1 blocks"). The bodies
    `trellis-parallelize-linalg` makes allocate nothing on the stack; this
    pass inlines such scopes (upstream's `memref.alloca_scope`
    canonicalization, alone: no folding, no other patterns), and runs
    between the two.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def TrellisCheckTensorSizes : Pass<"trellis-check-tensor-sizes"> {
  let summary = "Reject static shapes whose size no host can allocate";
  let description = [{
    The first pass of `trellis-lower-to-llvm`. Every value, block argument
    and function signature of a statically shaped tensor or memref type
    must have an element count that fits in 64 bits and at most
    `max-bytes` bytes (default 2^48, 256 TiB); anything larger is an error
    at its op naming the type and its size, before any pass computes
    offsets with it (the lowering's index arithmetic would wrap around, and
    constants of that size cannot be built). Dynamic sizes are checked when
    the program allocates (the runtime's memory limit).

    ```mlir
    %y = arith.addf %x, %x : tensor<4294967296x4294967296xf32>
    // error: tensor<4294967296x4294967296xf32> has more than 2^63 elements
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "uint64_t",
           /*default=*/"uint64_t(1) << 48",
           "Largest size of a statically shaped tensor or memref, in bytes">
  ];
}

def TrellisFillSplats : Pass<"trellis-fill-splats"> {
  let summary = "Large splat tensor constants become linalg.fill";
  let description = [{
    A splat `arith.constant` of a tensor with more than `min-elements`
    elements becomes `linalg.fill` of its value into a `tensor.empty`, so
    that bufferization allocates and fills it at run time instead of
    writing every element into the module as a global: `dense<1.0> :
    tensor<100000000xf32>` took 13 s and 1.7 GB to compile as a 400 MB
    global, and a splat of 10^14 elements could not be built at all. A
    fill is what the allocation hooks and the memory limit see, and
    elementwise fusion folds it into its consumers like a constant.

    ```mlir
    %c = arith.constant dense<1.0> : tensor<4096xf32>
    // becomes
    %e = tensor.empty() : tensor<4096xf32>
    %one = arith.constant 1.0 : f32
    %c = linalg.fill ins(%one : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
    ```
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"1024",
           "Splats with more elements than this become fills">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def TrellisEarlyResults : Pass<"trellis-early-results", "mlir::func::FuncOp"> {
  let summary = "Move the element-wise ops that compute a function's results "
                "to right after their operands are defined";
  let description = [{
    An element-wise `linalg.generic` on tensors whose results only the
    function's `return` reads — a training step's parameter update — moves
    (with the `tensor.empty` it alone writes) to right after the last op of
    the function's body that defines one of its operands.

    The derivative of `ad.value_and_grad` computes every gradient before
    the step's own code runs, so a written-out SGD update of the first
    gradient the backward pass produced ran after all the others, when its
    4 MiB gradient had left the cache (Zen 5, the MLP step: the four
    1024×1024 updates took 0.15 to 0.25 ms each, the later-computed faster).
    Moved, each update reads its gradient right after the weight-gradient
    GEMM wrote it, and the gradient's buffer, which
    `trellis-choose-destinations` then gives the update as its destination,
    is done with earlier. The op is pure and its operands are defined where
    it goes, so what the function computes does not change.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def TrellisChooseDestinations : Pass<"trellis-choose-destinations"> {
  let summary = "Give each linalg op a destination of its own: a dying "
                "operand for an element-wise op, else a new empty tensor "
                "(tensors, before bufferization)";
  let description = [{
    Bufferization writes each destination-style op's result into the
    buffer of its `outs` operand. This pass chooses those operands so that
    buffers live no longer than their values:

    * **An element-wise op writes over an operand that dies there.** If a
      `linalg.generic` with only parallel loops writes into a
      `tensor.empty` without reading it, and one of its inputs has the
      result's type and indexing map, is produced by another linalg op of
      the same block (directly, or as a reshape of its result: a GEMM's
      2-d result in its layer's shape), is read by this op as that input
      only and by nothing after it (itself or through reshapes and
      slices), that input becomes the destination:
      one-shot bufferization then updates its buffer in place instead of
      allocating another beside it (the residual adds of a backward pass,
      the SGD update of a parameter's gradient).
    * **Every other writer gets an empty tensor of its own.** One
      `tensor.empty` often serves as the destination of many ops: the
      lowering builds one per shape and the derivative's CSE merges the
      rest (a 4-block Transformer's backward pass had one 1x128x64 empty
      as the init of 24 ops). Bufferization allocates its buffer where the
      empty stands and lets every later writer write into it again once
      the previous value is dead, so the buffer lives from the first
      writer to the last reader of the last one: a reversed feed-forward
      block's 64 KiB GELU gradient stayed allocated through every block
      below it. Each op of the empty's block that uses it (itself or in
      its regions) gets a clone right before it, so its destination is
      allocated where it is first written and freed after its own last
      read. Uses inside one loop share the clone before the loop: nothing
      is allocated per iteration that was not before.

    Neither changes what the program computes: an empty tensor has no
    contents, and an operand is only overwritten after its last read.

    ```mlir
    %e = tensor.empty() : tensor<8xf32>
    %a = linalg.generic ... ins(%x) outs(%e : tensor<8xf32>)     // exp
    %b = linalg.generic ... ins(%a) outs(%e : tensor<8xf32>)     // tanh
    // becomes
    %e0 = tensor.empty() : tensor<8xf32>
    %a = linalg.generic ... ins(%x) outs(%e0 : tensor<8xf32>)
    %b = linalg.generic ... ins(%a) outs(%a : tensor<8xf32>)     // over %a
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def TrellisReturnArguments : Pass<"trellis-return-arguments",
                                  "mlir::ModuleOp"> {
  let summary = "Return an entry function's argument buffer instead of the "
                "clone the deallocation pipeline makes of it";
  let description = [{
    The ownership-based deallocation pipeline returns only buffers a
    function owns, so a function that returns one of its arguments returns
    a `bufferization.clone` of it. A training step whose parameter update
    was written into the parameter's own buffer
    (`trellis-fuse-gemm-updates`) would copy the whole weight again. For a
    public function that nothing in the module calls (an entry: only the
    host calls it, and the host frees only the buffers the compiled code
    allocated, whatever results alias), such a clone of an argument whose
    only use is the return is replaced by the argument itself. Run after
    the deallocation pipeline, before `convert-bufferization-to-memref`.

    Example:

    ```mlir
    %0 = bufferization.clone %arg0 : memref<16x8xf32> to memref<16x8xf32>
    return %0 : memref<16x8xf32>
    // becomes
    return %arg0 : memref<16x8xf32>
    ```
  }];
}

def TrellisOutlineParallelRegions
    : Pass<"trellis-outline-parallel-regions", "mlir::ModuleOp"> {
  let summary = "Give each OpenMP parallel region of a function with many a "
                "function of its own";
  let description = [{
    The translation to LLVM IR outlines every `omp.parallel` region into a
    microtask with OpenMPIRBuilder, which builds a CodeExtractor analysis of
    the whole enclosing function for each region: time quadratic in the
    number of regions of a function. A Transformer training step with
    parallel loops has hundreds of regions in one function of ~100,000
    instructions, and its translation took 0.6-2.6 s of its compile
    (docs/performance.md).

    This pass runs after `convert-scf-to-openmp`: in each function with at
    least `min-regions` outermost `omp.parallel` ops, each of them moves into
    a new private function (upstream's `outlineSingleBlockRegion`) that
    takes the values it uses from outside as arguments, except constants,
    which are cloned into it so that the loops keep their constant bounds.
    The function is called where the region was; LLVM may inline it back
    after translation. Memrefs keep their static types, so address
    arithmetic inside stays constant-folded as before.

    Example:

    ```mlir
    func.func @f(%x: memref<1024xf32>) {
      %c0 = arith.constant 0 : index
      omp.parallel { ... %x ... %c0 ... }
    }
    // becomes
    func.func private @f.omp.0(%x: memref<1024xf32>) {
      %c0 = arith.constant 0 : index
      omp.parallel { ... %x ... %c0 ... }
      return
    }
    func.func @f(%x: memref<1024xf32>) {
      call @f.omp.0(%x) : (memref<1024xf32>) -> ()
    }
    ```
  }];
  let options = [
    Option<"minRegions", "min-regions", "int64_t", /*default=*/"8",
           "Outline the regions of functions with at least this many "
           "(0: none)">
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::scf::SCFDialect"];
}

def TrellisProfileOps : Pass<"trellis-profile-ops", "mlir::ModuleOp"> {
  let summary = "Bracket each GEMM call, linalg op, copy and allocation of "
                "bufferized code with profiler hooks";
  let description = [{
    Instrumentation for `trellis-run --profile` and `trellis-train --profile`
    (docs/profiling.md). Runs on bufferized code after
    `convert-linalg-to-blas` and before `convert-linalg-to-loops`, where one
    op is one piece of work: every

    * call of a GEMM library (class `gemm`) or of the collectives runtime,
      and every `mpi` op (`collective`);
    * linalg op: a contraction left to loops (`loop-contraction`), an op
      with a reduction loop (`reduction`), `linalg.fill` (`fill`),
      `linalg.copy` / `linalg.transpose` (`copy`), any other
      (`elementwise`);
    * `memref.copy` (`copy`), `memref.alloc`, `memref.realloc`,
      `memref.dealloc` (`allocation`)

    is a site: it gets a `func.call @trellis_profile_begin(%site)` before it
    and a `func.call @trellis_profile_end(%site)` after it, `%site` an `i64`
    constant. The module attribute `trellis.profile_sites` lists the sites
    in order as `[class, location]`; the location is the op's (after
    inlining, a `callsite` whose callee is the source op), so the profiler
    can name the `nn`/`ad` op each piece of work came from. Ops inside
    loops are timed per execution; loop control and the code between sites
    are not timed (the profiler reports them as the rest of the step).

    Example:

    ```mlir
    linalg.fill ins(%zero : f32) outs(%buf : memref<64xf32>)
    // becomes
    %site = arith.constant 3 : i64
    func.call @trellis_profile_begin(%site) : (i64) -> ()
    linalg.fill ins(%zero : f32) outs(%buf : memref<64xf32>)
    func.call @trellis_profile_end(%site) : (i64) -> ()
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

#endif // TRELLIS_CONVERSION_PASSES

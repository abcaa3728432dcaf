//===- Pipelines.cpp - Trellis pass pipelines -----------------------------===//

#include "trellis/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// The lowering, written as pass-pipeline text so that it reads like the
/// documentation (docs/architecture.md) and each step can be replayed in
/// trellis-opt. Anchored on builtin.module.
static constexpr const char *kLowerToLLVM =
    // Derivatives first (they are built from nn and tensor-level ops); the
    // generated derivative functions are then inlined into their callers so
    // buffers are not copied across calls. Then layers to destination-style
    // tensor code, arith on tensors to linalg.
    "ad-differentiate,"
    "inline,"
    "convert-nn-to-linalg,"
    "canonicalize,"
    // Collectives to mpi ops and runtime calls on buffers of the tensors.
    "convert-coll-to-mpi,"
    "func.func(convert-elementwise-to-linalg),"
    "func.func(trellis-fuse-elementwise),"
    // GEMM-shaped contractions: transposes folded into their indexing maps,
    // a zero fill of their own (docs/performance.md).
    "func.func(trellis-prepare-contractions),"
    // Tensors to buffers. Identity layouts at function boundaries give the
    // host plain dense descriptors. (Not eliminate-empty-tensors: with
    // one-shot-bufferize it miscompiled a slice inserted into a zero tensor
    // defined outside a loop — later iterations saw earlier rows.)
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops},"
    "buffer-deallocation-pipeline,"
    "func.func(optimize-allocation-liveness),"
    "convert-bufferization-to-memref,"
    // Buffers to loops to LLVM. Allocation goes through the generic hooks so
    // the runtime can count live tensor bytes.
    // GEMMs to library calls first (f32: oneDNN, f64: OpenBLAS); the loops
    // take everything else.
    "convert-linalg-to-blas{sgemm=dnnl},"
    "func.func(convert-linalg-to-loops),"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    // Math to LLVM intrinsics where LLVM has one, libm calls for the rest
    // (erf, erfc).
    "func.func(convert-math-to-llvm),"
    "convert-math-to-libm,"
    "finalize-memref-to-llvm{use-generic-functions=true},"
    "convert-to-llvm,"
    // The upstream MPI lowering misnames OpenMPI's reduction ops.
    "fix-openmpi-symbols,"
    "reconcile-unrealized-casts";

/// Gives pass `name` of `pipeline` the options `options` (pass-pipeline
/// syntax, without braces).
static LogicalResult setPassOptions(std::string &pipeline, StringRef name,
                                    StringRef options) {
  std::string entry = (name + ",").str();
  size_t at = pipeline.find(entry);
  if (at == std::string::npos) {
    llvm::errs() << "trellis-lower-to-llvm: the pipeline lost " << name
                 << "\n";
    return failure();
  }
  pipeline.replace(at, entry.size(), (name + "{" + options + "},").str());
  return success();
}

LogicalResult
trellis::buildLowerToLLVMPipeline(OpPassManager &pm,
                                  const LowerToLLVMOptions &options) {
  std::string pipeline = kLowerToLLVM;
  if (failed(setPassOptions(
          pipeline, "convert-nn-to-linalg",
          llvm::formatv("attention-chunk={0}", options.attentionChunk).str())))
    return failure();
  if (options.checkCollectives &&
      failed(setPassOptions(pipeline, "convert-coll-to-mpi",
                            "check-agreement=true")))
    return failure();
  return parsePassPipeline(pipeline, pm, llvm::errs());
}

namespace {
/// trellis-lower-to-llvm{...}: LowerToLLVMOptions as pipeline options.
struct LowerToLLVMPipelineOptions
    : PassPipelineOptions<LowerToLLVMPipelineOptions> {
  Option<int64_t> attentionChunk{
      *this, "attention-chunk",
      llvm::cl::desc("Rows per chunk of attention over longer sequences "
                     "(0: never chunk)"),
      llvm::cl::init(trellis::LowerToLLVMOptions().attentionChunk)};
  Option<bool> checkCollectives{
      *this, "check-collectives",
      llvm::cl::desc("Check before every collective that all ranks agree "
                     "on it"),
      llvm::cl::init(false)};
};
} // namespace

void trellis::registerPipelines() {
  PassPipelineRegistration<LowerToLLVMPipelineOptions>(
      "trellis-lower-to-llvm",
      "Lower Trellis and upstream tensor IR to the LLVM dialect "
      "(nn → linalg, bufferize, deallocate, loops, LLVM)",
      [](OpPassManager &pm, const LowerToLLVMPipelineOptions &pipelineOptions) {
        trellis::LowerToLLVMOptions options;
        options.attentionChunk = pipelineOptions.attentionChunk;
        options.checkCollectives = pipelineOptions.checkCollectives;
        if (failed(buildLowerToLLVMPipeline(pm, options)))
          llvm::errs() << "trellis-lower-to-llvm: a pass of the pipeline is "
                          "not registered\n";
      });
}

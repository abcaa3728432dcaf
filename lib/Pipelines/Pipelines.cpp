//===- Pipelines.cpp - Trellis pass pipelines -----------------------------===//
//
// The lowering is built pass by pass from typed options (as upstream's
// SparseTensorPipelines.cpp does), so that every option reaches its pass as
// a field of that pass's options struct, and a pass the pipeline needs is
// linked, not looked up by name. docs/architecture.md walks through it.
//
//===----------------------------------------------------------------------===//

#include "trellis/Pipelines/Pipelines.h"

#include "trellis/Conversion/Passes.h"
#include "trellis/Dialect/AD/Transforms/Passes.h"
#include "trellis/Dialect/Coll/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void trellis::buildLowerToLLVMPipeline(OpPassManager &pm,
                                       const CompileOptions &options) {
  // Shapes no host can hold are errors before anything computes with them.
  pm.addPass(createTrellisCheckTensorSizes());
  // Training-step transformations of the ad ops, before they are
  // differentiated: data-parallel gradient reduction rewrites uses of the
  // gradients; rematerialisation wraps layer segments in ad.checkpoint.
  if (options.gradientReduction) {
    coll::CollAverageGradientsOptions reduce;
    reduce.reduce = options.gradientReduction->reduce;
    reduce.batchNorm = options.gradientReduction->batchNorm;
    reduce.weightShards = options.gradientReduction->weightShards;
    reduce.ranks = options.gradientReduction->ranks;
    pm.addPass(coll::createCollAverageGradients(reduce));
  }
  if (options.remat.policy != ad::RematPolicy::Store) {
    ad::ADRematOptions remat;
    remat.policy = options.remat.policy;
    remat.every = options.remat.every;
    remat.budget = options.remat.budget;
    remat.attentionChunk = options.attentionChunk;
    pm.addPass(ad::createADRemat(remat));
  }

  // Derivatives first (they are built from nn and tensor-level ops); the
  // generated derivative functions are then inlined into their callers so
  // buffers are not copied across calls. Then layers to destination-style
  // tensor code, arith on tensors to linalg.
  pm.addPass(ad::createADDifferentiate());
  pm.addPass(createInlinerPass());
  ConvertNNToLinalgOptions nnToLinalg;
  nnToLinalg.attentionChunk = options.attentionChunk;
  pm.addPass(createConvertNNToLinalg(nnToLinalg));
  pm.addPass(createCanonicalizerPass());
  // The gradients' reductions, now in the differentiated and inlined step,
  // fused into buckets that start where the backward pass has their
  // tensors (docs/collectives.md, "Buckets and overlap").
  if (options.gradientReduction && options.gradientReduction->bucketBytes) {
    coll::CollBucketReductionsOptions buckets;
    buckets.bucketBytes = *options.gradientReduction->bucketBytes;
    pm.addPass(coll::createCollBucketReductions(buckets));
  }

  // Collectives to mpi ops and runtime calls on buffers of the tensors.
  ConvertCollToMPIOptions collToMPI;
  collToMPI.checkAgreement = options.checkCollectives;
  pm.addPass(createConvertCollToMPI(collToMPI));
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createTrellisFuseElementwise());
  // GEMM-shaped contractions: transposes folded into their indexing maps,
  // a zero fill of their own (docs/performance.md).
  pm.addNestedPass<func::FuncOp>(createTrellisPrepareContractions());
  // Short products whose transpose the host runs faster, computed so.
  TrellisOrientContractionsOptions orient;
  orient.transposeShort =
      options.transposeShort.value_or(options.sgemm.transposeShort);
  pm.addNestedPass<func::FuncOp>(createTrellisOrientContractions(orient));
  // SGD updates of weights computed by the GEMM of their gradient.
  pm.addNestedPass<func::FuncOp>(createTrellisFuseGemmUpdates());
  // Large splat constants left after fusion are filled at run time, not
  // written into the module (bufferization would make them globals).
  pm.addNestedPass<func::FuncOp>(createTrellisFillSplats());

  // Parameter updates (ops computing the results) as soon as their
  // gradients are there, while those are in cache.
  pm.addNestedPass<func::FuncOp>(createTrellisEarlyResults());
  // Each op's destination its own: an element-wise op's dying operand, or
  // an empty tensor of its own, so that no buffer outlives its value.
  pm.addNestedPass<func::FuncOp>(createTrellisChooseDestinations());
  // Tensors to buffers. Identity layouts at function boundaries give the
  // host plain dense descriptors. (Not eliminate-empty-tensors: with
  // one-shot-bufferize it miscompiled a slice inserted into a zero tensor
  // defined outside a loop — later iterations saw earlier rows.)
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(
      bufferization::createOptimizeAllocationLivenessPass());
  // Entry functions return updated arguments as themselves, not copies.
  pm.addPass(createTrellisReturnArguments());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Copies into and out of strided subviews as vectorized linalg loops, not
  // the runner utilities' element-by-element memrefCopy.
  pm.addNestedPass<func::FuncOp>(createTrellisStridedCopiesToLinalg());

  // Buffers to loops to LLVM. Allocation goes through the generic hooks so
  // the runtime can count live tensor bytes. GEMMs to library calls first;
  // the loops take everything else.
  ConvertLinalgToBlasOptions linalgToBlas;
  linalgToBlas.sgemmSmall = options.sgemm.small;
  linalgToBlas.sgemmMedium = options.sgemm.medium;
  linalgToBlas.sgemmLarge = options.sgemm.large;
  linalgToBlas.sgemmThin = options.sgemm.thin;
  linalgToBlas.sgemmShort = options.sgemm.shortRows;
  linalgToBlas.sgemmNarrow = options.sgemm.narrow;
  linalgToBlas.parallelBatches = options.parallelLoops;
  pm.addPass(createConvertLinalgToBlas(linalgToBlas, options.sgemmShapes));
  // One op is one piece of work here: the place to time them.
  if (options.profile)
    pm.addPass(createTrellisProfileOps());
  // Ops with enough work get a parallel loop band, which becomes an OpenMP
  // worksharing loop; the rest are sequential loops.
  if (options.parallelLoops)
    pm.addNestedPass<func::FuncOp>(createTrellisParallelizeLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (options.parallelLoops) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addNestedPass<func::FuncOp>(createTrellisInlineAllocaScopes());
    pm.addPass(createTrellisOutlineParallelRegions());
  }
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Math to LLVM intrinsics where LLVM has one, libm calls for the rest
  // (erf, erfc).
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertToLLVMPass());
  // The upstream MPI lowering misnames OpenMPI's reduction ops.
  pm.addPass(createFixOpenMPISymbols());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
/// trellis-lower-to-llvm{...}: the MLIR-lowering part of CompileOptions as
/// pipeline options, with the same defaults.
struct LowerToLLVMPipelineOptions
    : PassPipelineOptions<LowerToLLVMPipelineOptions> {
  Option<int64_t> attentionChunk{
      *this, "attention-chunk",
      llvm::cl::desc("Rows per chunk of attention over longer sequences "
                     "(0: never chunk)"),
      llvm::cl::init(trellis::CompileOptions().attentionChunk)};
  Option<bool> checkCollectives{
      *this, "check-collectives",
      llvm::cl::desc("Check before every collective that all ranks agree "
                     "on it"),
      llvm::cl::init(trellis::CompileOptions().checkCollectives)};
  Option<bool> parallelLoops{
      *this, "parallel-loops",
      llvm::cl::desc("OpenMP worksharing loops for linalg ops with enough "
                     "work (trellis-parallelize-linalg)"),
      llvm::cl::init(trellis::CompileOptions().parallelLoops)};
  Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("Bracket GEMM calls, linalg ops, copies and "
                     "allocations with profiler hooks (trellis-profile-ops)"),
      llvm::cl::init(trellis::CompileOptions().profile)};
  Option<trellis::GemmLibrary> sgemm{
      *this, "sgemm",
      llvm::cl::desc("Library of the f32 GEMMs of every size class"),
      llvm::cl::init(trellis::CompileOptions().sgemm.large),
      trellis::gemmLibraryValues()};
  Option<trellis::GemmLibrary> sgemmSmall{
      *this, "sgemm-small",
      llvm::cl::desc("Library of the f32 GEMMs with M*N*K below 64^3 "
                     "(default: sgemm)"),
      trellis::gemmLibraryValues()};
  Option<trellis::GemmLibrary> sgemmMedium{
      *this, "sgemm-medium",
      llvm::cl::desc("Library of the f32 GEMMs with M*N*K below 256^3 "
                     "(default: sgemm)"),
      trellis::gemmLibraryValues()};
  Option<trellis::GemmLibrary> sgemmLarge{
      *this, "sgemm-large",
      llvm::cl::desc("Library of the larger f32 GEMMs but the thin and "
                     "short ones (default: sgemm)"),
      trellis::gemmLibraryValues()};
  Option<trellis::GemmLibrary> sgemmThin{
      *this, "sgemm-thin",
      llvm::cl::desc("Library of the larger f32 GEMMs with K at most 128 "
                     "(default: sgemm)"),
      trellis::gemmLibraryValues()};
  Option<trellis::GemmLibrary> sgemmShort{
      *this, "sgemm-short",
      llvm::cl::desc("Library of the larger f32 GEMMs with M at most 128, "
                     "not thin (default: sgemm)"),
      trellis::gemmLibraryValues()};
  Option<trellis::GemmLibrary> sgemmNarrow{
      *this, "sgemm-narrow",
      llvm::cl::desc("Library of the larger f32 GEMMs with N at most 32, "
                     "neither thin nor short (default: sgemm)"),
      trellis::gemmLibraryValues()};
  Option<bool> transposeShort{
      *this, "transpose-short",
      llvm::cl::desc("Compute short A*B^T products as their transposes "
                     "(trellis-orient-contractions)"),
      llvm::cl::init(trellis::CompileOptions().sgemm.transposeShort)};

  trellis::CompileOptions toCompileOptions() const {
    trellis::CompileOptions options;
    options.attentionChunk = attentionChunk;
    options.checkCollectives = checkCollectives;
    auto orDefault = [&](const Option<trellis::GemmLibrary> &option) {
      return option.hasValue() ? trellis::GemmLibrary(option)
                               : trellis::GemmLibrary(sgemm);
    };
    options.sgemm = {orDefault(sgemmSmall), orDefault(sgemmMedium),
                     orDefault(sgemmLarge), orDefault(sgemmThin),
                     orDefault(sgemmShort), orDefault(sgemmNarrow),
                     transposeShort};
    options.profile = profile;
    options.parallelLoops = parallelLoops;
    return options;
  }
};
} // namespace

void trellis::registerPipelines() {
  PassPipelineRegistration<LowerToLLVMPipelineOptions>(
      "trellis-lower-to-llvm",
      "Lower Trellis and upstream tensor IR to the LLVM dialect "
      "(nn → linalg, bufferize, deallocate, loops, LLVM)",
      [](OpPassManager &pm, const LowerToLLVMPipelineOptions &options) {
        buildLowerToLLVMPipeline(pm, options.toCompileOptions());
      });
}

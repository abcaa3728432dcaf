//===- Optimizer.cpp - The LLVM pipeline of JIT-compiled code -------------===//
//
// mlir::makeOptimizingTransformer with different tuning options (it fixes
// them all on) and glibc's vector math library for the vectorizer.
//
//===----------------------------------------------------------------------===//

#include "Optimizer.h"

#include "RuntimeError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"

#include <dlfcn.h>
#include <link.h>
#include <string>

/// The process's glibc libmvec, opened once; null if there is none.
static void *getVectorMathLibrary() {
  static void *const handle = []() -> void * {
#if defined(__x86_64__) && defined(__GLIBC__)
    return ::dlopen("libmvec.so.1", RTLD_LAZY | RTLD_NODELETE);
#else
    return nullptr;
#endif
  }();
  return handle;
}

llvm::StringRef trellis::runtime::vectorMathLibraryPath() {
  // Resolved once per process: the engine wants a path, not a soname.
  static const std::string path = [] {
    struct link_map *map = nullptr;
    void *handle = getVectorMathLibrary();
    if (handle && ::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map &&
        map->l_name)
      return std::string(map->l_name);
    return std::string();
  }();
  return path;
}

/// True if `targetMachine` (the host's) has AVX-512F and the process's
/// libmvec has its AVX-512 variants (x86-64 vector ABI "e": glibc 2.22 for
/// exp and log, 2.35 for tanh, erf, erfc; checked on the newest, erfcf).
static bool hasWideVectorMath(llvm::TargetMachine &targetMachine) {
  if (!llvm::is_contained(
          llvm::split(targetMachine.getTargetFeatureString(), ','),
          "+avx512f"))
    return false;
  static const bool found = [] {
    void *mvec = getVectorMathLibrary();
    return mvec && ::dlsym(mvec, "_ZGVeN16v_erfcf") &&
           ::dlsym(mvec, "_ZGVeN8v_erfc");
  }();
  return found;
}

/// Vector variants of the scalar math the lowering emits, in glibc's libmvec
/// (x86-64 vector function ABI: b = SSE, 4 floats / 2 doubles; d = AVX2, 8 /
/// 4; with `wide`, e = AVX-512, 16 / 8). LLVM's LIBMVEC preset covers exp,
/// log, pow, sin, cos, tan at the SSE and AVX2 widths; tanh, erf and erfc
/// (GELU) and the AVX-512 widths are here, as the intrinsic and as the libm
/// call convert-math-to-libm makes.
static void addVectorMath(llvm::TargetLibraryInfoImpl &info,
                          const llvm::Triple &triple, bool wide) {
  info.addVectorizableFunctionsFromVecLib(llvm::VectorLibrary::LIBMVEC,
                                          triple);
  static const struct {
    const char *scalar, *vector4, *vector8;
  } f32[] = {{"tanhf", "_ZGVbN4v_tanhf", "_ZGVdN8v_tanhf"},
             {"llvm.tanh.f32", "_ZGVbN4v_tanhf", "_ZGVdN8v_tanhf"},
             {"erff", "_ZGVbN4v_erff", "_ZGVdN8v_erff"},
             {"erfcf", "_ZGVbN4v_erfcf", "_ZGVdN8v_erfcf"}},
    f64[] = {{"tanh", "_ZGVbN2v_tanh", "_ZGVdN4v_tanh"},
             {"llvm.tanh.f64", "_ZGVbN2v_tanh", "_ZGVdN4v_tanh"},
             {"erf", "_ZGVbN2v_erf", "_ZGVdN4v_erf"},
             {"erfc", "_ZGVbN2v_erfc", "_ZGVdN4v_erfc"}};
  llvm::SmallVector<llvm::VecDesc> descs;
  auto add = [&](const char *scalar, const char *vector, unsigned lanes) {
    descs.emplace_back(scalar, vector, llvm::ElementCount::getFixed(lanes),
                       /*Masked=*/false,
                       lanes == 2   ? "_ZGV_LLVM_N2v"
                       : lanes == 4 ? "_ZGV_LLVM_N4v"
                       : lanes == 8 ? "_ZGV_LLVM_N8v"
                                    : "_ZGV_LLVM_N16v",
                       std::nullopt);
  };
  for (const auto &f : f32) {
    add(f.scalar, f.vector4, 4);
    add(f.scalar, f.vector8, 8);
  }
  for (const auto &f : f64) {
    add(f.scalar, f.vector4, 2);
    add(f.scalar, f.vector8, 4);
  }
  if (wide) {
    // AVX-512: a whole zmm register per call instead of two halves.
    static const struct {
      const char *scalar, *vector;
    } f32x16[] = {{"expf", "_ZGVeN16v_expf"},
                  {"llvm.exp.f32", "_ZGVeN16v_expf"},
                  {"logf", "_ZGVeN16v_logf"},
                  {"llvm.log.f32", "_ZGVeN16v_logf"},
                  {"tanhf", "_ZGVeN16v_tanhf"},
                  {"llvm.tanh.f32", "_ZGVeN16v_tanhf"},
                  {"erff", "_ZGVeN16v_erff"},
                  {"erfcf", "_ZGVeN16v_erfcf"}},
      f64x8[] = {{"exp", "_ZGVeN8v_exp"},   {"llvm.exp.f64", "_ZGVeN8v_exp"},
                 {"log", "_ZGVeN8v_log"},   {"llvm.log.f64", "_ZGVeN8v_log"},
                 {"tanh", "_ZGVeN8v_tanh"}, {"llvm.tanh.f64", "_ZGVeN8v_tanh"},
                 {"erf", "_ZGVeN8v_erf"},   {"erfc", "_ZGVeN8v_erfc"}};
    for (const auto &f : f32x16)
      add(f.scalar, f.vector, 16);
    for (const auto &f : f64x8)
      add(f.scalar, f.vector, 8);
  }
  info.addVectorizableFunctions(descs);
}

/// The ExecutionEngine calls each function `f` of the module through the
/// wrapper `_mlir_f` it generates (packed arguments); nothing else calls `f`.
/// Made internal (and, if the wrapper is its only caller, always inlined), `f`
/// is inlined into its wrapper and compiled once. Public, LLVM either
/// inlined a copy and generated code for `f` a second time, or, once `f` was
/// too large to inline, kept the call, and the wrapper passed hundreds of
/// scalar arguments on the stack: 2 s in the post-RA scheduler for the
/// Transformer example's step.
static void internalizeWrappedFunctions(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration() || function.getName().starts_with("_mlir_"))
      continue;
    llvm::Function *wrapper =
        module.getFunction(("_mlir_" + function.getName()).str());
    if (!wrapper || wrapper->isDeclaration())
      continue;
    function.setLinkage(llvm::GlobalValue::InternalLinkage);
    // Past the inliner's size threshold, even for its last call.
    if (function.hasOneUse())
      function.addFnAttr(llvm::Attribute::AlwaysInline);
  }
}

/// The loops to outline of a function with too many: its top-level loops,
/// or, while there is only one, that one's children (a function that is one
/// loop — an outlined one, or a differentiated scan — keeps it and gives its
/// body's loops functions of their own).
static llvm::SmallVector<llvm::Loop *> loopsToOutline(llvm::LoopInfo &loops) {
  llvm::SmallVector<llvm::Loop *> level(loops.begin(), loops.end());
  while (level.size() == 1 && !level.front()->isInnermost())
    level.assign(level.front()->begin(), level.front()->end());
  return level.size() > 1 ? level : llvm::SmallVector<llvm::Loop *>();
}

unsigned trellis::runtime::outlineLoopsOfLargeFunctions(llvm::Module &module,
                                                        unsigned maxLoops) {
  llvm::SmallVector<llvm::Function *> worklist;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      worklist.push_back(&function);
  unsigned outlined = 0;
  while (!worklist.empty()) {
    llvm::Function *function = worklist.pop_back_val();
    llvm::DominatorTree dominators(*function);
    llvm::LoopInfo loops(dominators);
    if (loops.getLoopsInPreorder().size() <= maxLoops)
      continue;
    llvm::SmallVector<llvm::Loop *> candidates = loopsToOutline(loops);
    llvm::AssumptionCache assumptions(*function);
    // A preheader of its own keeps the code before each loop out of its
    // region. All loops first: the cache below must see the final blocks.
    for (llvm::Loop *loop : candidates)
      llvm::simplifyLoop(loop, &dominators, &loops, /*SE=*/nullptr,
                         &assumptions, /*MSSAU=*/nullptr,
                         /*PreserveLCSSA=*/false);
    llvm::CodeExtractorAnalysisCache cache(*function);
    for (llvm::Loop *loop : candidates) {
      // Allocas allowed: a loop whose body holds a memref.alloca (a
      // stacksave/alloca/stackrestore per iteration) moves with it; 12 such
      // loops stayed in the Transformer LM step and kept its glue from
      // being generated fast.
      llvm::CodeExtractor extractor(
          loop->getBlocks(), &dominators, /*AggregateArgs=*/false,
          /*BFI=*/nullptr, /*BPI=*/nullptr, &assumptions,
          /*AllowVarArgs=*/false, /*AllowAlloca=*/true,
          /*AllocationBlock=*/nullptr, /*Suffix=*/"loop");
      if (!extractor.isEligible())
        continue;
      llvm::Function *loopFunction = extractor.extractCodeRegion(cache);
      if (!loopFunction)
        continue;
      loopFunction->removeFnAttr(llvm::Attribute::AlwaysInline);
      loopFunction->addFnAttr(llvm::Attribute::NoInline);
      // It may have too many loops itself (a loop around a whole layer).
      worklist.push_back(loopFunction);
      ++outlined;
    }
  }
  return outlined;
}

/// Splits every block of `function` longer than `maxInstructions` into
/// blocks of at most that many, after moving the entry block's static
/// allocas to its start (they stay in the entry block, fixed stack slots).
static void splitLongBlocks(llvm::Function &function,
                            unsigned maxInstructions) {
  llvm::BasicBlock &entry = function.getEntryBlock();
  llvm::BasicBlock::iterator start = entry.getFirstNonPHIOrDbgOrAlloca();
  for (llvm::Instruction &inst :
       llvm::make_early_inc_range(llvm::make_range(start, entry.end())))
    if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
      if (alloca->isStaticAlloca())
        alloca->moveBefore(start);
  llvm::SmallVector<llvm::BasicBlock *> blocks;
  for (llvm::BasicBlock &block : function)
    blocks.push_back(&block);
  for (llvm::BasicBlock *block : blocks) {
    unsigned count = 0;
    for (auto it = block->getFirstNonPHIIt(); it != block->end();) {
      llvm::Instruction &inst = *it++;
      if (++count < maxInstructions || inst.isTerminator() ||
          llvm::isa<llvm::AllocaInst>(inst))
        continue;
      block = block->splitBasicBlock(it);
      it = block->begin();
      count = 0;
    }
  }
}

unsigned
trellis::runtime::markLargeStraightLineFunctions(llvm::Module &module,
                                                 unsigned minInstructions) {
  unsigned marked = 0;
  for (llvm::Function &function : module) {
    if (function.isDeclaration() ||
        function.hasFnAttribute(llvm::Attribute::OptimizeNone) ||
        function.hasFnAttribute(llvm::Attribute::AlwaysInline) ||
        function.getInstructionCount() < minInstructions)
      continue;
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    if (!loops.empty())
      continue;
    function.addFnAttr(llvm::Attribute::OptimizeNone);
    function.addFnAttr(llvm::Attribute::NoInline);
    splitLongBlocks(function, kMaxStraightLineBlock);
    ++marked;
  }
  return marked;
}

void trellis::runtime::prepareForOptimization(llvm::Module &module,
                                              unsigned optLevel,
                                              bool outlineLoops) {
  if (optLevel == 0) {
    // MLIR's ExecutionEngine drops `jitCodeGenOptLevel` (its compiler
    // keeps the target machine made before the level is applied), so
    // code generation ran at the default level even here. `optnone`
    // makes the code generator treat each function as -O0 (fast
    // instruction selection; no scheduling, no loop strength reduction):
    // compiling 10 generated property-test programs took 5.5 s of CPU
    // instead of 15.1 s, with bit-identical results.
    for (llvm::Function &function : module)
      if (!function.isDeclaration() &&
          !function.hasFnAttribute(llvm::Attribute::AlwaysInline)) {
        function.addFnAttr(llvm::Attribute::OptimizeNone);
        function.addFnAttr(llvm::Attribute::NoInline);
      }
    return;
  }
  if (outlineLoops) {
    outlineLoopsOfLargeFunctions(module, kMaxLoopsPerFunction);
    // No generated code compares the addresses of the module's own
    // functions: an OpenMP region's outlined body is only handed to
    // __kmpc_fork_call. Without `unnamed_addr`, MergeFunctions kept each
    // duplicate of such a body as a thunk of the one it kept, so the loops
    // that fork them differed and every layer's copy of a parallel loop was
    // optimized and generated anew.
    for (llvm::Function &function : module)
      if (!function.isDeclaration() && function.hasLocalLinkage())
        function.setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    // The same loop of every layer is now the same function: keep one.
    llvm::MergeFunctionsPass::runOnModule(module);
  }
  // After outlining: the outlined functions inherit the attributes of the
  // function they come from.
  internalizeWrappedFunctions(module);
}

llvm::Error trellis::runtime::optimizeModule(llvm::Module &module,
                                             unsigned optLevel,
                                             llvm::TargetMachine &targetMachine,
                                             bool vectorMath) {
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  if (optLevel > 3)
    return makeError("the optimization level must be 0, 1, 2 or 3");
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&targetMachine, tuning);
  if (vectorMath) {
    // Registered before the defaults, which then keep this one.
    llvm::TargetLibraryInfoImpl libraryInfo(targetMachine.getTargetTriple());
    addVectorMath(libraryInfo, targetMachine.getTargetTriple(),
                  hasWideVectorMath(targetMachine));
    fam.registerPass([info = std::move(libraryInfo)] {
      return llvm::TargetLibraryAnalysis(info);
    });
  }
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      optLevel == 0
          ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
          : builder.buildPerModuleDefaultPipeline(levels[optLevel]);
  passes.run(module, mam);
  // Optimized; what is left of the entries between their loops is code
  // generated quickly.
  if (optLevel > 0)
    markLargeStraightLineFunctions(module, kMinStraightLineInstructions);
  return llvm::Error::success();
}

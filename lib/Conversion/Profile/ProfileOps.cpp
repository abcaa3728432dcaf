//===- ProfileOps.cpp - Bracket the work of lowered code with hooks -------===//
//
// trellis-profile-ops (dialects/Conversion/Passes.td). The pass only marks
// where work starts and ends and what it is; the hooks, the clock and the
// report are the runtime's (lib/Runtime/Profiler.cpp).
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/Profile/ProfileOps.h"

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"
#include "trellis/ExecutionEngine/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISPROFILEOPS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;
using namespace trellis;

static constexpr struct {
  ProfileClass kind;
  llvm::StringLiteral name;
} kClassNames[] = {
    {ProfileClass::Gemm, "gemm"},
    {ProfileClass::Collective, "collective"},
    {ProfileClass::LoopContraction, "loop-contraction"},
    {ProfileClass::Reduction, "reduction"},
    {ProfileClass::Elementwise, "elementwise"},
    {ProfileClass::Fill, "fill"},
    {ProfileClass::Copy, "copy"},
    {ProfileClass::Allocation, "allocation"},
};

llvm::StringRef trellis::stringifyProfileClass(ProfileClass kind) {
  for (const auto &entry : kClassNames)
    if (entry.kind == kind)
      return entry.name;
  llvm_unreachable("a ProfileClass without a name");
}

std::optional<ProfileClass>
trellis::symbolizeProfileClass(llvm::StringRef name) {
  for (const auto &entry : kClassNames)
    if (entry.name == name)
      return entry.kind;
  return std::nullopt;
}

/// The class of a call of `callee`, if it is a runtime function: a GEMM
/// library's or the collectives runtime's.
static std::optional<ProfileClass> classifyCallee(llvm::StringRef callee) {
  for (const RuntimeFunctionInfo &function : kRuntimeFunctions) {
    if (callee != llvm::StringRef(function.name.data(), function.name.size()))
      continue;
    switch (function.library) {
    case RuntimeLibrary::Cblas:
    case RuntimeLibrary::Dnnl:
      return ProfileClass::Gemm;
    case RuntimeLibrary::Collectives:
    case RuntimeLibrary::Mpi:
      return ProfileClass::Collective;
    }
  }
  std::optional<RuntimeLibrary> library =
      lookupRuntimeLibrary({callee.data(), callee.size()});
  if (library == RuntimeLibrary::Mpi || library == RuntimeLibrary::Collectives)
    return ProfileClass::Collective;
  return std::nullopt;
}

/// The class of `op` if it is a site of its own.
static std::optional<ProfileClass> classify(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return classifyCallee(call.getCallee());
  if (isa<mpi::MPIDialect>(op->getDialect()))
    return ProfileClass::Collective;
  if (isa<memref::AllocOp, memref::ReallocOp, memref::DeallocOp>(op))
    return ProfileClass::Allocation;
  if (isa<memref::CopyOp, linalg::CopyOp, linalg::TransposeOp>(op))
    return ProfileClass::Copy;
  if (isa<linalg::FillOp>(op))
    return ProfileClass::Fill;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return std::nullopt;
  if (succeeded(matchGemm(linalgOp, GemmBody::Scaled)) ||
      linalg::isaContractionOpInterface(linalgOp))
    return ProfileClass::LoopContraction;
  if (linalgOp.getNumReductionLoops() > 0)
    return ProfileClass::Reduction;
  return ProfileClass::Elementwise;
}

/// Declares `name` : (i64) -> () in `module` unless it is there.
static void declareHook(ModuleOp module, llvm::StringRef name) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto type = builder.getFunctionType({builder.getI64Type()}, {});
  auto hook = func::FuncOp::create(builder, module.getLoc(), name, type);
  hook.setPrivate();
}

namespace {
struct TrellisProfileOpsPass
    : trellis::impl::TrellisProfileOpsBase<TrellisProfileOpsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module->hasAttr(kProfileSitesAttrName)) {
      module.emitError() << "the module is instrumented already ('"
                         << kProfileSitesAttrName << "' is set)";
      return signalPassFailure();
    }
    llvm::SmallVector<std::pair<Operation *, ProfileClass>> sites;
    module.walk([&](Operation *op) {
      // The body of a linalg op is part of its work.
      if (op->getParentOfType<linalg::LinalgOp>())
        return;
      if (std::optional<ProfileClass> kind = classify(op))
        sites.emplace_back(op, *kind);
    });
    if (sites.empty()) {
      module->setAttr(kProfileSitesAttrName, ArrayAttr::get(&getContext(), {}));
      return;
    }
    declareHook(module, kProfileBeginFunction);
    declareHook(module, kProfileEndFunction);

    llvm::SmallVector<Attribute> table;
    OpBuilder builder(&getContext());
    for (auto [index, site] : llvm::enumerate(sites)) {
      auto [op, kind] = site;
      Location loc = op->getLoc();
      builder.setInsertionPoint(op);
      Value id = arith::ConstantIntOp::create(builder, loc, index, 64);
      func::CallOp::create(builder, loc, kProfileBeginFunction, TypeRange(),
                           id);
      builder.setInsertionPointAfter(op);
      func::CallOp::create(builder, loc, kProfileEndFunction, TypeRange(), id);
      table.push_back(builder.getArrayAttr(
          {builder.getStringAttr(stringifyProfileClass(kind)), loc}));
    }
    module->setAttr(kProfileSitesAttrName, builder.getArrayAttr(table));
  }
};
} // namespace

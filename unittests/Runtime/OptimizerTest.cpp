//===- OptimizerTest.cpp - Loop outlining of the JIT's optimizer ----------===//
//
// outlineLoopsOfLargeFunctions on generated LLVM IR: the threshold, the
// descent into a function that is a single loop, loops whose values are used
// after them, and the attributes of the outlined functions. The module must
// verify after every outlining. (Results of outlined code are compared with
// the non-outlined code's by test/Integration/JIT/perf/outline-loops.mlir.)
//
//===----------------------------------------------------------------------===//

#include "Optimizer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

using trellis::runtime::outlineLoopsOfLargeFunctions;

namespace {

/// `count` loops in sequence, from block `from` to block `to`: loop k sums
/// p[0..99] into %s<k> and stores the sum after the loop (a value live out
/// of the loop, which the outlined function must return).
std::string sequentialLoops(unsigned count, const std::string &from,
                            const std::string &to, const std::string &tag) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  os << "  br label %" << tag << "h0\n";
  for (unsigned k = 0; k < count; ++k) {
    std::string h = tag + "h" + std::to_string(k),
                b = tag + "b" + std::to_string(k),
                x = tag + "x" + std::to_string(k);
    std::string pred = k == 0 ? from : tag + "x" + std::to_string(k - 1);
    os << h << ":\n"
       << "  %" << h << "i = phi i64 [0, %" << pred << "], [%" << b << "n, %"
       << b << "]\n"
       << "  %" << h << "s = phi float [0.0, %" << pred << "], [%" << b
       << "s, %" << b << "]\n"
       << "  %" << h << "c = icmp slt i64 %" << h << "i, 100\n"
       << "  br i1 %" << h << "c, label %" << b << ", label %" << x << "\n"
       << b << ":\n"
       << "  %" << b << "g = getelementptr float, ptr %p, i64 %" << h << "i\n"
       << "  %" << b << "v = load float, ptr %" << b << "g\n"
       << "  %" << b << "s = fadd float %" << h << "s, %" << b << "v\n"
       << "  %" << b << "n = add i64 %" << h << "i, 1\n"
       << "  br label %" << h << "\n"
       << x << ":\n"
       << "  %" << x << "g = getelementptr float, ptr %q, i64 " << k << "\n"
       << "  store float %" << h << "s, ptr %" << x << "g\n"
       << "  br label %"
       << (k + 1 == count ? to : tag + "h" + std::to_string(k + 1)) << "\n";
  }
  return ir;
}

/// `define void @f(ptr %p, ptr %q)` with `count` sequential loops.
std::string flatFunction(unsigned count, const std::string &attributes = "") {
  return "define void @f(ptr %p, ptr %q) " + attributes + " {\nentry:\n" +
         sequentialLoops(count, "entry", "exit", "") + "exit:\n  ret void\n}\n";
}

/// `define void @g(ptr %p, ptr %q)`: one loop (10 iterations) whose body is
/// `count` sequential loops.
std::string nestedFunction(unsigned count) {
  return "define void @g(ptr %p, ptr %q) {\nentry:\n  br label %oh\n"
         "oh:\n  %oi = phi i64 [0, %entry], [%on, %ol]\n"
         "  %oc = icmp slt i64 %oi, 10\n  br i1 %oc, label %ob, label %exit\n"
         "ob:\n" +
         sequentialLoops(count, "ob", "ol", "in") +
         "ol:\n  %on = add i64 %oi, 1\n  br label %oh\n"
         "exit:\n  ret void\n}\n";
}

std::unique_ptr<llvm::Module> parse(const std::string &ir,
                                    llvm::LLVMContext &context) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, error, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    error.print("OptimizerTest", os);
    ADD_FAILURE() << message;
  }
  return module;
}

unsigned countLoops(llvm::Function &function) {
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  return loops.getLoopsInPreorder().size();
}

/// Calls of functions (not of intrinsics such as the lifetime markers of the
/// outlined loops' output slots).
unsigned countCalls(llvm::Function &function) {
  unsigned calls = 0;
  for (llvm::Instruction &instruction : llvm::instructions(function))
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&instruction))
      calls += call->getCalledFunction() &&
               !call->getCalledFunction()->isIntrinsic();
  return calls;
}

/// The functions outlined from `name` (CodeExtractor: name.loop, name.loop.1,
/// ...).
llvm::SmallVector<llvm::Function *> outlinedFrom(llvm::Module &module,
                                                 llvm::StringRef name) {
  llvm::SmallVector<llvm::Function *> found;
  for (llvm::Function &function : module)
    if (function.getName().starts_with((name + ".loop").str()))
      found.push_back(&function);
  return found;
}

/// outlinedFrom(), each checked to be `noinline` and not `alwaysinline`
/// (which CodeExtractor copies from the function the loop came from).
llvm::SmallVector<llvm::Function *> noinlineOutlinedFrom(llvm::Module &module,
                                                         llvm::StringRef name) {
  llvm::SmallVector<llvm::Function *> outlined = outlinedFrom(module, name);
  for (llvm::Function *loop : outlined) {
    EXPECT_TRUE(loop->hasFnAttribute(llvm::Attribute::NoInline))
        << loop->getName().str();
    EXPECT_FALSE(loop->hasFnAttribute(llvm::Attribute::AlwaysInline))
        << loop->getName().str();
  }
  return outlined;
}

bool verifies(llvm::Module &module) {
  std::string message;
  llvm::raw_string_ostream os(message);
  bool broken = llvm::verifyModule(module, &os);
  EXPECT_FALSE(broken) << message;
  return !broken;
}

TEST(OutlineLoops, AtTheThresholdNothingMoves) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(flatFunction(128), context);
  ASSERT_TRUE(module);
  EXPECT_EQ(outlineLoopsOfLargeFunctions(*module, 128), 0u);
  EXPECT_EQ(countLoops(*module->getFunction("f")), 128u);
  EXPECT_TRUE(outlinedFrom(*module, "f").empty());
}

TEST(OutlineLoops, AboveItEveryLoopGetsANoinlineFunction) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(flatFunction(129), context);
  ASSERT_TRUE(module);
  EXPECT_EQ(outlineLoopsOfLargeFunctions(*module, 128), 129u);
  ASSERT_TRUE(verifies(*module));
  llvm::Function *f = module->getFunction("f");
  EXPECT_EQ(countLoops(*f), 0u);
  EXPECT_EQ(countCalls(*f), 129u);
  llvm::SmallVector<llvm::Function *> outlined =
      noinlineOutlinedFrom(*module, "f");
  ASSERT_EQ(outlined.size(), 129u);
  for (llvm::Function *loop : outlined) {
    EXPECT_EQ(countLoops(*loop), 1u);
    // p, and the address the sum is stored to after the loop (q + k), or
    // q: the sum itself is live out, so an output pointer as well.
    EXPECT_GE(loop->arg_size(), 2u);
  }
  // The stores after the loops stay in @f, fed by the outlined sums.
  unsigned stores = 0;
  for (llvm::Instruction &instruction : llvm::instructions(*f))
    stores += llvm::isa<llvm::StoreInst>(instruction) &&
              llvm::cast<llvm::StoreInst>(instruction)
                  .getValueOperand()
                  ->getType()
                  ->isFloatTy();
  EXPECT_EQ(stores, 129u);
}

TEST(OutlineLoops, ASingleLoopGivesItsChildrenFunctions) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(nestedFunction(200), context);
  ASSERT_TRUE(module);
  EXPECT_EQ(outlineLoopsOfLargeFunctions(*module, 128), 200u);
  ASSERT_TRUE(verifies(*module));
  // The outer loop stays, and calls the 200 inner ones.
  llvm::Function *g = module->getFunction("g");
  EXPECT_EQ(countLoops(*g), 1u);
  EXPECT_EQ(countCalls(*g), 200u);
  EXPECT_EQ(noinlineOutlinedFrom(*module, "g").size(), 200u);
}

TEST(OutlineLoops, OutlinedFunctionsAreNeverAlwaysInline) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      parse(flatFunction(130, "alwaysinline"), context);
  ASSERT_TRUE(module);
  EXPECT_EQ(outlineLoopsOfLargeFunctions(*module, 128), 130u);
  ASSERT_TRUE(verifies(*module));
  EXPECT_EQ(noinlineOutlinedFrom(*module, "f").size(), 130u);
}

TEST(OutlineLoops, SmallFunctionsOfTheModuleAreLeftAlone) {
  llvm::LLVMContext context;
  std::string ir = flatFunction(3);
  ir += nestedFunction(140);
  std::unique_ptr<llvm::Module> module = parse(ir, context);
  ASSERT_TRUE(module);
  EXPECT_EQ(outlineLoopsOfLargeFunctions(*module, 128), 140u);
  ASSERT_TRUE(verifies(*module));
  EXPECT_EQ(countLoops(*module->getFunction("f")), 3u);
  EXPECT_TRUE(outlinedFrom(*module, "f").empty());
}

} // namespace

namespace {
/// A loop-free function of one block: `allocas` allocas, each stored to
/// between `adds` chained adds, then the sum returned.
std::string straightLine(unsigned allocas, unsigned adds) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  os << "define i64 @g(i64 %x) {\n";
  for (unsigned k = 0; k < adds; ++k) {
    os << "  %a" << k << " = add i64 "
       << (k ? "%a" + std::to_string(k - 1) : "%x") << ", " << k << "\n";
    if (k % (adds / allocas) == 0 && k / (adds / allocas) < allocas)
      os << "  %m" << k << " = alloca i64\n"
         << "  store volatile i64 %a" << k << ", ptr %m" << k << "\n";
  }
  os << "  ret i64 %a" << adds - 1 << "\n}\n";
  return ir;
}
} // namespace

using trellis::runtime::kMaxStraightLineBlock;
using trellis::runtime::kMinStraightLineInstructions;
using trellis::runtime::markLargeStraightLineFunctions;

TEST(StraightLine, SmallFunctionsStayOptimized) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(straightLine(4, 100), context);
  ASSERT_TRUE(module);
  EXPECT_EQ(
      markLargeStraightLineFunctions(*module, kMinStraightLineInstructions),
      0u);
  EXPECT_FALSE(module->getFunction("g")->hasOptNone());
  EXPECT_EQ(module->getFunction("g")->size(), 1u);
}

TEST(StraightLine, LargeOnesAreOptnoneInShortBlocksAllocasFirst) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(straightLine(40, 4000), context);
  ASSERT_TRUE(module);
  EXPECT_EQ(
      markLargeStraightLineFunctions(*module, kMinStraightLineInstructions),
      1u);
  ASSERT_TRUE(verifies(*module));
  llvm::Function *g = module->getFunction("g");
  EXPECT_TRUE(g->hasOptNone());
  EXPECT_TRUE(g->hasFnAttribute(llvm::Attribute::NoInline));
  EXPECT_GT(g->size(), 4000u / kMaxStraightLineBlock);
  unsigned allocasInEntry = 0;
  for (llvm::BasicBlock &block : *g) {
    EXPECT_LE(block.size(), kMaxStraightLineBlock + 1);
    for (llvm::Instruction &inst : block)
      if (llvm::isa<llvm::AllocaInst>(inst)) {
        EXPECT_EQ(&block, &g->getEntryBlock());
        ++allocasInEntry;
      }
  }
  EXPECT_EQ(allocasInEntry, 40u);
}

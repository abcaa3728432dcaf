//===- CompileCacheTest.cpp - The compile cache's key ---------------------===//
//
// computeCompileCacheKey (lib/Runtime/CompileCache.cpp): every option that
// decides the code changes the key, each to a key of its own (a GEMM shape
// chooser by its id, and none without one is cached); the cache
// directory and the IR dump do not; the entry names and the module do (also
// where a printer flag would elide constants), the module's locations and
// the text's layout do not. (Hits, misses and damaged entries are tested end
// to end by test/Integration/JIT/cache.)
//
//===----------------------------------------------------------------------===//

#include "CompileCache.h"

#include "trellis/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"

#include "gtest/gtest.h"

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

using trellis::CompileOptions;
using trellis::runtime::computeCompileCacheKey;

namespace {

constexpr const char *kModule = R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir";

class CompileCacheKey : public ::testing::Test {
protected:
  CompileCacheKey() {
    mlir::DialectRegistry registry;
    trellis::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// The key of compiling `text` for `entries` with `options`.
  std::string key(const CompileOptions &options, llvm::StringRef text = kModule,
                  llvm::ArrayRef<std::string> entries = {"f"}) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text.str();
    return module ? computeCompileCacheKey(*module, entries, options) : "";
  }

  mlir::MLIRContext context;
};

TEST_F(CompileCacheKey, IsAHexSha256) {
  std::string k = key({});
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k.find_first_not_of("0123456789abcdef"), std::string::npos) << k;
  EXPECT_EQ(k, key({})) << "the same compile must give the same key";
}

TEST_F(CompileCacheKey, EveryOptionOfTheCodeChangesIt) {
  using Change = std::function<void(CompileOptions &)>;
  std::vector<std::pair<const char *, Change>> changes = {
      {"attentionChunk", [](auto &o) { o.attentionChunk = 64; }},
      {"checkCollectives", [](auto &o) { o.checkCollectives = false; }},
      {"remat.policy",
       [](auto &o) { o.remat.policy = trellis::ad::RematPolicy::Every; }},
      {"remat.every", [](auto &o) { o.remat.every = 3; }},
      {"remat.budget", [](auto &o) { o.remat.budget = 1 << 20; }},
      {"gradientReduction", [](auto &o) { o.gradientReduction.emplace(); }},
      {"gradientReduction.reduce",
       [](auto &o) {
         o.gradientReduction.emplace();
         o.gradientReduction->reduce = trellis::coll::GradientReduction::Adasum;
       }},
      {"gradientReduction.weightShards",
       [](auto &o) {
         o.gradientReduction.emplace();
         o.gradientReduction->weightShards = 2;
       }},
      {"gradientReduction.ranks",
       [](auto &o) {
         o.gradientReduction.emplace();
         o.gradientReduction->ranks = 4;
       }},
      {"sgemm", [](auto &o) { o.sgemm.medium = trellis::GemmLibrary::Cblas; }},
      {"sgemmShapes",
       [](auto &o) {
         o.sgemmShapes.id = "0123456789abcdef";
         o.sgemmShapes.choose = [](auto, auto classLibraries) {
           return llvm::SmallVector<trellis::GemmLibrary>(classLibraries);
         };
       }},
      {"parallelLoops", [](auto &o) { o.parallelLoops = false; }},
      {"profile", [](auto &o) { o.profile = true; }},
      {"pipeline", [](auto &o) { o.pipeline = "convert-to-llvm"; }},
      {"optLevel", [](auto &o) { o.optLevel = 2; }},
      {"vectorMath", [](auto &o) { o.vectorMath = false; }},
      {"outlineLoops", [](auto &o) { o.outlineLoops = false; }},
      {"sharedLibPaths", [](auto &o) { o.sharedLibPaths = {"/lib/a.so"}; }},
      {"sharedLibPaths (two)",
       [](auto &o) {
         o.sharedLibPaths = {"/lib/a.so", "/lib/b.so"};
       }},
      {"blasLibraryPath", [](auto &o) { o.blasLibraryPath = "/lib/blis.so"; }},
      {"dnnlLibraryPath", [](auto &o) { o.dnnlLibraryPath = "/lib/dnnl.so"; }},
  };
  std::string base = key({});
  std::set<std::string> seen{base};
  for (const auto &[name, change] : changes) {
    CompileOptions options;
    change(options);
    std::string changed = key(options);
    EXPECT_NE(changed, base) << name << " does not change the key";
    EXPECT_TRUE(seen.insert(changed).second)
        << name << " gives the key of another change";
  }
}

TEST_F(CompileCacheKey, TheCacheDirectoryTheIRDumpAndVerificationDoNot) {
  std::string base = key({});
  CompileOptions elsewhere;
  elsewhere.cacheDir = "/tmp/elsewhere";
  EXPECT_EQ(key(elsewhere), base);
  CompileOptions dump;
  dump.dumpLLVMIR = "/tmp/f.ll";
  EXPECT_EQ(key(dump), base);
  CompileOptions verified;
  verified.verifyEachPass = true;
  EXPECT_EQ(key(verified), base);
}

TEST_F(CompileCacheKey, TheModuleAndTheEntriesDo) {
  std::string base = key({});
  EXPECT_NE(key({}, kModule, {"g"}), base);
  EXPECT_NE(key({}, kModule, {"f", "f"}), base);
  std::string mul = kModule;
  mul.replace(mul.find("addf"), 4, "mulf");
  EXPECT_NE(key({}, mul), base);
  // Constants that differ in one element hash apart even when the command
  // line asks the printer to elide large ones (trellis-opt registers that
  // option).
  mlir::registerAsmPrinterCLOptions();
  const char *argv[] = {"CompileCacheTest",
                        "--mlir-elide-elementsattrs-if-larger=16"};
  ASSERT_TRUE(llvm::cl::ParseCommandLineOptions(2, argv));
  std::string big = R"mlir(
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c = arith.constant dense<[)mlir";
  for (int i = 0; i < 64; ++i)
    big += (i ? ", " : "") + std::to_string(i) + ".0";
  big += R"mlir(]> : tensor<64xf32>
  %r = arith.addf %x, %c : tensor<64xf32>
  return %r : tensor<64xf32>
}
)mlir";
  std::string bigger = big;
  bigger.replace(bigger.find("63.0"), 4, "64.0");
  EXPECT_NE(key({}, big), key({}, bigger));
}

TEST(CompileCache, NotWithAShapeChooserWithoutAnId) {
  using trellis::runtime::usesCompileCache;
  CompileOptions options;
  options.cacheDir = "/tmp/cache";
  EXPECT_TRUE(usesCompileCache(options));
  options.sgemmShapes.choose = [](auto, auto classLibraries) {
    return llvm::SmallVector<trellis::GemmLibrary>(classLibraries);
  };
  EXPECT_FALSE(usesCompileCache(options));
  options.sgemmShapes.id = "0123456789abcdef";
  EXPECT_TRUE(usesCompileCache(options));
}

TEST_F(CompileCacheKey, LocationsAndLayoutDoNot) {
  std::string base = key({});
  std::string moved = std::string("\n\n// a comment\n") + kModule;
  EXPECT_EQ(key({}, moved), base);
  std::string located = R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x : tensor<4xf32> loc("model.py":12:3)
  return %r : tensor<4xf32> loc(unknown)
}
)mlir";
  EXPECT_EQ(key({}, located), base);
}

} // namespace

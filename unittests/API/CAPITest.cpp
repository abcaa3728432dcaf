//===- CAPITest.cpp - Tests of the C API ----------------------------------===//

#include "trellis-c/Trellis.h"

#include "gtest/gtest.h"

#include <cstring>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace {

constexpr const char *kModule = R"mlir(
func.func @double(%x: tensor<3xi64>) -> tensor<3xi64> {
  %y = arith.addi %x, %x : tensor<3xi64>
  return %y : tensor<3xi64>
}
)mlir";

TEST(CAPI, RoundTrip) {
  TrellisCompiler compiler = nullptr;
  ASSERT_EQ(trellisCompilerCreate(nullptr, 2, &compiler), TRELLIS_SUCCESS);
  TrellisModule module = nullptr;
  ASSERT_EQ(
      trellisModuleParse(compiler, kModule, std::strlen(kModule), &module),
      TRELLIS_SUCCESS)
      << trellisGetLastError();
  TrellisCompiledModule compiled = nullptr;
  ASSERT_EQ(trellisCompile(compiler, module, &compiled), TRELLIS_SUCCESS)
      << trellisGetLastError();
  TrellisFunction function = nullptr;
  ASSERT_EQ(trellisLookupFunction(compiled, "double", &function),
            TRELLIS_SUCCESS);

  // Every other element of a 6-element buffer.
  int64_t data[] = {1, -1, 2, -1, 3, -1};
  int64_t shape[] = {3}, strides[] = {2};
  TrellisTensorView input = {TRELLIS_I64, 1, shape, strides, data};
  TrellisTensor result = nullptr;
  ASSERT_EQ(trellisFunctionCall(function, &input, 1, &result), TRELLIS_SUCCESS)
      << trellisGetLastError();
  EXPECT_EQ(trellisTensorGetDType(result), TRELLIS_I64);
  EXPECT_EQ(trellisTensorGetRank(result), 1);
  EXPECT_EQ(trellisTensorGetShape(result)[0], 3);
  ASSERT_EQ(trellisTensorGetNumElements(result), 3);
  const int64_t *values =
      static_cast<const int64_t *>(trellisTensorGetData(result));
  EXPECT_EQ(values[0], 2);
  EXPECT_EQ(values[1], 4);
  EXPECT_EQ(values[2], 6);

  // Failures leave a message and touch no output.
  // A dtype no enumerator has, stored as a C caller may (C++ forbids the
  // value 9 in this enum, so it is written as an int).
  TrellisTensorView bad = {TRELLIS_F32, 1, shape, nullptr, data};
  int invalidDType = 9;
  static_assert(sizeof(invalidDType) == sizeof(bad.dtype));
  std::memcpy(&bad.dtype, &invalidDType, sizeof(invalidDType));
  TrellisTensor unused = nullptr;
  EXPECT_EQ(trellisFunctionCall(function, &bad, 1, &unused), TRELLIS_FAILURE);
  EXPECT_EQ(std::string(trellisGetLastError()),
            "argument 0: invalid view (dtype, rank or shape)");
  EXPECT_EQ(unused, nullptr);
  TrellisFunction missing = nullptr;
  EXPECT_EQ(trellisLookupFunction(compiled, "triple", &missing),
            TRELLIS_FAILURE);
  EXPECT_EQ(std::string(trellisGetLastError()),
            "no callable function @triple (callable: @double)");
  EXPECT_EQ(trellisLookupFunction(nullptr, "double", &missing),
            TRELLIS_FAILURE);
  EXPECT_EQ(trellisCompilerCreate(nullptr, 4, &compiler), TRELLIS_FAILURE);

  trellisTensorDestroy(result);
  trellisFunctionDestroy(function);
  trellisCompiledModuleDestroy(compiled);
  trellisModuleDestroy(module);
  trellisCompilerDestroy(compiler);
}

TEST(CAPI, ParseErrorCarriesDiagnostics) {
  TrellisCompiler compiler = nullptr;
  ASSERT_EQ(trellisCompilerCreate(nullptr, 3, &compiler), TRELLIS_SUCCESS);
  const char *text = "func.func @f() {";
  TrellisModule module = nullptr;
  EXPECT_EQ(trellisModuleParse(compiler, text, std::strlen(text), &module),
            TRELLIS_FAILURE);
  EXPECT_NE(std::string(trellisGetLastError()).find("<string>:1:"),
            std::string::npos)
      << trellisGetLastError();
  EXPECT_EQ(module, nullptr);
  trellisCompilerDestroy(compiler);
}

constexpr const char *kGradOfChain = R"mlir(
func.func @chain(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %d0 = nn.dense %x, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h0 = nn.tanh %d0 : tensor<256x16xf32>
  %d1 = nn.dense %h0, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h1 = nn.tanh %d1 : tensor<256x16xf32>
  %l = nn.mean %h1 : (tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @use(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<16x16xf32> {
  %g = ad.grad @chain(%x, %w, %b) {argnums = array<i64: 1>} : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  return %g : tensor<16x16xf32>
}
)mlir";

/// Compiles kGradOfChain with `options`; returns "" or the error.
std::string compileGradOfChain(const TrellisCompileOptions &options) {
  TrellisCompiler compiler = nullptr;
  if (trellisCompilerCreateWithOptions(&options, &compiler) != TRELLIS_SUCCESS)
    return trellisGetLastError();
  TrellisModule module = nullptr;
  std::string error;
  if (trellisModuleParse(compiler, kGradOfChain, std::strlen(kGradOfChain),
                         &module) != TRELLIS_SUCCESS) {
    error = trellisGetLastError();
  } else {
    TrellisCompiledModule compiled = nullptr;
    if (trellisCompile(compiler, module, &compiled) != TRELLIS_SUCCESS)
      error = trellisGetLastError();
    trellisCompiledModuleDestroy(compiled);
  }
  trellisModuleDestroy(module);
  trellisCompilerDestroy(compiler);
  return error;
}

TEST(CAPI, CompileOptionsDefaultsAreTheTools) {
  TrellisCompileOptions options;
  trellisCompileOptionsInit(&options);
  EXPECT_EQ(options.pipeline, nullptr);
  EXPECT_EQ(options.optLevel, 3u);
  EXPECT_EQ(options.attentionChunk, 128);
  EXPECT_NE(options.checkCollectives, 0);
  EXPECT_EQ(options.remat, TRELLIS_REMAT_STORE);
  EXPECT_NE(options.vectorMath, 0);
  EXPECT_NE(options.outlineLoops, 0);
  EXPECT_NE(options.parallelLoops, 0);
  EXPECT_EQ(options.compileThreads, 0u);
  EXPECT_EQ(options.sgemm, TRELLIS_SGEMM_AUTO);
  EXPECT_EQ(options.targetCpu, nullptr);
  EXPECT_EQ(options.verifyEachPass, 0);
  EXPECT_EQ(compileGradOfChain(options), "");
  // Verified after every pass, the same module compiles.
  options.verifyEachPass = 1;
  EXPECT_EQ(compileGradOfChain(options), "");
  options.verifyEachPass = 0;
  // Code for a named CPU (the x86-64 baseline, which every host runs); an
  // unknown one is the JIT's error.
  options.targetCpu = "x86-64";
  EXPECT_EQ(compileGradOfChain(options), "");
  options.targetCpu = "pentium9";
  std::string unknown = compileGradOfChain(options);
  EXPECT_NE(unknown.find("unknown target CPU 'pentium9'"), std::string::npos)
      << unknown;
  options.targetCpu = nullptr;
  // Code generation on two threads; each fixed GEMM library.
  options.compileThreads = 2;
  EXPECT_EQ(compileGradOfChain(options), "");
  options.compileThreads = 0;
  for (TrellisGemmLibrary library : {TRELLIS_SGEMM_DNNL, TRELLIS_SGEMM_CBLAS}) {
    options.sgemm = library;
    EXPECT_EQ(compileGradOfChain(options), "");
  }
  options.sgemm = TRELLIS_SGEMM_AUTO;
  // And without parallel loops.
  options.parallelLoops = 0;
  EXPECT_EQ(compileGradOfChain(options), "");
}

// The remat options reach ad-remat through the compiler: a budget below
// every schedule's predicted peak is the pass's error (ad-remat-invalid.mlir's
// figures), while the default stores everything and compiles.
TEST(CAPI, CompileOptionsReachThePasses) {
  TrellisCompileOptions options;
  trellisCompileOptionsInit(&options);
  options.remat = TRELLIS_REMAT_BUDGET;
  options.rematBudget = 1000;
  std::string error = compileGradOfChain(options);
  EXPECT_NE(error.find("budget of 1000 bytes is infeasible"), std::string::npos)
      << error;
  options.rematBudget = 1000000;
  EXPECT_EQ(compileGradOfChain(options), "");
}

// cacheDir reaches the JIT (docs/compile-cache.md): the first compile keeps
// one entry, an archive of objects and its manifest, which the second uses.
TEST(CAPI, CompileOptionsCacheDirKeepsTheCode) {
  TrellisCompileOptions options;
  trellisCompileOptionsInit(&options);
  EXPECT_EQ(options.cacheDir, nullptr);
  std::filesystem::path directory =
      std::filesystem::temp_directory_path() /
      ("trellis-capi-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  std::string path = directory.string();
  options.cacheDir = path.c_str();
  auto countFiles = [&] {
    size_t count = 0;
    for (const auto &file : std::filesystem::directory_iterator(directory))
      count +=
          file.path().extension() == ".a" || file.path().extension() == ".json";
    return count;
  };
  EXPECT_EQ(compileGradOfChain(options), "");
  EXPECT_EQ(countFiles(), 2u);
  EXPECT_EQ(compileGradOfChain(options), "");
  EXPECT_EQ(countFiles(), 2u);
  std::filesystem::remove_all(directory);
}

TEST(CAPI, CompileOptionsAreChecked) {
  TrellisCompileOptions options;
  trellisCompileOptionsInit(&options);
  options.attentionChunk = -1;
  // Rejected by convert-nn-to-linalg itself, with its message.
  std::string error = compileGradOfChain(options);
  EXPECT_NE(error.find("attention-chunk must be ≥ 0, got -1"),
            std::string::npos)
      << error;
  trellisCompileOptionsInit(&options);
  options.remat = static_cast<TrellisRematPolicy>(7);
  EXPECT_NE(compileGradOfChain(options).find("policy 7"), std::string::npos);
  trellisCompileOptionsInit(&options);
  options.sgemm = static_cast<TrellisGemmLibrary>(5);
  EXPECT_NE(compileGradOfChain(options).find("unknown f32 GEMM library 5"),
            std::string::npos);
  TrellisCompiler compiler = nullptr;
  EXPECT_EQ(trellisCompilerCreateWithOptions(nullptr, &compiler),
            TRELLIS_FAILURE);
}

} // namespace

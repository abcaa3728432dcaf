//===- CompilerTest.cpp - Tests of the C++ embedding API ------------------===//

#include "trellis/API/Compiler.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

using namespace trellis;

namespace {

/// Two results (one aliasing an argument), f64 and a scalar argument, a
/// function the host cannot call and a private one.
constexpr const char *kModule = R"mlir(
func.func @scale(%x: tensor<4xf64>, %a: f64) -> (tensor<4xf64>, tensor<4xf64>) {
  %s = tensor.splat %a : tensor<4xf64>
  %y = arith.mulf %x, %s : tensor<4xf64>
  return %y, %x : tensor<4xf64>, tensor<4xf64>
}
func.func @add(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %z = arith.addf %x, %y : tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}
func.func @flag(%b: i1) -> i1 {
  return %b : i1
}
func.func private @helper(%x: f32) -> f32 {
  return %x : f32
}
)mlir";

/// Returns the message of `value`'s error, or "" if it has none.
template <typename T> std::string errorOf(llvm::Expected<T> &value) {
  return value ? "" : llvm::toString(value.takeError());
}

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : "";
}

class CompilerTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::Expected<Module> parsed = compiler.parseModule(kModule);
    ASSERT_TRUE(bool(parsed)) << errorOf(parsed);
    module.emplace(std::move(*parsed));
    llvm::Expected<CompiledModule> result = compiler.compile(*module);
    ASSERT_TRUE(bool(result)) << errorOf(result);
    compiled.emplace(std::move(*result));
  }

  Compiler compiler;
  std::optional<Module> module;
  std::optional<CompiledModule> compiled;
};

TEST_F(CompilerTest, ListsCallableFunctions) {
  EXPECT_EQ(compiled->getFunctionNames(),
            (std::vector<std::string>{"scale", "add"}));
}

TEST_F(CompilerTest, ScalarArgumentAndAliasingResults) {
  llvm::Expected<Function> scale = compiled->lookup("scale");
  ASSERT_TRUE(bool(scale)) << errorOf(scale);
  EXPECT_EQ(scale->getNumArguments(), 2u);
  EXPECT_EQ(scale->getNumResults(), 2u);
  double x[] = {1, 2, 3, 4};
  double a = 2.5;
  int64_t shape[] = {4};
  auto results = scale->call({TensorView{DType::F64, shape, {}, x},
                              TensorView{DType::F64, {}, {}, &a}});
  ASSERT_TRUE(bool(results)) << errorOf(results);
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].getValues<double>(),
            llvm::ArrayRef<double>({2.5, 5, 7.5, 10}));
  EXPECT_EQ((*results)[1].getValues<double>(), llvm::ArrayRef<double>(x));
  // The host's data is never written.
  EXPECT_EQ(x[0], 1);
}

TEST_F(CompilerTest, StridedViews) {
  llvm::Expected<Function> add = compiled->lookup("add");
  ASSERT_TRUE(bool(add)) << errorOf(add);
  int64_t shape[] = {2, 3};
  // x: rows of a 2x4 buffer (padded rows); y: one row broadcast (stride 0)
  // read backwards (stride -1).
  float xBuffer[] = {1, 2, 3, -1, 4, 5, 6, -1};
  int64_t xStrides[] = {4, 1};
  float yBuffer[] = {30, 20, 10};
  int64_t yStrides[] = {0, -1};
  auto results =
      add->call({TensorView{DType::F32, shape, xStrides, xBuffer},
                 TensorView{DType::F32, shape, yStrides, yBuffer + 2}});
  ASSERT_TRUE(bool(results)) << errorOf(results);
  const Tensor &z = (*results)[0];
  EXPECT_EQ(z.getShape(), llvm::ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(z.getValues<float>(),
            llvm::ArrayRef<float>({11, 22, 33, 14, 25, 36}));
  // A result feeds another call through its view.
  auto again = add->call({z.getView(), z.getView()});
  ASSERT_TRUE(bool(again)) << errorOf(again);
  EXPECT_EQ((*again)[0].getValues<float>(),
            llvm::ArrayRef<float>({22, 44, 66, 28, 50, 72}));
}

TEST_F(CompilerTest, BadCallsAreErrors) {
  llvm::Expected<Function> add = compiled->lookup("add");
  ASSERT_TRUE(bool(add));
  float data[6] = {};
  int64_t shape[] = {2, 3}, oneStride[] = {1};
  TensorView good{DType::F32, shape, {}, data};
  auto tooFew = add->call({good});
  EXPECT_EQ(errorOf(tooFew), "@add takes 2 arguments, got 1");
  auto wrongDType = add->call({good, TensorView{DType::F64, shape, {}, data}});
  EXPECT_EQ(errorOf(wrongDType),
            "argument 1: expected tensor<2x3xf32>, got float64 array of "
            "shape (2, 3)");
  auto badStrides =
      add->call({good, TensorView{DType::F32, shape, oneStride, data}});
  EXPECT_EQ(errorOf(badStrides), "argument 1: a view of rank 2 has 1 strides");
  auto noData = add->call({good, TensorView{DType::F32, shape, {}, nullptr}});
  EXPECT_EQ(errorOf(noData),
            "argument 1: a view of (2, 3) elements has no data");
}

TEST_F(CompilerTest, LookupSaysWhyNot) {
  auto flag = compiled->lookup("flag");
  EXPECT_NE(errorOf(flag).find("@flag cannot be called: argument 0 of @flag"),
            std::string::npos)
      << errorOf(flag);
  auto helper = compiled->lookup("helper");
  EXPECT_EQ(errorOf(helper),
            "no callable function @helper (callable: @scale, @add)");
}

TEST_F(CompilerTest, ModuleIsReusable) {
  // compile() lowers a copy: the module can be compiled again and still
  // prints at the tensor level.
  EXPECT_NE(module->print().find("tensor.splat"), std::string::npos);
  llvm::Expected<CompiledModule> second = compiler.compile(*module);
  ASSERT_TRUE(bool(second)) << errorOf(second);
}

TEST(Compiler, OptionsAndPipelines) {
  CompileOptions options;
  options.pipeline = "trellis-lower-to-llvm";
  options.optLevel = 0;
  Compiler compiler(options);
  auto module = compiler.parseModule(kModule);
  ASSERT_TRUE(bool(module));
  auto compiled = compiler.compile(*module);
  ASSERT_TRUE(bool(compiled)) << errorOf(compiled);

  auto withPipeline = [](std::string pipeline, unsigned optLevel) {
    CompileOptions options;
    options.pipeline = std::move(pipeline);
    options.optLevel = optLevel;
    return options;
  };
  compiler.setOptions(withPipeline("no-such-pass", 3));
  auto unknown = compiler.compile(*module);
  EXPECT_NE(errorOf(unknown).find("invalid pass pipeline 'no-such-pass'"),
            std::string::npos);

  compiler.setOptions(withPipeline("canonicalize", 3));
  auto partial = compiler.compile(*module);
  std::string message = errorOf(partial);
  EXPECT_NE(message.find("outside the LLVM dialect:\n<string>:"),
            std::string::npos)
      << message;

  compiler.setOptions(withPipeline("", 7));
  auto badLevel = compiler.compile(*module);
  EXPECT_EQ(errorOf(badLevel), "the optimization level must be 0, 1, 2 or 3");
}

TEST(Compiler, BuildsModulesWithOpBuilder) {
  Compiler compiler;
  mlir::MLIRContext &ctx = compiler.getContext();
  mlir::OpBuilder builder(&ctx);
  mlir::Location loc = builder.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> built = mlir::ModuleOp::create(loc);
  builder.setInsertionPointToEnd(built->getBody());
  auto f32 = builder.getF32Type();
  auto func = mlir::func::FuncOp::create(
      builder, loc, "fma", builder.getFunctionType({f32, f32, f32}, {f32}));
  mlir::Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  mlir::Value product = mlir::arith::MulFOp::create(
      builder, loc, body->getArgument(0), body->getArgument(1));
  mlir::Value sum =
      mlir::arith::AddFOp::create(builder, loc, product, body->getArgument(2));
  mlir::func::ReturnOp::create(builder, loc, sum);

  auto module = compiler.adoptModule(std::move(built));
  ASSERT_TRUE(bool(module)) << errorOf(module);
  auto compiled = compiler.compile(*module);
  ASSERT_TRUE(bool(compiled)) << errorOf(compiled);
  auto fma = compiled->lookup("fma");
  ASSERT_TRUE(bool(fma));
  float a = 2, b = 3, c = 4;
  auto results = fma->call({TensorView{DType::F32, {}, {}, &a},
                            TensorView{DType::F32, {}, {}, &b},
                            TensorView{DType::F32, {}, {}, &c}});
  ASSERT_TRUE(bool(results)) << errorOf(results);
  EXPECT_EQ((*results)[0].getRank(), 0);
  EXPECT_EQ((*results)[0].getValues<float>()[0], 10.0f);
}

TEST(Compiler, ParseAndLoadErrors) {
  Compiler compiler;
  auto bad = compiler.parseModule("func.func @f(%a: tensor<2xf32>) -> "
                                  "tensor<3xf32> { return %a : tensor<2xf32> }",
                                  "bad.mlir");
  EXPECT_NE(errorOf(bad).find("cannot parse bad.mlir:\nbad.mlir:1:"),
            std::string::npos)
      << errorOf(bad);
  auto missing = compiler.loadModule("/nonexistent/model.mlir");
  EXPECT_EQ(errorOf(missing).rfind("cannot read /nonexistent/model.mlir", 0),
            0u);
}

TEST(Compiler, CompileToObject) {
  Compiler compiler;
  auto module = compiler.parseModule(kModule);
  ASSERT_TRUE(bool(module));
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("trellis-aot", dir));
  AotOptions aot;
  aot.functions = {"add"};
  aot.objectPath = (dir + "/add.o").str();
  aot.headerPath = (dir + "/add.h").str();
  aot.cpu = "generic";
  EXPECT_EQ(errorOf(compiler.compileToObject(*module, aot)), "");
  EXPECT_TRUE(llvm::sys::fs::exists(aot.objectPath));
  EXPECT_TRUE(llvm::sys::fs::exists(aot.headerPath));

  aot.functions = {"helper"};
  EXPECT_EQ(errorOf(compiler.compileToObject(*module, aot)),
            "@helper is private; only public functions can be exported");
  aot.functions = {"add"};
  aot.cpu = "no-such-cpu";
  EXPECT_EQ(errorOf(compiler.compileToObject(*module, aot))
                .rfind("unknown CPU 'no-such-cpu' for ", 0),
            0u);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

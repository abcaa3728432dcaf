//===- ReturnedArgumentsTest.cpp - Results that are their argument --------===//
//
// A step that updates a parameter in place returns the parameter's own
// buffer (trellis-fuse-gemm-updates, trellis-return-arguments). The host
// then gets that argument as the result, moved rather than copied, and a
// second result of the same buffer as a copy of it.
//
//===----------------------------------------------------------------------===//

#include "trellis/InitAll.h"
#include "trellis/Pipelines/CompileOptions.h"
#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Jit.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cstring>

using trellis::runtime::DType;
using trellis::runtime::HostArray;
using trellis::runtime::JitModule;

namespace {

// @step writes w - x into w's buffer (an element-wise op whose destination
// is the argument it reads) and returns that buffer twice, and x + 1.
constexpr const char *kModule = R"mlir(
#id = affine_map<(d0) -> (d0)>
func.func @step(%w: tensor<4xf32>, %x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%w : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.subf %o, %a : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %y = arith.addf %x, %one : tensor<4xf32>
  return %u, %u, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
)mlir";

HostArray makeArray(std::initializer_list<float> values) {
  llvm::Expected<HostArray> array =
      HostArray::create(DType::F32, {int64_t(values.size())});
  EXPECT_TRUE(bool(array));
  std::memcpy(array->getData(), values.begin(), values.size() * sizeof(float));
  return std::move(*array);
}

float at(const HostArray &array, int64_t i) {
  float value;
  std::memcpy(&value, array.getData() + i * sizeof(float), sizeof(float));
  return value;
}

TEST(ReturnedArguments, MovedIntoTheFirstResultCopiedIntoTheSecond) {
  mlir::DialectRegistry registry;
  trellis::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);
  trellis::CompileOptions options;
  options.measureGemmLibraries = false;
  llvm::Expected<std::unique_ptr<JitModule>> jit =
      JitModule::compile(*module, "step", options);
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());

  llvm::SmallVector<HostArray> args;
  args.push_back(makeArray({10, 20, 30, 40}));
  args.push_back(makeArray({1, 2, 3, 4}));
  const char *wBuffer = args[0].getData();
  llvm::Expected<llvm::SmallVector<HostArray>> results =
      (*jit)->callInPlace("step", args);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 3u);
  // The updated w is w's own buffer, moved: the argument is left empty.
  EXPECT_EQ((*results)[0].getData(), wBuffer);
  EXPECT_EQ(args[0].getNumElements(), 0);
  // The second result of that buffer is a copy; x is not returned.
  EXPECT_NE((*results)[1].getData(), wBuffer);
  EXPECT_EQ(args[1].getNumElements(), 4);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(at((*results)[0], i), 9.0f * (i + 1));
    EXPECT_EQ(at((*results)[1], i), 9.0f * (i + 1));
    EXPECT_EQ(at((*results)[2], i), float(i + 2));
  }

  // call() gives the program copies: the caller's arrays stay as they were.
  llvm::SmallVector<HostArray> inputs;
  inputs.push_back(makeArray({10, 20, 30, 40}));
  inputs.push_back(makeArray({1, 2, 3, 4}));
  results = (*jit)->call("step", inputs);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  EXPECT_EQ(at(inputs[0], 3), 40.0f);
  EXPECT_EQ(at((*results)[0], 3), 36.0f);
}

} // namespace

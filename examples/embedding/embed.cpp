//===- embed.cpp - Embedding Trellis through its C++ API ------------------===//
//
// Compiles relu(x · w + b) (model.mlir), calls it on a dense and on a
// transposed (strided) view of x, checks the numbers against the
// hand-computed [[4.5, 0], [10.5, 0]], and shows that bad input is an error,
// not an abort. Prints OK and exits 0 on success.
//
//===----------------------------------------------------------------------===//

#include "trellis/API/Compiler.h"

#include <cmath>
#include <cstdio>

static const char *kModel = R"mlir(
func.func @predict(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>,
                   %b: tensor<2xf32>) -> tensor<2x2xf32> {
  %h = nn.dense %x, %w, %b
      : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %r = nn.relu %h : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)mlir";

static int failures = 0;

static void check(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "pass" : "FAIL", what);
  if (!ok)
    ++failures;
}

/// Returns true if `tensor` is the 2x2 float result [[4.5, 0], [10.5, 0]].
static bool isExpected(const trellis::Tensor &tensor) {
  const float expected[] = {4.5f, 0.0f, 10.5f, 0.0f};
  if (tensor.getDType() != trellis::DType::F32 || tensor.getRank() != 2 ||
      tensor.getShape()[0] != 2 || tensor.getShape()[1] != 2)
    return false;
  llvm::ArrayRef<float> values = tensor.getValues<float>();
  for (int i = 0; i < 4; ++i)
    if (std::fabs(values[i] - expected[i]) > 1e-6f)
      return false;
  std::printf("result: %g %g %g %g\n", values[0], values[1], values[2],
              values[3]);
  return true;
}

int main() {
  trellis::Compiler compiler;
  llvm::Expected<trellis::Module> module = compiler.parseModule(kModel);
  if (!module) {
    std::printf("FAIL: %s\n", llvm::toString(module.takeError()).c_str());
    return 1;
  }
  llvm::Expected<trellis::CompiledModule> compiled = compiler.compile(*module);
  if (!compiled) {
    std::printf("FAIL: %s\n", llvm::toString(compiled.takeError()).c_str());
    return 1;
  }
  llvm::Expected<trellis::Function> predict = compiled->lookup("predict");
  if (!predict) {
    std::printf("FAIL: %s\n", llvm::toString(predict.takeError()).c_str());
    return 1;
  }

  float x[] = {1, 2, 3, 4, 5, 6};
  float w[] = {1, -1, 0, 1, 1, -2};
  float b[] = {0.5f, -1};
  int64_t xShape[] = {2, 3}, wShape[] = {3, 2}, bShape[] = {2};
  trellis::TensorView wView{trellis::DType::F32, wShape, {}, w};
  trellis::TensorView bView{trellis::DType::F32, bShape, {}, b};

  // Dense views.
  {
    trellis::TensorView xView{trellis::DType::F32, xShape, {}, x};
    auto results = predict->call({xView, wView, bView});
    check(results && results->size() == 1 && isExpected((*results)[0]),
          "dense call");
    if (!results)
      std::printf("%s\n", llvm::toString(results.takeError()).c_str());
  }
  // x as the transpose of a 3x2 buffer: element (i, j) at j * 2 + i.
  {
    float xt[] = {1, 4, 2, 5, 3, 6};
    int64_t strides[] = {1, 2};
    trellis::TensorView xView{trellis::DType::F32, xShape, strides, xt};
    auto results = predict->call({xView, wView, bView});
    check(results && results->size() == 1 && isExpected((*results)[0]),
          "strided (transposed) call");
    if (!results)
      std::printf("%s\n", llvm::toString(results.takeError()).c_str());
  }
  // Errors come back as llvm::Error with a message.
  {
    int64_t badShape[] = {3, 2};
    trellis::TensorView xView{trellis::DType::F32, badShape, {}, x};
    auto results = predict->call({xView, wView, bView});
    bool failed = !results;
    std::string message = failed ? llvm::toString(results.takeError()) : "";
    std::printf("wrong shape: %s\n", message.c_str());
    check(failed, "a wrongly shaped argument is an error");
  }
  {
    auto bad = compiler.parseModule("func.func @f() { return %x }", "bad.mlir");
    bool failed = !bad;
    std::string message = failed ? llvm::toString(bad.takeError()) : "";
    std::printf("invalid IR: %s\n", message.c_str());
    check(failed, "invalid IR is an error");
  }
  {
    auto missing = compiled->lookup("train");
    bool failed = !missing;
    std::string message = failed ? llvm::toString(missing.takeError()) : "";
    std::printf("unknown function: %s\n", message.c_str());
    check(failed, "an unknown function is an error");
  }
  if (failures)
    return 1;
  std::printf("OK\n");
  return 0;
}

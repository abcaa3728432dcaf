//===- trellis-opt.cpp - mlir-opt with the Trellis dialects and passes ----===//

#include "trellis/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  trellis::registerAllDialects(registry);
  trellis::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Trellis optimizer driver\n", registry));
}

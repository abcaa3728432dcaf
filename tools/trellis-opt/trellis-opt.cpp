//===- trellis-opt.cpp - mlir-opt with the Trellis dialects and passes ----===//

#include "trellis/InitAll.h"
#include "trellis/Utils/Nesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  trellis::registerAllDialects(registry);
  trellis::registerAllPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Trellis optimizer driver\n", registry);
  // Nesting the parser cannot take is one error, not a stack overflow
  // (trellis/Utils/Nesting.h); everything else is mlir-opt's. (Only regular
  // files: standard input and pipes can be read once, by mlir-opt.)
  std::string message;
  if (std::unique_ptr<llvm::MemoryBuffer> file =
          llvm::sys::fs::is_regular_file(input)
              ? mlir::openInputFile(input, &message)
              : nullptr)
    if (llvm::Error err = trellis::checkNesting(file->getBuffer(), input)) {
      llvm::errs() << "trellis-opt: error: " << llvm::toString(std::move(err))
                   << "\n";
      return 1;
    }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}

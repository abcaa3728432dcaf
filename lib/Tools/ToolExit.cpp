//===- ToolExit.cpp - How a Trellis tool ends -----------------------------===//

#include "trellis/Tools/ToolExit.h"

#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/Runtime/MemoryLimit.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>

void trellis::tools::endMpiJob(bool failed) {
  if (failed)
    trellis_coll_abort_if_initialized(1);
  else
    trellis_coll_finalize();
}

int trellis::tools::finishTool(llvm::StringRef tool, llvm::Error err) {
  if (!err) {
    endMpiJob(/*failed=*/false);
    return 0;
  }
  std::string message = llvm::toString(std::move(err));
  std::replace(message.begin(), message.end(), '\n', ' ');
  llvm::outs().flush();
  llvm::errs() << tool << ": error: " << llvm::StringRef(message).trim()
               << '\n';
  llvm::errs().flush();
  endMpiJob(/*failed=*/true);
  return 1;
}

llvm::Expected<trellis::runtime::RuntimeConfig>
trellis::tools::startTool(llvm::StringRef memoryLimitFlag) {
  llvm::Expected<runtime::RuntimeConfig> config =
      runtime::RuntimeConfig::fromEnvironment();
  if (!config)
    return config.takeError();
  runtime::configureProcess(*config);
  if (llvm::Error err = runtime::setMemoryLimitFromFlag(memoryLimitFlag))
    return std::move(err);
  return config;
}

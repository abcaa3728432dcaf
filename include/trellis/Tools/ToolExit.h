//===- ToolExit.h - How a Trellis tool starts and ends ----------*- C++ -*-===//
//
// Every tool reads the environment once, when it starts (startTool), and
// reports a failure the same way: one line
// "<tool>: error: <message>" on stderr and exit code 1. Under mpirun a
// failing rank also ends the whole job, so that ranks waiting for it in a
// collective do not hang.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TOOLS_TOOLEXIT_H
#define TRELLIS_TOOLS_TOOLEXIT_H

#include "trellis/Runtime/RuntimeConfig.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace trellis::tools {

/// The start of a tool's main(), after its flags are parsed: reads the
/// environment (RuntimeConfig::fromEnvironment), applies its process-wide
/// settings (configureProcess), then a `--memory-limit` flag over
/// TRELLIS_MEMORY_LIMIT if not empty, and returns the configuration, for
/// the compile options.
llvm::Expected<runtime::RuntimeConfig>
startTool(llvm::StringRef memoryLimitFlag = {});

/// Ends the MPI side of the process, if a program initialized it: finalizes
/// MPI after a success; after a failure aborts the whole job (MPI_Abort), so
/// that ranks waiting in a collective for this one do not hang.
void endMpiJob(bool failed);

/// The end of a tool's main(): on an error prints "<tool>: error: <message>"
/// as one line to stderr and returns 1, else 0; ends the MPI side first
/// (endMpiJob).
int finishTool(llvm::StringRef tool, llvm::Error err);

} // namespace trellis::tools

#endif // TRELLIS_TOOLS_TOOLEXIT_H

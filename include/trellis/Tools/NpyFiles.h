//===- NpyFiles.h - The .npy inputs and results of a tool -------*- C++ -*-===//
//
// Inputs are .npy files bound to an entry's arguments in order; results are
// written as <dir>/result<i>.npy or summarized one line each. Paths may hold
// `{rank}`, replaced by the MPI rank, so that every rank of a job reads and
// writes its own files.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TOOLS_NPYFILES_H
#define TRELLIS_TOOLS_NPYFILES_H

#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace trellis::tools {

/// Reads the .npy files `paths` in order, with `{rank}` replaced by `rank`.
/// An error names the input: "input <i> ('<path>'): <cause>".
llvm::Expected<llvm::SmallVector<runtime::HostArray>>
readInputs(llvm::ArrayRef<std::string> paths, unsigned rank);

/// Like readInputs, and checks first that there is one file per argument of
/// `signature`, then that each array can bind to its argument.
llvm::Expected<llvm::SmallVector<runtime::HostArray>>
readInputsFor(const runtime::EntrySignature &signature,
              llvm::ArrayRef<std::string> paths, unsigned rank);

/// Writes result i to `<dir>/result<i>.npy`, creating `dir` (like
/// `mkdir -p`) if needed.
llvm::Error writeResults(llvm::StringRef dir,
                         llvm::ArrayRef<runtime::HostArray> results);

/// Prints one line "result<i>: <dtype> <shape> [values...]" per result.
void printResults(llvm::raw_ostream &os,
                  llvm::ArrayRef<runtime::HostArray> results);

} // namespace trellis::tools

#endif // TRELLIS_TOOLS_NPYFILES_H

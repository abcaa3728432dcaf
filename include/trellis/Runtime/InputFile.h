//===- InputFile.h - Reading a file the user names, whole -------*- C++ -*-===//
//
// Every file Trellis reads whole — models, .npy inputs, .npz data and
// checkpoints — is opened here: a regular file, whose size is known before a
// byte is read. A FIFO would block forever and a device like /dev/zero
// would be read until memory runs out; both are errors naming what the path
// is (issue 20).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_INPUTFILE_H
#define TRELLIS_RUNTIME_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace trellis::runtime {

/// Returns the contents of `path`, which must be a regular file (after
/// following symbolic links), or "-" for standard input if `allowStdin`.
/// Errors, without the path (callers name it): "not a regular file (a
/// FIFO)" (a directory, a character device, a block device, a socket),
/// "cannot open: <the system's reason>", "cannot read: <reason>".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path, bool isText = false,
                bool allowStdin = false);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_INPUTFILE_H

//===- Files.h - Reading and writing the files a user names -----*- C++ -*-===//
//
// Every file Trellis reads whole — models, .npy inputs, .npz data and
// checkpoints — is opened here: a regular file, whose size is known before a
// byte is read. A FIFO would block forever and a device like /dev/zero
// would be read until memory runs out; both are errors naming what the path
// is. Every file it writes is written to a new temporary file (created
// exclusively) and renamed over the path: a symbolic link planted there is
// replaced, never followed (issue 20, SECURITY.md).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_FILES_H
#define TRELLIS_RUNTIME_FILES_H

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

/// Writes `bytes` to a temporary file created exclusively in `path`'s
/// directory (llvm::writeToOutput), then renames it over `path`: a reader
/// sees the old file or the whole new one, and a symbolic link at `path` is
/// replaced, not followed.
llvm::Error writeFile(llvm::StringRef path, llvm::StringRef bytes);

/// Opens `path` for writing — appending if `append`, else truncating it —
/// creating it if missing and never through a symbolic link (O_NOFOLLOW),
/// and returns its descriptor, or an error naming the path and the reason
/// ("it is a symbolic link").
llvm::Expected<int> openNoFollow(llvm::StringRef path, bool append);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_FILES_H

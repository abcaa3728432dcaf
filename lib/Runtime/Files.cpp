//===- Files.cpp - Reading and writing the files a user names -------------===//

#include "trellis/Runtime/Files.h"

#include "RuntimeError.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>

using namespace trellis::runtime;

/// What a file of `type` is, for the error ("a FIFO").
static llvm::StringRef describe(llvm::sys::fs::file_type type) {
  using llvm::sys::fs::file_type;
  switch (type) {
  case file_type::directory_file:
    return "a directory";
  case file_type::fifo_file:
    return "a FIFO";
  case file_type::character_file:
    return "a character device";
  case file_type::block_file:
    return "a block device";
  case file_type::socket_file:
    return "a socket";
  default:
    return "not a file that can be read whole";
  }
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
trellis::runtime::readRegularFile(llvm::StringRef path, bool isText,
                                  bool allowStdin) {
  if (allowStdin && path == "-") {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> input =
        llvm::MemoryBuffer::getSTDIN();
    if (!input)
      return makeError("cannot read standard input: " +
                       input.getError().message());
    return std::move(*input);
  }
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return makeError("cannot open: " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return makeError("not a regular file (" + describe(status.type()) + ")");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, isText,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return makeError("cannot read: " + file.getError().message());
  return std::move(*file);
}

llvm::Error trellis::runtime::writeFile(llvm::StringRef path,
                                        llvm::StringRef bytes) {
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << bytes;
    return llvm::Error::success();
  });
}

llvm::Expected<int> trellis::runtime::openNoFollow(llvm::StringRef path,
                                                   bool append) {
  int fd = ::open(path.str().c_str(),
                  O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
                      (append ? O_APPEND : O_TRUNC),
                  0644);
  if (fd < 0)
    return makeError(
        "cannot write '" + path + "': " +
        (errno == ELOOP ? "it is a symbolic link" : std::strerror(errno)));
  return fd;
}

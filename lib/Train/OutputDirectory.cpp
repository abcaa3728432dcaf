//===- OutputDirectory.cpp - The directory a training run owns ------------===//

#include "trellis/Train/OutputDirectory.h"

#include "TrainError.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace trellis;
using namespace trellis::train;
using llvm::Twine;

OutputDirectoryLock::~OutputDirectoryLock() {
  if (fd >= 0)
    ::close(fd);
}

llvm::Error OutputDirectoryLock::lock(llvm::StringRef directory) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, "trellis-train.lock");
  int lockFd =
      ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (lockFd < 0)
    return fail(
        "cannot lock '" + directory + "': cannot open '" + path + "': " +
        (errno == ELOOP ? "it is a symbolic link" : std::strerror(errno)));
  if (::flock(lockFd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    // The holder wrote its process id into the file.
    char holder[32] = {};
    ssize_t n = ::pread(lockFd, holder, sizeof(holder) - 1, 0);
    ::close(lockFd);
    if (error != EWOULDBLOCK)
      return fail("cannot lock '" + path + "': " + std::strerror(error));
    llvm::StringRef pid = llvm::StringRef(holder, n > 0 ? n : 0).trim();
    return fail("'" + directory + "' is the output directory of another " +
                "trellis-train" +
                (pid.empty() ? Twine("") : " (process " + pid + ")") +
                ", which holds '" + path + "'");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lockFd, 0) != 0 ||
      ::pwrite(lockFd, pid.data(), pid.size(), 0) !=
          static_cast<ssize_t>(pid.size())) {
    int error = errno;
    ::close(lockFd);
    return fail("cannot write '" + path + "': " + std::strerror(error));
  }
  fd = lockFd;
  return llvm::Error::success();
}

int trellis::train::removeStaleTemporaries(llvm::StringRef directory) {
  int removed = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    // writeNpzAtomically's (and, before it, checkpoint.npz.tmp.<pid>), and
    // llvm::writeToOutput's of curve.svg and metrics.jsonl.
    bool temporary = name.starts_with("checkpoint.npz.tmp") ||
                     name.starts_with("curve.svg.temp-stream-") ||
                     name.starts_with("metrics.jsonl.temp-stream-");
    if (temporary && it->type() != llvm::sys::fs::file_type::directory_file &&
        !llvm::sys::fs::remove(it->path()))
      ++removed;
  }
  return removed;
}

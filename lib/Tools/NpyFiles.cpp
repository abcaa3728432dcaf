//===- NpyFiles.cpp - The .npy inputs and results of a tool ---------------===//

#include "trellis/Tools/NpyFiles.h"

#include "trellis/Runtime/Npy.h"
#include "trellis/Runtime/Rank.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace trellis::runtime;
using namespace trellis::tools;

/// Reads input `index` from `pattern`; `signature`, if given, must accept it.
static llvm::Expected<HostArray> readInput(unsigned index,
                                           llvm::StringRef pattern,
                                           unsigned rank,
                                           const EntrySignature *signature) {
  std::string path = substituteRank(pattern, rank);
  auto fail = [&](llvm::Error err) {
    return llvm::createStringError("input " + llvm::Twine(index) + " ('" +
                                   path +
                                   "'): " + llvm::toString(std::move(err)));
  };
  llvm::Expected<HostArray> array = readNpy(path);
  if (!array)
    return fail(array.takeError());
  if (signature)
    if (llvm::Error err = checkBinding(signature->args[index], *array))
      return fail(std::move(err));
  return array;
}

/// Reads every input; `signature`, if given, must accept each.
static llvm::Expected<llvm::SmallVector<HostArray>>
readInputFiles(llvm::ArrayRef<std::string> paths, unsigned rank,
               const EntrySignature *signature) {
  llvm::SmallVector<HostArray> inputs;
  for (auto [index, pattern] : llvm::enumerate(paths)) {
    llvm::Expected<HostArray> array =
        readInput(index, pattern, rank, signature);
    if (!array)
      return array.takeError();
    inputs.push_back(std::move(*array));
  }
  return inputs;
}

llvm::Expected<llvm::SmallVector<HostArray>>
trellis::tools::readInputs(llvm::ArrayRef<std::string> paths, unsigned rank) {
  return readInputFiles(paths, rank, /*signature=*/nullptr);
}

llvm::Expected<llvm::SmallVector<HostArray>>
trellis::tools::readInputsFor(const EntrySignature &signature,
                              llvm::ArrayRef<std::string> paths,
                              unsigned rank) {
  if (paths.size() != signature.args.size())
    return llvm::createStringError(
        "@" + signature.name + " takes " + llvm::Twine(signature.args.size()) +
        " argument(s) but " + llvm::Twine(paths.size()) +
        " --input file(s) were given");
  return readInputFiles(paths, rank, &signature);
}

llvm::Error trellis::tools::writeResults(llvm::StringRef dir,
                                         llvm::ArrayRef<HostArray> results) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError("cannot create output directory '" + dir +
                                   "': " + ec.message());
  for (auto [index, result] : llvm::enumerate(results)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "result" + llvm::Twine(index) + ".npy");
    if (llvm::Error err = writeNpy(path, result))
      return err;
  }
  return llvm::Error::success();
}

void trellis::tools::printResults(llvm::raw_ostream &os,
                                  llvm::ArrayRef<HostArray> results) {
  for (auto [index, result] : llvm::enumerate(results)) {
    os << "result" << index << ": ";
    result.printSummary(os);
    os << '\n';
  }
}

//===- Equivalence.cpp - The trellis-equiv check --------------------------===//

#include "trellis/Tools/Equivalence.h"

#include "trellis/Runtime/Compare.h"
#include "trellis/Runtime/Jit.h"
#include "trellis/Tools/ModuleFile.h"
#include "trellis/Tools/NpyFiles.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace trellis;
using namespace trellis::runtime;
using namespace trellis::tools;

/// Compiles `entry` of the module in `file` and calls it on `args`.
static llvm::Expected<llvm::SmallVector<HostArray>>
runEntry(llvm::StringRef file, llvm::StringRef entry,
         llvm::ArrayRef<HostArray> args, const CompileOptions &options) {
  llvm::Expected<std::unique_ptr<ModuleFile>> module = ModuleFile::load(file);
  if (!module)
    return module.takeError();
  llvm::Expected<std::unique_ptr<JitModule>> jit =
      JitModule::compile((*module)->get(), entry, options);
  if (!jit)
    return jit.takeError();
  return (*jit)->call(args);
}

/// `value` as printf's %g prints it ("0.001", "nan", "-inf").
static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

llvm::Expected<bool>
trellis::tools::checkEquivalence(const EquivalenceOptions &options,
                                 llvm::raw_ostream &out) {
  for (auto [name, value] :
       {std::pair{"--rtol", options.rtol}, std::pair{"--atol", options.atol}})
    if (!std::isfinite(value) || value < 0)
      return llvm::createStringError(llvm::Twine(name) +
                                     " must be a finite number >= 0, got " +
                                     formatNumber(value));
  if (options.normRtol != -1 &&
      (!std::isfinite(options.normRtol) || options.normRtol < 0))
    return llvm::createStringError(
        "--norm-rtol must be a finite number >= 0, got " +
        formatNumber(options.normRtol));
  llvm::Expected<llvm::SmallVector<HostArray>> args =
      readInputs(options.inputPaths, /*rank=*/0);
  if (!args)
    return args.takeError();
  llvm::Expected<llvm::SmallVector<HostArray>> ref =
      runEntry(options.refFile, options.refEntry, *args, options.compile);
  if (!ref)
    return ref.takeError();
  llvm::Expected<llvm::SmallVector<HostArray>> test =
      runEntry(options.testFile.empty() ? options.refFile : options.testFile,
               options.testEntry, *args, options.compile);
  if (!test)
    return test.takeError();
  if (ref->size() != test->size())
    return llvm::createStringError(
        "the reference returns " + llvm::Twine(ref->size()) +
        " result(s), the test " + llvm::Twine(test->size()));

  bool normJudged = options.normRtol >= 0;
  bool allClose = true;
  for (unsigned i = 0; i < ref->size(); ++i) {
    llvm::Expected<ArrayDiff> diff =
        compareArrays((*ref)[i], (*test)[i], options.rtol, options.atol);
    if (!diff)
      return diff.takeError();
    if (normJudged)
      diff->close = diff->normRelativeError <= options.normRtol;
    allClose &= diff->close;
    out << (diff->close ? "ok   " : "FAIL ") << "result " << i;
    if (i < options.labels.size())
      out << " (" << options.labels[i] << ")";
    out << ": max abs error " << llvm::format("%.3e", diff->maxAbsError)
        << ", norm-relative " << llvm::format("%.3e", diff->normRelativeError)
        << ", worst at " << formatIndex((*ref)[i].getShape(), diff->worstIndex)
        << " ref " << llvm::format("%.9g", diff->worstRef) << " test "
        << llvm::format("%.9g", diff->worstTest) << "\n";
  }
  out << (allClose ? "equivalent" : "NOT equivalent");
  if (normJudged)
    out << " (norm-relative " << llvm::format("%g", options.normRtol) << ")\n";
  else
    out << " (rtol " << llvm::format("%g", options.rtol) << ", atol "
        << llvm::format("%g", options.atol) << ")\n";
  out.flush();
  return allClose;
}

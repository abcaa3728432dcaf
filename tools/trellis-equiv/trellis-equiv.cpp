//===- trellis-equiv.cpp - Run two variants of a model and compare --------===//
//
// The reusable equivalence check (Trax's _test_equivalence_to_reference_code):
// runs a reference entry and a test entry — of one module or of two — on the
// same inputs and compares every result (outputs, state, input and weight
// gradients, whatever the entries return) with NumPy's allclose, reporting
// the worst element of each. Exit code 0 when all are close, 1 otherwise.
//
//   trellis-equiv REF.mlir --entry=ref [--test-file=TEST.mlir] --test-entry=rev
//       --input=a.npy ... [--rtol=1e-3] [--atol=1e-3] [--labels=out,dx,dw]
//
//===----------------------------------------------------------------------===//

#include "trellis/InitAll.h"
#include "trellis/Runtime/Compare.h"
#include "trellis/Runtime/Jit.h"
#include "trellis/Runtime/Npy.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace trellis::runtime;

static cl::opt<std::string> refFile(cl::Positional, cl::desc("<reference .mlir>"),
                                    cl::Required);
static cl::opt<std::string> refEntry("entry", cl::desc("Reference entry"),
                                     cl::Required);
static cl::opt<std::string>
    testFile("test-file", cl::desc("Module of the test entry (default: the "
                                   "reference module)"));
static cl::opt<std::string> testEntry("test-entry", cl::desc("Test entry"),
                                      cl::Required);
static cl::list<std::string> inputs("input", cl::desc("Input .npy, in order"));
static cl::opt<double> relTol("rtol", cl::desc("Relative tolerance"),
                            cl::init(1e-3));
static cl::opt<double> absTol("atol", cl::desc("Absolute tolerance"),
                            cl::init(1e-3));
static cl::opt<double> normTol(
    "norm-rtol", cl::init(-1.0),
    cl::desc("If set, judge each result by ‖test − ref‖/‖ref‖ ≤ this "
             "instead of element-wise allclose"));
static cl::opt<unsigned> optLevel("opt-level", cl::init(3),
                                  cl::desc("LLVM optimization level (0-3)"));
static cl::list<std::string>
    labels("labels", cl::CommaSeparated,
           cl::desc("Names of the results, for the report"));

static Expected<SmallVector<HostArray>>
runEntry(StringRef file, StringRef entry, ArrayRef<HostArray> args) {
  mlir::DialectRegistry registry;
  trellis::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(file, &context);
  if (!module)
    return createStringError("cannot parse '" + file + "'");
  JitOptions options;
  options.optLevel = optLevel;
  auto jit = JitModule::compile(*module, entry, options);
  if (!jit)
    return jit.takeError();
  return (*jit)->call(args);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  trellis::registerAllPasses();
  cl::ParseCommandLineOptions(argc, argv, "Trellis equivalence check\n");

  auto fail = [](Error e) {
    errs() << "trellis-equiv: error: " << toString(std::move(e)) << "\n";
    return 1;
  };
  SmallVector<HostArray> args;
  for (const std::string &path : inputs) {
    auto array = readNpy(path);
    if (!array)
      return fail(array.takeError());
    args.push_back(std::move(*array));
  }
  auto ref = runEntry(refFile, refEntry, args);
  if (!ref)
    return fail(ref.takeError());
  auto test = runEntry(testFile.empty() ? refFile : testFile, testEntry, args);
  if (!test)
    return fail(test.takeError());
  if (ref->size() != test->size())
    return fail(createStringError("the reference returns " +
                                  Twine(ref->size()) + " result(s), the test " +
                                  Twine(test->size())));

  bool allClose = true;
  for (unsigned i = 0; i < ref->size(); ++i) {
    auto diff = compareArrays((*ref)[i], (*test)[i], relTol, absTol);
    if (!diff)
      return fail(diff.takeError());
    if (normTol >= 0)
      diff->close = diff->normRelativeError <= normTol;
    allClose &= diff->close;
    outs() << (diff->close ? "ok   " : "FAIL ") << "result " << i;
    if (i < labels.size())
      outs() << " (" << labels[i] << ")";
    outs() << ": max abs error " << format("%.3e", diff->maxAbsError)
           << ", norm-relative " << format("%.3e", diff->normRelativeError)
           << ", worst at "
           << formatIndex((*ref)[i].getShape(), diff->worstIndex)
           << " ref " << format("%.9g", diff->worstRef) << " test "
           << format("%.9g", diff->worstTest) << "\n";
  }
  outs() << (allClose ? "equivalent" : "NOT equivalent");
  if (normTol >= 0)
    outs() << " (norm-relative " << format("%g", normTol.getValue()) << ")\n";
  else
    outs() << " (rtol " << format("%g", relTol.getValue()) << ", atol "
           << format("%g", absTol.getValue()) << ")\n";
  return allClose ? 0 : 1;
}

//===- trellis-equiv.cpp - Run two variants of a model and compare --------===//
//
// The reusable equivalence check (Trax's _test_equivalence_to_reference_code):
// runs a reference entry and a test entry — of one module or of two — on the
// same inputs and compares every result (outputs, state, input and weight
// gradients, whatever the entries return) with NumPy's allclose, reporting
// the worst element of each. Exit code 0 when all are close, 1 otherwise.
// The check is lib/Tools/Equivalence.cpp; this file parses the command line.
//
//   trellis-equiv REF.mlir --entry=ref [--test-file=TEST.mlir] --test-entry=rev
//       --input=a.npy ... [--rtol=1e-3] [--atol=1e-3] [--labels=out,dx,dw]
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/RuntimeConfig.h"
#include "trellis/Tools/CompileFlags.h"
#include "trellis/Tools/Equivalence.h"
#include "trellis/Tools/ToolExit.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::opt<std::string>
    refFile(cl::Positional, cl::desc("<reference .mlir>"), cl::Required);
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
static cl::opt<double>
    normTol("norm-rtol", cl::init(-1.0),
            cl::desc("If set, judge each result by ‖test − ref‖/‖ref‖ ≤ this "
                     "instead of element-wise allclose"));
static cl::OptionCategory compileCategory("Compile options");
static trellis::tools::CompileFlags compileFlags(compileCategory);
static cl::list<std::string>
    labels("labels", cl::CommaSeparated,
           cl::desc("Names of the results, for the report"));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Trellis equivalence check\n");
  auto config = trellis::tools::startTool();
  if (!config)
    return trellis::tools::finishTool("trellis-equiv", config.takeError());

  trellis::tools::EquivalenceOptions options;
  options.refFile = refFile;
  options.refEntry = refEntry;
  options.testFile = testFile;
  options.testEntry = testEntry;
  options.inputPaths.assign(inputs.begin(), inputs.end());
  options.rtol = relTol;
  options.atol = absTol;
  options.normRtol = normTol;
  options.labels.assign(labels.begin(), labels.end());
  compileFlags.fill(options.compile, *config);

  Expected<bool> equivalent = trellis::tools::checkEquivalence(options, outs());
  if (!equivalent)
    return trellis::tools::finishTool("trellis-equiv", equivalent.takeError());
  int exitCode = trellis::tools::finishTool("trellis-equiv", Error::success());
  return *equivalent ? exitCode : 1;
}

//===- Equivalence.h - The trellis-equiv check ------------------*- C++ -*-===//
//
// The reusable equivalence check (Trax's _test_equivalence_to_reference_code):
// runs a reference entry and a test entry — of one module or of two — on the
// same inputs and compares every result (outputs, state, input and weight
// gradients, whatever the entries return) with NumPy's allclose, reporting
// the worst element of each.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TOOLS_EQUIVALENCE_H
#define TRELLIS_TOOLS_EQUIVALENCE_H

#include "trellis/Pipelines/CompileOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace trellis::tools {

/// The command line of trellis-equiv.
struct EquivalenceOptions {
  /// The module of the reference entry.
  std::string refFile;
  std::string refEntry;
  /// The module of the test entry; empty: the reference module.
  std::string testFile;
  std::string testEntry;
  /// .npy files bound to the arguments of both entries, in order.
  llvm::SmallVector<std::string> inputPaths;
  /// Element-wise tolerance |test − ref| ≤ atol + rtol·|ref|.
  double rtol = 1e-3, atol = 1e-3;
  /// If >= 0, each result is judged by ‖test − ref‖/‖ref‖ ≤ normRtol
  /// instead.
  double normRtol = -1;
  /// Names of the results, for the report.
  llvm::SmallVector<std::string> labels;
  /// How both modules are compiled.
  CompileOptions compile;
};

/// Runs both entries and prints one line per result ("ok" or "FAIL", the
/// largest and the norm-relative error, the worst element) and a verdict
/// line to `out`. Returns whether every result is close; an error if an
/// entry cannot be run or the results cannot be compared.
llvm::Expected<bool> checkEquivalence(const EquivalenceOptions &options,
                                      llvm::raw_ostream &out);

} // namespace trellis::tools

#endif // TRELLIS_TOOLS_EQUIVALENCE_H

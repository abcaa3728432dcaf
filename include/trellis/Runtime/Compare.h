//===- Compare.h - Element-wise comparison of host arrays -------*- C++ -*-===//
//
// The closeness test of the equivalence checks (Trax's
// _test_equivalence_to_reference_code): NumPy's allclose,
// |test − ref| ≤ atol + rtol·|ref|, with the worst element reported.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_COMPARE_H
#define TRELLIS_RUNTIME_COMPARE_H

#include "trellis/Runtime/HostArray.h"

#include "llvm/Support/Error.h"

namespace trellis::runtime {

/// How far a test array is from a reference array.
struct ArrayDiff {
  /// Largest |test − ref|; NaN if a NaN meets a number. (NaN meeting NaN,
  /// and an infinity meeting the same one, are equal, error 0.)
  double maxAbsError = 0;
  /// ‖test − ref‖₂ / ‖ref‖₂ (0 when both are zero).
  double normRelativeError = 0;
  /// The element that violates the tolerance most (or, when all are within
  /// it, the one with the largest absolute error), flattened C-order index.
  int64_t worstIndex = 0;
  double worstRef = 0, worstTest = 0;
  /// Whether every element satisfies |test − ref| ≤ atol + rtol·|ref|
  /// or is the same NaN or infinity as the reference's (integers must be
  /// equal).
  bool close = true;
};

/// Compares `test` with `ref`, which must agree in dtype and shape.
llvm::Expected<ArrayDiff> compareArrays(const HostArray &ref,
                                        const HostArray &test, double rtol,
                                        double atol);

/// Formats a flat index of `shape` as "[i, j, k]".
std::string formatIndex(llvm::ArrayRef<int64_t> shape, int64_t flat);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_COMPARE_H

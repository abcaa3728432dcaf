//===- Compare.cpp - Element-wise comparison of host arrays ---------------===//

#include "trellis/Runtime/Compare.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace trellis::runtime;

/// Reads element `i` of `array` as a double.
static double elementAt(const HostArray &array, int64_t i) {
  const char *p = array.getData() + i * getByteWidth(array.getDType());
  return visitElementType(array.getDType(), [&](auto value) {
    std::memcpy(&value, p, sizeof(value));
    return static_cast<double>(value);
  });
}

std::string trellis::runtime::formatIndex(llvm::ArrayRef<int64_t> shape,
                                          int64_t flat) {
  llvm::SmallVector<int64_t> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(index, os);
  os << "]";
  return s;
}

llvm::Expected<ArrayDiff>
trellis::runtime::compareArrays(const HostArray &ref, const HostArray &test,
                                double rtol, double atol) {
  if (ref.getDType() != test.getDType() || ref.getShape() != test.getShape()) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << "cannot compare ";
    ref.printTypeAndShape(os);
    os << " with ";
    test.printTypeAndShape(os);
    return llvm::createStringError(msg);
  }
  bool exact = !isFloat(ref.getDType());
  ArrayDiff diff;
  double worstExcess = -INFINITY, sqErr = 0, sqRef = 0;
  for (int64_t i = 0, e = ref.getNumElements(); i < e; ++i) {
    double r = elementAt(ref, i), t = elementAt(test, i);
    // As numpy.testing.assert_allclose: NaN where the reference has NaN,
    // and the same infinity, are equal; NaN against a number is the worst
    // error there is, reported as NaN.
    bool same = r == t || (std::isnan(r) && std::isnan(t));
    double err = same ? 0.0 : std::fabs(t - r);
    double allowed = exact ? 0.0 : atol + rtol * std::fabs(r);
    bool ok = same || err <= allowed; // false for NaN
    diff.close &= ok;
    if (std::isnan(err) || std::isnan(diff.maxAbsError))
      diff.maxAbsError = NAN;
    else
      diff.maxAbsError = std::max(diff.maxAbsError, err);
    if (!same && std::isfinite(r) && std::isfinite(t)) {
      sqErr += err * err;
      sqRef += r * r;
    } else if (!same) {
      sqErr = INFINITY;
    }
    double excess = ok ? err - allowed : INFINITY;
    if (excess > worstExcess) {
      worstExcess = excess;
      diff.worstIndex = i;
      diff.worstRef = r;
      diff.worstTest = t;
    }
  }
  diff.normRelativeError =
      sqRef > 0 ? std::sqrt(sqErr / sqRef) : (sqErr > 0 ? INFINITY : 0.0);
  return diff;
}

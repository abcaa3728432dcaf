//===- APIError.h - Errors of the embedding API -----------------*- C++ -*-===//

#ifndef TRELLIS_LIB_API_APIERROR_H
#define TRELLIS_LIB_API_APIERROR_H

#include "trellis/Utils/Error.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace trellis::api {

using trellis::makeError;

/// Collects the diagnostics of a context while it lives, instead of printing
/// them, so that an API error can carry them: "message:\n<diagnostics>".
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context);
  ~DiagnosticCollector();

  /// Returns an error with `message` followed by the collected diagnostics.
  llvm::Error makeError(const llvm::Twine &message) const;

  /// Appends the collected diagnostics to the message of `error`, if any.
  llvm::Error addTo(llvm::Error error) const;

  /// The collected diagnostics, one per line ("file:line:col: error: ...").
  const std::string &getText() const { return text; }

private:
  void record(mlir::Diagnostic &diag);

  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace trellis::api

#endif // TRELLIS_LIB_API_APIERROR_H

//===- APIError.cpp - Errors of the embedding API -------------------------===//

#include "APIError.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace trellis::api;

DiagnosticCollector::DiagnosticCollector(mlir::MLIRContext &context)
    : handler(&context, [this](mlir::Diagnostic &diag) {
        record(diag);
        return mlir::success();
      }) {}

DiagnosticCollector::~DiagnosticCollector() = default;

static llvm::StringRef getSeverityName(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

/// Prints "file:line:col: severity: message" (the location as MLIR prints
/// it when it has no file position).
static void printOne(llvm::raw_ostream &os, mlir::Location loc,
                     mlir::DiagnosticSeverity severity,
                     const mlir::Diagnostic &diag) {
  if (auto fileLoc = loc->findInstanceOf<mlir::FileLineColLoc>())
    os << fileLoc.getFilename().getValue() << ':' << fileLoc.getLine() << ':'
       << fileLoc.getColumn();
  else
    os << loc;
  os << ": " << getSeverityName(severity) << ": " << diag.str() << '\n';
}

void DiagnosticCollector::record(mlir::Diagnostic &diag) {
  llvm::raw_string_ostream os(text);
  printOne(os, diag.getLocation(), diag.getSeverity(), diag);
  for (const mlir::Diagnostic &note : diag.getNotes())
    printOne(os, note.getLocation(), mlir::DiagnosticSeverity::Note, note);
}

llvm::Error DiagnosticCollector::makeError(const llvm::Twine &message) const {
  if (text.empty())
    return api::makeError(message);
  return api::makeError(message + ":\n" + llvm::StringRef(text).rtrim());
}

llvm::Error DiagnosticCollector::addTo(llvm::Error error) const {
  if (!error || text.empty())
    return error;
  return makeError(llvm::toString(std::move(error)));
}

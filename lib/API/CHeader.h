//===- CHeader.h - C declarations of AOT-compiled functions -----*- C++ -*-===//

#ifndef TRELLIS_LIB_API_CHEADER_H
#define TRELLIS_LIB_API_CHEADER_H

#include "trellis/Runtime/Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace trellis::api {

/// Returns true if `name` can be used in C as is (`_mlir_ciface_<name>`).
bool isCIdentifier(llvm::StringRef name);

/// Returns a self-contained C header declaring `_mlir_ciface_<f>` for each
/// of `functions` as `llvm.emit_c_interface` lowers it: memref arguments by
/// pointer to their descriptor struct, a memref or several results through
/// a pointer to a result struct passed first, one scalar result returned.
/// The opening comment lists `libraries`, what to link besides the AOT
/// runtime, on one line starting " * libraries: " (for build scripts), and
/// `externals`, the functions the object calls but does not define.
/// `guard` names the include guard.
std::string generateCHeader(llvm::ArrayRef<runtime::EntrySignature> functions,
                            llvm::ArrayRef<std::string> externals,
                            llvm::ArrayRef<std::string> libraries,
                            llvm::StringRef guard);

} // namespace trellis::api

#endif // TRELLIS_LIB_API_CHEADER_H

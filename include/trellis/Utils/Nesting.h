//===- Nesting.h - A bound on the nesting of MLIR text -----------*- C++
//-*-===//
//
// MLIR's parser recurses once per nested region (and attribute dictionary):
// 5,000 nested regions overflow an 8 MiB stack and the process dies. Every
// Trellis entry point that parses text checks its nesting first, with a
// scan that costs one pass over the bytes and no recursion.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_UTILS_NESTING_H
#define TRELLIS_UTILS_NESTING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace trellis {

/// The deepest nesting of `{` the tools accept: far beyond any model (a
/// differentiated Transformer step nests fewer than 20), far below the
/// parser's stack limit (about 1.6 KiB of stack per level).
inline constexpr unsigned kMaxNesting = 1000;

/// Returns an error "NAME:LINE:COL: nesting deeper than MAX levels of '{'
/// (regions, attribute dictionaries)" at the first `{` of `text` that is
/// `maxDepth` + 1 deep, counting braces outside string literals and `//`
/// comments; success otherwise (unbalanced text is left to the parser).
llvm::Error checkNesting(llvm::StringRef text, llvm::StringRef bufferName,
                         unsigned maxDepth = kMaxNesting);

} // namespace trellis

#endif // TRELLIS_UTILS_NESTING_H

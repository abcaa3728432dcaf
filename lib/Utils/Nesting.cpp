//===- Nesting.cpp - A bound on the nesting of MLIR text ------------------===//

#include "trellis/Utils/Nesting.h"

#include "llvm/ADT/Twine.h"

llvm::Error trellis::checkNesting(llvm::StringRef text,
                                  llvm::StringRef bufferName,
                                  unsigned maxDepth) {
  unsigned depth = 0, line = 1, column = 0;
  bool inString = false, inComment = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      inComment = false;
      continue;
    }
    if (inComment)
      continue;
    if (inString) {
      if (c == '\\')
        ++i, ++column; // the escaped character
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '/' && i + 1 < e && text[i + 1] == '/')
      inComment = true;
    else if (c == '{' && ++depth > maxDepth)
      return llvm::createStringError(
          bufferName + ":" + llvm::Twine(line) + ":" + llvm::Twine(column) +
          ": nesting deeper than " + llvm::Twine(maxDepth) +
          " levels of '{' (regions, attribute dictionaries)");
    else if (c == '}' && depth > 0)
      --depth;
  }
  return llvm::Error::success();
}

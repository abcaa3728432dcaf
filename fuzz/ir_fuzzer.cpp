//===- ir_fuzzer.cpp - libFuzzer target of the Trellis IR pipeline --------===//
//
// Each input is MLIR text. It is parsed in a fresh context with every
// dialect trellis-opt registers and verified; a module that verifies then
// goes through the Trellis passes and the full trellis-lower-to-llvm
// pipeline (no JIT). Diagnostics are swallowed: an error is a fine outcome.
// These are bugs (the process aborts, which libFuzzer reports as a crash):
//   * a crash, a failed assert or a sanitizer report anywhere;
//   * a Trellis pass that succeeds but leaves IR that does not verify;
//   * a verified module whose printed form (generic or custom) does not
//     parse back.
//
//===----------------------------------------------------------------------===//

#include "trellis/InitAll.h"
#include "trellis/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

using namespace mlir;

namespace {

/// Trellis passes (textual pipelines anchored on builtin.module) run one
/// after the other on a copy of the input module, each without the pass
/// manager's verifier: a stage that succeeds must leave valid IR.
using Schedule = llvm::ArrayRef<const char *>;

const char *const kDifferentiate[] = {"ad-differentiate"};
const char *const kDifferentiateNoInline[] = {
    "ad-differentiate{inline-callees=false}"};
const char *const kRematEvery[] = {"ad-remat{policy=every every=1}",
                                   "ad-differentiate"};
const char *const kRematBudget[] = {"ad-remat{policy=budget budget=65536}",
                                    "ad-differentiate"};
const char *const kBuildInverse[] = {"ad-build-inverse"};
const char *const kNNToLinalg[] = {"convert-nn-to-linalg"};
const char *const kCollectives[] = {"coll-average-gradients",
                                    "convert-coll-to-mpi"};

const Schedule kSchedules[] = {kDifferentiate, kDifferentiateNoInline,
                               kRematEvery,    kRematBudget,
                               kBuildInverse,  kNNToLinalg,
                               kCollectives};

/// An attention-chunk small enough to split the short sequences of the
/// seeds (the default leaves them whole).
constexpr int64_t kSmallAttentionChunk = 2;

/// Registers the dialects and passes of trellis-opt, once.
const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *result = new DialectRegistry();
    trellis::registerAllDialects(*result);
    trellis::registerAllPasses();
    return result;
  }();
  return *registry;
}

/// Returns true if `text` has `dimensions =` or `permutation =` followed by
/// anything but `[` decimal integers `]`. linalg.reduce/broadcast/transpose
/// then store a null attribute (LinalgOps.cpp, parseDenseI64ArrayAttr) that
/// the parser dereferences (llvm/llvm-project#132747, open). By keyword, so
/// it also skips some inputs that would not crash.
bool hasBadDenseI64List(llvm::StringRef text) {
  for (llvm::StringRef keyword : {"dimensions", "permutation"}) {
    for (size_t at = text.find(keyword); at != llvm::StringRef::npos;
         at = text.find(keyword, at + 1)) {
      llvm::StringRef rest = text.drop_front(at + keyword.size()).ltrim();
      if (!rest.consume_front("="))
        continue;
      rest = rest.ltrim();
      // A well-formed `array<i64[: integers]>` is parsed safely; anything
      // else after `array<` reaches the same null attribute (a fuzzer
      // mutation of linalg.reduce's `dimensions = [1]` into `array<` crashed
      // the parser, 2026-12-01).
      if (rest.consume_front("array<")) {
        size_t close = rest.find('>');
        if (close == llvm::StringRef::npos)
          return true;
        llvm::StringRef body = rest.take_front(close).trim();
        if (!body.consume_front("i64"))
          return true;
        body = body.ltrim();
        if (body.empty())
          continue;
        if (!body.consume_front(":"))
          return true;
        for (llvm::StringRef element : llvm::split(body, ',')) {
          int64_t value;
          if (element.trim().getAsInteger(10, value))
            return true;
        }
        continue;
      }
      if (!rest.consume_front("["))
        return true;
      // Only `[` decimal integers separated by commas `]` is safe.
      size_t end = rest.find(']');
      if (end == llvm::StringRef::npos)
        return true;
      llvm::StringRef list = rest.take_front(end).trim();
      if (list.empty())
        continue;
      for (llvm::StringRef element : llvm::split(list, ',')) {
        int64_t value;
        if (element.trim().getAsInteger(10, value))
          return true;
      }
    }
  }
  return false;
}

/// Returns true if a `linalg.` op name in custom form is followed by `<` and
/// anything but a dictionary. The structured ops' parser
/// (parseCommonStructuredOpParts in LinalgOps.cpp) takes any attribute there
/// as the op's properties and later `cast`s it to DictionaryAttr unchecked:
/// `linalg.fill<"abcdef">` reads a string's storage as a dictionary, a
/// garbage size (SmallVector cannot grow, or SEGV). Attributes such as
/// `#linalg.iterator_type<parallel>` are not op names and are not skipped.
bool hasLinalgNonDictionaryProperties(llvm::StringRef text) {
  constexpr llvm::StringLiteral prefix = "linalg.";
  for (size_t at = text.find(prefix); at != llvm::StringRef::npos;
       at = text.find(prefix, at + 1)) {
    if (at > 0 && (llvm::isAlnum(text[at - 1]) ||
                   llvm::StringRef("_.$#!%^@\"").contains(text[at - 1])))
      continue;
    llvm::StringRef rest = text.drop_front(at + prefix.size());
    rest = rest.drop_while(
        [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
    rest = rest.ltrim();
    if (rest.consume_front("<") && !rest.ltrim().starts_with("{"))
      return true;
  }
  return false;
}

/// Returns true if `text` would crash MLIR 22's parser itself (libMLIR.so,
/// not Trellis code; mlir-opt crashes the same way), so the input is
/// skipped. Trellis cannot intercept these: the crash is inside an upstream
/// op's custom parser, before any Trellis code runs. Reproducers:
/// docs/reliability-fuzzing.md.
bool hitsKnownMLIRParserCrash(llvm::StringRef text) {
  return hasBadDenseI64List(text) || hasLinalgNonDictionaryProperties(text);
}

/// Reports a bug: what happened, the IR or diagnostics involved, then abort.
[[noreturn]] void reportBug(const llvm::Twine &what,
                            llvm::StringRef details) {
  llvm::errs() << "ir_fuzzer: " << what << "\n" << details << "\n";
  llvm::errs().flush();
  llvm::report_fatal_error("ir_fuzzer found a bug (see above)");
}

/// Captures the diagnostics of `context` as text while alive.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag << "\n";
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// Runs `pipeline` on `module` without the pass manager's verifier; false
/// if it fails.
bool runPipeline(ModuleOp module, llvm::StringRef pipeline) {
  PassManager pm = PassManager::on<ModuleOp>(module.getContext());
  pm.enableVerifier(false);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    reportBug("the fuzzer's pipeline '" + pipeline + "' does not parse",
              errors);
  return succeeded(pm.run(module));
}

/// Parses `text` as a module of `context`. The MLIR lexer relies on the
/// NUL after the buffer that MemoryBuffer guarantees, which libFuzzer's
/// input does not have: parse a copy (as trellis-opt and the API do).
OwningOpRef<ModuleOp> parseModule(llvm::StringRef text,
                                  MLIRContext *context) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text),
                               llvm::SMLoc());
  return parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(context, /*verifyAfterParse=*/false));
}

/// Prints `module` (generic or custom form) and parses the text back.
void checkPrintParse(ModuleOp module, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  DiagnosticCapture capture(&context);
  OwningOpRef<ModuleOp> reparsed = parseModule(text, &context);
  if (!reparsed || failed(verify(*reparsed)))
    reportBug(llvm::Twine("a verified module's ") +
                  (generic ? "generic" : "custom") +
                  " form does not parse back:\n" + capture.text,
              text);
}

/// Runs trellis-lower-to-llvm, with the verifier between passes, on a copy
/// of `input`.
void runLowering(ModuleOp input, int64_t attentionChunk) {
  OwningOpRef<ModuleOp> module = input.clone();
  PassManager pm = PassManager::on<ModuleOp>(module->getContext());
  trellis::CompileOptions options;
  options.attentionChunk = attentionChunk;
  trellis::buildLowerToLLVMPipeline(pm, options);
  (void)pm.run(*module);
}

void runSchedule(ModuleOp input, const Schedule &schedule) {
  OwningOpRef<ModuleOp> module = input.clone();
  for (const char *stage : schedule) {
    if (!runPipeline(*module, stage))
      return;
    DiagnosticCapture capture(module->getContext());
    if (failed(verify(*module))) {
      std::string ir;
      llvm::raw_string_ostream os(ir);
      module->print(os, OpPrintingFlags().printGenericOpForm());
      reportBug(llvm::Twine("'") + stage +
                    "' succeeded but left IR that does not verify:\n" +
                    capture.text,
                ir);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)getRegistry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  // Swallow every diagnostic: errors are an expected outcome.
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });

  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (hitsKnownMLIRParserCrash(text))
    return 0;
  OwningOpRef<ModuleOp> module = parseModule(text, &context);
  if (!module || failed(verify(*module)))
    return 0;

  checkPrintParse(*module, /*generic=*/true);
  checkPrintParse(*module, /*generic=*/false);
  for (const Schedule &schedule : kSchedules)
    runSchedule(*module, schedule);
  runLowering(*module, trellis::CompileOptions().attentionChunk);
  // The chunked lowering differs only where there is attention.
  if (text.contains("attention"))
    runLowering(*module, kSmallAttentionChunk);
  return 0;
}

//===- Compiler.h - Embedding Trellis as a compiler backend -----*- C++ -*-===//
//
// The C++ API for programs that embed Trellis: parse (or build) a module,
// compile it with the Trellis lowering or a pipeline of their own, look up a
// function and call it on tensor views, or compile a function ahead of time
// to an object file and a C header. Every failure is an llvm::Error whose
// message includes the MLIR diagnostics behind it; nothing aborts on bad
// input. See docs/embedding.md.
//
// Lifetimes: a Module and a CompiledModule must not outlive the Compiler
// that made them; a Function must not outlive its CompiledModule.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_API_COMPILER_H
#define TRELLIS_API_COMPILER_H

#include "trellis/Pipelines/CompileOptions.h"
#include "trellis/Runtime/DType.h"
#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/RuntimeConfig.h"
#include "trellis/Runtime/Signature.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace trellis {

namespace runtime {
class JitModule;
} // namespace runtime

using runtime::DType;

// A Compiler compiles with trellis::CompileOptions
// (trellis/Pipelines/CompileOptions.h): the options trellis-run and
// trellis-train set from their flags.

/// A borrowed view of a host tensor. `strides` are in elements, one per
/// dimension, and may be anything (zero for broadcasting, negative, padded
/// rows); empty means dense row-major. A scalar argument takes a rank-0
/// view. The data is read during the call only and never written.
struct TensorView {
  DType dtype = DType::F32;
  llvm::ArrayRef<int64_t> shape;
  llvm::ArrayRef<int64_t> strides;
  const void *data = nullptr;
};

/// A dense, row-major result owned by the host.
class Tensor {
public:
  explicit Tensor(runtime::HostArray array) : array(std::move(array)) {}

  DType getDType() const { return array.getDType(); }
  llvm::ArrayRef<int64_t> getShape() const { return array.getShape(); }
  int64_t getRank() const { return array.getRank(); }
  int64_t getNumElements() const { return array.getNumElements(); }
  size_t getByteSize() const { return array.getByteSize(); }
  const void *getData() const { return array.getData(); }
  void *getData() { return array.getData(); }

  /// Returns the elements as `T`, which must match getDType() in size.
  template <typename T> llvm::ArrayRef<T> getValues() const {
    return {reinterpret_cast<const T *>(array.getData()),
            static_cast<size_t>(array.getNumElements())};
  }

  /// Returns a view of this tensor, e.g. to feed it to another call.
  TensorView getView() const { return {getDType(), getShape(), {}, getData()}; }

  const runtime::HostArray &getArray() const { return array; }

private:
  runtime::HostArray array;
};

/// A module owned by the host, parsed by or built in a Compiler's context.
class Module {
public:
  explicit Module(mlir::OwningOpRef<mlir::ModuleOp> module)
      : module(std::move(module)) {}

  mlir::ModuleOp get() const { return *module; }
  /// Prints the module as MLIR text.
  std::string print() const;

private:
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

class CompiledModule;

/// A function of a CompiledModule, callable from the host.
class Function {
public:
  llvm::StringRef getName() const { return signature->name; }
  /// The function's arguments and results as written (before lowering).
  const runtime::EntrySignature &getSignature() const { return *signature; }
  unsigned getNumArguments() const { return signature->args.size(); }
  unsigned getNumResults() const { return signature->results.size(); }

  /// Calls the function on copies of `inputs` (one per argument, with the
  /// argument's dtype and shape; strided views are gathered densely) and
  /// returns its results.
  llvm::Expected<std::vector<Tensor>>
  call(llvm::ArrayRef<TensorView> inputs) const;

private:
  friend class CompiledModule;
  Function(runtime::JitModule *jit, const runtime::EntrySignature *signature)
      : jit(jit), signature(signature) {}

  runtime::JitModule *jit;
  const runtime::EntrySignature *signature;
};

/// A module lowered and JIT-compiled: its public functions with a body and
/// a signature the host can pass (f32, f64, i32, i64, ui32 scalars and
/// ranked tensors or identity-layout memrefs of them) are callable.
class CompiledModule {
public:
  CompiledModule(CompiledModule &&) noexcept;
  CompiledModule &operator=(CompiledModule &&) noexcept;
  ~CompiledModule();

  /// Returns the callable function `name`, or an error saying why there is
  /// none (no such function, or a signature the host cannot pass).
  llvm::Expected<Function> lookup(llvm::StringRef name) const;

  /// Returns the names of the callable functions.
  std::vector<std::string> getFunctionNames() const;

private:
  friend class Compiler;
  explicit CompiledModule(std::unique_ptr<runtime::JitModule> jit);

  std::unique_ptr<runtime::JitModule> jit;
};

/// Options of Compiler::compileToObject.
struct AotOptions {
  /// The public functions to export, each as `_mlir_ciface_<name>`.
  std::vector<std::string> functions;
  /// Where to write the object file (ELF on Linux).
  std::string objectPath;
  /// Where to write the C header declaring the functions; none if empty.
  std::string headerPath;
  /// The CPU to generate code for: "host" (the default) uses every feature
  /// of this machine; "generic" (or e.g. "x86-64-v3") runs elsewhere too.
  std::string cpu = "host";
};

/// Owns an MLIRContext with the Trellis dialects and the upstream dialects
/// models use registered (trellis::registerAllDialects), and compiles
/// modules in it. Not thread-safe: use one Compiler per thread.
class Compiler {
public:
  /// Compiles with `options` and the settings of the environment
  /// (runtime::RuntimeConfig::fromEnvironmentOrWarn), which it applies to
  /// the process (runtime::configureProcess).
  explicit Compiler(CompileOptions options = {});
  /// Compiles with `options` and the environment's settings as the host has
  /// read them (and applied them to the process itself): trellis-aot.
  Compiler(CompileOptions options, runtime::RuntimeConfig runtimeConfig);
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// The context modules are parsed and built in.
  mlir::MLIRContext &getContext();

  const CompileOptions &getOptions() const { return options; }
  void setOptions(CompileOptions newOptions) {
    options = std::move(newOptions);
  }

  /// Parses and verifies MLIR text; `bufferName` names it in diagnostics.
  llvm::Expected<Module> parseModule(llvm::StringRef text,
                                     llvm::StringRef bufferName = "<string>");

  /// Reads, parses and verifies the .mlir file at `path`.
  llvm::Expected<Module> loadModule(llvm::StringRef path);

  /// Wraps a module built by the host in getContext(), after verifying it.
  llvm::Expected<Module> adoptModule(mlir::OwningOpRef<mlir::ModuleOp> module);

  /// Lowers a copy of `module` (which stays unchanged) and JIT-compiles it.
  llvm::Expected<CompiledModule> compile(const Module &module);

  /// Lowers a copy of `module` and writes an object file defining
  /// `_mlir_ciface_<f>` for each of `options.functions` plus, if asked, a C
  /// header declaring them with their memref descriptor structs. The object
  /// calls `_mlir_memref_to_llvm_alloc/free`: link it with the
  /// TrellisAotRuntime library (and whatever the header's comment lists).
  llvm::Error compileToObject(const Module &module, const AotOptions &options);

private:
  std::unique_ptr<mlir::MLIRContext> context;
  CompileOptions options;
  /// JIT compiles take the GEMM libraries' paths and collective checks from
  /// it, object files the libraries' paths.
  runtime::RuntimeConfig runtimeConfig;
};

} // namespace trellis

#endif // TRELLIS_API_COMPILER_H

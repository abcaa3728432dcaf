//===- Trellis.cpp - C API of the Trellis compiler ------------------------===//

#include "trellis-c/Trellis.h"

#include "trellis/API/Compiler.h"

#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>

using namespace trellis;

struct TrellisCompilerImpl {
  Compiler compiler;
};
struct TrellisModuleImpl {
  Module module;
};
struct TrellisCompiledModuleImpl {
  CompiledModule compiled;
};
struct TrellisFunctionImpl {
  Function function;
};
struct TrellisTensorImpl {
  Tensor tensor;
};

static thread_local std::string lastError;

/// Records the message of `error` as the last error; returns failure.
static TrellisStatus fail(llvm::Error error) {
  lastError = llvm::toString(std::move(error));
  return TRELLIS_FAILURE;
}

static TrellisStatus fail(const char *message) {
  lastError = message;
  return TRELLIS_FAILURE;
}

/// The dtype of a view filled in by a C caller. In C any int is a valid
/// TrellisDType, in C++ only 0-7 (the bits of its enumerators): loading 9 as
/// the enum would be undefined, so the field is read as the int C stored.
static std::optional<DType> toDType(const TrellisTensorView &view) {
  int dtype;
  static_assert(sizeof(dtype) == sizeof(view.dtype));
  std::memcpy(&dtype, &view.dtype, sizeof(dtype));
  switch (dtype) {
#define TRELLIS_DTYPE(NAME, C_TYPE, SHORT_NAME, NUMPY_NAME, NPY_CODE,          \
                      MLIR_TYPE, C_API)                                        \
  case C_API:                                                                  \
    return DType::NAME;
#include "trellis/Runtime/DType.def"
  }
  return std::nullopt;
}

static TrellisDType fromDType(DType dtype) {
  switch (dtype) {
#define TRELLIS_DTYPE(NAME, C_TYPE, SHORT_NAME, NUMPY_NAME, NPY_CODE,          \
                      MLIR_TYPE, C_API)                                        \
  case DType::NAME:                                                            \
    return C_API;
#include "trellis/Runtime/DType.def"
  }
  return TRELLIS_F32;
}

const char *trellisGetLastError(void) { return lastError.c_str(); }

// TrellisRematPolicy numbers ad::RematPolicy's enumerators in order.
static_assert(TRELLIS_REMAT_STORE == static_cast<int>(ad::RematPolicy::Store) &&
              TRELLIS_REMAT_EVERY == static_cast<int>(ad::RematPolicy::Every) &&
              TRELLIS_REMAT_BUDGET ==
                  static_cast<int>(ad::RematPolicy::Budget));

void trellisCompileOptionsInit(TrellisCompileOptions *options) {
  if (!options)
    return;
  CompileOptions defaults;
  *options = TrellisCompileOptions{};
  options->pipeline = nullptr;
  options->optLevel = defaults.optLevel;
  options->attentionChunk = defaults.attentionChunk;
  options->checkCollectives = defaults.checkCollectives;
  options->remat = static_cast<TrellisRematPolicy>(defaults.remat.policy);
  options->rematEvery = defaults.remat.every;
  options->rematBudget = defaults.remat.budget;
  options->vectorMath = defaults.vectorMath;
  options->outlineLoops = defaults.outlineLoops;
  options->cacheDir = nullptr;
  options->parallelLoops = defaults.parallelLoops;
  options->compileThreads = defaults.compileThreads;
  options->sgemm = TRELLIS_SGEMM_AUTO;
  options->targetCpu = nullptr;
  options->verifyEachPass = defaults.verifyEachPass;
}

TrellisStatus
trellisCompilerCreateWithOptions(const TrellisCompileOptions *given,
                                 TrellisCompiler *compiler) {
  if (!compiler || !given)
    return fail("trellisCompilerCreateWithOptions: null argument");
  if (given->optLevel > 3)
    return fail("the optimization level must be 0, 1, 2 or 3");
  // A negative attention chunk is the lowering's to reject (with its own
  // message), like every other option value it checks.
  if (given->remat < TRELLIS_REMAT_STORE || given->remat > TRELLIS_REMAT_BUDGET)
    return fail(("unknown rematerialisation policy " +
                 llvm::Twine(static_cast<int>(given->remat)))
                    .str()
                    .c_str());
  if (given->sgemm < TRELLIS_SGEMM_AUTO || given->sgemm > TRELLIS_SGEMM_CBLAS)
    return fail(("unknown f32 GEMM library " +
                 llvm::Twine(static_cast<int>(given->sgemm)))
                    .str()
                    .c_str());
  CompileOptions options;
  options.measureGemmLibraries = given->sgemm == TRELLIS_SGEMM_AUTO;
  if (given->sgemm != TRELLIS_SGEMM_AUTO)
    options.sgemm = GemmChoice::all(given->sgemm == TRELLIS_SGEMM_DNNL
                                        ? GemmLibrary::Dnnl
                                        : GemmLibrary::Cblas);
  options.remat.policy = static_cast<ad::RematPolicy>(given->remat);
  if (given->pipeline)
    options.pipeline = given->pipeline;
  options.optLevel = given->optLevel;
  options.attentionChunk = given->attentionChunk;
  options.checkCollectives = given->checkCollectives != 0;
  options.remat.every = given->rematEvery;
  options.remat.budget = given->rematBudget;
  options.vectorMath = given->vectorMath != 0;
  options.outlineLoops = given->outlineLoops != 0;
  options.parallelLoops = given->parallelLoops != 0;
  options.compileThreads = given->compileThreads;
  if (given->cacheDir)
    options.cacheDir = given->cacheDir;
  if (given->targetCpu)
    options.targetCpu = given->targetCpu;
  options.verifyEachPass = given->verifyEachPass != 0;
  *compiler = new TrellisCompilerImpl{Compiler(std::move(options))};
  return TRELLIS_SUCCESS;
}

TrellisStatus trellisCompilerCreate(const char *pipeline, unsigned optLevel,
                                    TrellisCompiler *compiler) {
  TrellisCompileOptions options;
  trellisCompileOptionsInit(&options);
  options.pipeline = pipeline;
  options.optLevel = optLevel;
  if (!compiler)
    return fail("trellisCompilerCreate: null output handle");
  return trellisCompilerCreateWithOptions(&options, compiler);
}

void trellisCompilerDestroy(TrellisCompiler compiler) { delete compiler; }

/// Stores a successful `value` in a new handle of type `Impl`.
template <typename Impl, typename T>
static TrellisStatus wrap(llvm::Expected<T> value, Impl **out) {
  if (!value)
    return fail(value.takeError());
  *out = new Impl{std::move(*value)};
  return TRELLIS_SUCCESS;
}

TrellisStatus trellisModuleParse(TrellisCompiler compiler, const char *text,
                                 size_t length, TrellisModule *module) {
  if (!compiler || !module || (!text && length))
    return fail("trellisModuleParse: null argument");
  return wrap(compiler->compiler.parseModule(llvm::StringRef(text, length)),
              module);
}

TrellisStatus trellisModuleLoad(TrellisCompiler compiler, const char *path,
                                TrellisModule *module) {
  if (!compiler || !path || !module)
    return fail("trellisModuleLoad: null argument");
  return wrap(compiler->compiler.loadModule(path), module);
}

void trellisModuleDestroy(TrellisModule module) { delete module; }

TrellisStatus trellisCompile(TrellisCompiler compiler, TrellisModule module,
                             TrellisCompiledModule *compiled) {
  if (!compiler || !module || !compiled)
    return fail("trellisCompile: null argument");
  return wrap(compiler->compiler.compile(module->module), compiled);
}

void trellisCompiledModuleDestroy(TrellisCompiledModule compiled) {
  delete compiled;
}

TrellisStatus trellisLookupFunction(TrellisCompiledModule compiled,
                                    const char *name,
                                    TrellisFunction *function) {
  if (!compiled || !name || !function)
    return fail("trellisLookupFunction: null argument");
  return wrap(compiled->compiled.lookup(name), function);
}

void trellisFunctionDestroy(TrellisFunction function) { delete function; }

size_t trellisFunctionGetNumArguments(TrellisFunction function) {
  return function ? function->function.getNumArguments() : 0;
}

size_t trellisFunctionGetNumResults(TrellisFunction function) {
  return function ? function->function.getNumResults() : 0;
}

TrellisStatus trellisFunctionCall(TrellisFunction function,
                                  const TrellisTensorView *inputs,
                                  size_t numInputs, TrellisTensor *results) {
  if (!function || (!inputs && numInputs) ||
      (!results && function->function.getNumResults()))
    return fail("trellisFunctionCall: null argument");
  llvm::SmallVector<TensorView> views;
  for (size_t i = 0; i < numInputs; ++i) {
    const TrellisTensorView &input = inputs[i];
    std::optional<DType> dtype = toDType(input);
    if (!dtype || input.rank < 0 || (input.rank > 0 && !input.shape)) {
      lastError = "argument " + std::to_string(i) +
                  ": invalid view (dtype, rank or shape)";
      return TRELLIS_FAILURE;
    }
    TensorView view;
    view.dtype = *dtype;
    view.shape = llvm::ArrayRef<int64_t>(input.shape, input.rank);
    if (input.strides)
      view.strides = llvm::ArrayRef<int64_t>(input.strides, input.rank);
    view.data = input.data;
    views.push_back(view);
  }
  llvm::Expected<std::vector<Tensor>> values = function->function.call(views);
  if (!values)
    return fail(values.takeError());
  for (auto [index, value] : llvm::enumerate(*values))
    results[index] = new TrellisTensorImpl{std::move(value)};
  return TRELLIS_SUCCESS;
}

TrellisDType trellisTensorGetDType(TrellisTensor tensor) {
  return fromDType(tensor->tensor.getDType());
}

int64_t trellisTensorGetRank(TrellisTensor tensor) {
  return tensor->tensor.getRank();
}

const int64_t *trellisTensorGetShape(TrellisTensor tensor) {
  return tensor->tensor.getShape().data();
}

int64_t trellisTensorGetNumElements(TrellisTensor tensor) {
  return tensor->tensor.getNumElements();
}

const void *trellisTensorGetData(TrellisTensor tensor) {
  return tensor->tensor.getData();
}

void trellisTensorDestroy(TrellisTensor tensor) { delete tensor; }

TrellisStatus trellisCompileToObject(TrellisCompiler compiler,
                                     TrellisModule module, const char *function,
                                     const char *objectPath,
                                     const char *headerPath) {
  if (!compiler || !module || !function || !objectPath)
    return fail("trellisCompileToObject: null argument");
  AotOptions options;
  options.functions.push_back(function);
  options.objectPath = objectPath;
  if (headerPath)
    options.headerPath = headerPath;
  if (llvm::Error err =
          compiler->compiler.compileToObject(module->module, options))
    return fail(std::move(err));
  return TRELLIS_SUCCESS;
}

/*===- Trellis.h - C API of the Trellis compiler ------------------*- C -*-===*
 *
 * A C interface to trellis/API/Compiler.h for foreign-function interfaces:
 * parse a module, compile it (JIT), look up a function and call it on tensor
 * views, or compile a function ahead of time to an object file and header.
 *
 * Conventions: functions that can fail return TRELLIS_SUCCESS or
 * TRELLIS_FAILURE; after a failure trellisGetLastError() returns the message
 * (with the MLIR diagnostics behind it) until the next failing call on the
 * same thread. Handles come from the Create, Parse, Load, Compile, Lookup
 * and Call functions and are released by the matching Destroy function,
 * which accepts NULL. A module or compiled module must be destroyed before its
 * compiler; a function before its compiled module. Tensors stay valid on
 * their own. See docs/embedding.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRELLIS_C_TRELLIS_H
#define TRELLIS_C_TRELLIS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TrellisStatus {
  TRELLIS_SUCCESS = 0,
  TRELLIS_FAILURE = 1
} TrellisStatus;

/* Element types of tensors crossing the API. */
typedef enum TrellisDType {
  TRELLIS_F32 = 0,
  TRELLIS_F64 = 1,
  TRELLIS_I32 = 2,
  TRELLIS_I64 = 3,
  TRELLIS_U32 = 4
} TrellisDType;

typedef struct TrellisCompilerImpl *TrellisCompiler;
typedef struct TrellisModuleImpl *TrellisModule;
typedef struct TrellisCompiledModuleImpl *TrellisCompiledModule;
typedef struct TrellisFunctionImpl *TrellisFunction;
typedef struct TrellisTensorImpl *TrellisTensor;

/* A borrowed host tensor: `rank` sizes in `shape`, element strides in
 * `strides` (NULL for dense row-major; any values otherwise, e.g. a
 * transposed or sliced view), `data` pointing at element (0, ..., 0). A
 * scalar argument takes a rank-0 view. Read during the call only. */
typedef struct TrellisTensorView {
  TrellisDType dtype;
  int64_t rank;
  const int64_t *shape;
  const int64_t *strides;
  const void *data;
} TrellisTensorView;

/* The message of the last failure on this thread ("" if none). */
const char *trellisGetLastError(void);

/* Compiler: an MLIR context with the Trellis dialects. `pipeline` is
 * pass-pipeline text anchored on builtin.module, or NULL for the Trellis
 * lowering; `optLevel` is 0 to 3. */
TrellisStatus trellisCompilerCreate(const char *pipeline, unsigned optLevel,
                                    TrellisCompiler *compiler);

/* How activations are stored for the backward pass (ad-remat's policy). */
typedef enum TrellisGemmLibrary {
  TRELLIS_SGEMM_AUTO = 0, /* per size class, measured on the host and kept */
  TRELLIS_SGEMM_DNNL = 1, /* oneDNN's dnnl_sgemm */
  TRELLIS_SGEMM_CBLAS = 2 /* cblas_sgemm (OpenBLAS) */
} TrellisGemmLibrary;

typedef enum TrellisRematPolicy {
  TRELLIS_REMAT_STORE = 0,  /* every activation */
  TRELLIS_REMAT_EVERY = 1,  /* checkpoint segments of `rematEvery` layers */
  TRELLIS_REMAT_BUDGET = 2  /* least recomputation within `rematBudget` bytes */
} TrellisRematPolicy;

/* The options of a compiler: the fields of trellis::CompileOptions
 * (trellis/Pipelines/CompileOptions.h), which trellis-run and trellis-train
 * set from their flags of the same names. Fill one with
 * trellisCompileOptionsInit (the tools' defaults), then change fields. */
typedef struct TrellisCompileOptions {
  const char *pipeline;       /* NULL or "": the Trellis lowering */
  unsigned optLevel;          /* 0 to 3 */
  int64_t attentionChunk;     /* rows per attention chunk; 0: never chunk */
  int checkCollectives;       /* nonzero: check that ranks agree */
  TrellisRematPolicy remat;
  int64_t rematEvery;         /* TRELLIS_REMAT_EVERY */
  int64_t rematBudget;        /* TRELLIS_REMAT_BUDGET, bytes */
  int vectorMath;             /* nonzero: libmvec in vectorized loops */
  int outlineLoops;           /* nonzero: outline loops of huge functions */
  const char *cacheDir;       /* compile cache directory (copied); NULL or
                                 "": TRELLIS_CACHE_DIR, else no cache */
  int parallelLoops;          /* nonzero: OpenMP loops for large linalg ops */
  unsigned compileThreads;    /* threads of code generation; 0: one a core */
  TrellisGemmLibrary sgemm;   /* library of the f32 GEMMs */
  const char *targetCpu;      /* LLVM CPU name to generate code for
                                 (copied); NULL or "": this host */
  int verifyEachPass;         /* nonzero: verify the IR after every pass of
                                 the lowering (else once, after it) */
} TrellisCompileOptions;

void trellisCompileOptionsInit(TrellisCompileOptions *options);

/* A compiler with `options` (copied; `pipeline` too). */
TrellisStatus
trellisCompilerCreateWithOptions(const TrellisCompileOptions *options,
                                 TrellisCompiler *compiler);
void trellisCompilerDestroy(TrellisCompiler compiler);

/* Modules: parsed from text (`length` bytes) or a .mlir file. */
TrellisStatus trellisModuleParse(TrellisCompiler compiler, const char *text,
                                 size_t length, TrellisModule *module);
TrellisStatus trellisModuleLoad(TrellisCompiler compiler, const char *path,
                                TrellisModule *module);
void trellisModuleDestroy(TrellisModule module);

/* JIT: lowers a copy of `module` and compiles it. */
TrellisStatus trellisCompile(TrellisCompiler compiler, TrellisModule module,
                             TrellisCompiledModule *compiled);
void trellisCompiledModuleDestroy(TrellisCompiledModule compiled);

TrellisStatus trellisLookupFunction(TrellisCompiledModule compiled,
                                    const char *name,
                                    TrellisFunction *function);
void trellisFunctionDestroy(TrellisFunction function);
size_t trellisFunctionGetNumArguments(TrellisFunction function);
size_t trellisFunctionGetNumResults(TrellisFunction function);

/* Calls `function` on `numInputs` views and stores its results, new tensors
 * the caller destroys, in `results[0 .. trellisFunctionGetNumResults)`. */
TrellisStatus trellisFunctionCall(TrellisFunction function,
                                  const TrellisTensorView *inputs,
                                  size_t numInputs, TrellisTensor *results);

/* Results: dense, row-major. */
TrellisDType trellisTensorGetDType(TrellisTensor tensor);
int64_t trellisTensorGetRank(TrellisTensor tensor);
const int64_t *trellisTensorGetShape(TrellisTensor tensor);
int64_t trellisTensorGetNumElements(TrellisTensor tensor);
const void *trellisTensorGetData(TrellisTensor tensor);
void trellisTensorDestroy(TrellisTensor tensor);

/* Ahead of time: writes an object file defining `_mlir_ciface_<function>`
 * and, unless `headerPath` is NULL, a C header declaring it. */
TrellisStatus trellisCompileToObject(TrellisCompiler compiler,
                                     TrellisModule module, const char *function,
                                     const char *objectPath,
                                     const char *headerPath);

#ifdef __cplusplus
}
#endif

#endif /* TRELLIS_C_TRELLIS_H */

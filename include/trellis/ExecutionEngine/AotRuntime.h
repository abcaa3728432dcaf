/*===- AotRuntime.h - Runtime of ahead-of-time compiled code ------*- C -*-===*
 *
 * Code lowered by Trellis allocates and frees every buffer through the
 * generic hooks of `finalize-memref-to-llvm{use-generic-functions=true}`.
 * Under the JIT the host defines them (lib/Runtime/AllocHooks.cpp, counting
 * live bytes); a program linking an object file from trellis-aot gets them
 * from this plain C library, libTrellisAotRuntime.a, as malloc/free.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRELLIS_EXECUTIONENGINE_AOTRUNTIME_H
#define TRELLIS_EXECUTIONENGINE_AOTRUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `malloc` for compiled code. */
void *_mlir_memref_to_llvm_alloc(size_t size);
/* `aligned_alloc` for compiled code (`use-aligned-alloc`). */
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
/* `free` for compiled code. */
void _mlir_memref_to_llvm_free(void *ptr);

/* Frees a result buffer the compiled code returned: ignores NULL and the
 * placeholder pointer of buffers that are constants (memref.global). */
void trellis_aot_release(void *allocated);

#ifdef __cplusplus
}
#endif

#endif /* TRELLIS_EXECUTIONENGINE_AOTRUNTIME_H */

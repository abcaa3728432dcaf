/*===- AotRuntime.c - Runtime of ahead-of-time compiled code --------------===*/

/* posix_memalign under strict ISO C too. */
#define _POSIX_C_SOURCE 200112L

#include "trellis/ExecutionEngine/AotRuntime.h"

#include <stdint.h>
#include <stdlib.h>

/* What the memref lowering stores as the allocated pointer of a buffer that
 * is a memref.global: never to be freed. */
#define TRELLIS_GLOBAL_PLACEHOLDER ((void *)(uintptr_t)0xdeadbeef)

void *_mlir_memref_to_llvm_alloc(size_t size) {
  return malloc(size ? size : 1);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  /* posix_memalign wants a power of two that is a multiple of a pointer. */
  size_t align = sizeof(void *);
  while (align < alignment)
    align *= 2;
  void *ptr = NULL;
  if (posix_memalign(&ptr, align, size ? size : 1) != 0)
    return NULL;
  return ptr;
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (ptr != TRELLIS_GLOBAL_PLACEHOLDER)
    free(ptr);
}

void trellis_aot_release(void *allocated) {
  if (allocated != TRELLIS_GLOBAL_PLACEHOLDER)
    free(allocated);
}

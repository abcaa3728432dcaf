/*===- embed.c - Embedding Trellis through its C API ----------------------===*
 *
 * Usage: embed-c model.mlir
 * Loads relu(x · w + b) from model.mlir, compiles it, calls @predict and
 * checks the result against the hand-computed [[4.5, 0], [10.5, 0]]; then
 * shows that a bad call fails with a message. Prints OK and exits 0 on
 * success.
 *
 *===----------------------------------------------------------------------===*/

#include "trellis-c/Trellis.h"

#include <math.h>
#include <stdio.h>

static int report(const char *what) {
  printf("FAIL: %s: %s\n", what, trellisGetLastError());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: embed-c model.mlir\n");
    return 2;
  }
  TrellisCompiler compiler = NULL;
  TrellisModule module = NULL;
  TrellisCompiledModule compiled = NULL;
  TrellisFunction predict = NULL;
  TrellisTensor result = NULL;
  int status = 1;

  if (trellisCompilerCreate(NULL, 3, &compiler) != TRELLIS_SUCCESS) {
    report("create");
    goto done;
  }
  if (trellisModuleLoad(compiler, argv[1], &module) != TRELLIS_SUCCESS) {
    report("load");
    goto done;
  }
  if (trellisCompile(compiler, module, &compiled) != TRELLIS_SUCCESS) {
    report("compile");
    goto done;
  }
  if (trellisLookupFunction(compiled, "predict", &predict) != TRELLIS_SUCCESS) {
    report("lookup");
    goto done;
  }
  printf("@predict: %zu arguments, %zu result\n",
         trellisFunctionGetNumArguments(predict),
         trellisFunctionGetNumResults(predict));

  float x[] = {1, 2, 3, 4, 5, 6};
  float w[] = {1, -1, 0, 1, 1, -2};
  float b[] = {0.5f, -1};
  int64_t xShape[] = {2, 3}, wShape[] = {3, 2}, bShape[] = {2};
  TrellisTensorView inputs[3] = {
      {TRELLIS_F32, 2, xShape, NULL, x},
      {TRELLIS_F32, 2, wShape, NULL, w},
      {TRELLIS_F32, 1, bShape, NULL, b},
  };
  if (trellisFunctionCall(predict, inputs, 3, &result) != TRELLIS_SUCCESS) {
    report("call");
    goto done;
  }
  const float expected[] = {4.5f, 0.0f, 10.5f, 0.0f};
  const float *values = (const float *)trellisTensorGetData(result);
  const int64_t *shape = trellisTensorGetShape(result);
  if (trellisTensorGetDType(result) != TRELLIS_F32 ||
      trellisTensorGetRank(result) != 2 || shape[0] != 2 || shape[1] != 2) {
    printf("FAIL: the result is not a 2x2 float tensor\n");
    goto done;
  }
  printf("result: %g %g %g %g\n", values[0], values[1], values[2], values[3]);
  for (int i = 0; i < 4; ++i)
    if (fabsf(values[i] - expected[i]) > 1e-6f) {
      printf("FAIL: element %d is %g, expected %g\n", i, values[i],
             expected[i]);
      goto done;
    }

  /* A call with too few arguments fails with a message. */
  TrellisTensor unused = NULL;
  if (trellisFunctionCall(predict, inputs, 2, &unused) == TRELLIS_SUCCESS) {
    printf("FAIL: a call with 2 arguments succeeded\n");
    trellisTensorDestroy(unused);
    goto done;
  }
  printf("too few arguments: %s\n", trellisGetLastError());
  printf("OK\n");
  status = 0;

done:
  trellisTensorDestroy(result);
  trellisFunctionDestroy(predict);
  trellisCompiledModuleDestroy(compiled);
  trellisModuleDestroy(module);
  trellisCompilerDestroy(compiler);
  return status;
}

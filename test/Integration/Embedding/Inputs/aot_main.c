/* Calls the functions of aot_model.mlir compiled by trellis-aot, through the
 * generated header, without any JIT: prints their results. */

#include "model.h"

#include <stdio.h>

int main(void) {
  float x[] = {1, 2, 3, 4, 5, 6};
  float w[] = {1, -1, 0, 1, 1, -2};
  float b[] = {0.5f, -1};
  trellis_memref_f32_2d xd = {x, x, 0, {2, 3}, {3, 1}};
  trellis_memref_f32_2d wd = {w, w, 0, {3, 2}, {2, 1}};
  trellis_memref_f32_1d bd = {b, b, 0, {2}, {1}};
  trellis_memref_f32_2d out;
  _mlir_ciface_predict(&out, &xd, &wd, &bd);
  printf("predict: sizes %ld %ld:", (long)out.sizes[0], (long)out.sizes[1]);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      printf(" %g", out.aligned[out.offset + i * out.strides[0] +
                                j * out.strides[1]]);
  printf("\n");
  trellis_aot_release(out.allocated);

  double v[] = {1, 2, 3, 4};
  trellis_memref_f64_1d vd = {v, v, 0, {4}, {1}};
  scale_results scaled;
  _mlir_ciface_scale(&scaled, &vd, 2.5);
  printf("scale:");
  for (int i = 0; i < 4; ++i)
    printf(" %g", scaled.result0.aligned[scaled.result0.offset +
                                         i * scaled.result0.strides[0]]);
  printf(" |");
  for (int i = 0; i < 4; ++i)
    printf(" %g", scaled.result1.aligned[scaled.result1.offset +
                                         i * scaled.result1.strides[0]]);
  printf("\n");
  /* Release what the program allocated: not the argument's buffer. */
  if (scaled.result0.allocated != v)
    trellis_aot_release(scaled.result0.allocated);
  if (scaled.result1.allocated != v &&
      scaled.result1.allocated != scaled.result0.allocated)
    trellis_aot_release(scaled.result1.allocated);

  int32_t n[] = {7, 8, 9};
  trellis_memref_i32_1d nd = {n, n, 0, {3}, {1}};
  printf("last: %d\n", (int)_mlir_ciface_last(&nd));
  return 0;
}

// Valid IR that one-shot-bufferize rejects: a tensor-typed poison value.
func.func @f() -> tensor<2xf32> {
  %p = ub.poison : tensor<2xf32>
  return %p : tensor<2xf32>
}

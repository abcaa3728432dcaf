// A splat of 2^43 f32 (32 TiB): filled at run time, so the allocation, not the compile, fails (huge-tensors.test).
func.func @big() -> tensor<8796093022208xf32> {
  %c = arith.constant dense<1.0> : tensor<8796093022208xf32>
  return %c : tensor<8796093022208xf32>
}

// A splat of 10^14 f32 (400 TB): more than any host holds (huge-tensors.test).
func.func @big() -> tensor<100000000000000xf32> {
  %c = arith.constant dense<1.0> : tensor<100000000000000xf32>
  return %c : tensor<100000000000000xf32>
}

// Valid IR that the pipeline cannot turn into LLVM: a cast between two
// non-LLVM types survives every conversion.
func.func @f(%a: f32) -> i32 {
  %0 = builtin.unrealized_conversion_cast %a : f32 to i32
  return %0 : i32
}

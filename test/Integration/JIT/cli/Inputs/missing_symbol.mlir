// Lowers fine, but @external is defined nowhere: the JIT cannot link it.
func.func private @external(f32) -> f32

func.func @f(%a: f32) -> f32 {
  %0 = func.call @external(%a) : (f32) -> f32
  return %0 : f32
}

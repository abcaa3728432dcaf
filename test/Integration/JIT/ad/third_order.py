"""Third derivative of mean(tanh(x) ⊙ w)."""

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn
gc.check("third_order_tanh", "t_tanh", [n(3, 4), n(3, 4), n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=["x", "w"])
gc.run()
gc.finish()

"""Second derivative through nn.layer_norm."""

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn
gc.check("grad_of_grad_layer_norm", "k_layer_norm",
         [n(2, 5), n(5), n(5), n(2, 5)], argnums=[0, 1, 2], full=[0, 1, 2],
         arg_names=["x", "s", "b"])
gc.run()
gc.finish()

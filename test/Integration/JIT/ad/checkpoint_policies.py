"""One checkpointed body under each ad.checkpoint policy: same gradients."""

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn
inputs = [n(4, 3), 0.7 * n(3, 3), n(3)]
for policy in ("nothing", "dots", "named"):
    gc.check(f"policy_{policy}", f"f_{policy}", inputs, argnums=[0, 1, 2],
             full=[0, 1, 2], arg_names=["x", "w", "b"])
gc.run()
gc.finish()

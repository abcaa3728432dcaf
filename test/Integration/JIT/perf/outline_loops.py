"""Loop outlining of large functions in the JIT; see outline-loops.mlir.

Usage: outline_loops.py MODEL.mlir WORKDIR. Prints

* "OUTLINED step: N loops, all noinline": the outlined functions of @step
  (CodeExtractor names them step.loop, step.loop.1, ...) in the optimized
  LLVM IR of a default run, each carrying `noinline` (or the optimizer's
  inliner would undo the outlining);
* "MERGED step: 0 outlined loops with the body of another": the same loop
  of both layers became one function (LLVM's MergeFunctions after the
  outlining);
* "GLUE step: _mlir_step optnone": what is left of the step once its loops
  are outlined is straight-line code, generated as at -O0
  (markLargeStraightLineFunctions);
* "NOT OUTLINED step: 0 loops with --outline-loops=false", and the wrapper,
  which then holds the loops, not optnone;
* "PASS|FAIL step.<i>": the step's results with outlining against those
  without, relative 1e-13 (both are the same loops, compiled alone or in
  one function; the vectorizer may interleave a reduction differently);
* "PASS|FAIL stack.<arg>": gradcheck.py's finite-difference check of the
  outlined code's gradient (gradcheck.py's entry, which computes the
  gradient and the probes, has hundreds of loops: outlined as well).
"""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "lib"))
from trellis_testing.gradcheck import GradCheck  # noqa: E402
from trellis_testing.run import run_entry  # noqa: E402

D, FF, L, DEPTH = 8, 16, 6, 2
PARAMS = []
for layer in range(DEPTH):
    a, f = f"a{layer}_", f"f{layer}_"
    PARAMS += [(a + "lns", (D,)), (a + "lno", (D,))]
    PARAMS += [(a + k + n, (D, D) if k == "w" else (D,))
               for n in "qkvo" for k in "wb"]
    PARAMS += [(f + "lns", (D,)), (f + "lno", (D,)), (f + "w1", (D, FF)),
               (f + "b1", (FF,)), (f + "w2", (FF, D)), (f + "b2", (D,))]

model, workdir = sys.argv[1], sys.argv[2]
gc = GradCheck(model, workdir, seed=3)
inputs = [1.0 + 0.1 * gc.randn(*s) if n.endswith("lns")
          else gc.randn(*s, scale=1 / np.sqrt(s[0]) if len(s) == 2 else 0.1)
          for n, s in PARAMS]
inputs += [gc.randn(1, L, D) for _ in range(3)]


def outlined(ll_path, entry):
    """(number of outlined loop functions of `entry`, all of them noinline,
    the wrapper _mlir_<entry> optnone)."""
    with open(ll_path) as f:
        text = f.read()
    groups = dict(re.findall(r"^attributes (#\d+) = \{([^}]*)\}", text, re.M))

    def has(attrs, name):
        return name in attrs.split() or any(
            name in groups.get(g, "").split() for g in re.findall(r"#\d+", attrs))

    defs = re.findall(r"^define [^\n]*@" + entry + r"\.loop(?:\.\d+)?\([^\n]*\)"
                      r"([^{\n]*)\{", text, re.M)
    bodies = re.findall(r"^define [^\n]*@" + entry + r"\.loop(?:\.\d+)?\([^\n]*\n(.*?)^\}",
                        text, re.M | re.S)
    # The same loop of both layers is one function (MergeFunctions).
    twins = len(bodies) - len(set(bodies))
    wrapper = re.findall(r"^define [^\n]*@_mlir_" + entry + r"\([^\n]*\)([^{\n]*)\{",
                         text, re.M)
    if len(wrapper) != 1:
        sys.exit(f"FAIL: {len(wrapper)} definitions of @_mlir_{entry}")
    return (len(defs), all(has(attrs, "noinline") for attrs in defs),
            has(wrapper[0], "optnone"), twins)


def run_step(tag, flags):
    ll = os.path.join(workdir, f"step_{tag}.ll")
    results, _ = run_entry(model, "step", inputs, workdir, tag=f"step_{tag}",
                           extra=[f"--dump-llvm-ir={ll}"] + flags)
    if len(results) != 1 + len(PARAMS):
        sys.exit(f"FAIL step ({tag}): {len(results)} results, expected "
                 f"{1 + len(PARAMS)}")
    return results, outlined(ll, "step")


os.makedirs(workdir, exist_ok=True)
with_outlining, (count, noinline, glue, twins) = run_step("outlined", [])
print(f"OUTLINED step: {count} loops, "
      f"{'all noinline' if noinline else 'NOT all noinline'}")
print(f"MERGED step: {twins} outlined loops with the body of another")
print(f"GLUE step: _mlir_step {'optnone' if glue else 'NOT optnone'}")
without, (count_off, _, glue_off, _) = run_step("inline", ["--outline-loops=false"])
print(f"NOT OUTLINED step: {count_off} loops with --outline-loops=false, "
      f"_mlir_step {'optnone' if glue_off else 'not optnone'}")
for i, (got, want) in enumerate(zip(with_outlining, without)):
    gc.close(f"step.{i}", got, want, rtol=1e-13, dtype=np.float64)

# Not the key biases a<i>_bk: the loss does not depend on them (softmax ignores a
# shift of a whole row of scores), so its gradient is 0 up to rounding and
# its finite differences are rounding noise (~1e-11), neither "exactly 0"
# nor a derivative gradcheck.py could hold to 1e-6.
argnums = [i for i, (n, _) in enumerate(PARAMS) if not n.endswith("_bk")]
gc.check("stack", "loss", inputs, argnums=argnums, full=[2],
         arg_names=[n for n, _ in PARAMS])
gc.run()
gc.finish()

"""Trellis from Python (docs/python.md).

  trellis.compile(text, entry)   -> a callable over NumPy arrays
  trellis.layers                 -> Trax-style layers that build `nn` IR
  trellis.grad / value_and_grad  -> gradients of a model's loss (ad.grad)
  trellis.optim, trellis.Trainer -> training with trellis-train's machinery
  trellis.torch.export           -> a PyTorch module as `nn` IR (torch.fx)
"""

from ._trellis import Error, Function, CompiledModule, verify
from . import _trellis

Error.__module__ = "trellis"


def compile_module(text, opt_level=3, attention_chunk=128, cache_dir="",
                   name="<string>"):
    """Parses, lowers and JIT-compiles MLIR text; returns a CompiledModule
    whose functions are looked up by name (`module["predict"]`)."""
    return _trellis.compile_module(text, name, opt_level, attention_chunk,
                                   cache_dir)


def compile(text, entry, **options):
    """Compiles MLIR `text` and returns its function `entry`: a callable
    taking one NumPy array per argument (Python numbers for scalars) and
    returning a tuple of NumPy arrays. Errors raise trellis.Error with the
    diagnostic. `options`: opt_level, attention_chunk, cache_dir, name."""
    return compile_module(text, **options)[entry]


from . import ir, layers  # noqa: E402
from .layers import Model, Input  # noqa: E402
from .autodiff import grad, value_and_grad, gradient_module  # noqa: E402
from . import optim  # noqa: E402
from .train import Trainer, step_module  # noqa: E402


def __getattr__(name):
    # trellis.torch imports PyTorch: only when used.
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'trellis' has no attribute {name!r}")

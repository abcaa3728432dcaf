"""nn.reversible_swap at function level (reversible_swap.mlir)."""

from trellis_testing.run import Session

s = Session.from_argv()
a, b = s.randn(3, 4), s.randn(5)
p, q = s.run("rev_swap", a, b, results=2)
s.equal("rev_swap.first", p, b)
s.equal("rev_swap.second", q, a)
s.finish()

"""Generates a reversible stack and the same math with stored activations.

Both entries take (x1, x2, weights..., dy1, dy2) and return
(y1, y2, dx1, dx2, dweights...) through ad.vjp, so trellis-equiv can compare
outputs, input gradients and weight gradients of the two.

Block l (of `depth`): y1 = x1 + F_l(x2); y2 = x2 + G_l(y1), with
F_l(c) = act(c·Wf_l + bf_l) and G_l(c) = act(c·Wg_l + bg_l); the reversible
form writes it as half_residual, swap, half_residual, swap.
Usage: make_stack.py DEPTH ACT OUT.mlir [BATCH WIDTH]   (ACT: tanh | gelu | relu)
"""
import sys

depth, act, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
B, D = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (4, 16)
T = f"tensor<{B}x{D}xf32>"
W, V = f"tensor<{D}x{D}xf32>", f"tensor<{D}xf32>"
weights = []
for l in range(depth):
    weights += [(f"wf{l}", W), (f"bf{l}", V), (f"wg{l}", W), (f"bg{l}", V)]
wargs = ", ".join(f"%{n}: {t}" for n, t in weights)
wnames = ", ".join(f"%{n}" for n, _ in weights)
wtypes = ", ".join(t for _, t in weights)


def residual(indent, arg, w, b, res):
    return (f"{indent}%{res}_d = nn.dense %{arg}, %{w}, %{b} : ({T}, {W}, {V}) -> {T}\n"
            f"{indent}%{res} = nn.{act} %{res}_d : {T}\n")


lines = []
# Reference: ordinary residual adds, activations stored by the AD.
lines.append(f"func.func @stored(%x1: {T}, %x2: {T}, {wargs}) -> ({T}, {T}) {{")
a, c = "x1", "x2"
for l in range(depth):
    lines.append(residual("  ", c, f"wf{l}", f"bf{l}", f"f{l}"))
    lines.append(f"  %a{l} = arith.addf %{a}, %f{l} : {T}")
    lines.append(residual("  ", f"a{l}", f"wg{l}", f"bg{l}", f"g{l}"))
    lines.append(f"  %c{l} = arith.addf %{c}, %g{l} : {T}")
    a, c = f"a{l}", f"c{l}"
lines.append(f"  return %{a}, %{c} : {T}, {T}\n}}")

# Reversible: half-residual, swap, half-residual, swap per block.
lines.append(f"func.func @reversible(%x1: {T}, %x2: {T}, {wargs}) -> ({T}, {T}) {{")
lines.append(f"  %y:2 = nn.reversible_serial %x1, %x2 : {T}, {T} {{")
lines.append(f"  ^bb0(%i1: {T}, %i2: {T}):")
a, c = "i1", "i2"
for l in range(depth):
    for half, (w, b) in enumerate([(f"wf{l}", f"bf{l}"), (f"wg{l}", f"bg{l}")]):
        n = f"h{l}_{half}"
        lines.append(f"    %{n}:2 = nn.reversible_half_residual %{a}, %{c} : {T}, {T} {{")
        lines.append(f"    ^bb0(%u: {T}):")
        lines.append(residual("      ", "u", w, b, "r"))
        lines.append(f"      nn.yield %r : {T}\n    }}")
        lines.append(f"    %s{n}:2 = nn.reversible_swap %{n}#0, %{n}#1 : {T}, {T}")
        a, c = f"s{n}#0", f"s{n}#1"
lines.append(f"    nn.yield %{a}, %{c} : {T}, {T}\n  }}")
lines.append(f"  return %y#0, %y#1 : {T}, {T}\n}}")

n_w = len(weights)
res_types = ", ".join([T, T, T, T] + [t for _, t in weights])
for name in ("stored", "reversible"):
    lines.append(f"func.func @{name}_vjp(%x1: {T}, %x2: {T}, {wargs}, %dy1: {T}, %dy2: {T})"
                 f" -> ({res_types}) {{")
    lines.append(f"  %r:{4 + n_w} = ad.vjp @{name}(%x1, %x2, {wnames}, %dy1, %dy2)"
                 f" : ({T}, {T}, {wtypes}, {T}, {T}) -> ({res_types})")
    rets = ", ".join(f"%r#{i}" for i in range(4 + n_w))
    lines.append(f"  return {rets} : {res_types}\n}}")
open(out, "w").write("\n".join(lines) + "\n")

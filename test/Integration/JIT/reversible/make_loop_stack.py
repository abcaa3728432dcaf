"""Generates the depth-scalable reversible stack: weights stacked along a
leading layer dimension (tensor<L x ...>), the layers iterated by scf.for,
so the IR (and compile time) does not grow with depth. Also the same math
with ordinary residual adds in the same loop (stored activations: the AD
tapes the loop's carried values).

Both entries take (x1, x2, WF, BF, WG, BG, dy1, dy2) and return
(y1, y2, dx1, dx2, dWF, dBF, dWG, dBG) through ad.vjp.
Usage: make_loop_stack.py DEPTH OUT.mlir [BATCH WIDTH]
"""
import sys

depth, out = int(sys.argv[1]), sys.argv[2]
B, D = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (4, 16)
T = f"tensor<{B}x{D}xf32>"
W, V = f"tensor<{D}x{D}xf32>", f"tensor<{D}xf32>"
SW, SV = f"tensor<{depth}x{D}x{D}xf32>", f"tensor<{depth}x{D}xf32>"
args = f"%x1: {T}, %x2: {T}, %wf: {SW}, %bf: {SV}, %wg: {SW}, %bg: {SV}"


def slices(indent):
    lines = []
    for n, st in (("wf", SW), ("wg", SW)):
        lines.append(f"{indent}%{n}_l = tensor.extract_slice %{n}[%l, 0, 0] [1, {D}, {D}] [1, 1, 1]"
                     f" : {st} to {W}")
    for n, st in (("bf", SV), ("bg", SV)):
        lines.append(f"{indent}%{n}_l = tensor.extract_slice %{n}[%l, 0] [1, {D}] [1, 1]"
                     f" : {st} to {V}")
    return "\n".join(lines)


def residual(indent, arg, w, b, res):
    return (f"{indent}%{res}_d = nn.dense %{arg}, %{w}, %{b} : ({T}, {W}, {V}) -> {T}\n"
            f"{indent}%{res} = nn.tanh %{res}_d : {T}")


head = f"""  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cL = arith.constant {depth} : index
  %y:2 = scf.for %l = %c0 to %cL step %c1 iter_args(%a = %x1, %c = %x2) -> ({T}, {T}) {{
{slices("    ")}"""
stored = f"""func.func @stored(%x1: {T}, %x2: {T}, %wf: {SW}, %bf: {SV}, %wg: {SW}, %bg: {SV}) -> ({T}, {T}) {{
{head}
{residual("    ", "c", "wf_l", "bf_l", "f")}
    %a2 = arith.addf %a, %f : {T}
{residual("    ", "a2", "wg_l", "bg_l", "g")}
    %c2 = arith.addf %c, %g : {T}
    scf.yield %a2, %c2 : {T}, {T}
  }}
  return %y#0, %y#1 : {T}, {T}
}}"""
reversible = f"""func.func @reversible(%x1: {T}, %x2: {T}, %wf: {SW}, %bf: {SV}, %wg: {SW}, %bg: {SV}) -> ({T}, {T}) {{
{head}
    %r:2 = nn.reversible_serial %a, %c : {T}, {T} {{
    ^bb0(%i1: {T}, %i2: {T}):
      %h:2 = nn.reversible_half_residual %i1, %i2 : {T}, {T} {{
      ^bb0(%u: {T}):
{residual("        ", "u", "wf_l", "bf_l", "f")}
        nn.yield %f : {T}
      }}
      %s:2 = nn.reversible_swap %h#0, %h#1 : {T}, {T}
      %k:2 = nn.reversible_half_residual %s#0, %s#1 : {T}, {T} {{
      ^bb0(%u: {T}):
{residual("        ", "u", "wg_l", "bg_l", "g")}
        nn.yield %g : {T}
      }}
      %s2:2 = nn.reversible_swap %k#0, %k#1 : {T}, {T}
      nn.yield %s2#0, %s2#1 : {T}, {T}
    }}
    scf.yield %r#0, %r#1 : {T}, {T}
  }}
  return %y#0, %y#1 : {T}, {T}
}}"""
types = f"{T}, {T}, {SW}, {SV}, {SW}, {SV}"
results = f"{T}, {T}, {T}, {T}, {SW}, {SV}, {SW}, {SV}"
vjps = []
for name in ("stored", "reversible"):
    vjps.append(f"""func.func @{name}_vjp({args}, %dy1: {T}, %dy2: {T}) -> ({results}) {{
  %r:8 = ad.vjp @{name}(%x1, %x2, %wf, %bf, %wg, %bg, %dy1, %dy2) : ({types}, {T}, {T}) -> ({results})
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : {results}
}}""")
open(out, "w").write("\n".join([stored, reversible] + vjps) + "\n")

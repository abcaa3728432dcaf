"""nesting.test's input: @deep(x) returns x from inside N nested
scf.execute_region ops; with --braces-in-strings each level also carries a
string attribute and a comment full of '{'."""
import sys

n = int(sys.argv[1])
noise = "--braces-in-strings" in sys.argv
print("func.func @deep(%x: f32) -> f32 {")
print("  %c0 = arith.constant 0 : index")
for k in range(n):
    extra = ' {note = "{{{{ not a region"}' if noise else ""
    comment = "  // {{{{ nor this" if noise else ""
    print("  " * (k + 1) + f"%r{k} = scf.execute_region -> f32 {{{comment}")
for k in reversed(range(n)):
    inner = f"%r{k + 1}" if k + 1 < n else "%x"
    extra = ' {note = "{{{{ not a region"}' if noise else ""
    print("  " * (k + 2) + f"scf.yield {inner} : f32")
    print("  " * (k + 1) + f"}}{extra}")
print("  return %r0 : f32")
print("}")

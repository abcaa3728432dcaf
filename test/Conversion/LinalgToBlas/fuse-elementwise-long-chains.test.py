"""Generator and checker of fuse-elementwise-long-chains.test.

  fuse-elementwise-long-chains.test.py N            a chain of N elementwise
                                                     ops on tensor<64xf32>
  fuse-elementwise-long-chains.test.py --check F N  counts F's generics, their
                                                     body sizes and arithmetic
                                                     ops, and checks the chain
"""
import re
import sys

OPS = ("arith.addf", "arith.mulf", "arith.subf")


def chain(n):
    print("func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {")
    prev = "%x"
    for k in range(n):
        print(f"  %v{k} = {OPS[k % 3]} {prev}, %x : tensor<64xf32>")
        prev = f"%v{k}"
    print(f"  return {prev} : tensor<64xf32>\n}}")


def check(path, n):
    text = open(path).read()
    generics = re.findall(r"(%\S+) = linalg\.generic .*?ins\(([^:]*):.*?\{\n(.*?)\n\s*\} -> tensor",
                          text, re.S)
    bodies = [body.count("\n") + 1 for _, _, body in generics]
    arithmetic = sum(len(re.findall(r"arith\.(addf|mulf|subf)", body)) for _, _, body in generics)
    chained = all(generics[i][0] in generics[i + 1][1] for i in range(len(generics) - 1))
    if max(bodies) > 256 or arithmetic != n or not chained:
        sys.exit(f"FAIL: bodies {bodies}, {arithmetic} arithmetic ops, chained {chained}")
    print(f"{len(generics)} generics, bodies of at most 256 ops, {arithmetic} arithmetic "
          f"ops in all, each generic reading the one before")


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check(sys.argv[2], int(sys.argv[3]))
    else:
        chain(int(sys.argv[1]))

"""The NumPy Threefry-2x32 reference (trellis_testing.reference) against
Random123's known-answer vectors for threefry2x32_20, one word pair at a time
and vectorised, plus the key and threshold conventions of nn.dropout."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Checker

c = Checker()
for ctr, key, want in ref.THREEFRY2X32_20_KAT:
    got = tuple(int(w[0]) for w in ref.threefry2x32(key, ctr))
    c.expect(f"kat ctr=({ctr[0]:#010x}, {ctr[1]:#010x}) "
             f"key=({key[0]:#010x}, {key[1]:#010x})", got == want,
             f"({got[0]:#010x}, {got[1]:#010x})")

# Vectorised over counters under one key: the same words as one at a time.
ctr0 = np.array([0, 1, 0xffffffff, 0x243f6a88], dtype=np.uint32)
ctr1 = np.array([0, 0, 0xffffffff, 0x85a308d3], dtype=np.uint32)
key = (0x13198a2e, 0x03707344)
vec = np.stack(ref.threefry2x32(key, (ctr0, ctr1)))
one = np.stack([np.concatenate(ref.threefry2x32(key, (a, b)))
                for a, b in zip(ctr0, ctr1)], axis=1)
c.equal("vectorised counters", vec, one)
c.expect("vectorised kat", tuple(vec[:, 3]) == (0xc4923a9c, 0x483df7a0),
         f"({vec[0, 3]:#010x}, {vec[1, 3]:#010x})")

# An int32 key is read as the same 32 bits as a uint32 key.
c.equal("int32 key words", ref.key_words(np.array([-1, 7], np.int32)),
        np.array([0xffffffff, 7], np.uint32))

# round(rate·2³²) of the float32 rate attribute: 0.3f is exactly
# 10066330·2⁻²⁵, so the bound is 1288490240, not round(0.3·2³²) = 1288490189.
t = [ref.dropout_threshold(r) for r in (0.3, 0.0, 1.0)]
c.expect("dropout threshold", t == [1288490240, 0, 0xFFFFFFFF], str(t))
c.finish()

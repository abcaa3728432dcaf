"""Generates revnet.mlir: a reversible residual network (RevNet, Gomez et
al. 2017) classifier of Fashion-MNIST, trained with Adam.

  28x28x1 -> conv 3x3 16 (pad 1, no bias) -> batch norm -> relu -> max pool 2
          -> nn.reversible_serial of BLOCKS RevNet blocks on two 14x14x16
             streams (both start as the stem's output):
             y1 = x1 + F(x2), y2 = x2 + G(y1), F and G conv 3x3 -> batch
             norm -> relu -> conv 3x3 (16 channels, pad 1)
          -> y1 + y2 -> relu -> max pool 2 -> flatten 784 -> dense 10

The backward pass of the serial reconstructs each block's inputs from its
outputs instead of storing them, so the activation memory does not grow
with BLOCKS (docs/reversible.md, "RevNet"). With --plain the same blocks are
ordinary residuals outside a serial (every activation stored), for the
memory comparison. Every batch norm's running statistics (the stem's and
one per F and G) are layer state: the blocks return them, and although the
backward pass recomputes F and G, they are updated once per step.

usage: gen_revnet.py [--blocks 8] [--plain] [--batch 100] > revnet.mlir"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from modelgen import Batch, Param, V, module  # noqa: E402

C, LR, B1, B2, EPS = 16, 1e-3, 0.9, 0.999, 1e-8


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--plain", action="store_true")
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--eval-batch", type=int, default=1000)
    return p.parse_args(argv)


def parameters(blocks):
    # The stem conv has no bias of its own: batch norm's bias takes its place
    # (a bias before batch norm has a zero gradient, up to rounding noise
    # that Adam would amplify into steps).
    params = [Param("w0", (3, 3, 1, C), "he_normal"),
              Param("bn_scale0", (C,), "ones"), Param("bn_bias0", (C,), "zeros")]
    for k in range(blocks):
        for half in "fg":
            params += [Param(f"{half}{k}w1", (3, 3, C, C), "he_normal"),
                       Param(f"{half}{k}bn_scale", (C,), "ones"),
                       Param(f"{half}{k}bn_bias", (C,), "zeros"),
                       Param(f"{half}{k}w2", (3, 3, C, C), "normal:0.01"),
                       Param(f"{half}{k}b2", (C,), "zeros")]
    params += [Param("w_out", (7 * 7 * C, 10), "glorot_uniform"), Param("bias_out", (10,), "zeros")]
    return params


def state(blocks):
    """The running statistics of the stem's batch norm and of F's and G's."""
    out = [Param("bn_mean0", (C,), "zeros"), Param("bn_var0", (C,), "ones")]
    for k in range(blocks):
        for half in "fg":
            out += [Param(f"{half}{k}bn_mean", (C,), "zeros"),
                    Param(f"{half}{k}bn_var", (C,), "ones")]
    return out


PAD = (1, 1, 1, 1)


def residual(f, p, s, name, u, no_bias, training):
    """F or G: conv 3x3 -> batch norm -> relu -> conv 3x3 (the second starts
    near 0, so a deep stack starts near the identity). Returns the residual
    and the new running statistics."""
    h = f.conv2d(u, p[f"{name}w1"], no_bias, padding=PAD, hint=f"{name}c1")
    h, m, v = f.batch_norm(h, p[f"{name}bn_scale"], p[f"{name}bn_bias"], s[f"{name}bn_mean"],
                           s[f"{name}bn_var"], training, hint=f"{name}bn")
    r = f.conv2d(f.relu(h), p[f"{name}w2"], p[f"{name}b2"], padding=PAD, hint=f"{name}c2")
    return r, [m, v]


def make_forward(blocks, plain):
    def forward(f, p, b, s, training):
        no_bias = V(f.fresh("no_bias"), (C,))
        f.emit(f"{no_bias} = arith.constant dense<0.0> : {no_bias.t}")
        h = f.conv2d(f.expand_last(b["x"]), p["w0"], no_bias, padding=PAD, hint="stem")
        h, m, v = f.batch_norm(h, p["bn_scale0"], p["bn_bias0"], s["bn_mean0"], s["bn_var0"],
                               training, hint="bn0")
        h = f.max_pool2d(f.relu(h), (2, 2), hint="pool0")
        new_state = [m, v]
        if plain:
            x1, x2 = h, h
            for k in range(blocks):
                for half in "fg":
                    r, ms = residual(f, p, s, f"{half}{k}", x2, no_bias, training)
                    x1, x2 = x2, f.add(x1, r)
                    new_state += ms
            y1, y2 = x1, x2
        else:
            def blocks_of(args):
                c1, c2 = args
                inner = []
                for k in range(blocks):
                    for half in "fg":
                        a1, a2, ms = f.half_residual(
                            c1, c2, lambda u, name=f"{half}{k}": residual(
                                f, p, s, name, u, no_bias, training), f"h{half}{k}_")
                        c1, c2 = f.swap(a1, a2)
                        inner += ms
                return [c1, c2], inner

            (y1, y2), stats = f.serial([h, h], blocks_of, "rev", ["c", "c"])
            new_state += stats
        h = f.max_pool2d(f.relu(f.add(y1, y2)), (2, 2), hint="pool1")
        logits = f.dense(f.flatten(h), p["w_out"], p["bias_out"], "logits")
        return logits, b["y"], new_state
    return forward


def model_text(a):
    kind = "ordinary residual blocks (--plain)" if a.plain else "reversible blocks"
    header = f"""// A RevNet classifier of Fashion-MNIST (examples/fashion-mnist/README.md):
// conv 3x3 {C} -> batch norm -> relu -> max pool 2, {a.blocks} {kind} of
// conv 3x3 -> batch norm -> relu -> conv 3x3 on two 14x14x{C} streams (the
// running statistics of every batch norm are layer state), their sum -> relu
// -> max pool 2 -> dense 10; Adam (lr {LR}), batch {a.batch}. Generated by
// gen_revnet.py --blocks {a.blocks}{' --plain' if a.plain else ''}.
"""
    batch = [Batch("x", (28, 28), "f32"), Batch("y", (), "i32")]
    return module(header, parameters(a.blocks), batch, make_forward(a.blocks, a.plain),
                  a.batch, a.eval_batch, optimizer="adam", lr=LR, b1=B1, b2=B2, eps=EPS,
                  state=state(a.blocks))


if __name__ == "__main__":
    sys.stdout.write(model_text(parse()))

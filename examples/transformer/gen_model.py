"""Generates model.mlir: a small decoder-only Transformer language model
(token + learned positional embeddings, pre-layer-norm blocks of causal
multi-head self-attention and a gelu feed-forward, a final layer_norm and a
dense projection to the vocabulary), trained with Adam written in IR.

usage: gen_model.py [LAYERS] > model.mlir
       gen_model.py [--vocab V] [--seq L] [--width D] [--heads H] [--ff F]
                    [--train-batch B] [--eval-batch B] [LAYERS] > model.mlir

The defaults give the committed model.mlir (the sizes of make_data.py's
task); bench/transformer_lm.py generates larger ones with the options, and
imports parameters() and model_text().
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from modelgen import Batch, Param, module  # noqa: E402

LR = 3e-3


def sizes_parser():
    """The model's sizes as command-line options (defaults: model.mlir's)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("layers", nargs="?", type=int, default=2, help="pre-layer-norm blocks")
    p.add_argument("--vocab", type=int, default=10, help="vocabulary size V")
    p.add_argument("--seq", type=int, default=16, help="sequence length L")
    p.add_argument("--width", type=int, default=32, help="model width D")
    p.add_argument("--heads", type=int, default=2, help="attention heads (divide D)")
    p.add_argument("--ff", type=int, default=128, help="feed-forward width")
    p.add_argument("--train-batch", type=int, default=32, help="batch of @loss and @train_step")
    p.add_argument("--eval-batch", type=int, default=128, help="batch of @eval")
    return p


def parameters(s):
    """The trained parameters (argparse namespace `s` of sizes_parser())."""
    V, L, D, FF = s.vocab, s.seq, s.width, s.ff
    params = [Param("tok", (V, D), "normal:0.1"), Param("pos", (L, D), "normal:0.1")]
    for i in range(s.layers):
        params += [Param(f"l{i}_ln1s", (D,), "ones"), Param(f"l{i}_ln1o", (D,), "zeros")]
        for n in "qkvo":
            params += [Param(f"l{i}_w{n}", (D, D), "glorot_uniform"),
                       Param(f"l{i}_b{n}", (D,), "zeros")]
        params += [Param(f"l{i}_ln2s", (D,), "ones"), Param(f"l{i}_ln2o", (D,), "zeros"),
                   Param(f"l{i}_w1", (D, FF), "glorot_uniform"), Param(f"l{i}_b1", (FF,), "zeros"),
                   Param(f"l{i}_w2", (FF, D), "glorot_uniform"), Param(f"l{i}_b2", (D,), "zeros")]
    params += [Param("lnfs", (D,), "ones"), Param("lnfo", (D,), "zeros"),
               Param("wout", (D, V), "glorot_uniform"), Param("bout", (V,), "zeros")]
    return params


def model_text(s):
    """The module's text for the sizes `s` (a namespace of sizes_parser())."""
    L = s.seq
    scored = L - 1  # positions 1..L-1 (make_data.py)
    batch = [Batch("x", (L,), "i32"), Batch("pos_ids", (L,), "i32"), Batch("y", (scored,), "i32")]

    def forward(f, p, b):
        h = f.add(f.embedding(b["x"], p["tok"], "tok_emb"),
                  f.embedding(b["pos_ids"], p["pos"], "pos_emb"), "h")
        for i in range(s.layers):
            n = f.layer_norm(h, p[f"l{i}_ln1s"], p[f"l{i}_ln1o"], f"l{i}_ln1_")
            q, k, v = (f.dense(n, p[f"l{i}_w{c}"], p[f"l{i}_b{c}"], f"l{i}_{c}_") for c in "qkv")
            a = f.attention(q, k, v, s.heads, causal=True, hint=f"l{i}_att")
            h = f.add(h, f.dense(a, p[f"l{i}_wo"], p[f"l{i}_bo"], f"l{i}_o_"), f"l{i}_h")
            n = f.layer_norm(h, p[f"l{i}_ln2s"], p[f"l{i}_ln2o"], f"l{i}_ln2_")
            g = f.gelu(f.dense(n, p[f"l{i}_w1"], p[f"l{i}_b1"], f"l{i}_ff1_"))
            h = f.add(h, f.dense(g, p[f"l{i}_w2"], p[f"l{i}_b2"], f"l{i}_ff2_"), f"l{i}_h")
        n = f.layer_norm(h, p["lnfs"], p["lnfo"], "lnf")
        rows = f.slice_dim1(n, L - scored, scored, "scored")
        logits = f.dense(f.flatten2(rows, "rows"), p["wout"], p["bout"], "logits")
        return logits, f.flatten2(b["y"], "labels")

    header = f"""// A small Transformer language model (examples/transformer/README.md), generated
// by gen_model.py: vocabulary {s.vocab}, sequence length {L}, model width {s.width}, {s.layers} pre-layer-norm
// blocks of causal self-attention ({s.heads} heads; q, k, v and output projections) and a
// gelu feed-forward ({s.ff}), a final layer_norm and a dense projection to the
// vocabulary. Positions come from a learned table read by nn.embedding on the
// position ids of the batch ("pos_ids"). The loss is the next-token
// cross-entropy on positions 1..{L - 1} (whose next token the grammar determines);
// Adam (lr {LR}), batch {s.train_batch}.
//
//   trellis-train model.mlir --data=train.npz --eval-data=test.npz --output-dir=out
"""
    return module(header, parameters(s), batch, forward, s.train_batch, s.eval_batch,
                  optimizer="adam", lr=LR)


if __name__ == "__main__":
    sys.stdout.write(model_text(sizes_parser().parse_args()))

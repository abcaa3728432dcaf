"""Generates model.mlir: a small decoder-only Transformer language model
(token + learned positional embeddings, pre-layer-norm blocks of causal
multi-head self-attention and a gelu feed-forward, a final layer_norm and a
dense projection to the vocabulary), trained with Adam written in IR.

usage: gen_model.py [LAYERS] > model.mlir
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from modelgen import Batch, Param, module  # noqa: E402

V, L, D, HEADS, FF = 10, 16, 32, 2, 128
LAYERS = int(sys.argv[1]) if len(sys.argv) > 1 else 2
TRAIN_BATCH, EVAL_BATCH, LR = 32, 128, 3e-3
SCORED = L - 1  # positions 1..L-1 (make_data.py)

params = [Param("tok", (V, D), "normal:0.1"), Param("pos", (L, D), "normal:0.1")]
for i in range(LAYERS):
    params += [Param(f"l{i}_ln1s", (D,), "ones"), Param(f"l{i}_ln1o", (D,), "zeros")]
    for n in "qkvo":
        params += [Param(f"l{i}_w{n}", (D, D), "glorot_uniform"),
                   Param(f"l{i}_b{n}", (D,), "zeros")]
    params += [Param(f"l{i}_ln2s", (D,), "ones"), Param(f"l{i}_ln2o", (D,), "zeros"),
               Param(f"l{i}_w1", (D, FF), "glorot_uniform"), Param(f"l{i}_b1", (FF,), "zeros"),
               Param(f"l{i}_w2", (FF, D), "glorot_uniform"), Param(f"l{i}_b2", (D,), "zeros")]
params += [Param("lnfs", (D,), "ones"), Param("lnfo", (D,), "zeros"),
           Param("wout", (D, V), "glorot_uniform"), Param("bout", (V,), "zeros")]
batch = [Batch("x", (L,), "i32"), Batch("pos_ids", (L,), "i32"), Batch("y", (SCORED,), "i32")]


def forward(f, p, b):
    h = f.add(f.embedding(b["x"], p["tok"], "tok_emb"),
              f.embedding(b["pos_ids"], p["pos"], "pos_emb"), "h")
    for i in range(LAYERS):
        n = f.layer_norm(h, p[f"l{i}_ln1s"], p[f"l{i}_ln1o"], f"l{i}_ln1_")
        q, k, v = (f.dense(n, p[f"l{i}_w{c}"], p[f"l{i}_b{c}"], f"l{i}_{c}_") for c in "qkv")
        a = f.attention(q, k, v, HEADS, causal=True, hint=f"l{i}_att")
        h = f.add(h, f.dense(a, p[f"l{i}_wo"], p[f"l{i}_bo"], f"l{i}_o_"), f"l{i}_h")
        n = f.layer_norm(h, p[f"l{i}_ln2s"], p[f"l{i}_ln2o"], f"l{i}_ln2_")
        g = f.gelu(f.dense(n, p[f"l{i}_w1"], p[f"l{i}_b1"], f"l{i}_ff1_"))
        h = f.add(h, f.dense(g, p[f"l{i}_w2"], p[f"l{i}_b2"], f"l{i}_ff2_"), f"l{i}_h")
    n = f.layer_norm(h, p["lnfs"], p["lnfo"], "lnf")
    scored = f.slice_dim1(n, L - SCORED, SCORED, "scored")
    logits = f.dense(f.flatten2(scored, "rows"), p["wout"], p["bout"], "logits")
    return logits, f.flatten2(b["y"], "labels")


header = f"""// A small Transformer language model (examples/transformer/README.md), generated
// by gen_model.py: vocabulary {V}, sequence length {L}, model width {D}, {LAYERS} pre-layer-norm
// blocks of causal self-attention ({HEADS} heads; q, k, v and output projections) and a
// gelu feed-forward ({FF}), a final layer_norm and a dense projection to the
// vocabulary. Positions come from a learned table read by nn.embedding on the
// position ids of the batch ("pos_ids"). The loss is the next-token
// cross-entropy on positions 1..{L - 1} (whose next token the grammar determines);
// Adam (lr {LR}), batch {TRAIN_BATCH}.
//
//   trellis-train model.mlir --data=train.npz --eval-data=test.npz --output-dir=out
"""
sys.stdout.write(module(header, params, batch, forward, TRAIN_BATCH, EVAL_BATCH,
                        optimizer="adam", lr=LR))

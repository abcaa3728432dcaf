"""Independent NumPy references of the `nn` ops (dialects/NN/NNOps.td).

Every float reference promotes its inputs to float64 first, so a float32
model is compared against the exact-as-possible value of the same float32
inputs, and a float64 model against a float64 computation. Nothing here is
derived from the C++ lowering: the formulas are the ops' documented meaning.

Threefry-2x32 follows Random123 (Salmon et al., SC'11) with 20 rounds, as
JAX's PRNG uses it; `threefry_kat.test` checks it against Random123's
known-answer vectors.
"""

import math

import numpy as np

F64 = np.float64


def _f64(a):
    return np.asarray(a, dtype=F64)


# ---------------------------------------------------------------------------
# Dense layers and activations
# ---------------------------------------------------------------------------

def dense(x, w, b):
    """x: ...xK, w: KxN, b: N -> ...xN."""
    return np.matmul(_f64(x), _f64(w)) + _f64(b)


def relu(x):
    return np.maximum(_f64(x), 0.0)


def tanh(x):
    return np.tanh(_f64(x))


_erf = np.vectorize(math.erf, otypes=[F64])


def gelu(x, approximate=False):
    """x·Φ(x) exactly (erf), or the tanh form when `approximate`."""
    x = _f64(x)
    if approximate:
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
        return 0.5 * x * (1.0 + np.tanh(inner))
    return x * 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


# ---------------------------------------------------------------------------
# Normalisation, softmax, losses
# ---------------------------------------------------------------------------

def f32_attr(value):
    """The double an F32Attr holds (the attribute is rounded to float32)."""
    return float(np.float32(value))


LAYER_NORM_DEFAULT_EPSILON = 1e-6


def layer_norm(x, scale, bias, epsilon=LAYER_NORM_DEFAULT_EPSILON):
    """Over the last dimension, biased variance. epsilon is an F32Attr: f32
    programs add its float32 rounding, f64 ones the decimal written (the
    lowering reads an f32 epsilon on f64 operands that way)."""
    eps = epsilon if np.asarray(x).dtype == np.float64 else f32_attr(epsilon)
    x = _f64(x)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * _f64(scale) + _f64(bias)


def _max_shifted(x):
    """(x - rowmax, rowmax) over the last dimension. Working with x - max
    keeps exp from overflowing and keeps log-probabilities near zero exact
    (adding the max back first would round them at the max's magnitude)."""
    x = _f64(x)
    m = x.max(axis=-1, keepdims=True)
    return x - m, m


def _log_sum_exp_shifted(y):
    return np.log(np.exp(y).sum(axis=-1, keepdims=True))


def softmax(x):
    y, _ = _max_shifted(x)
    e = np.exp(y)
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(x):
    y, _ = _max_shifted(x)
    return y - _log_sum_exp_shifted(y)


def cross_entropy(logits, labels):
    """mean_b(logsumexp(logits[b]) - logits[b, labels[b]]); a label outside
    [0, C) picks no logit (its term is the log-sum-exp alone)."""
    y, m = _max_shifted(logits)
    labels = np.asarray(labels)
    batch, classes = y.shape
    lse_shifted = _log_sum_exp_shifted(y)[:, 0]
    valid = (labels >= 0) & (labels < classes)
    picked = y[np.arange(batch), np.clip(labels, 0, classes - 1)]
    terms = np.where(valid, lse_shifted - picked, lse_shifted + m[:, 0])
    return np.asarray(terms.mean(), dtype=F64)


def mean(x):
    return np.asarray(_f64(x).mean(), dtype=F64)


def dense_relu_chain_grads(params, x, labels):
    """A chain of dense layers (`params` = [w0, b0, w1, b1, ...]) with ReLU
    between them and cross-entropy on the last one's output, in float64:
    returns (loss, [dw0, db0, dw1, db1, ...]) by backpropagation."""
    ws = [_f64(p) for p in params[0::2]]
    bs = [_f64(p) for p in params[1::2]]
    acts, pre = [_f64(x)], []
    for i, (w, b) in enumerate(zip(ws, bs)):
        h = acts[-1] @ w + b
        pre.append(h)
        acts.append(relu(h) if i < len(ws) - 1 else h)
    loss = cross_entropy(acts[-1], labels)
    batch = acts[-1].shape[0]
    dh = softmax(acts[-1])
    dh[np.arange(batch), labels] -= 1
    dh /= batch
    grads = [None] * len(params)
    for i in reversed(range(len(ws))):
        grads[2 * i] = acts[i].T @ dh
        grads[2 * i + 1] = dh.sum(axis=0)
        if i:
            dh = (dh @ ws[i].T) * (pre[i - 1] > 0)
    return loss, grads


# ---------------------------------------------------------------------------
# Embedding, attention
# ---------------------------------------------------------------------------

def embedding(ids, table):
    """Row gather; ids clamped to [0, V) like XLA's gather."""
    table = np.asarray(table)
    return table[np.clip(np.asarray(ids), 0, table.shape[0] - 1)]


def attention(q, k, v, num_heads, causal=False):
    """Multi-head scaled dot-product attention on BxLxD tensors."""
    q, k, v = _f64(q), _f64(k), _f64(v)
    batch, lq, d = q.shape
    lk = k.shape[1]
    dh = d // num_heads

    def heads(t, length):  # BxLxD -> BxHxLxDh
        return t.reshape(batch, length, num_heads, dh).transpose(0, 2, 1, 3)

    qh, kh, vh = heads(q, lq), heads(k, lk), heads(v, lk)
    scores = np.einsum("bhie,bhje->bhij", qh, kh) / math.sqrt(dh)
    if causal:
        future = np.arange(lk)[None, :] > np.arange(lq)[:, None]
        scores = np.where(future, -np.inf, scores)
    out = np.einsum("bhij,bhje->bhie", softmax(scores), vh)
    return out.transpose(0, 2, 1, 3).reshape(batch, lq, d)


# ---------------------------------------------------------------------------
# Threefry-2x32 and the dropout mask
# ---------------------------------------------------------------------------

U32 = np.uint32
_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_SKEIN_PARITY = 0x1BD11BDA


def _rotl32(x, r):
    return (x << U32(r)) | (x >> U32(32 - r))


def threefry2x32(key, counter, rounds=20):
    """Random123 threefry2x32_R(rounds): key (k0, k1), counter (c0, c1),
    each word a uint32 scalar or array (broadcast). Returns (x0, x1)."""
    k0, k1 = (np.asarray(w, dtype=U32) for w in key)
    x0, x1 = (np.array(w, dtype=U32, ndmin=1) for w in counter)
    ks = (k0, k1, k0 ^ k1 ^ U32(_SKEIN_PARITY))
    with np.errstate(over="ignore"):
        x0 = x0 + ks[0]
        x1 = x1 + ks[1]
        for r in range(rounds):
            x0 = x0 + x1
            x1 = _rotl32(x1, _THREEFRY_ROTATIONS[r % 8]) ^ x0
            if r % 4 == 3:  # key injection s after every 4 rounds
                s = r // 4 + 1
                x0 = x0 + ks[s % 3]
                x1 = x1 + ks[(s + 1) % 3] + U32(s)
    return x0, x1


# Random123's kat_vectors for threefry2x32_20: (counter, key, expected).
THREEFRY2X32_20_KAT = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000),
     (0x6b200159, 0x99ba4efe)),
    ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff),
     (0x1cb996fc, 0xbb002be7)),
    ((0x243f6a88, 0x85a308d3), (0x13198a2e, 0x03707344),
     (0xc4923a9c, 0x483df7a0)),
]


def key_words(key):
    """A 2-element key of dtype uint32 or int32, as two uint32 words."""
    key = np.asarray(key)
    assert key.shape == (2,) and key.dtype in (np.uint32, np.int32), key
    return key.view(U32)


def dropout_threshold(rate):
    """round(rate·2³²) for the F32Attr `rate`, as an unsigned 32-bit bound."""
    return min(int(math.floor(f32_attr(rate) * 2.0 ** 32 + 0.5)), 0xFFFFFFFF)


def dropout_keep(shape, key, rate):
    """Boolean keep-mask: element n (row-major) is kept when the first word
    of threefry2x32(key, (n mod 2³², n div 2³²)) is >= round(rate·2³²)."""
    size = int(np.prod(shape, dtype=np.int64))
    n = np.arange(size, dtype=np.uint64)
    lo = (n & np.uint64(0xFFFFFFFF)).astype(U32)
    hi = (n >> np.uint64(32)).astype(U32)
    bits = threefry2x32(key_words(key), (lo, hi))[0]
    return (bits.astype(np.uint64) >= dropout_threshold(rate)).reshape(shape)


def dropout(x, key, rate):
    """Inverted dropout: kept elements scaled by 1/(1 - rate)."""
    keep = dropout_keep(np.shape(x), key, rate)
    return np.where(keep, _f64(x) / (1.0 - f32_attr(rate)), 0.0)

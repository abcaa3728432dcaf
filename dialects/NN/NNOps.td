//===- NNOps.td - Operations of the nn dialect ------------*- tablegen -*-===//
//
// The ops of docs/spec.md's `nn` section. Each verifier check is one
// constraint there, cited by its id (`nn.dense-C2`), and has a case in
// test/Dialect/NN/invalid.mlir under that id.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_NN_OPS
#define TRELLIS_NN_OPS

include "NN/NNDialect.td"
include "AD/ADInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A layer with a reverse-mode rule (lib/Dialect/NN/IR/NNReverseRules.cpp).
class NN_DiffOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<ReverseModeOpInterface>])>;

/// An epsilon: an f32 FloatAttr (SPEC's kind, and the default's) or an f64
/// one, which f64 programs use for an epsilon f32 cannot hold exactly.
def NN_EpsilonAttr : Attr<And<[CPred<"::llvm::isa<::mlir::FloatAttr>($_self)">,
    Or<[CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getType().isF32()">,
        CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getType().isF64()">]>]>,
    "32-bit or 64-bit float attribute"> {
  let storageType = "::mlir::FloatAttr";
  let returnType = "::llvm::APFloat";
  let convertFromStorage = "$_self.getValue()";
  let constBuilderCall = "$_builder.getFloatAttr($_builder.getF32Type(), $0)";
}

//===----------------------------------------------------------------------===//
// Dense layers and activations
//===----------------------------------------------------------------------===//

def NN_DenseOp : NN_DiffOp<"dense", [Pure]> {
  let summary = "affine layer: x·w + b";
  let description = [{
    Multiplies the last dimension of `x` (`...xK`) with `w` (`KxN`) and adds
    the bias `b` (`N`). Leading dimensions of `x` are batch dimensions.

    Example:
    ```mlir
    %y = nn.dense %x, %w, %b : (tensor<64x784xf32>, tensor<784x1024xf32>,
                                tensor<1024xf32>) -> tensor<64x1024xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x, NN_FloatTensor:$w,
                       NN_FloatTensor:$b);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $w `,` $b attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class NN_UnaryElementwiseOp<string mnemonic, list<Trait> traits = []>
    : NN_DiffOp<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType])> {
  let arguments = (ins NN_FloatTensor:$x);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def NN_ReluOp : NN_UnaryElementwiseOp<"relu"> {
  let summary = "rectified linear unit: max(x, 0)";
  let description = [{
    Example:
    ```mlir
    %y = nn.relu %x : tensor<2x3xf32>
    ```
  }];
}

def NN_TanhOp : NN_UnaryElementwiseOp<"tanh"> {
  let summary = "hyperbolic tangent";
  let description = [{
    Example:
    ```mlir
    %y = nn.tanh %x : tensor<2x3xf32>
    ```
  }];
}

def NN_SigmoidOp : NN_UnaryElementwiseOp<"sigmoid"> {
  let summary = "logistic sigmoid: 1 / (1 + e^-x)";
  let description = [{
    Its derivative is computed from the result: `y·(1 − y)`.

    Example:
    ```mlir
    %y = nn.sigmoid %x : tensor<2x3xf32>
    ```
  }];
}

def NN_GeluOp : NN_UnaryElementwiseOp<"gelu"> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x·Φ(x)` with the exact normal CDF `Φ(x) = (1 + erf(x/√2))/2`; with
    `approximate = true`, the tanh form
    `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`.

    Example:
    ```mlir
    %y = nn.gelu %x {approximate = true} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x,
                       DefaultValuedAttr<BoolAttr, "false">:$approximate);
}

//===----------------------------------------------------------------------===//
// Normalisation, softmax and losses
//===----------------------------------------------------------------------===//

def NN_LayerNormOp : NN_DiffOp<"layer_norm",
    [Pure, AllTypesMatch<["x", "result"]>]> {
  let summary = "layer normalisation over the last dimension";
  let description = [{
    `(x − mean) / sqrt(var + epsilon) · scale + bias`, with the mean and the
    (biased) variance taken over the last dimension `D` of `x`; `scale` and
    `bias` have shape `D`.

    `epsilon` is an f32 attribute (default 1e-6) or, in f64 programs, an f64
    one, used exactly. An f32 epsilon in an f64 program is read as the
    shortest decimal that rounds to it (`1.0e-12 : f32` is 1e-12, not
    0.99999998e-12), so the f32 form written by hand means what it says.

    Example:
    ```mlir
    %y = nn.layer_norm %x, %s, %b {epsilon = 1.0e-05 : f32}
        : (tensor<8x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
    %z = nn.layer_norm %u, %t, %c {epsilon = 1.0e-300 : f64}
        : (tensor<8x256xf64>, tensor<256xf64>, tensor<256xf64>) -> tensor<8x256xf64>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x, NN_FloatTensor:$scale,
                       NN_FloatTensor:$bias,
                       DefaultValuedAttr<NN_EpsilonAttr, "1.0e-6f">:$epsilon);
  let extraClassDeclaration = [{
    /// The epsilon the lowering and the reverse rule add to the variance,
    /// in the precision of the operands (see the description).
    double getEpsilonValue();
  }];
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class NN_LastDimNormalizingOp<string mnemonic>
    : NN_UnaryElementwiseOp<mnemonic> {
  let hasVerifier = 1;
}

def NN_SoftmaxOp : NN_LastDimNormalizingOp<"softmax"> {
  let summary = "softmax over the last dimension";
  let description = [{
    `exp(x − max) / Σ exp(x − max)` along the last dimension (the maximum is
    subtracted first so large logits do not overflow).

    Example:
    ```mlir
    %p = nn.softmax %x : tensor<4x10xf32>
    ```
  }];
}

def NN_LogSoftmaxOp : NN_LastDimNormalizingOp<"log_softmax"> {
  let summary = "log-softmax over the last dimension";
  let description = [{
    `x − max − log Σ exp(x − max)` along the last dimension.

    Example:
    ```mlir
    %lp = nn.log_softmax %x : tensor<4x10xf32>
    ```
  }];
}

def NN_CrossEntropyOp : NN_DiffOp<"cross_entropy", [Pure]> {
  let summary = "mean softmax cross-entropy of integer labels";
  let description = [{
    `mean_p(−log softmax(logits[p])[labels[p]])` for `logits : ...xC` and
    `labels : ...xi32` of the leading shape, the mean over all leading
    positions `p` (`BxC` with `B` labels, or `BxLxC` with `BxL` labels for a
    language model), computed in the stable form
    `logsumexp(logits[p]) − logits[p, labels[p]]`. The result is a 0-d
    tensor of the logits' element type. A label outside `[0, C)` selects no
    logit (its term is the log-sum-exp alone).

    Example:
    ```mlir
    %l = nn.cross_entropy %logits, %labels
        : (tensor<64x10xf32>, tensor<64xi32>) -> tensor<f32>
    %lm = nn.cross_entropy %tokens, %next
        : (tensor<8x128x1000xf32>, tensor<8x128xi32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$logits, NN_IndexTensor:$labels);
  let results = (outs 0DTensorOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_MeanOp : NN_DiffOp<"mean", [Pure]> {
  let summary = "mean of all elements";
  let description = [{
    Example:
    ```mlir
    %m = nn.mean %x : (tensor<4x10xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x);
  let results = (outs 0DTensorOf<[F32, F64]>:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Vision layers
//===----------------------------------------------------------------------===//

def NN_Conv2DOp : NN_DiffOp<"conv2d", [Pure]> {
  let summary = "2-D cross-correlation in NHWC with bias";
  let description = [{
    `result[n, i, j, f] = b[f] + Σ_{p, q, c} xp[n, i·sh + p·dh, j·sw + q·dw, c]
    · w[p, q, c, f]` for `x : NxHxWxC`, `w : KHxKWxCxF` and `b : F`, where
    `xp` is `x` padded with zeros by `padding = [top, bottom, left, right]`.
    The result is `NxH'xW'xF` with
    `H' = (H + top + bottom − dh·(KH − 1) − 1) / sh + 1` (rounded down), and
    `W'` likewise. It is lowered to an im2col gather and one GEMM
    (docs/vision.md).

    Example:
    ```mlir
    %y = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<8x28x28x1xf32>, tensor<3x3x1x32xf32>, tensor<32xf32>)
        -> tensor<8x28x28x32xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x, NN_FloatTensor:$w,
                       NN_FloatTensor:$b,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations);
  let results = (outs NN_FloatTensor:$result);
  let extraClassDeclaration = [{
    /// The window geometry of the attributes and the operand shapes.
    ::trellis::builders::Window2D getGeometry();
  }];
  let assemblyFormat = [{
    $x `,` $w `,` $b attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

/// max_pool2d and avg_pool2d: a window reduction over H and W of NHWC.
class NN_Pool2DOp<string mnemonic, string reduction, string padValue>
    : NN_DiffOp<mnemonic, [Pure]> {
  let summary = "2-D " # reduction # " pooling in NHWC";
  let description = [{
    `result[n, i, j, c]` is the }] # reduction # [{ of `xp[n, i·sh + p,
    j·sw + q, c]` over the window `0 ≤ p < kh`, `0 ≤ q < kw`, where `xp` is
    `x` padded by `padding = [top, bottom, left, right]` with }] # padValue
    # [{. `strides` defaults to the window. The result is `NxH'xW'xC` with
    `H' = (H + top + bottom − kh) / sh + 1` (rounded down), and `W'`
    likewise. Each padding is smaller than the window, so every window
    holds at least one element of `x`.

    Example:
    ```mlir
    %y = nn.}] # mnemonic # [{ %x {window = array<i64: 2, 2>}
        : (tensor<8x28x28x32xf32>) -> tensor<8x14x14x32xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x, DenseI64ArrayAttr:$window,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding);
  let results = (outs NN_FloatTensor:$result);
  let extraClassDeclaration = [{
    /// The window geometry of the attributes and the operand shapes.
    ::trellis::builders::Window2D getGeometry();
  }];
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def NN_MaxPool2DOp : NN_Pool2DOp<"max_pool2d", "maximum",
                                 "−∞ (padding never wins)"> {}
def NN_AvgPool2DOp : NN_Pool2DOp<"avg_pool2d", "mean",
    "zeros (the sum is divided by `kh·kw`, padding included: PyTorch's "
    "`count_include_pad`)"> {}

def NN_BatchNormOp : NN_DiffOp<"batch_norm", [Pure]> {
  let summary = "batch normalisation over all dimensions but the last";
  let description = [{
    `y = (x − μ) / sqrt(σ² + epsilon) · scale + bias` per channel (the last
    dimension `C` of `x`). In training (`training = true`, the default, as
    for a new PyTorch module or Trax's `mode='train'`), μ and σ² are the
    batch mean and biased variance over the `M` positions of the other
    dimensions, and the running statistics are updated with PyTorch's
    momentum convention: `new_mean = (1 − m)·mean + m·μ`,
    `new_var = (1 − m)·var + m·σ²·M/(M − 1)`. In inference μ and σ² are
    `mean` and `var`, which pass through unchanged.

    `new_mean` and `new_var` are the layer's state (Trax's `new_state`):
    they are not differentiated, and `mean`/`var` get no cotangent.
    `epsilon` is read like layer_norm's; `momentum` is an f32 in `[0, 1]`.

    With `axis_name` (sync-BN, as Flax's BatchNorm `axis_name`), training
    statistics are those of the whole batch over the ranks of that mesh
    axis: μ and σ² are `coll.pmean`s of the ranks' (every rank holds `M`
    positions), the running variance's unbiased factor uses the global
    count `M·R`, and the backward pass averages the ranks' `Σ dy` and
    `Σ dy·x̂`. `coll-average-gradients{batch-norm=sync}` sets it.

    Example:
    ```mlir
    %y, %m, %v = nn.batch_norm %x, %s, %b, %mean, %var {momentum = 1.0e-01 : f32}
        : (tensor<8x14x14x32xf32>, tensor<32xf32>, tensor<32xf32>,
           tensor<32xf32>, tensor<32xf32>)
        -> (tensor<8x14x14x32xf32>, tensor<32xf32>, tensor<32xf32>)
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x, NN_FloatTensor:$scale,
                       NN_FloatTensor:$bias, NN_FloatTensor:$mean,
                       NN_FloatTensor:$var,
                       DefaultValuedAttr<NN_EpsilonAttr, "1.0e-5f">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.1f">:$momentum,
                       DefaultValuedAttr<BoolAttr, "true">:$training,
                       OptionalAttr<StrAttr>:$axis_name);
  let results = (outs NN_FloatTensor:$y, NN_FloatTensor:$new_mean,
                      NN_FloatTensor:$new_var);
  let extraClassDeclaration = [{
    /// epsilon and momentum in the precision of the operands (as
    /// layer_norm's epsilon).
    double getEpsilonValue();
    double getMomentumValue();
    /// The batch mean and biased variance per channel (C each) of `x2`,
    /// this op's x as an MxC matrix, in training: over the ranks of
    /// `axis_name` when it is set (lowering and reverse rule share them).
    std::pair<::mlir::Value, ::mlir::Value>
    buildBatchStatistics(::mlir::OpBuilder &b, ::mlir::Value x2);
    /// The count the statistics are taken over, M·R (R the ranks of
    /// `axis_name`, 1 without), as a scalar of x's element type.
    ::mlir::Value buildStatisticsCount(::mlir::OpBuilder &b, int64_t m);
    /// `v` averaged over the ranks of `axis_name`; `v` itself without.
    ::mlir::Value buildRankMean(::mlir::OpBuilder &b, ::mlir::Value v);
  }];
  let assemblyFormat = [{
    $x `,` $scale `,` $bias `,` $mean `,` $var attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_FlattenOp : NN_DiffOp<"flatten", [Pure]> {
  let summary = "row-major flatten of all dimensions after the first";
  let description = [{
    `x : Nx...` becomes `NxM`, `M` the product of the other dimensions
    (`1` for a rank-1 `x`), in row-major order.

    Example:
    ```mlir
    %f = nn.flatten %x : (tensor<8x7x7x64xf32>) -> tensor<8x3136xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Embedding, attention, dropout
//===----------------------------------------------------------------------===//

def NN_EmbeddingOp : NN_DiffOp<"embedding", [Pure]> {
  let summary = "row gather from an embedding table";
  let description = [{
    `result[i..., d] = table[ids[i...], d]` for `ids : ...xi32` and
    `table : VxD`. By default (`checked = false`) ids are clamped to `[0, V)`
    (as XLA's gather does), so an out-of-range id reads the nearest row
    instead of arbitrary memory. With `checked = true` an id outside
    `[0, V)` ends the run with one line naming the op and its location
    (exit code 1; the whole job under MPI) before any row is read.

    Example:
    ```mlir
    %e = nn.embedding %ids, %table
        : (tensor<8x128xi32>, tensor<1000x256xf32>) -> tensor<8x128x256xf32>
    %f = nn.embedding %ids, %table {checked = true}
        : (tensor<8x128xi32>, tensor<1000x256xf32>) -> tensor<8x128x256xf32>
    ```
  }];
  let arguments = (ins NN_IndexTensor:$ids, NN_FloatTensor:$table,
                       DefaultValuedAttr<BoolAttr, "false">:$checked);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $ids `,` $table attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_AttentionOp : NN_DiffOp<"attention", [Pure]> {
  let summary = "multi-head scaled dot-product attention";
  let description = [{
    Splits the feature dimension `D` of `q : BxLqxD` and `k, v : BxLkxD` into
    `num_heads` heads of size `Dh = D / num_heads` and computes, per head,
    `softmax(q·kᵀ / sqrt(Dh)) · v`, concatenating the heads back to `D`. With
    `causal = true`, query `i` attends to keys `j ≤ i` only (then `Lq = Lk`).

    Example:
    ```mlir
    %o = nn.attention %q, %k, %v {num_heads = 4 : i64, causal = true}
        : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>)
        -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$q, NN_FloatTensor:$k,
                       NN_FloatTensor:$v, I64Attr:$num_heads,
                       DefaultValuedAttr<BoolAttr, "false">:$causal);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_AttentionGradOp : NN_DiffOp<"attention_grad", [Pure]> {
  let summary = "the vector-Jacobian product of nn.attention (internal)";
  let description = [{
    Given the operands `q`, `k`, `v` of an `nn.attention` with the same
    `num_heads` and `causal`, its result `out` and the result's cotangent
    `d_out`, returns the cotangents of `q`, `k` and `v`. The reverse-mode rule
    of `nn.attention` emits it, so that the lowering decides how the
    probabilities are recomputed: whole, or chunk by chunk from per-row
    softmax statistics without an `Lq x Lk` tensor (docs/attention.md).
    `out` gives the row terms `Σ_e dO·O` of the softmax VJP.

    Example:
    ```mlir
    %dq, %dk, %dv = nn.attention_grad %q, %k, %v, %o, %do
        {num_heads = 4 : i64, causal = true}
        : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>,
           tensor<2x16x64xf32>, tensor<2x16x64xf32>)
        -> (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>)
    ```
  }];
  let arguments = (ins NN_FloatTensor:$q, NN_FloatTensor:$k,
                       NN_FloatTensor:$v, NN_FloatTensor:$out,
                       NN_FloatTensor:$d_out, I64Attr:$num_heads,
                       DefaultValuedAttr<BoolAttr, "false">:$causal);
  let results = (outs NN_FloatTensor:$dq, NN_FloatTensor:$dk,
                      NN_FloatTensor:$dv);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $out `,` $d_out attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_DropoutOp : NN_DiffOp<"dropout",
    [Pure, AllTypesMatch<["x", "result"]>]> {
  let summary = "inverted dropout with a counter-based random mask";
  let description = [{
    Keeps each element with probability `1 − rate` and scales kept elements by
    `1 / (1 − rate)`. The mask bit of the element at row-major position `n` is
    a pure function of `(key, n)`: Threefry-2x32 (20 rounds, as in JAX) of
    the counter `(n mod 2³², n div 2³²)` under the two-word `key`; the element
    is kept when the first output word, as an unsigned integer, is at least
    `round(rate · 2³²)`. The same key therefore gives the same mask, bit for
    bit, on every run and in every recomputation.

    Example:
    ```mlir
    %y = nn.dropout %x, %key {rate = 1.0e-01 : f32}
        : (tensor<8x256xf32>, tensor<2xui32>) -> tensor<8x256xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$x, NN_KeyTensor:$key, F32Attr:$rate);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $key attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reversible residual layers (Trax ReversibleHalfResidual / Swap / Serial)
//===----------------------------------------------------------------------===//

def NN_ReversibleHalfResidualOp : NN_DiffOp<"reversible_half_residual", [
    InferTypeOpAdaptor, SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects, DeclareOpInterfaceMethods<InvertibleOpInterface,
    ["getNumStateResults"]>]> {
  let summary = "acc' = acc + F(ctx...), ctx passes through";
  let description = [{
    The body region takes the context values as block arguments and yields
    the residual `r = F(ctx...)`, which must have the type of `acc`. The op
    returns `acc + r` followed by the context values unchanged. When `F`
    does not see `acc`, the input is recoverable from the output:
    `acc = acc' − F(ctx...)`, which is what the reversible backward pass of
    an enclosing `nn.reversible_serial` uses; the serial guarantees it by
    rejecting any capture of its body's values. Outside a serial the body may
    capture any value of the enclosing function, `acc` included (the op is
    then an ordinary residual, differentiated with the captured value live).

    Layer state: the body may yield values after `r` — the new running
    statistics of a batch norm in `F`, say. They are returned after the
    context values (`acc', ctx..., state...`), are not differentiated, and
    when the backward pass of a `nn.reversible_serial` recomputes `F` the
    recomputation's state is dropped: the forward pass updates it once per
    step.

    Example:
    ```mlir
    %y, %c = nn.reversible_half_residual %x, %ctx : tensor<8x256xf32>, tensor<8x256xf32> {
    ^bb0(%c0: tensor<8x256xf32>):
      %r = nn.dense %c0, %w, %b : (tensor<8x256xf32>, tensor<256x256xf32>,
                                   tensor<256xf32>) -> tensor<8x256xf32>
      nn.yield %r : tensor<8x256xf32>
    }
    ```
  }];
  let arguments = (ins NN_FloatTensor:$acc, Variadic<AnyRankedTensor>:$ctx);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $acc (`,` $ctx^)? attr-dict `:` type($acc) (`,` type($ctx)^)? $body
  }];
  let hasRegionVerifier = 1;
}

def NN_ReversibleSwapOp : NN_DiffOp<"reversible_swap", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<InvertibleOpInterface>]> {
  let summary = "exchange two values: (a, b) → (b, a)";
  let description = [{
    Example:
    ```mlir
    %p, %q = nn.reversible_swap %a, %b : tensor<8x256xf32>, tensor<8x256xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b);
  let results = (outs AnyRankedTensor:$first, AnyRankedTensor:$second);
  let assemblyFormat = "$a `,` $b attr-dict `:` type($a) `,` type($b)";
}

def NN_ReversibleSerialOp : NN_DiffOp<"reversible_serial", [
    InferTypeOpAdaptor, SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects, DeclareOpInterfaceMethods<InvertibleOpInterface,
    ["getNumStateResults"]>]> {
  let summary = "a chain of reversible layers";
  let description = [{
    The body takes the operands as block arguments and holds reversible ops
    only (`reversible_half_residual`, `reversible_swap`, nested
    `reversible_serial`), each value used exactly once, so the chain is a
    bijection whose inverse the backward pass walks. It yields as many values,
    of the same types, as it takes, followed by the layer state its layers
    return (each state result used once, by this yield), which the serial
    returns after its chain values.

    Example:
    ```mlir
    %y1, %y2 = nn.reversible_serial %x1, %x2 : tensor<8x256xf32>, tensor<8x256xf32> {
    ^bb0(%a: tensor<8x256xf32>, %b: tensor<8x256xf32>):
      %a1, %b1 = nn.reversible_half_residual %a, %b : tensor<8x256xf32>, tensor<8x256xf32> {
      ^bb0(%c: tensor<8x256xf32>):
        %r = nn.tanh %c : tensor<8x256xf32>
        nn.yield %r : tensor<8x256xf32>
      }
      %s1, %s2 = nn.reversible_swap %a1, %b1 : tensor<8x256xf32>, tensor<8x256xf32>
      nn.yield %s1, %s2 : tensor<8x256xf32>, tensor<8x256xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) $body
  }];
  let hasRegionVerifier = 1;
}

def NN_YieldOp : NN_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ReversibleHalfResidualOp", "ReversibleSerialOp"]>]> {
  let summary = "terminator of nn regions";
  let description = [{
    Returns the values of an `nn` region to its parent op.

    Example:
    ```mlir
    nn.yield %r : tensor<8x256xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // TRELLIS_NN_OPS

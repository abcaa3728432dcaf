//===- CollOps.td - Operations of the coll dialect --------*- tablegen -*-===//
//
// The ops of docs/spec.md's `coll` section. Each verifier check is one
// constraint there, cited by its id (`coll.psum-C3`), and has a case in
// test/Dialect/Coll/invalid.mlir under that id.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_COLL_OPS
#define TRELLIS_COLL_OPS

include "Coll/CollDialect.td"
include "Coll/CollTypes.td"
include "AD/ADInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A collective on one tensor: no memory effects, not speculatable.
class Coll_TensorOp<string mnemonic, list<Trait> traits = []>
    : Coll_Op<mnemonic, !listconcat(traits, [NoMemoryEffect])>;

def Coll_PsumOp : Coll_TensorOp<"psum", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReverseModeOpInterface>]> {
  let summary = "sum over the ranks of an axis";
  let description = [{
    Every rank gets the elementwise sum of `x` over the ranks of `axis`. With
    `groups` (a 2-D list of ranks, JAX's `axis_index_groups`) the sum runs
    within each group only; groups are disjoint, of one size, and cover the
    ranks `0 … n−1`, so the program is valid for `n` ranks only.

    Its reverse-mode rule is a psum of the cotangent over the same groups.

    Example:
    ```mlir
    %s = coll.psum %x {axis = "batch"} : tensor<4x8xf32>
    %g = coll.psum %x {axis = "batch",
                       groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>}
        : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Coll_FloatTensor:$x, StrAttr:$axis,
                       OptionalAttr<I64ElementsAttr>:$groups);
  let results = (outs Coll_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Coll_PmeanOp : Coll_TensorOp<"pmean", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReverseModeOpInterface>]> {
  let summary = "mean over the ranks of an axis";
  let description = [{
    `psum(x) / group size` (the number of ranks of the axis without
    `groups`).

    Example:
    ```mlir
    %m = coll.pmean %g {axis = "batch"} : tensor<1024xf32>
    ```
  }];
  let arguments = (ins Coll_FloatTensor:$x, StrAttr:$axis,
                       OptionalAttr<I64ElementsAttr>:$groups);
  let results = (outs Coll_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Coll_PpermuteOp : Coll_TensorOp<"ppermute", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReverseModeOpInterface>]> {
  let summary = "send to other ranks along a permutation";
  let description = [{
    `pairs` is a list of `[source, destination]` ranks: rank `destination`
    receives `x` of rank `source`. No rank is the source of two pairs or the
    destination of two; a rank that is no destination gets zeros. Partial
    permutations and cycles are allowed; the lowering never deadlocks.

    Its reverse-mode rule sends the cotangent back along the inverse pairs.

    Example:
    ```mlir
    %y = coll.ppermute %x {axis = "batch",
                           pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}
        : tensor<16xf32>
    ```
  }];
  let arguments = (ins Coll_FloatTensor:$x, StrAttr:$axis,
                       I64ElementsAttr:$pairs);
  let results = (outs Coll_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Coll_AllGatherOp : Coll_TensorOp<"all_gather",
    [DeclareOpInterfaceMethods<ReverseModeOpInterface>]> {
  let summary = "concatenation of every rank's tensor in rank order";
  let description = [{
    The result is the concatenation along `dim` of `x` from ranks `0 … n−1`;
    its size along `dim` is `n` times that of `x`, which fixes `n`. With
    `groups` (as for `psum`) the concatenation runs within each group, in
    the order its row lists the ranks, and `n` is the group size.

    Its reverse-mode rule is a reduce-scatter (`coll.psum_scatter`): every
    rank gets the sum over the ranks (of its group) of its own slice of the
    cotangent.

    Example:
    ```mlir
    %all = coll.all_gather %x {axis = "batch", dim = 0 : i64}
        : tensor<2x8xf32> -> tensor<8x8xf32>
    %pair = coll.all_gather %x {axis = "batch", dim = 0 : i64,
                                groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}
        : tensor<2x8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Coll_FloatTensor:$x, StrAttr:$axis,
                       I64Attr:$dim, OptionalAttr<I64ElementsAttr>:$groups);
  let results = (outs Coll_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of ranks the result's shape assumes.
    int64_t getNumRanks();
  }];
}

def Coll_PsumScatterOp : Coll_TensorOp<"psum_scatter",
    [DeclareOpInterfaceMethods<ReverseModeOpInterface>]> {
  let summary = "this rank's slice of the sum over the ranks (reduce-scatter)";
  let description = [{
    JAX's `psum_scatter` with `tiled=True`: `x` is split along `dim` into
    `n` equal slices, and rank `i` (the `i`-th rank of its group with
    `groups`, as for `psum`) gets the sum over the ranks of slice `i`. The
    result's size along `dim` is that of `x` divided by `n`, which fixes
    `n`. It moves half the bytes of a `psum` followed by the slice, and is
    the reverse-mode rule of `all_gather`, whose own rule it is in turn.

    Example:
    ```mlir
    %mine = coll.psum_scatter %g {axis = "batch", dim = 0 : i64,
                                  groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}
        : tensor<8x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Coll_FloatTensor:$x, StrAttr:$axis,
                       I64Attr:$dim, OptionalAttr<I64ElementsAttr>:$groups);
  let results = (outs Coll_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of ranks the shapes assume.
    int64_t getNumRanks();
  }];
}

def Coll_AdasumOp : Coll_TensorOp<"adasum", [SameOperandsAndResultType]> {
  let summary = "adaptive summation (Adasum) over the ranks of an axis";
  let description = [{
    Adasum of two tensors `a`, `b` is
    `(1 − a·b / (2‖a‖²))·a + (1 − a·b / (2‖b‖²))·b`, dot products accumulated
    in f64; a tensor of norm 0 contributes the other unchanged. Over `2^k`
    ranks it is applied as a butterfly (round `k` merges rank `i` with rank
    `i XOR 2^k`); for other counts the ranks `r ≥ p` (`p` the largest power
    of two `≤ n`) are first merged into rank `r − p`, the butterfly runs on
    `p` ranks and the result is sent back. Every rank ends with the same
    bits. `groups` as for `psum`. Per tensor (layer-wise).

    Example:
    ```mlir
    %g = coll.adasum %grad {axis = "batch"} : tensor<256x1024xf32>
    ```
  }];
  let arguments = (ins Coll_FloatTensor:$x, StrAttr:$axis,
                       OptionalAttr<I64ElementsAttr>:$groups);
  let results = (outs Coll_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

/// The start of a reduction of several tensors at once (a bucket): one
/// communication over the tensors laid end to end, completed by coll.wait.
class Coll_ReductionStartOp<string mnemonic, string reduction>
    : Coll_TensorOp<mnemonic> {
  let summary = "start the " # reduction # " of a bucket of tensors";
  let description = [{
    Starts, without waiting for it, the reduction that `coll.}] # reduction #
    [{` computes, for every tensor of `xs` at once: the tensors are laid end to
    end and reduced by one communication (one bucket). The request's one
    `coll.wait` yields the reduced tensors, in the order of `xs`.
    `groups` as for `coll.psum`. The tensors share one element type.

    Between the start and the wait the ranks' communication is in flight:
    `coll-bucket-reductions` places the start where the last of `xs` is
    computed and the wait where the first result is needed, so that the
    communication overlaps the work between them. Each rank runs starts
    and waits in one order (every rank runs the same program).

    Not differentiable: the pass that builds these runs after
    `ad-differentiate`.

    Example:
    ```mlir
    %r = coll.}] # mnemonic # [{ %gw, %gb {axis = "batch"}
        : tensor<4x3xf32>, tensor<3xf32>
    %w, %b = coll.wait %r : tensor<4x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Variadic<Coll_FloatTensor>:$xs, StrAttr:$axis,
                       OptionalAttr<I64ElementsAttr>:$groups);
  let results = (outs Coll_RequestType:$request);
  let assemblyFormat = "$xs attr-dict `:` type($xs)";
  let hasVerifier = 1;
}

def Coll_PsumStartOp : Coll_ReductionStartOp<"psum_start", "psum">;
def Coll_PmeanStartOp : Coll_ReductionStartOp<"pmean_start", "pmean">;

def Coll_WaitOp : Coll_TensorOp<"wait"> {
  let summary = "wait for a reduction started by psum_start or pmean_start";
  let description = [{
    Completes the reduction of `request` and yields the reduced tensors, of
    the types and in the order of the start's operands. Every request has
    exactly one wait, in the block of its start; the timeout and the
    agreement checks of the collectives hold as for `coll.psum` (the ranks
    agree on the start, and a rank waits at most the collective timeout
    here).

    Example:
    ```mlir
    %r = coll.psum_start %x {axis = "batch"} : tensor<16xf32>
    %s = coll.wait %r : tensor<16xf32>
    ```
  }];
  let arguments = (ins Coll_RequestType:$request);
  let results = (outs Variadic<Coll_FloatTensor>:$results);
  let assemblyFormat = "$request attr-dict `:` type($results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The start of the request: psum_start or pmean_start.
    ::mlir::Operation *getStart();
  }];
}

def Coll_AxisSizeOp : Coll_Op<"axis_size", [Pure]> {
  let summary = "number of ranks on an axis";
  let description = [{
    Example:
    ```mlir
    %n = coll.axis_size {axis = "batch"} : index
    ```
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Coll_AxisIndexOp : Coll_Op<"axis_index", [Pure]> {
  let summary = "this rank's position on an axis";
  let description = [{
    Example:
    ```mlir
    %i = coll.axis_index {axis = "batch"} : index
    ```
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

#endif // TRELLIS_COLL_OPS

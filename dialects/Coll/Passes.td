//===- Passes.td - Passes of the coll dialect -------------*- tablegen -*-===//

#ifndef TRELLIS_COLL_PASSES
#define TRELLIS_COLL_PASSES

include "mlir/Pass/PassBase.td"

def CollAverageGradients
    : Pass<"coll-average-gradients", "::mlir::ModuleOp"> {
  let summary = "Reduce the gradients of ad ops across the batch axis "
                "(data parallelism)";
  let description = [{
    Makes a single-rank training step data-parallel: every gradient that an
    `ad.grad` or `ad.value_and_grad` produces is replaced by its reduction
    over the ranks of `axis` — the seed's `_average_multidevice_gradients`:

    * `reduce=mean`: `coll.pmean`, the average of the ranks' gradients;
    * `reduce=adasum`: `coll.adasum`, the exact Adasum butterfly;
    * `reduce=adasum-approx`: the psum-based approximation of Trax's first
      version, `psum(g · (1 − (g·Σg − ‖g‖²) / (n·‖g‖²)))`: orthogonal
      gradients give their sum, identical ones the gradient itself, as the
      paper postulates.

    With `weight-shards=S > 1` the job's `ranks` ranks hold `S` shards of the
    weights; rank `r` holds shard `r mod S`, and only gradients of matching
    shards are reduced (groups `[[d, S+d, 2S+d, …] for d < S]`).

    By default every gradient is reduced, whatever it is taken with respect
    to, data included. `wrt` lists the kinds of differentiated operands
    whose gradients are reduced: `parameter` (an argument of the enclosing
    function without `trellis.batch`, the training convention's
    parameters), `batch` (an argument with `trellis.batch`: data, whose
    gradient belongs to the rank's own examples), `other` (any other value);
    e.g. `wrt=parameter` leaves the gradient of an adversarial input alone.

    Batch norm (`nn.batch_norm` in training mode) computes statistics of
    the rank's batch; `batch-norm` says what data parallelism does with
    them:

    * `local` (default): each rank normalizes with its own batch's
      statistics, and the layer's new running mean and variance (its state)
      are replaced by their `coll.pmean` over the ranks, so every rank holds
      the same state after the step;
    * `sync` (sync-BN): the op gets `axis_name = axis`, so that it normalizes
      with the statistics of the whole global batch (the ranks' means and
      variances combined by `coll.pmean`) and its backward pass combines the
      ranks' sums likewise: the step equals one rank's step on the global
      batch.

    Run it before `ad-differentiate`: it rewrites uses of the `ad` ops'
    gradient results, not the derivative code. A module without any
    `ad.grad` or `ad.value_and_grad` (for instance one differentiated
    already) is an error, not a module left as it was.
  }];
  let options = [
    Option<"reduce", "reduce", "::trellis::coll::GradientReduction",
           /*default=*/"::trellis::coll::GradientReduction::Mean",
           "How gradients are combined",
           [{::trellis::coll::gradientReductionValues()}]>,
    Option<"axis", "axis", "std::string", /*default=*/"\"batch\"",
           "The mesh axis the batch is split over">,
    Option<"weightShards", "weight-shards", "int64_t", /*default=*/"1",
           "Number of weight shards (ranks with equal r mod S share one)">,
    Option<"ranks", "ranks", "int64_t", /*default=*/"0",
           "Number of ranks of the job; required when weight-shards > 1">,
    ListOption<"wrt", "wrt", "std::string",
               "Kinds of differentiated operands whose gradients are "
               "reduced: parameter, batch, other (default: all)">,
    Option<"batchNorm", "batch-norm", "::trellis::coll::BatchNormStatistics",
           /*default=*/"::trellis::coll::BatchNormStatistics::Local",
           "Batch-norm statistics in training: local (running statistics "
           "averaged) or sync (the global batch's)",
           [{::trellis::coll::batchNormStatisticsValues()}]>
  ];
  let dependentDialects = [
    "::trellis::nn::NNDialect",
    "::trellis::coll::CollDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def CollBucketReductions
    : Pass<"coll-bucket-reductions", "::mlir::ModuleOp"> {
  let summary = "Fuse psums and pmeans into buckets and overlap their "
                "communication with the computation around them";
  let description = [{
    Tensor fusion (Horovod) and gradient buckets (PyTorch DDP), as a
    transformation of the IR: the `coll.psum`s and `coll.pmean`s of a block
    (for a data-parallel step, the gradients' reductions of
    `coll-average-gradients`, after `ad-differentiate` and inlining) are
    grouped into buckets of at most `bucket-bytes` bytes, and each bucket
    becomes one `coll.psum_start` / `coll.pmean_start` of its tensors and
    one `coll.wait`:

    * the start is placed right after the last of its tensors is computed
      (in the backward pass), the wait right before the first of its
      results is used (by the update), so that the bucket's communication
      can run while the rest of the backward pass computes;
    * a bucket holds reductions of one kind, axis, `groups` and element
      type; its members are taken in the order their tensors are computed
      (the backward pass yields the last layer's gradients first), and a
      reduction joins a bucket only if none of the bucket's results is
      used before its tensor is computed;
    * a tensor larger than `bucket-bytes` is a bucket of its own;
      `bucket-bytes=0` makes every reduction its own bucket.

    With `overlap=false` the start is placed right before the wait: the
    buckets are fused, but each is waited for at once.

    Results are the same reductions: elementwise over the ranks, so the
    sums of two ranks are bit-identical to the unbucketed ones.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"26214400",
           "Most bytes of the tensors of one bucket (default 25 MiB, as "
           "PyTorch DDP; 0: one reduction per tensor)">,
    Option<"overlap", "overlap", "bool", /*default=*/"true",
           "Start each bucket where its tensors are ready (false: where its "
           "results are needed)">
  ];
  let dependentDialects = ["::trellis::coll::CollDialect"];
}

#endif // TRELLIS_COLL_PASSES

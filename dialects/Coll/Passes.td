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
    shards are reduced (groups `[[d, S+d, 2S+d, …] for d < S]`). A gradient
    with respect to an argument carrying `coll.replica_groups` (a shard
    made by `coll-shard-weights`) is reduced within those groups whatever
    the options say.

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

def CollShardWeights : Pass<"coll-shard-weights", "::mlir::ModuleOp"> {
  let summary = "Keep each rank's shard of the parameters between steps "
                "(weight-sharded data parallelism)";
  let description = [{
    Weight sharding in the manner of PyTorch FSDP and DeepSpeed ZeRO-3, for
    modules that follow the training convention (docs/training.md): the
    `ranks` ranks form groups of `shards` consecutive ranks (`[S·i, …,
    S·i+S−1]`), and rank `r` holds part `r mod S` of every sharded
    parameter — its rows `(r mod S)·d0/S …` along dimension 0. The
    parameters are the leading arguments without `trellis.batch` of each
    function in `functions` that the module defines; optimizer state (Adam's
    moments) is a parameter like any other. A float parameter whose first
    dimension `d0` is a multiple of `shards` is sharded (others stay whole
    on every rank: `isShardedParameter`, which the trainer shares).

    In each such function, a sharded parameter's argument becomes its shard
    (`tensor<d0/S x …>`) and carries `coll.replica_groups`, the ranks
    holding the same shard (`[[d, S+d, …] for d < S]`). An `ad.grad` or
    `ad.value_and_grad` taking the parameter differentiates instead a
    wrapper of its function that gathers the shards (`coll.all_gather` over
    the shard groups, inside an `ad.checkpoint`, so that the backward pass
    gathers again) and calls it: the derivative of the gather, a psum
    within the shard group and this rank's rows, gives the group's summed
    gradient of the shard, which is divided by S. `coll-average-gradients`
    then averages it over the replica groups (it reads the attribute), the
    whole parameters' gradients over all ranks: the step is the unsharded
    one. Other uses gather at the function's entry. Where the function
    returns the parameter's new value (result `i` of the same type as
    parameter `i`: `@train_step`'s convention), it returns this rank's
    shard: elementwise computations (the optimizer's update) are recomputed
    on the shards of their operands, anything else is sliced at the rank's
    rows. So between steps each rank keeps `1/S` of the parameters and
    optimizer state, and the update runs on `1/S` of the elements.

    Run it with `coll-average-gradients`, before `ad-differentiate`. A
    `shards` that does not divide `ranks` is an error.

    Example (`shards=2 ranks=4`):

    ```mlir
    func.func @train_step(%w: tensor<8x4xf32>, %x: tensor<2x8xf32> {trellis.batch = "x"})
        -> (tensor<8x4xf32>, tensor<f32>) {
      %l, %g = ad.value_and_grad @loss(%w, %x) ...
      %w2 = arith.subf %w, %g : tensor<8x4xf32>
      return %w2, %l : tensor<8x4xf32>, tensor<f32>
    }
    // becomes
    func.func private @loss.weight_shards(%s: tensor<4x4xf32>, %x: ...) -> tensor<f32> {
      %w = ad.checkpoint -> tensor<8x4xf32> {
        %full = coll.all_gather %s {axis = "batch", dim = 0 : i64,
            groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}
            : tensor<4x4xf32> -> tensor<8x4xf32>
        ad.yield %full : tensor<8x4xf32>
      }
      %l = call @loss(%w, %x) ...
      return %l : tensor<f32>
    }
    func.func @train_step(%w: tensor<4x4xf32> {coll.replica_groups = dense<[[0, 2], [1, 3]]> ...},
                          %x: ...) -> (tensor<4x4xf32>, tensor<f32>) {
      %l, %g = ad.value_and_grad @loss.weight_shards(%w, %x) ...
      %mean = arith.mulf %g, %half : tensor<4x4xf32>
      %w2 = arith.subf %w, %mean : tensor<4x4xf32>
      return %w2, %l : tensor<4x4xf32>, tensor<f32>
    }
    ```
  }];
  let options = [
    Option<"shards", "shards", "int64_t", /*default=*/"1",
           "Ranks a parameter is split over (1: no sharding)">,
    Option<"ranks", "ranks", "int64_t", /*default=*/"0",
           "Number of ranks of the job (a multiple of shards)">,
    Option<"axis", "axis", "std::string", /*default=*/"\"batch\"",
           "The mesh axis of the ranks">,
    ListOption<"functions", "functions", "std::string",
               "Functions whose parameters are sharded (default: train_step, "
               "eval)">
  ];
  let dependentDialects = ["::trellis::coll::CollDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // TRELLIS_COLL_PASSES

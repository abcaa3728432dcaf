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
               "reduced: parameter, batch, other (default: all)">
  ];
  let dependentDialects = [
    "::trellis::coll::CollDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // TRELLIS_COLL_PASSES

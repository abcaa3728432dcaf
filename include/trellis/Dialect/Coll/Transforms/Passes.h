//===- Passes.h - Passes of the coll dialect --------------------*- C++ -*-===//

#ifndef TRELLIS_DIALECT_COLL_TRANSFORMS_PASSES_H
#define TRELLIS_DIALECT_COLL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/Pass.h"

namespace trellis::coll {

/// How coll-average-gradients combines the ranks' gradients (its `reduce`
/// option).
enum class GradientReduction {
  /// coll.pmean: the average.
  Mean,
  /// coll.adasum: the exact Adasum butterfly.
  Adasum,
  /// The psum-based approximation of Adasum.
  AdasumApprox,
};

/// The spellings of GradientReduction, for every option that takes one
/// (coll-average-gradients' `reduce`, trellis-train's `--reduce`).
inline llvm::cl::ValuesClass gradientReductionValues() {
  return llvm::cl::values(
      clEnumValN(GradientReduction::Mean, "mean",
                 "coll.pmean: the average of the ranks' gradients"),
      clEnumValN(GradientReduction::Adasum, "adasum",
                 "coll.adasum: the exact Adasum butterfly"),
      clEnumValN(GradientReduction::AdasumApprox, "adasum-approx",
                 "The psum-based Adasum approximation"));
}

/// Returns the option spelling of `reduction` ("mean", "adasum",
/// "adasum-approx").
llvm::StringRef stringifyGradientReduction(GradientReduction reduction);

/// How data-parallel training treats the statistics of nn.batch_norm in
/// training mode (coll-average-gradients' `batch-norm`, trellis-train's
/// `--batch-norm`).
enum class BatchNormStatistics {
  /// Each rank normalizes with its own batch's statistics; the running
  /// statistics (the layer state) are averaged over the ranks, so every
  /// rank holds the same state.
  Local,
  /// Sync-BN: the statistics of the whole global batch (coll.pmean inside
  /// the layer, nn.batch_norm's `axis_name`).
  Sync,
};

inline llvm::cl::ValuesClass batchNormStatisticsValues() {
  return llvm::cl::values(
      clEnumValN(BatchNormStatistics::Local, "local",
                 "Each rank's own batch statistics; running statistics "
                 "averaged over the ranks"),
      clEnumValN(BatchNormStatistics::Sync, "sync",
                 "Statistics of the global batch (sync-BN)"));
}

/// Returns the option spelling of `statistics` ("local", "sync").
llvm::StringRef stringifyBatchNormStatistics(BatchNormStatistics statistics);

/// What a gradient is taken with respect to, as coll-average-gradients'
/// `wrt` option chooses the gradients it reduces: the differentiated
/// operand of the ad op is an argument of the enclosing function, marked
/// as data by the training convention's `trellis.batch` (Batch) or not
/// (Parameter), or any other value (Other).
enum class GradientArgKind {
  Parameter,
  Batch,
  Other,
};

/// Parses a spelling of GradientArgKind (coll-average-gradients' `wrt`:
/// "parameter", "batch", "other"); nullopt for any other text. (A list
/// option of an enum does not get its values' spellings in MLIR 22, so
/// `wrt` is a list of strings.)
std::optional<GradientArgKind> parseGradientArgKind(llvm::StringRef text);

/// True if coll-shard-weights splits a parameter of `type` over `shards`
/// ranks: a float tensor whose first dimension is a multiple of `shards`
/// (shards > 1). The trainer splits its host arrays by the same rule.
bool isShardedParameter(mlir::Type type, int64_t shards);

/// The argument attribute coll-shard-weights puts on a shard: the groups of
/// ranks holding the same shard (`[[d, S+d, 2S+d, …] for d < S]`), across
/// which coll-average-gradients reduces its gradient.
inline constexpr llvm::StringLiteral kReplicaGroupsAttr = "coll.replica_groups";

/// The shard groups of coll-shard-weights: `ranks / shards` groups of
/// `shards` consecutive ranks (a `groups` attribute).
mlir::DenseIntElementsAttr getShardGroupsAttr(mlir::MLIRContext *ctx,
                                              int64_t shards, int64_t ranks);

/// The replica groups: the ranks holding the same one of `shards` shards,
/// `[[d, S+d, 2S+d, …] for d < S]` (Trax's `axis_index_groups`).
mlir::DenseIntElementsAttr getReplicaGroupsAttr(mlir::MLIRContext *ctx,
                                                int64_t shards, int64_t ranks);

#define GEN_PASS_DECL
#include "trellis/Dialect/Coll/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trellis/Dialect/Coll/Transforms/Passes.h.inc"

} // namespace trellis::coll

#endif // TRELLIS_DIALECT_COLL_TRANSFORMS_PASSES_H

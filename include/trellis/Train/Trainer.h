//===- Trainer.h - The training driver behind trellis-train -----*- C++ -*-===//
//
// Trains a module that follows the Trellis training convention
// (docs/training.md):
//
//   func.func @train_step(%p0: T0 {trellis.init = "glorot_uniform"}, ...,
//                         %x: X {trellis.batch = "x"}, %y: Y {trellis.batch = "y"})
//       -> (T0, ..., tensor<f32> /*loss*/, aux...)
//   func.func @eval(%p0: T0, ..., %x: X {trellis.batch = "x"}, ...)
//       -> (tensor<f32> {trellis.name = "accuracy"}, ...)      // optional
//
// Parameters are the arguments without `trellis.batch`; `@train_step`
// returns their new values first, then the loss. Batch arguments name arrays
// of the dataset (.npz); their first dimension is the per-rank batch size.
// Under `mpirun -np N` every rank takes its shard of each global batch and
// the gradients are reduced (coll-average-gradients) before the update.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_TRAINER_H
#define TRELLIS_TRAIN_TRAINER_H

#include "trellis/Pipelines/CompileOptions.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace trellis::train {

/// The default of --checkpoint-every: a kill loses at most 500 steps (the
/// default of Hugging Face's Trainer, save_steps), and a checkpoint costs
/// one write of the parameters per 500 steps.
inline constexpr int64_t kDefaultCheckpointEvery = 500;

/// The default bucket of the gradients' reductions: 25 MiB, PyTorch DDP's
/// `bucket_cap_mb` (coll-bucket-reductions' default too).
inline constexpr int64_t kDefaultBucketBytes = 25 << 20;

struct TrainOptions {
  std::string modulePath;
  /// Training data: a .npz archive whose arrays the batch arguments name.
  std::string dataPath;
  /// Held-out data for @eval (optional).
  std::string evalDataPath;
  int64_t steps = 100;
  uint64_t seed = 0;
  /// Gradient reduction across ranks (coll-average-gradients' `reduce`).
  coll::GradientReduction reduce = coll::GradientReduction::Mean;
  /// Batch-norm statistics across ranks (coll-average-gradients'
  /// `batch-norm`).
  coll::BatchNormStatistics batchNorm = coll::BatchNormStatistics::Local;
  /// Ranks each parameter is split over between steps (coll-shard-weights;
  /// 1: every rank holds all of them). Must divide the number of ranks.
  int64_t weightShards = 1;
  /// Under mpirun, the gradients' reductions are fused into buckets of at
  /// most this many bytes, overlapped with the backward pass
  /// (coll-bucket-reductions; 0: one per tensor; negative: no buckets, one
  /// blocking reduction per tensor after the backward pass).
  int64_t bucketBytes = kDefaultBucketBytes;
  /// Where checkpoint.npz, metrics.jsonl and curve.svg go (created).
  std::string outputDir;
  /// Write a checkpoint every this many steps (0: only at the end).
  int64_t checkpointEvery = kDefaultCheckpointEvery;
  /// Continue from outputDir/checkpoint.npz.
  bool resume = false;
  /// Evaluate every this many steps (0: only at the end).
  int64_t evalEvery = 0;
  /// Plain progress lines every this many steps when stdout is not a
  /// terminal (0: about 20 lines per run).
  int64_t logEvery = 0;
  /// How the module is compiled; the trainer adds the gradient reduction
  /// when it runs on several ranks.
  CompileOptions compile;
  /// The one-line error of a command line that did not parse (empty: it
  /// did). Under mpirun the ranks agree on it first: every rank fails, none
  /// waits for one that left (RankAgreement.h).
  std::string commandLineError;
  /// The ranks the MPI launcher started (RuntimeConfig::mpiWorldSize); with
  /// more than one the trainer initializes MPI.
  unsigned launchedRanks = 1;
};

/// Runs the training; progress and the final summary go to `out` (rank 0
/// only). Convention violations, data mismatches and I/O failures are
/// errors naming the argument, array or file. Returns the exit code: 0, or
/// 128 + the signal (SIGINT, SIGTERM, SIGHUP) that stopped the run after a
/// step, its checkpoint written (StopSignals.h), or, under mpirun, 1 after
/// a failure that every rank has printed alike (ranks that disagree on
/// their options, RankAgreement.h).
llvm::Expected<int> runTrellisTrain(const TrainOptions &options,
                                    llvm::raw_ostream &out);

} // namespace trellis::train

#endif // TRELLIS_TRAIN_TRAINER_H

//===- Report.h - What a training run shows and writes ----------*- C++ -*-===//
//
// The output of trellis-train (docs/training.md): a progress bar on a
// terminal, plain progress lines otherwise; metrics.jsonl, one JSON object
// per step and per evaluation; curve.svg, the loss curve with the first eval
// metric. Only the leader rank (rank 0) prints and writes.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_REPORT_H
#define TRELLIS_TRAIN_REPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace trellis::runtime {
struct CompileStats;
} // namespace trellis::runtime

namespace trellis::train {

/// Writes a loss curve (and eval metrics in [0, 1] on a second axis, named
/// `metricName`) to `path` as SVG.
llvm::Error writeCurveSvg(llvm::StringRef path,
                          llvm::ArrayRef<std::pair<int64_t, double>> losses,
                          llvm::ArrayRef<std::pair<int64_t, double>> metric,
                          llvm::StringRef metricName);

/// The progress, metrics and curve of one run of `steps` steps.
class TrainingReport {
public:
  /// `logEvery`: plain progress lines every this many steps (0: about 20
  /// per run).
  TrainingReport(llvm::raw_ostream &out, bool leader, int ranks, int64_t steps,
                 int64_t logEvery)
      : out(out), leader(leader), ranks(ranks), steps(steps),
        logEvery(logEvery) {}

  /// Opens metrics.jsonl at `path`. A run resuming at `resumeStep` (-1: a
  /// new run) keeps the lines of the steps up to it, and reads them back
  /// so that the curve shows the whole run (the first eval metric is named
  /// `metricName`); lines of later steps, written by a run killed after its
  /// last checkpoint, and torn lines are dropped.
  llvm::Error openMetrics(llvm::StringRef path, int64_t resumeStep,
                          llvm::StringRef metricName);

  /// Prints how long the compile took, `totalMs` in all, and where the time
  /// went (`stats`: MLIR, LLVM, the compile cache), as trellis-run --stats'
  /// compile_phases.
  void reportCompile(double totalMs, const runtime::CompileStats &stats);

  /// Starts the clock of steps/s and ETA; the run starts at `startStep`.
  void startTiming(int64_t startStep);

  /// Records the loss after `step` steps: one metrics line, a point of the
  /// curve and the progress. An error names metrics.jsonl if it cannot be
  /// written.
  llvm::Error reportLoss(int64_t step, double loss);

  /// Records the eval metrics `values` (named `names`) after `step` steps:
  /// one metrics line, one printed line, the first metric on the curve.
  llvm::Error reportEval(int64_t step, llvm::ArrayRef<std::string> names,
                         llvm::ArrayRef<double> values);

  /// Prints that a signal (named `signalName`) stopped the run after
  /// `step` steps, ending the progress bar first.
  void reportStop(int64_t step, llvm::StringRef signalName);

  /// Writes curve.svg to `curvePath` (the first eval metric named
  /// `metricName`) and prints the final loss and where the files are.
  llvm::Error finish(double loss, llvm::StringRef checkpointPath,
                     llvm::StringRef curvePath, llvm::StringRef metricName);

private:
  void printProgress(int64_t step, double loss);
  /// Flushes metrics.jsonl; an error names it and the reason.
  llvm::Error flushMetrics();

  llvm::raw_ostream &out;
  bool leader;
  int ranks;
  int64_t steps, logEvery;
  std::string metricsPath;
  std::unique_ptr<llvm::raw_fd_ostream> metrics;
  int64_t startStep = 0;
  std::chrono::steady_clock::time_point started;
  std::vector<std::pair<int64_t, double>> losses, metricCurve;
};

} // namespace trellis::train

#endif // TRELLIS_TRAIN_REPORT_H

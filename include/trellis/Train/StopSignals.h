//===- StopSignals.h - Ending a training run when asked to ------*- C++ -*-===//
//
// SIGINT, SIGTERM and SIGHUP ask a run to stop (docs/training.md): the
// handler only records the first of them (a store to a sig_atomic_t, which
// is async-signal-safe) and restores the default actions, so that a second
// signal ends the process at once. The loop reads the record between steps:
// it finishes the step it is in, writes the checkpoint of that step, the
// curve and the last lines, and exits with 128 + the signal. Under mpirun
// the ranks agree on the record after every step, so that all of them stop
// after the same one whichever got the signal.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_STOPSIGNALS_H
#define TRELLIS_TRAIN_STOPSIGNALS_H

#include "llvm/ADT/StringRef.h"

namespace trellis::train {

/// Installs the handlers of SIGINT, SIGTERM and SIGHUP (sigaction), and
/// ignores SIGXFSZ, so that a write beyond the file-size limit fails with
/// an error naming the file instead of ending the process.
void installStopHandlers();

/// Holds the stop signals back while it lives (pthread_sigmask): a step
/// runs to its end undisturbed, and a signal sent during it arrives when
/// the guard is destroyed. (Under mpirun a handler that ran inside a step's
/// compiled code and MPI calls corrupted the heap now and then.)
class StopSignalsDeferred {
public:
  StopSignalsDeferred();
  ~StopSignalsDeferred();
  StopSignalsDeferred(const StopSignalsDeferred &) = delete;
  StopSignalsDeferred &operator=(const StopSignalsDeferred &) = delete;
};

/// Returns the signal received since installStopHandlers(), or 0.
int getReceivedStopSignal();

/// Returns the signal all `ranks` stop for after this step, or 0 to go on.
/// With more than one rank it is a collective (every rank calls it after
/// every step): a signal received by any rank stops all of them; if ranks
/// received different ones, SIGTERM wins over SIGINT, SIGINT over SIGHUP.
int agreeOnStopSignal(int ranks);

/// Returns "SIGINT", "SIGTERM" or "SIGHUP".
llvm::StringRef getStopSignalName(int signal);

} // namespace trellis::train

#endif // TRELLIS_TRAIN_STOPSIGNALS_H

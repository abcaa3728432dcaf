//===- StopSignals.cpp - Ending a training run when asked to --------------===//

#include "trellis/Train/StopSignals.h"

#include "trellis/ExecutionEngine/HostCollectives.h"

#include "llvm/ADT/STLExtras.h"

#include <atomic>
#include <csignal>
#include <pthread.h>

using namespace trellis;
using namespace trellis::train;

/// The signals that stop a run, in the order of their precedence (the last
/// wins when ranks received different ones).
static const int kStopSignals[] = {SIGHUP, SIGINT, SIGTERM};

/// The first stop signal received (0: none). Lock-free, so the handler may
/// use it: the handler can run on two threads at once.
static std::atomic<int> receivedSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

/// Records the first signal and restores the default actions (sigaction is
/// async-signal-safe): a second signal ends the process at once. A second
/// signal can also reach this handler, on another thread, before the first
/// one's has restored them: it is raised again, to take the default action
/// once this handler returns.
static void recordStopSignal(int signal) {
  int none = 0;
  bool first = receivedSignal.compare_exchange_strong(none, signal);
  struct sigaction action = {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (int s : kStopSignals)
    sigaction(s, &action, nullptr);
  if (!first)
    raise(signal);
}

void trellis::train::installStopHandlers() {
  struct sigaction action = {};
  action.sa_handler = recordStopSignal;
  sigemptyset(&action.sa_mask);
  for (int s : kStopSignals)
    sigaddset(&action.sa_mask, s);
  // Interrupted system calls resume: only the loop looks at the signal.
  action.sa_flags = SA_RESTART;
  for (int s : kStopSignals)
    sigaction(s, &action, nullptr);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

/// The set of the stop signals.
static sigset_t getStopSignalSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kStopSignals)
    sigaddset(&set, s);
  return set;
}

StopSignalsDeferred::StopSignalsDeferred() {
  sigset_t set = getStopSignalSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

StopSignalsDeferred::~StopSignalsDeferred() {
  sigset_t set = getStopSignalSet();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

int trellis::train::getReceivedStopSignal() { return receivedSignal.load(); }

int trellis::train::agreeOnStopSignal(int ranks) {
  int own = getReceivedStopSignal();
  if (ranks == 1)
    return own;
  // The signal of highest precedence any rank received: the largest
  // position in kStopSignals, counted from 1 (0: none).
  int position = 0;
  for (auto [i, s] : llvm::enumerate(kStopSignals))
    if (own == s)
      position = i + 1;
  int agreed = static_cast<int>(collectives::maxOverRanks(
      position, "whether a rank received a signal to stop (trellis-train)"));
  return agreed == 0 ? 0 : kStopSignals[agreed - 1];
}

llvm::StringRef trellis::train::getStopSignalName(int signal) {
  switch (signal) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  default:
    return "a signal";
  }
}

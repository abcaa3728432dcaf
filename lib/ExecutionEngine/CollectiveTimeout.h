//===- CollectiveTimeout.h - Waits for the other ranks, bounded -*- C++ -*-===//
//
// Private to the collectives runtime. Every MPI communication of the
// runtime is nonblocking and completed by waitAll, which polls with a
// growing pause (so that a rank waiting for a stopped peer does not burn a
// core) until the collective timeout. On expiry the rank asks every other
// rank, on the runtime's own communicator, what it is doing: a rank waiting
// in the runtime answers with its collective; one that does not answer
// within a second has not arrived (stopped, hung, or busy outside
// collectives). One rank prints a single line naming them and ends the job.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_EXECUTIONENGINE_COLLECTIVETIMEOUT_H
#define TRELLIS_LIB_EXECUTIONENGINE_COLLECTIVETIMEOUT_H

#include <mpi.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trellis::collectives {

/// The default collective timeout in seconds.
inline constexpr double kDefaultTimeoutSeconds = 300;

/// Sets how long one wait for the other ranks may take, in seconds; 0 (or
/// less) waits forever.
void setTimeout(double seconds);
double getTimeout();

/// What this rank is doing while a scope lives, e.g. `coll.psum
/// (model.mlir:3:8)`: the messages of failed MPI calls start with it, and a
/// rank asked during a timeout answers with it. Scopes nest; the innermost
/// is current.
class CollectiveScope {
public:
  explicit CollectiveScope(std::string site);
  ~CollectiveScope();
  CollectiveScope(const CollectiveScope &) = delete;
  CollectiveScope &operator=(const CollectiveScope &) = delete;

  /// The current scope's site; empty outside collectives.
  static const std::string &current();

private:
  std::string previous;
};

/// The runtime's duplicate of MPI_COMM_WORLD, for the agreement checks'
/// gathers and the timeout's questions and answers, which no other traffic
/// can match. Created on first use (a collective on MPI_COMM_WORLD: call it
/// where all ranks are, e.g. right after MPI_Init).
MPI_Comm getRuntimeComm();

/// Frees the runtime's communicator (before MPI_Finalize).
void freeRuntimeComm();

/// Completes the `count` requests (MPI_Testall), pausing between tests.
/// `call` names the MPI call in errors. Waits at most the timeout plus
/// `extraSeconds`; then finds the ranks that did not arrive, and one rank
/// ends the job with one line naming them (exit code 1).
void waitAll(int count, MPI_Request *requests, const char *call,
             double extraSeconds = 0);

/// A nonblocking barrier on `comm` completed by waitAll.
void timedBarrier(MPI_Comm comm, double extraSeconds = 0);

/// Bounds a blocking MPI call that has no request to test: MPI_Init and
/// MPI_Finalize wait for every rank inside the MPI library (a rank stopped
/// before it joins the job keeps the others in MPI_Init). Unless destroyed
/// first, a thread of its own, which makes no MPI call, prints one line
/// naming `call` and `cause` after the collective timeout plus
/// `extraSeconds` and ends the process (exit code 1; the launcher then ends
/// the job). Rank r waits min(r, 10) s more, so that usually the lowest
/// waiting rank alone prints. With no timeout (0) it does nothing.
class CallWatchdog {
public:
  CallWatchdog(std::string call, std::string cause, int rank,
               double extraSeconds = 0);
  ~CallWatchdog();
  CallWatchdog(const CallWatchdog &) = delete;
  CallWatchdog &operator=(const CallWatchdog &) = delete;

private:
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread thread;
};

/// This process's rank as the MPI launcher tells it (OMPI_COMM_WORLD_RANK,
/// PMIX_RANK, PMI_RANK), for use before MPI_Init; 0 if none says.
int launcherRank();

/// Seconds since the runtime library was loaded (about the process's age).
double secondsSinceLoad();

/// `rank 3` or `ranks 0-2, 5` (`ranks` ascending).
std::string formatRanks(const std::vector<int> &ranks);

} // namespace trellis::collectives

#endif // TRELLIS_LIB_EXECUTIONENGINE_COLLECTIVETIMEOUT_H

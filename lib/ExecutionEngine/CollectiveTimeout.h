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

#include <string>
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

/// `rank 3` or `ranks 0-2, 5` (`ranks` ascending).
std::string formatRanks(const std::vector<int> &ranks);

} // namespace trellis::collectives

#endif // TRELLIS_LIB_EXECUTIONENGINE_COLLECTIVETIMEOUT_H

//===- HostCollectives.h - MPI for the host side of a job -------*- C++ -*-===//
//
// What a host (the training driver) needs of MPI itself, beside the
// collectives its compiled code runs: its rank, the number of ranks, a sum
// of one number over the ranks and a barrier. Part of the collectives
// runtime, so that a host reaches MPI only through it.
//
// Like the rest of the runtime, every function initializes MPI if needed
// (trellis_coll_init) and checks MPI's return code; a failure prints one
// line naming the rank and the call and aborts the whole job.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_EXECUTIONENGINE_HOSTCOLLECTIVES_H
#define TRELLIS_EXECUTIONENGINE_HOSTCOLLECTIVES_H

namespace trellis::collectives {

/// Returns this process's rank in MPI_COMM_WORLD.
int getWorldRank();

/// Returns the number of ranks in MPI_COMM_WORLD.
int getWorldSize();

/// Returns the sum of `value` over all ranks (MPI_Allreduce of one double;
/// every rank gets the same bits).
double sumOverRanks(double value);

/// Waits until every rank has called it (MPI_Barrier).
void barrier();

} // namespace trellis::collectives

#endif // TRELLIS_EXECUTIONENGINE_HOSTCOLLECTIVES_H

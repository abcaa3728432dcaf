//===- HostCollectives.h - MPI for the host side of a job -------*- C++ -*-===//
//
// What a host (the training driver) needs of MPI itself, beside the
// collectives its compiled code runs: its rank, the number of ranks, a sum
// of one number over the ranks, a gather of bytes and a barrier. Part of the
// collectives runtime, so that a host reaches MPI only through it.
//
// Like the rest of the runtime, every function initializes MPI if needed
// (trellis_coll_init) and checks MPI's return code; a failure prints one
// line naming the rank and the call and aborts the whole job. The sum and
// the barrier are collectives like the compiled ones: with the agreement
// checks on (trellis_coll_enable_checks) each is checked first against what
// the other ranks run, under its description `what` (so ranks running
// different models, whose compiled collectives and host collectives
// interleave differently, end with a mismatch line instead of a hang), and
// each waits at most the collective timeout.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_EXECUTIONENGINE_HOSTCOLLECTIVES_H
#define TRELLIS_EXECUTIONENGINE_HOSTCOLLECTIVES_H

#include <cstddef>

namespace trellis::collectives {

/// Returns this process's rank in MPI_COMM_WORLD.
int getWorldRank();

/// Returns the number of ranks in MPI_COMM_WORLD.
int getWorldSize();

/// Returns the sum of `value` over all ranks (MPI_Iallreduce of one double;
/// every rank gets the same bits). `what` describes it in checks, errors and
/// timeouts, e.g. "the loss's mean over the ranks (trellis-train)".
double sumOverRanks(double value, const char *what);

/// Returns the largest `value` of all ranks (as sumOverRanks, MPI_MAX).
double maxOverRanks(double value, const char *what);

/// Gathers `bytes` bytes of every rank into `all` (MPI_Iallgather, rank
/// order: rank r's at `all + r * bytes`); `bytes` is the same on every rank
/// and below 2 GiB. `what` as for sumOverRanks.
void allGatherBytes(const void *mine, size_t bytes, void *all,
                    const char *what);

/// Waits until every rank has called it (MPI_Ibarrier), at most the
/// collective timeout plus `extraSeconds` (e.g. for the time the other
/// ranks may still be compiling). `what` as for sumOverRanks.
void barrier(const char *what, double extraSeconds = 0);

} // namespace trellis::collectives

#endif // TRELLIS_EXECUTIONENGINE_HOSTCOLLECTIVES_H

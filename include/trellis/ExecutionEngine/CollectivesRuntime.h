//===- CollectivesRuntime.h - MPI collectives for compiled code -*- C++ -*-===//
//
// The functions `convert-coll-to-mpi` emits calls to, where the upstream
// `mpi` dialect has no op or its OpenMPI lowering is wrong (listed, for the
// pass and the JIT, in RuntimeSymbols.def). Compiled code calls those that
// take buffers through MLIR's C interface (`_mlir_ciface_*`, one 1-D memref
// descriptor per buffer); hosts (trellis-run, the embedding API, AOT
// programs) call the lifecycle functions.
//
// Every function checks MPI's return codes and the job's rank count against
// the one the program was compiled for; a failure prints one line naming the
// rank and the cause to stderr and aborts the whole job (MPI_Abort), so no
// rank is left waiting in a collective. Every communication is nonblocking
// and waits for the other ranks at most the collective timeout
// (trellis_coll_set_timeout); then one line names the ranks that did not
// arrive and the job ends (exit code 1).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_EXECUTIONENGINE_COLLECTIVESRUNTIME_H
#define TRELLIS_EXECUTIONENGINE_COLLECTIVESRUNTIME_H

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cstdint>

extern "C" {

/// Initializes MPI once per process (thread level MPI_THREAD_FUNNELED),
/// makes MPI errors return codes instead of aborting silently, and creates
/// the runtime's own communicator (a collective: every rank calls it). Safe
/// to call again; a no-op when MPI is already initialized.
void trellis_coll_init();

/// Sets the collective timeout of this process: how long a rank waits in
/// one collective (or the agreement check before it) for the other ranks,
/// in seconds; 0 waits forever. Default 300. On expiry the rank asks the
/// others what they are doing, and after a second one line names the ranks
/// that did not answer (stopped, hung, or busy outside collectives) and
/// what the others wait in:
///
///   trellis: collective timeout: rank 1 did not arrive within 2 s; ranks 0,
///   2 wait at coll.psum f32[4] (model.mlir:5:10)
///
/// and the job ends (MPI_Abort, exit code 1). Waiting ranks sleep between
/// their tests of the request, so they do not burn a core.
void trellis_coll_set_timeout(double seconds);

/// Finalizes MPI if trellis_coll_init initialized it, after meeting the
/// other ranks (the last agreement check, or a barrier), so that a rank
/// still in a collective is reported, not left waiting. Safe to call again.
void trellis_coll_finalize();

/// Prints `message` prefixed with the rank and ends the whole job with exit
/// code `code` (MPI_Abort once MPI is initialized, exit otherwise).
[[noreturn]] void trellis_coll_abort(const char *message, int code);

/// Ends the whole job with exit code `code` (MPI_Abort) if MPI is
/// initialized and not finalized; returns otherwise. For hosts that have
/// reported an error themselves.
void trellis_coll_abort_if_initialized(int code);

/// Turns on the agreement checks of `convert-coll-to-mpi{check-agreement}`
/// for this process (call it where all ranks are, e.g. right after
/// compiling): the host's own collectives (HostCollectives.h) are checked
/// too, and trellis_coll_finalize checks that no rank is still about to run
/// a collective. Initializes MPI if needed. Idempotent.
void trellis_coll_enable_checks();

/// The check `convert-coll-to-mpi{check-agreement}` emits before every
/// collective: `what` describes the collective (`coll.psum f32[4x8]`, not
/// NUL-terminated), `where` its source location. All ranks exchange a
/// fixed-size fingerprint of both (MPI_Iallgather on the runtime's duplicate
/// of MPI_COMM_WORLD, which no other traffic uses); if their `what`s differ,
/// the lowest rank prints one line naming every rank's collective and the job
/// ends (MPI_Abort, exit code 1).
void _mlir_ciface_trellis_coll_check(StridedMemRefType<int8_t, 1> *what,
                                     StridedMemRefType<int8_t, 1> *where);

/// The check convert-coll-to-mpi emits after every upstream mpi call
/// (mpi.allreduce): unless `rc` is MPI_SUCCESS, prints one line naming the
/// rank, `call` (e.g. `coll.psum (model.mlir:5:8): MPI_Allreduce`, not
/// NUL-terminated) and MPI's error string, and aborts the whole job.
void _mlir_ciface_trellis_coll_check_result(int32_t rc,
                                            StridedMemRefType<int8_t, 1> *call);

/// This process's rank in MPI_COMM_WORLD and the number of ranks
/// (initializing MPI if needed).
int64_t trellis_coll_axis_index();
int64_t trellis_coll_axis_size();

// Collectives on 1-D contiguous buffers. `groups` holds the rank lists of a
// `groups` attribute row after row (empty = all ranks: psum and pmean
// without groups come here too), `groupSize` their length; `pairs` the
// [source, destination] rows of `ppermute`. pmean_groups is the sum over the
// group divided by its size. `maxCount` is the most elements one MPI call may
// move (convert-coll-to-mpi's max-count, at most INT32_MAX: MPI counts are
// ints); longer buffers go in pieces of that many elements. `where` is the
// op's source location (`model.mlir:5:10`, not NUL-terminated, may be
// empty), which failures and timeouts name.
//
// reduce_start (coll.psum_start, coll.pmean_start with mean = 1) starts the
// sum over the group of `buffer`, in place, and returns its request;
// reduce_wait completes it (within the collective timeout) and, for a
// mean, divides by the group's size. The buffer must stay alive and
// untouched in between; a request is waited for once.
#define TRELLIS_COLL_DECLARE(SUFFIX, T)                                        \
  void _mlir_ciface_trellis_coll_psum_groups_##SUFFIX(                         \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t maxCount, StridedMemRefType<int8_t, 1> *where);                  \
  void _mlir_ciface_trellis_coll_pmean_groups_##SUFFIX(                        \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t maxCount, StridedMemRefType<int8_t, 1> *where);                  \
  void _mlir_ciface_trellis_coll_ppermute_##SUFFIX(                            \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *pairs, int64_t maxCount,                  \
      StridedMemRefType<int8_t, 1> *where);                                    \
  void _mlir_ciface_trellis_coll_all_gather_##SUFFIX(                          \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t numRanks, int64_t maxCount,                                      \
      StridedMemRefType<int8_t, 1> *where);                                    \
  void _mlir_ciface_trellis_coll_psum_scatter_##SUFFIX(                        \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t numRanks, int64_t maxCount,                                      \
      StridedMemRefType<int8_t, 1> *where);                                    \
  void _mlir_ciface_trellis_coll_adasum_##SUFFIX(                              \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t maxCount, StridedMemRefType<int8_t, 1> *where);                  \
  int64_t _mlir_ciface_trellis_coll_reduce_start_##SUFFIX(                     \
      StridedMemRefType<T, 1> *buffer, StridedMemRefType<int64_t, 1> *groups,  \
      int64_t groupSize, int64_t mean, int64_t maxCount,                       \
      StridedMemRefType<int8_t, 1> *where);                                    \
  void _mlir_ciface_trellis_coll_reduce_wait_##SUFFIX(                         \
      int64_t request, StridedMemRefType<T, 1> *buffer,                        \
      StridedMemRefType<int8_t, 1> *where);
TRELLIS_COLL_DECLARE(f32, float)
TRELLIS_COLL_DECLARE(f64, double)
#undef TRELLIS_COLL_DECLARE

} // extern "C"

#endif // TRELLIS_EXECUTIONENGINE_COLLECTIVESRUNTIME_H

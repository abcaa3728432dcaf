//===- MpiCheck.h - MPI return codes and agreement, checked -----*- C++ -*-===//
//
// Private to the collectives runtime: its sources share one check of MPI's
// return codes and one agreement check (CollectivesRuntime.cpp defines
// them).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_EXECUTIONENGINE_MPICHECK_H
#define TRELLIS_LIB_EXECUTIONENGINE_MPICHECK_H

namespace trellis::collectives {

/// Ends the job with one line "<call> failed: <MPI's error string>" unless
/// `rc` is MPI_SUCCESS.
void checkMpi(int rc, const char *call);

/// The agreement check of a host's own collective, described by `what`, if
/// the checks are on (trellis_coll_enable_checks): the ranks' compiled
/// collectives and the host's are checked against each other, so a rank in
/// a host collective meets one about to run a compiled one. Waits at most
/// the timeout plus `extraSeconds`.
void checkHostCollective(const char *what, double extraSeconds = 0);

} // namespace trellis::collectives

#endif // TRELLIS_LIB_EXECUTIONENGINE_MPICHECK_H

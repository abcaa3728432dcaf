//===- MpiCheck.h - MPI return codes, checked -------------------*- C++ -*-===//
//
// Private to the collectives runtime: its sources share one check of MPI's
// return codes (CollectivesRuntime.cpp defines it).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_EXECUTIONENGINE_MPICHECK_H
#define TRELLIS_LIB_EXECUTIONENGINE_MPICHECK_H

namespace trellis::collectives {

/// Ends the job with one line "<call> failed: <MPI's error string>" unless
/// `rc` is MPI_SUCCESS.
void checkMpi(int rc, const char *call);

} // namespace trellis::collectives

#endif // TRELLIS_LIB_EXECUTIONENGINE_MPICHECK_H

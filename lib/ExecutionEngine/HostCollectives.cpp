//===- HostCollectives.cpp - MPI for the host side of a job ---------------===//

#include "trellis/ExecutionEngine/HostCollectives.h"

#include "trellis/ExecutionEngine/CollectivesRuntime.h"

#include <mpi.h>

#include <cstdio>

/// Ends the whole job with one line naming `call` if its return code `rc`
/// is an error.
static void check(int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  char message[MPI_MAX_ERROR_STRING + 64];
  std::snprintf(message, sizeof(message), "%s failed: %.*s", call, length,
                text);
  trellis_coll_abort(message, 1);
}

int trellis::collectives::getWorldRank() {
  trellis_coll_init();
  int rank = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  return rank;
}

int trellis::collectives::getWorldSize() {
  trellis_coll_init();
  int size = 0;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

double trellis::collectives::sumOverRanks(double value) {
  trellis_coll_init();
  double sum = 0;
  check(MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  return sum;
}

void trellis::collectives::barrier() {
  trellis_coll_init();
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

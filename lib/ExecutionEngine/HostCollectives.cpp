//===- HostCollectives.cpp - MPI for the host side of a job ---------------===//

#include "trellis/ExecutionEngine/HostCollectives.h"

#include "trellis/ExecutionEngine/CollectivesRuntime.h"

#include "MpiCheck.h"

#include <mpi.h>

using trellis::collectives::checkMpi;


/// Ends the whole job with one line naming `call` if its return code `rc`
/// is an error.
int trellis::collectives::getWorldRank() {
  trellis_coll_init();
  int rank = 0;
  checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  return rank;
}

int trellis::collectives::getWorldSize() {
  trellis_coll_init();
  int size = 0;
  checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

double trellis::collectives::sumOverRanks(double value) {
  trellis_coll_init();
  double sum = 0;
  checkMpi(
      MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
      "MPI_Allreduce");
  return sum;
}

void trellis::collectives::barrier() {
  trellis_coll_init();
  checkMpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

//===- HostCollectives.cpp - MPI for the host side of a job ---------------===//

#include "trellis/ExecutionEngine/HostCollectives.h"

#include "trellis/ExecutionEngine/CollectivesRuntime.h"

#include "CollectiveTimeout.h"
#include "MpiCheck.h"

#include <mpi.h>

using namespace trellis::collectives;

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

double trellis::collectives::sumOverRanks(double value, const char *what) {
  trellis_coll_init();
  CollectiveScope scope(what);
  checkHostCollective(what);
  double sum = 0;
  MPI_Request request;
  checkMpi(MPI_Iallreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                          &request),
           "MPI_Iallreduce");
  waitAll(1, &request, "MPI_Iallreduce");
  return sum;
}

void trellis::collectives::barrier(const char *what, double extraSeconds) {
  trellis_coll_init();
  CollectiveScope scope(what);
  checkHostCollective(what, extraSeconds);
  timedBarrier(MPI_COMM_WORLD, extraSeconds);
}

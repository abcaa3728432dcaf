//===- HostCollectives.cpp - MPI for the host side of a job ---------------===//

#include "trellis/ExecutionEngine/HostCollectives.h"

#include "trellis/ExecutionEngine/CollectivesRuntime.h"

#include "CollectiveTimeout.h"
#include "MpiCheck.h"

#include <mpi.h>

#include <limits>

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

/// `value` reduced by `op` over all ranks.
static double allReduce(double value, MPI_Op op, const char *what) {
  trellis_coll_init();
  CollectiveScope scope(what);
  checkHostCollective(what);
  double result = 0;
  MPI_Request request;
  checkMpi(MPI_Iallreduce(&value, &result, 1, MPI_DOUBLE, op, MPI_COMM_WORLD,
                          &request),
           "MPI_Iallreduce");
  waitAll(1, &request, "MPI_Iallreduce");
  return result;
}

double trellis::collectives::sumOverRanks(double value, const char *what) {
  return allReduce(value, MPI_SUM, what);
}

double trellis::collectives::maxOverRanks(double value, const char *what) {
  return allReduce(value, MPI_MAX, what);
}

void trellis::collectives::allGatherBytes(const void *mine, size_t bytes,
                                          void *all, const char *what) {
  trellis_coll_init();
  CollectiveScope scope(what);
  checkHostCollective(what);
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max()))
    trellis_coll_abort("allGatherBytes: more than 2 GiB per rank", 1);
  MPI_Request request;
  int count = static_cast<int>(bytes);
  checkMpi(MPI_Iallgather(mine, count, MPI_BYTE, all, count, MPI_BYTE,
                          MPI_COMM_WORLD, &request),
           "MPI_Iallgather");
  waitAll(1, &request, "MPI_Iallgather");
}

void trellis::collectives::barrier(const char *what, double extraSeconds) {
  trellis_coll_init();
  CollectiveScope scope(what);
  checkHostCollective(what, extraSeconds);
  timedBarrier(MPI_COMM_WORLD, extraSeconds);
}

/* An MPI_Allreduce that fails as a count over 2^31 made the real one fail
 * (failures.py preloads it into trellis-run): it returns MPI_ERR_COUNT and
 * leaves the receive buffer alone. Compiled code whose call is unchecked
 * continues with whatever that buffer held. */
#include <mpi.h>

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)datatype;
  (void)op;
  (void)comm;
  return MPI_ERR_COUNT;
}

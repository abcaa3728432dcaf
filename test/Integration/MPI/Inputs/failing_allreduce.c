/* MPI_Allreduce and MPI_Iallreduce that fail as a count over 2^31 made the
 * real ones fail (failures.py preloads them into trellis-run): they return
 * MPI_ERR_COUNT and leave the receive buffer alone. Compiled code whose call
 * is unchecked continues with whatever that buffer held. The runtime's psum
 * calls MPI_Iallreduce, the upstream lowering (upstream-allreduce)
 * MPI_Allreduce. */
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

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  (void)request;
  return MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

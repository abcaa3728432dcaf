//===- CollDialect.td - The coll dialect: collectives -----*- tablegen -*-===//
//
// SPMD collectives over a named mesh axis. Operand order and attribute names
// follow docs/spec.md so that IR in generic form keeps working.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_COLL_DIALECT
#define TRELLIS_COLL_DIALECT

include "mlir/IR/OpBase.td"

def Coll_Dialect : Dialect {
  let name = "coll";
  let cppNamespace = "::trellis::coll";
  let summary = "Collectives of SPMD programs (psum, pmean, ppermute, "
                "all_gather, Adasum)";
  let description = [{
    Every rank of the job runs the same program; a `coll` op combines the
    values that all ranks of a mesh axis hold at that point of the program.
    The axis `"batch"` spans all ranks (`MPI_COMM_WORLD`). The ops follow JAX's
    `lax.psum`, `lax.ppermute`, `lax.all_gather` and Horovod's Adasum.

    Ops are value-semantic and free of memory effects, so CSE and DCE treat
    them like any pure computation (every rank compiles the same program, so
    ranks still agree on the sequence of collectives); they are not
    speculatable, so they are never hoisted out of conditionals.

    Attributes that fix the number of ranks (`groups`, `pairs`, the result
    shape of `all_gather`) make the program valid for that count only; a run
    with another count stops with an error naming both counts.

    `convert-coll-to-mpi` lowers the ops to the upstream `mpi` dialect and to
    the Trellis collectives runtime (OpenMPI).

    `coll-bucket-reductions` splits reductions into a start, which returns
    a `!coll.request`, and a `coll.wait` for its results, so that the
    communication of a bucket of gradients runs while other work does.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Coll_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coll_Dialect, mnemonic, traits>;

def Coll_FloatTensor : StaticShapeTensorOf<[F32, F64]>;

#endif // TRELLIS_COLL_DIALECT

//===- CollTypes.td - Types of the coll dialect -----------*- tablegen -*-===//

#ifndef TRELLIS_COLL_TYPES
#define TRELLIS_COLL_TYPES

include "Coll/CollDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Coll_RequestType : TypeDef<Coll_Dialect, "Request"> {
  let mnemonic = "request";
  let summary = "a reduction in flight";
  let description = [{
    The result of `coll.psum_start` or `coll.pmean_start`: the ranks'
    reduction of the start's tensors has begun and completes at the one
    `coll.wait` of the request, which yields the reduced tensors.

    Example:
    ```mlir
    %r = coll.pmean_start %a, %b {axis = "batch"} : tensor<4x3xf32>, tensor<3xf32>
    %ra, %rb = coll.wait %r : tensor<4x3xf32>, tensor<3xf32>
    ```
  }];
}

#endif // TRELLIS_COLL_TYPES

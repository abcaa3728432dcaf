"""SPMD programs whose ranks diverge: rank 0 takes one branch, the other
ranks another (scf.if on coll.axis_index), so that they reach different
collectives at the same point. For the tests of the agreement checks
(test/Integration/Reliability/collective-checks.py,
test/Integration/MPI/mismatch.py).

    text = rank0_differs("Rank 0 sums f32, the others f64.",
                         "different_dtypes", "tensor<4xf32>",
                         first="...ops; scf.yield ...",
                         others="...ops; scf.yield ...")
"""


def rank0_differs(comment, name, type_, first, others):
    """@name(%x: type_) -> type_, in which rank 0 runs the ops `first` and
    the other ranks the ops `others` (each ending with an scf.yield of a
    type_)."""
    return f"""
// {comment}
func.func @{name}(%x: {type_}) -> {type_} {{
  %i = coll.axis_index {{axis = "batch"}} : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %i, %c0 : index
  %r = scf.if %first -> {type_} {{
    {first.strip()}
  }} else {{
    {others.strip()}
  }}
  return %r : {type_}
}}
"""

// A module with a global constructor: @get returns what @init stored (a
// volatile store, which LLVM cannot fold into the initial value).
llvm.mlir.global_ctors ctors = [@init], priorities = [0 : i32], data = [#llvm.zero]
llvm.mlir.global external @counter(0 : i32) : i32

llvm.func @init() {
  %v = llvm.mlir.constant(42 : i32) : i32
  %p = llvm.mlir.addressof @counter : !llvm.ptr
  llvm.store volatile %v, %p : i32, !llvm.ptr
  llvm.return
}

func.func @get() -> i32 {
  %p = llvm.mlir.addressof @counter : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i32
  return %v : i32
}

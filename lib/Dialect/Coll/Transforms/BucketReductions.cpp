//===- BucketReductions.cpp - Buckets of overlapped reductions ------------===//
//
// Groups the psums and pmeans of a block into buckets and splits each
// bucket into a start, placed where its last tensor is computed, and a
// wait, placed where its first result is needed (pass description in
// dialects/Coll/Passes.td). Every rank runs the same program, so the ranks
// start and wait for the buckets in one order.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/Transforms/Passes.h"

#include "trellis/Dialect/Coll/IR/Coll.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace trellis::coll {
#define GEN_PASS_DEF_COLLBUCKETREDUCTIONS
#include "trellis/Dialect/Coll/Transforms/Passes.h.inc"
} // namespace trellis::coll

using namespace mlir;
using namespace trellis::coll;

namespace {

/// True if `a` comes before `b` in their block; a null `a` is the block's
/// beginning, a null `b` its end.
bool isBefore(Operation *a, Operation *b) {
  if (!a)
    return true;
  if (!b)
    return true;
  return a != b && a->isBeforeInBlock(b);
}

/// Later of two positions (null: the block's beginning).
Operation *later(Operation *a, Operation *b) { return isBefore(a, b) ? b : a; }

/// Earlier of two positions (null: the block's end).
Operation *earlier(Operation *a, Operation *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return a->isBeforeInBlock(b) ? a : b;
}

/// A psum or pmean of `block` and where its tensor and result live there.
struct Reduction {
  Operation *op;
  /// The op of the block after which the tensor is available (null: from
  /// the block's beginning).
  Operation *ready;
  /// The first op of the block that uses the result (null: none).
  Operation *firstUse;
  int64_t bytes;
};

/// Reductions of one kind, axis, groups and element type, communicated
/// together.
struct Bucket {
  SmallVector<Reduction> members;
  Operation *ready = nullptr;
  Operation *firstUse = nullptr;
  int64_t bytes = 0;
};

/// What reductions must share to be communicated together.
using BucketKey = std::tuple<OperationName, Attribute, Attribute, Type>;

BucketKey keyOf(Operation *op) {
  return {op->getName(), op->getAttr("axis"), op->getAttr("groups"),
          cast<RankedTensorType>(op->getOperand(0).getType()).getElementType()};
}

Reduction describe(Block &block, Operation *op) {
  Reduction r{op, nullptr, nullptr, 0};
  if (Operation *def = op->getOperand(0).getDefiningOp())
    r.ready = block.findAncestorOpInBlock(*def);
  for (Operation *user : op->getResult(0).getUsers())
    if (Operation *use = block.findAncestorOpInBlock(*user))
      r.firstUse = earlier(r.firstUse, use);
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  r.bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  return r;
}

struct CollBucketReductionsPass
    : public trellis::coll::impl::CollBucketReductionsBase<
          CollBucketReductionsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    int64_t bytes = bucketBytes;
    if (bytes < 0)
      return emitError(UnknownLoc::get(ctx))
             << "coll-bucket-reductions: bucket-bytes must not be negative, "
                "got "
             << bytes;
    return success();
  }

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      bucketBlock(*block);
  }

  /// Forms the buckets of `block`'s reductions and rewrites them.
  void bucketBlock(Block &block) {
    SmallVector<Reduction> reductions;
    for (Operation &op : block) {
      // A reduction of a reduction's result stays as it is: its tensor is
      // ready only at the other's wait.
      if (isa<PsumOp, PmeanOp>(op) &&
          !isa_and_nonnull<PsumOp, PmeanOp>(op.getOperand(0).getDefiningOp()))
        reductions.push_back(describe(block, &op));
    }
    if (reductions.empty())
      return;
    // In the order their tensors become available: the first bucket is
    // the first one ready.
    llvm::stable_sort(reductions, [](const Reduction &a, const Reduction &b) {
      return b.ready && (!a.ready || a.ready->isBeforeInBlock(b.ready));
    });
    SmallVector<Bucket> buckets;
    DenseMap<BucketKey, size_t> open;
    for (const Reduction &r : reductions) {
      BucketKey key = keyOf(r.op);
      auto it = open.find(key);
      if (it != open.end()) {
        Bucket &bucket = buckets[it->second];
        Operation *ready = later(bucket.ready, r.ready);
        Operation *firstUse = earlier(bucket.firstUse, r.firstUse);
        if (bucket.bytes + r.bytes <= bucketBytes &&
            isBefore(ready, firstUse)) {
          bucket.members.push_back(r);
          bucket.ready = ready;
          bucket.firstUse = firstUse;
          bucket.bytes += r.bytes;
          continue;
        }
      }
      open[key] = buckets.size();
      buckets.push_back({{r}, r.ready, r.firstUse, r.bytes});
    }
    // Starts placed at one op keep the buckets' order.
    DenseMap<Operation *, Operation *> lastStartAfter;
    for (Bucket &bucket : buckets)
      rewrite(block, bucket, lastStartAfter);
  }

  void rewrite(Block &block, Bucket &bucket,
               DenseMap<Operation *, Operation *> &lastStartAfter) {
    Operation *first = bucket.members.front().op;
    SmallVector<Value> tensors;
    SmallVector<Type> types;
    for (const Reduction &r : bucket.members) {
      tensors.push_back(r.op->getOperand(0));
      types.push_back(r.op->getOperand(0).getType());
    }
    // The wait: before the first use, else at the end of the block.
    OpBuilder b(&getContext());
    auto atWait = [&] {
      if (bucket.firstUse)
        b.setInsertionPoint(bucket.firstUse);
      else if (block.mightHaveTerminator())
        b.setInsertionPoint(block.getTerminator());
      else
        b.setInsertionPointToEnd(&block);
    };
    if (overlap) {
      Operation *&previous = lastStartAfter[bucket.ready];
      if (previous)
        b.setInsertionPointAfter(previous);
      else if (bucket.ready)
        b.setInsertionPointAfter(bucket.ready);
      else
        b.setInsertionPointToStart(&block);
    } else {
      atWait();
    }
    Location loc = first->getLoc();
    auto requestType = RequestType::get(&getContext());
    auto axis = first->getAttrOfType<StringAttr>("axis");
    auto groups = first->getAttrOfType<DenseIntElementsAttr>("groups");
    Operation *start =
        isa<PmeanOp>(first)
            ? PmeanStartOp::create(b, loc, requestType, tensors, axis, groups)
                  .getOperation()
            : PsumStartOp::create(b, loc, requestType, tensors, axis, groups)
                  .getOperation();
    if (overlap)
      lastStartAfter[bucket.ready] = start;
    atWait();
    auto wait = WaitOp::create(b, loc, types, start->getResult(0));
    for (auto [r, result] : llvm::zip(bucket.members, wait.getResults())) {
      r.op->getResult(0).replaceAllUsesWith(result);
      r.op->erase();
    }
  }
};

} // namespace

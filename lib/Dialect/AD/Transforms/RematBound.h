//===- RematBound.h - A floor under ad-remat's recomputation ----*- C++ -*-===//
//
// ad-remat chooses among schedules of nested checkpoints by the lowered
// code's peak, which it predicts exactly (PeakSimulation.h) but cannot
// search exhaustively beyond short chains. RematLowerBound bounds the search
// from below: a model that counts, at each layer's reversal, only bytes the
// lowered code must hold then (whatever it fuses or frees), so that no
// schedule's model peak exceeds its lowered peak, and a dynamic program that
// finds the least recomputation of any schedule within a budget under that
// model. Every schedule the budget admits therefore recomputes at least
// that much: the chosen schedule's cost over it bounds the distance to the
// optimum, and a budget below the model's smallest peak is infeasible.
// docs/reversible.md, "A lower bound", states what is counted and why.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMATBOUND_H
#define TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMATBOUND_H

#include "Remat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace trellis::ad {

class RematLowerBound {
public:
  /// Builds the model of `fn`'s chain `layers` (its top-level ops in program
  /// order; `layerCost[i]` is what recomputing layer i costs) from the
  /// derivative ad-differentiate builds for a copy of `module` with every
  /// activation stored: which forward values each layer's reverse rule
  /// reads, and which values of the reverse sweep are live when each
  /// layer's reversal starts; nn ops' own allocations are replayed with the
  /// lowering's `attentionChunk`. Fails with a reason in `whyNot` if the
  /// copy cannot be differentiated.
  static mlir::FailureOr<RematLowerBound>
  analyze(mlir::ModuleOp module, mlir::func::FuncOp fn,
          llvm::ArrayRef<mlir::Operation *> layers,
          llvm::ArrayRef<int64_t> layerCost, int64_t attentionChunk,
          std::string &whyNot);

  /// The bytes the model holds at once under `schedule`: at most the
  /// lowered code's peak.
  int64_t peak(const Schedule &schedule) const;

  /// A floor of every schedule's model peak (so of every lowered peak).
  int64_t smallestPeak() const;

  /// The least recomputation cost (Σ over checkpoints of their layers'
  /// costs) of any schedule of nested checkpoints whose model peak is at
  /// most `budget`, or nullopt if there is none.
  std::optional<int64_t> leastCost(int64_t budget) const;

  /// A schedule of leastCost(budget).
  std::optional<Schedule> schedule(int64_t budget) const;

private:
  RematLowerBound() = default;

  /// What precedes a level's element starting at layer a: nothing (the
  /// chain's first layer), a checkpoint or a stored layer, at the same level
  /// or, for a checkpoint body's first element, at the body's own level.
  static constexpr int64_t kFirst = 0, kAfterCheckpoint = 1, kAfterStored = 2;

  /// What the model holds of the boundary before layer `a` (preceded as
  /// `flag` says, with the tracked values of `held` (a bit per entry of
  /// tracked[a]) already held at this level) when the element starting at
  /// `a` ends at `k` (k == a: a stored layer): `now` while that layer is
  /// reversed, `moment` what layer a's moment holds beyond the boundaries
  /// (held or heldAfterStored), `after` while the elements after that
  /// element are, and `next`, the tracked values held at boundary k + 1.
  struct Charge {
    int64_t now = 0, after = 0, moment = 0;
    unsigned next = 0;
  };
  Charge charge(int64_t a, int64_t flag, int64_t k, unsigned held) const;
  int64_t levelPeak(const Schedule &schedule, int64_t first, int64_t last,
                    int64_t heldAbove, int64_t flag, unsigned held) const;
  void solve();
  int64_t entry(int64_t a, int64_t b, int64_t flag, bool levelStart,
                unsigned held) const;
  Schedule build(int64_t a, int64_t b, int64_t m, int64_t flag, bool levelStart,
                 unsigned held) const;

  /// Per layer: the chain's costs up to it (prefix sums), whether its
  /// reversal has a moment (a reverse-rule op), and what that moment holds
  /// beyond the boundaries: its own results that its rule reads, the live
  /// values of the reverse sweep and what the moment's op allocates.
  std::vector<int64_t> costPrefix{0};
  std::vector<bool> hasMoment;
  std::vector<int64_t> held;
  /// The same at the moment chosen for when layer a-1 is stored: the
  /// results of a-1 that its own rule reads are held then whatever the
  /// moment, so a later rule op of layer a (a bias gradient's reduction
  /// after the GEMMs that read a-1's output) may hold more.
  std::vector<int64_t> heldAfterStored;
  /// Per boundary before layer a (a ≥ 1), per value crossing it (a result
  /// of layer a-1, or one layer a's rule reads first): its bytes, whether
  /// layer a-1's rule reads it, whether layer a's does at or after its
  /// moment (either of the two), whether it does at all, and the first
  /// layer k ≥ a whose rule reads it or a value computed from it within
  /// [a, k] (a checkpoint [a, k] then needs it); INT64_MAX if none; and the
  /// boundary it is produced at (a, or an earlier one for a value read first
  /// by layer a).
  /// `reach`: the value's index in `reaches` if it is tracked, else -1.
  struct Crossing {
    int64_t bytes;
    bool readByProducer, readAtMoment, readAtMomentAfterStored, readByNext;
    int64_t firstNeed, producedAt;
    int reach = -1;
  };
  std::vector<std::vector<Crossing>> crossings;

  /// Values that a layer beyond the next one computes from (a residual
  /// stream, read again by the next block's addition): a checkpoint holding
  /// that reader recomputes from the value, so keeps it until it is
  /// reversed — unless an element before it at its level holds it already,
  /// which the dynamic program's state says, a bit per value tracked at a
  /// boundary. Per value: its bytes, the boundary it is produced at, and
  /// each reader r beyond that boundary with the first layer k ≥ r whose
  /// rule reads r's result (a checkpoint [a, k'] with a ≤ r and k ≤ k'
  /// recomputes r).
  struct Reach {
    int64_t bytes, producedAt;
    llvm::SmallVector<std::pair<int64_t, int64_t>, 2> readers;
  };
  std::vector<Reach> reaches;
  /// Per boundary a, the values tracked there: produced before a and read
  /// at or after it (at most kMaxTracked; the others are left out, which
  /// only makes the model count less).
  static constexpr size_t kMaxTracked = 2;
  std::vector<llvm::SmallVector<int, kMaxTracked>> tracked;
  /// Whether the checkpoint [a, k] recomputes from `reach`.
  bool recomputesFrom(const Reach &reach, int64_t a, int64_t k) const;

  /// The dynamic program's table over (suffix of a level, flag, tracked
  /// values held, units); `offsets` per suffix [a, b], where its entries
  /// start.
  int64_t n = 0, unitBytes = 1, units = 0;
  std::vector<int64_t> offsets;
  std::vector<int64_t> table;
  std::vector<int16_t> choice;
};

} // namespace trellis::ad

#endif // TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMATBOUND_H

//===- Random.h - Random numbers of the training driver ---------*- C++ -*-===//
//
// splitmix64: the same numbers on every platform and rank, so that the data
// order and the initial parameters depend on the seed alone.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_RANDOM_H
#define TRELLIS_TRAIN_RANDOM_H

#include <cmath>
#include <cstdint>

namespace trellis::train {

/// Sebastiano Vigna's splitmix64 generator.
struct SplitMix64 {
  uint64_t state;

  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return (next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n).
  uint64_t below(uint64_t n) { return next() % n; }
  /// Standard normal (Box–Muller).
  double normal() {
    double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(2 * M_PI * v);
  }
};

} // namespace trellis::train

#endif // TRELLIS_TRAIN_RANDOM_H

//===- CollectivesRuntime.cpp - MPI collectives for compiled code ---------===//
//
// Implements the calls `convert-coll-to-mpi` emits (see the header). Plain
// C++ over the MPI C API, no MLIR dependency, so AOT programs link it alone.
//
// Adasum follows Horovod's vector-halving, distance-doubling scheme: in round
// k a rank swaps half of its current segment with rank XOR 2^k, so every rank
// ends up owning 1/p of the merged vector after log2(p) rounds, having sent
// about n·(1 − 1/p) elements; the same rounds in reverse (distance-halving)
// then assemble the result. The
// dot products of a round are summed over the 2^(k+1) ranks that jointly hold
// the two vectors, gathered and added in rank order, so every rank computes
// the same coefficients and the result is bit-identical everywhere.
//
// Agreement checks (convert-coll-to-mpi{check-agreement}): before each
// collective every rank contributes a fixed-size fingerprint of what it is
// about to run to one MPI_Allgather on a communicator of their own. Because
// the fingerprint's size does not depend on the collective, ranks about to
// run different collectives still meet there, see the disagreement and end
// the job, instead of entering mismatched MPI calls (a hang, or a reduction
// of buffers of different sizes).
//
//===----------------------------------------------------------------------===//

#include "trellis/ExecutionEngine/CollectivesRuntime.h"

#include "MpiCheck.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

bool initializedHere = false;

int worldRank() {
  int initialized = 0, finalized = 0, rank = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

[[noreturn]] void fail(const char *format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  trellis_coll_abort(message, 1);
}

void check(int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  fail("%s failed: %.*s", call, length, text);
}

void ensureInitialized() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    trellis_coll_init();
    // Compiled code used without a host that manages MPI: finalize at exit.
    std::atexit(trellis_coll_finalize);
  }
}

int worldSize() {
  ensureInitialized();
  int size = 0;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

template <typename T> MPI_Datatype mpiType();
template <> MPI_Datatype mpiType<float>() { return MPI_FLOAT; }
template <> MPI_Datatype mpiType<double>() { return MPI_DOUBLE; }

template <typename T> T *data(StridedMemRefType<T, 1> *m) {
  return m->data + m->offset;
}

template <typename T> int count(StridedMemRefType<T, 1> *m, const char *op) {
  if (m->strides[0] != 1 && m->sizes[0] > 1)
    fail("%s: internal error: buffer is not contiguous", op);
  if (m->sizes[0] > INT32_MAX)
    fail("%s: %lld elements exceed MPI's count limit", op,
         static_cast<long long>(m->sizes[0]));
  return static_cast<int>(m->sizes[0]);
}

/// A `groups` attribute as the runtime receives it: the size of its groups
/// and their ranks row after row. Both are needed: `[[0,1],[2,3]]` and
/// `[[0,1,2,3]]` have the same rows flattened.
using GroupsKey = std::pair<int64_t, std::vector<int64_t>>;

/// Communicators of `groups` attributes, created once by all ranks in
/// program order and kept for the process's life.
std::map<GroupsKey, MPI_Comm> &groupComms() {
  static std::map<GroupsKey, MPI_Comm> comms;
  return comms;
}

/// The communicator of the group this rank belongs to; MPI_COMM_WORLD for an
/// empty `groups`.
MPI_Comm groupComm(StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,
                   const char *op) {
  int size = worldSize();
  int64_t total = groups->sizes[0];
  if (total == 0)
    return MPI_COMM_WORLD;
  if (total != size)
    fail("%s: the program was compiled for %lld ranks (its groups) but the "
         "job has %d",
         op, static_cast<long long>(total), size);
  GroupsKey key(groupSize,
                std::vector<int64_t>(groups->data + groups->offset,
                                     groups->data + groups->offset + total));
  auto &comms = groupComms();
  auto it = comms.find(key);
  if (it != comms.end())
    return it->second;
  const std::vector<int64_t> &ranks = key.second;
  int rank = worldRank(), color = -1, position = -1;
  for (int64_t i = 0; i < total; ++i)
    if (ranks[i] == rank) {
      color = static_cast<int>(i / groupSize);
      position = static_cast<int>(i % groupSize);
    }
  MPI_Comm comm;
  check(MPI_Comm_split(MPI_COMM_WORLD, color, position, &comm),
        "MPI_Comm_split");
  comms.emplace(std::move(key), comm);
  return comm;
}

//===----------------------------------------------------------------------===//
// Adasum
//===----------------------------------------------------------------------===//

/// Dot products of a pair (a, b): a·b, ‖a‖², ‖b‖², accumulated in f64.
struct Dots {
  double ab = 0, aa = 0, bb = 0;
};

/// Eight independent partial sums per product, so that the loop is bound by
/// throughput rather than by the latency of one chain of additions (and
/// vectorizes); the order is fixed, so every rank gets the same bits.
template <typename T> Dots dots(const T *a, const T *b, int64_t n) {
  constexpr int kLanes = 8;
  double ab[kLanes] = {}, aa[kLanes] = {}, bb[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      double x = a[i + l], y = b[i + l];
      ab[l] += x * y;
      aa[l] += x * x;
      bb[l] += y * y;
    }
  for (int l = 0; i < n; ++i, ++l) {
    double x = a[i], y = b[i];
    ab[l] += x * y;
    aa[l] += x * x;
    bb[l] += y * y;
  }
  Dots d;
  for (int l = 0; l < kLanes; ++l) {
    d.ab += ab[l];
    d.aa += aa[l];
    d.bb += bb[l];
  }
  return d;
}

/// result = (1 − a·b/(2‖a‖²))·a + (1 − a·b/(2‖b‖²))·b; a zero-norm term
/// contributes the other tensor unchanged.
template <typename T>
void merge(const T *a, const T *b, T *result, int64_t n, const Dots &d) {
  double ca = d.aa == 0 ? 1.0 : 1.0 - d.ab / (2 * d.aa);
  double cb = d.bb == 0 ? 1.0 : 1.0 - d.ab / (2 * d.bb);
  T fa = static_cast<T>(ca), fb = static_cast<T>(cb);
  for (int64_t i = 0; i < n; ++i)
    result[i] = fa * a[i] + fb * b[i];
}

/// The sub-communicator of ranks [0, p) of `comm` that share the bits of
/// their rank above `level` (MPI_COMM_NULL for ranks ≥ p). Cached.
std::map<std::pair<MPI_Comm, int>, MPI_Comm> &blockComms() {
  static std::map<std::pair<MPI_Comm, int>, MPI_Comm> blocks;
  return blocks;
}

MPI_Comm blockComm(MPI_Comm comm, int p, int level) {
  auto &blocks = blockComms();
  auto key = std::make_pair(comm, level);
  auto it = blocks.find(key);
  if (it != blocks.end())
    return it->second;
  int rank;
  MPI_Comm_rank(comm, &rank);
  int color = rank < p ? rank >> (level + 1) : MPI_UNDEFINED;
  MPI_Comm block;
  check(MPI_Comm_split(comm, color, rank, &block), "MPI_Comm_split");
  blocks.emplace(key, block);
  return block;
}

/// The segment [lo, hi) of an n-vector rank `rank` owns after `levels`
/// rounds of halving (a rank whose bit k is 0 keeps the lower half).
std::pair<int64_t, int64_t> segment(int rank, int levels, int64_t n) {
  int64_t lo = 0, hi = n;
  for (int k = 0; k < levels; ++k) {
    int64_t mid = lo + (hi - lo) / 2;
    if (rank & (1 << k))
      lo = mid;
    else
      hi = mid;
  }
  return {lo, hi};
}

/// The butterfly on ranks [0, p) of `comm`, p a power of two; `x` holds this
/// rank's vector and receives the result.
template <typename T>
void butterfly(T *x, int64_t n, MPI_Comm comm, int p) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int levels = 0;
  while ((1 << levels) < p)
    ++levels;
  std::vector<T> other((n + 1) / 2 + 1);
  int64_t lo = 0, hi = n;
  for (int k = 0; k < levels; ++k) {
    int partner = rank ^ (1 << k);
    bool upper = rank & (1 << k);
    int64_t mid = lo + (hi - lo) / 2;
    int64_t keepLo = upper ? mid : lo, keepHi = upper ? hi : mid;
    int64_t sendLo = upper ? lo : mid, sendHi = upper ? mid : hi;
    check(MPI_Sendrecv(x + sendLo, static_cast<int>(sendHi - sendLo),
                       mpiType<T>(), partner, 7, other.data(),
                       static_cast<int>(keepHi - keepLo), mpiType<T>(),
                       partner, 7, comm, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    // `a` is the vector of the half whose bit k is 0.
    T *mine = x + keepLo;
    const T *a = upper ? other.data() : mine;
    const T *b = upper ? mine : other.data();
    int64_t len = keepHi - keepLo;
    Dots partial = dots(a, b, len);
    MPI_Comm block = blockComm(comm, p, k);
    int blockSize;
    MPI_Comm_size(block, &blockSize);
    std::vector<double> all(3 * blockSize);
    double mineDots[3] = {partial.ab, partial.aa, partial.bb};
    check(MPI_Allgather(mineDots, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE,
                        block),
          "MPI_Allgather");
    Dots total;
    for (int r = 0; r < blockSize; ++r) {
      total.ab += all[3 * r];
      total.aa += all[3 * r + 1];
      total.bb += all[3 * r + 2];
    }
    merge(a, b, mine, len, total);
    lo = keepLo;
    hi = keepHi;
  }
  // Distance-halving: the rounds in reverse, each swapping the merged
  // segments of two siblings, so every rank ends with the whole vector.
  for (int k = levels - 1; k >= 0; --k) {
    int partner = rank ^ (1 << k);
    auto [myLo, myHi] = segment(rank, k + 1, n);
    auto [theirLo, theirHi] = segment(partner, k + 1, n);
    check(MPI_Sendrecv(x + myLo, static_cast<int>(myHi - myLo), mpiType<T>(),
                       partner, 11, x + theirLo,
                       static_cast<int>(theirHi - theirLo), mpiType<T>(),
                       partner, 11, comm, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
  }
}

template <typename T>
void adasum(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
            StridedMemRefType<int64_t, 1> *groups, int64_t groupSize) {
  MPI_Comm comm = groupComm(groups, groupSize, "coll.adasum");
  int n = count(in, "coll.adasum");
  T *x = data(out);
  std::memcpy(x, data(in), sizeof(T) * n);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 1)
    return;
  int p = 1;
  while (p * 2 <= size)
    p *= 2;
  // Ranks r ≥ p are merged into r − p first and get the result back last.
  if (rank >= p) {
    check(MPI_Send(x, n, mpiType<T>(), rank - p, 8, comm), "MPI_Send");
    for (int level = 0; (1 << level) < p; ++level)
      blockComm(comm, p, level); // collective: every rank takes part
    check(MPI_Recv(x, n, mpiType<T>(), rank - p, 9, comm, MPI_STATUS_IGNORE),
          "MPI_Recv");
    return;
  }
  bool hasExtra = rank + p < size;
  if (hasExtra) {
    std::vector<T> extra(n);
    check(MPI_Recv(extra.data(), n, mpiType<T>(), rank + p, 8, comm,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    merge(x, extra.data(), x, n, dots(x, extra.data(), n));
  }
  butterfly(x, n, comm, p);
  if (hasExtra)
    check(MPI_Send(x, n, mpiType<T>(), rank + p, 9, comm), "MPI_Send");
}

//===----------------------------------------------------------------------===//
// psum with groups, ppermute, all_gather
//===----------------------------------------------------------------------===//

template <typename T>
void psumGroups(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
                StridedMemRefType<int64_t, 1> *groups, int64_t groupSize) {
  MPI_Comm comm = groupComm(groups, groupSize, "coll.psum");
  int n = count(in, "coll.psum");
  check(MPI_Allreduce(data(in), data(out), n, mpiType<T>(), MPI_SUM, comm),
        "MPI_Allreduce");
}

template <typename T>
void ppermute(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
              StridedMemRefType<int64_t, 1> *pairs) {
  int size = worldSize(), rank = worldRank();
  int n = count(in, "coll.ppermute");
  const int64_t *p = pairs->data + pairs->offset;
  int source = -1, destination = -1;
  for (int64_t i = 0; i + 1 < pairs->sizes[0]; i += 2) {
    if (p[i] >= size || p[i + 1] >= size)
      fail("coll.ppermute: the pair [%lld, %lld] names a rank the job does "
           "not have (%d ranks)",
           static_cast<long long>(p[i]), static_cast<long long>(p[i + 1]),
           size);
    if (p[i + 1] == rank)
      source = static_cast<int>(p[i]);
    if (p[i] == rank)
      destination = static_cast<int>(p[i + 1]);
  }
  T *x = data(in), *y = data(out);
  if (source == rank) {
    std::memcpy(y, x, sizeof(T) * n);
    return;
  }
  // Post the receive and the send together so that no cycle can deadlock.
  MPI_Request requests[2];
  int pending = 0;
  if (source >= 0)
    check(MPI_Irecv(y, n, mpiType<T>(), source, 10, MPI_COMM_WORLD,
                    &requests[pending++]),
          "MPI_Irecv");
  else
    std::fill(y, y + n, T(0));
  if (destination >= 0)
    check(MPI_Isend(x, n, mpiType<T>(), destination, 10, MPI_COMM_WORLD,
                    &requests[pending++]),
          "MPI_Isend");
  check(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

template <typename T>
void allGather(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
               int64_t numRanks) {
  int size = worldSize();
  if (numRanks != size)
    fail("coll.all_gather: the program was compiled for %lld ranks (its "
         "result shape) but the job has %d",
         static_cast<long long>(numRanks), size);
  int n = count(in, "coll.all_gather");
  check(MPI_Allgather(data(in), n, mpiType<T>(), data(out), n, mpiType<T>(),
                      MPI_COMM_WORLD),
        "MPI_Allgather");
}

//===----------------------------------------------------------------------===//
// Agreement checks
//===----------------------------------------------------------------------===//

/// What one rank is about to run. `hash` covers the whole description;
/// `what` and `where` are truncated copies for the message.
struct Fingerprint {
  uint64_t hash;
  char what[120];
  char where[128];
};
static_assert(sizeof(Fingerprint) == 256, "fixed-size MPI message");

/// The checks' communicator (MPI_COMM_NULL while checks are off) and the
/// number of checks so far: every rank's k-th check meets the others' k-th,
/// so the count is the same on all ranks at a meeting.
struct CheckState {
  MPI_Comm comm = MPI_COMM_NULL;
  uint64_t calls = 0;
};

CheckState &checkState() {
  static CheckState state;
  return state;
}

/// A duplicate of MPI_COMM_WORLD, so that no user message or collective can
/// match a check's MPI_Allgather.
MPI_Comm checkComm() {
  CheckState &state = checkState();
  if (state.comm == MPI_COMM_NULL) {
    ensureInitialized();
    check(MPI_Comm_dup(MPI_COMM_WORLD, &state.comm), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(state.comm, MPI_ERRORS_RETURN);
  }
  return state.comm;
}

/// FNV-1a, 64 bits.
uint64_t hashBytes(const char *bytes, size_t length) {
  uint64_t hash = 14695981039346656037ull;
  for (size_t i = 0; i < length; ++i) {
    hash ^= static_cast<unsigned char>(bytes[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

Fingerprint makeFingerprint(const std::string &what,
                            const std::string &where) {
  Fingerprint print;
  std::memset(&print, 0, sizeof(print));
  print.hash = hashBytes(what.data(), what.size());
  std::strncpy(print.what, what.c_str(), sizeof(print.what) - 1);
  std::strncpy(print.where, where.c_str(), sizeof(print.where) - 1);
  return print;
}

bool sameCollective(const Fingerprint &a, const Fingerprint &b) {
  return a.hash == b.hash &&
         std::strncmp(a.what, b.what, sizeof(a.what)) == 0;
}

/// `rank 3` or `ranks 0-2, 5`.
std::string formatRanks(const std::vector<int> &ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    if (i)
      text += ", ";
    text += std::to_string(ranks[i]);
    if (j > i)
      text += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

/// One line naming what each group of agreeing ranks is about to run.
std::string describeMismatch(uint64_t call,
                             const std::vector<Fingerprint> &all) {
  std::string text =
      "collective mismatch at collective #" + std::to_string(call) + ": ";
  std::vector<bool> done(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    if (done[r])
      continue;
    std::vector<int> ranks;
    for (size_t s = r; s < all.size(); ++s)
      if (!done[s] && sameCollective(all[r], all[s])) {
        done[s] = true;
        ranks.push_back(static_cast<int>(s));
      }
    if (r)
      text += "; ";
    text += formatRanks(ranks) + ": " + all[r].what;
    if (all[r].where[0])
      text += std::string(" (") + all[r].where + ")";
  }
  return text;
}

/// Exchanges this rank's fingerprint with all ranks; on a disagreement the
/// lowest rank reports it and ends the job.
void checkAgreement(const std::string &what, const std::string &where) {
  MPI_Comm comm = checkComm();
  uint64_t call = ++checkState().calls;
  Fingerprint mine = makeFingerprint(what, where);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<Fingerprint> all(size);
  check(MPI_Allgather(&mine, sizeof(Fingerprint), MPI_BYTE, all.data(),
                      sizeof(Fingerprint), MPI_BYTE, comm),
        "MPI_Allgather (collective agreement check)");
  if (std::all_of(all.begin(), all.end(), [&](const Fingerprint &other) {
        return sameCollective(all.front(), other);
      }))
    return;
  // Every rank sees the same fingerprints: rank 0 alone speaks, so the
  // message appears once, and ends the job.
  if (rank == 0) {
    std::fprintf(stderr, "trellis: %s\n", describeMismatch(call, all).c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  // The others wait for rank 0's abort, and end the job themselves should it
  // not come.
  std::this_thread::sleep_for(std::chrono::seconds(10));
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

std::string bufferText(StridedMemRefType<int8_t, 1> *text) {
  const char *bytes = reinterpret_cast<const char *>(text->data + text->offset);
  return std::string(bytes, static_cast<size_t>(text->sizes[0]));
}

} // namespace

void trellis::collectives::checkMpi(int rc, const char *call) {
  check(rc, call);
}

//===----------------------------------------------------------------------===//
// C entry points
//===----------------------------------------------------------------------===//

extern "C" {

void trellis_coll_init() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return;
  int provided;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) !=
      MPI_SUCCESS) {
    std::fprintf(stderr, "trellis: MPI_Init_thread failed\n");
    std::exit(1);
  }
  initializedHere = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

void trellis_coll_finalize() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initializedHere || !initialized || finalized)
    return;
  // A rank still about to run a collective meets this one here.
  if (checkState().comm != MPI_COMM_NULL) {
    checkAgreement("no further collective (the program ended)", "");
    MPI_Comm_free(&checkState().comm);
  }
  for (auto &entry : blockComms())
    if (entry.second != MPI_COMM_NULL)
      MPI_Comm_free(&entry.second);
  blockComms().clear();
  for (auto &entry : groupComms())
    MPI_Comm_free(&entry.second);
  groupComms().clear();
  MPI_Finalize();
}

void trellis_coll_abort(const char *message, int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  std::fprintf(stderr, "trellis: rank %d: %s\n", worldRank(), message);
  std::fflush(stderr);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

void trellis_coll_abort_if_initialized(int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, code);
}

void trellis_coll_enable_checks() { checkComm(); }

void _mlir_ciface_trellis_coll_check(StridedMemRefType<int8_t, 1> *what,
                                     StridedMemRefType<int8_t, 1> *where) {
  checkAgreement(bufferText(what), bufferText(where));
}

int64_t trellis_coll_axis_index() {
  ensureInitialized();
  return worldRank();
}

int64_t trellis_coll_axis_size() { return worldSize(); }

#define TRELLIS_COLL_DEFINE(SUFFIX, T)                                         \
  void _mlir_ciface_trellis_coll_psum_groups_##SUFFIX(                        \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize) {              \
    psumGroups(in, out, groups, groupSize);                                    \
  }                                                                            \
  void _mlir_ciface_trellis_coll_ppermute_##SUFFIX(                           \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *pairs) {                                  \
    ppermute(in, out, pairs);                                                  \
  }                                                                            \
  void _mlir_ciface_trellis_coll_all_gather_##SUFFIX(                         \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      int64_t numRanks) {                                                      \
    allGather(in, out, numRanks);                                              \
  }                                                                            \
  void _mlir_ciface_trellis_coll_adasum_##SUFFIX(                             \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize) {              \
    adasum(in, out, groups, groupSize);                                        \
  }
TRELLIS_COLL_DEFINE(f32, float)
TRELLIS_COLL_DEFINE(f64, double)
#undef TRELLIS_COLL_DEFINE

} // extern "C"

// Every collectives function of the table that the passes and the JIT read
// (RuntimeSymbols.def) is declared here under the symbol compiled code links
// against: an entry that the runtime does not have, or spells otherwise,
// does not compile.
[[maybe_unused]] static const void *const kRuntimeSymbolsTable[] = {
#define TRELLIS_COLL_FUNCTION(ID, NAME, PREFIX)                                \
  reinterpret_cast<const void *>(&PREFIX##NAME),
#include "trellis/ExecutionEngine/RuntimeSymbols.def"
};

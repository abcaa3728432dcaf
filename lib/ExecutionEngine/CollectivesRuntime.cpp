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
// MPI counts are ints: every collective gets from compiled code the most
// elements one MPI call may move (convert-coll-to-mpi's max-count, at most
// INT32_MAX) and moves longer buffers in pieces of that size.
//
// Agreement checks (convert-coll-to-mpi{check-agreement}): before each
// collective every rank contributes a fixed-size fingerprint of what it is
// about to run to one MPI_Iallgather on a communicator of their own. Because
// the fingerprint's size does not depend on the collective, ranks about to
// run different collectives still meet there, see the disagreement and end
// the job, instead of entering mismatched MPI calls (a hang, or a reduction
// of buffers of different sizes).
//
// Every communication is nonblocking and completed by waitAll
// (CollectiveTimeout.h): a rank waits at most the collective timeout for the
// others, then the job ends with one line naming the ranks that did not
// arrive.
//
//===----------------------------------------------------------------------===//

#include "trellis/ExecutionEngine/CollectivesRuntime.h"

#include "CollectiveTimeout.h"
#include "MpiCheck.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace trellis::collectives;

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

/// Ends the job unless `rc` is MPI_SUCCESS, naming the collective this rank
/// is in (CollectiveScope), `call` and MPI's error string.
void check(int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  const std::string &site = CollectiveScope::current();
  if (site.empty())
    fail("%s failed: %.*s", call, length, text);
  fail("%s: %s failed: %.*s", site.c_str(), call, length, text);
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

/// The number of elements of a 1-D buffer, which must be contiguous.
template <typename T>
int64_t count(StridedMemRefType<T, 1> *m, const char *op) {
  if (m->strides[0] != 1 && m->sizes[0] > 1)
    fail("%s: internal error: buffer is not contiguous", op);
  return m->sizes[0];
}

/// The most elements one MPI call may move, as compiled code passes it
/// (convert-coll-to-mpi's max-count): MPI counts are ints, so larger buffers
/// go in pieces.
int pieceLimit(int64_t maxCount, const char *op) {
  if (maxCount < 1 || maxCount > INT32_MAX)
    fail("%s: internal error: %lld is not a valid MPI count", op,
         static_cast<long long>(maxCount));
  return static_cast<int>(maxCount);
}

/// `count` elements clamped to a piece: between 0 and `limit`.
int pieceCount(int64_t count, int limit) {
  return static_cast<int>(std::clamp<int64_t>(count, 0, limit));
}

/// Calls `call(offset, count)` for the consecutive pieces of [0, n) of at
/// most `limit` elements (none for n = 0).
template <typename Fn> void forEachPiece(int64_t n, int limit, Fn call) {
  for (int64_t offset = 0; offset < n; offset += limit)
    call(offset, pieceCount(n - offset, limit));
}

template <typename T>
void send(const T *x, int64_t n, int to, int tag, MPI_Comm comm, int limit) {
  forEachPiece(n, limit, [&](int64_t offset, int c) {
    MPI_Request request;
    check(MPI_Isend(x + offset, c, mpiType<T>(), to, tag, comm, &request),
          "MPI_Isend");
    waitAll(1, &request, "MPI_Isend");
  });
}

template <typename T>
void receive(T *x, int64_t n, int from, int tag, MPI_Comm comm, int limit) {
  forEachPiece(n, limit, [&](int64_t offset, int c) {
    MPI_Request request;
    check(MPI_Irecv(x + offset, c, mpiType<T>(), from, tag, comm, &request),
          "MPI_Irecv");
    waitAll(1, &request, "MPI_Irecv");
  });
}

/// Sends `sendCount` elements to `partner` and receives `recvCount` from it,
/// in pieces of at most `limit`. The partner's counts are these swapped, so
/// both sides make the same number of calls.
template <typename T>
void sendReceive(const T *out, int64_t sendCount, T *in, int64_t recvCount,
                 int partner, int tag, MPI_Comm comm, int limit) {
  forEachPiece(std::max(sendCount, recvCount), limit, [&](int64_t offset, int) {
    MPI_Request requests[2];
    check(MPI_Irecv(in + std::min(offset, recvCount),
                    pieceCount(recvCount - offset, limit), mpiType<T>(),
                    partner, tag, comm, &requests[0]),
          "MPI_Irecv");
    check(MPI_Isend(out + std::min(offset, sendCount),
                    pieceCount(sendCount - offset, limit), mpiType<T>(),
                    partner, tag, comm, &requests[1]),
          "MPI_Isend");
    waitAll(2, requests, "MPI_Irecv/MPI_Isend");
  });
}

/// MPI_Comm_split, after a barrier with the timeout: the split itself
/// blocks, so every rank must have arrived first.
MPI_Comm split(MPI_Comm comm, int color, int key) {
  timedBarrier(comm);
  MPI_Comm result;
  check(MPI_Comm_split(comm, color, key, &result), "MPI_Comm_split");
  return result;
}

/// `coll.psum (model.mlir:3:8)`: the collective `op` at the source location
/// `where` (empty if unknown), as errors and timeouts name it.
std::string site(const char *op, const std::string &where) {
  return where.empty() ? std::string(op) : std::string(op) + " (" + where + ")";
}

std::string bufferText(StridedMemRefType<int8_t, 1> *text) {
  const char *bytes = reinterpret_cast<const char *>(text->data + text->offset);
  return std::string(bytes, static_cast<size_t>(text->sizes[0]));
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
  MPI_Comm comm = split(MPI_COMM_WORLD, color, position);
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
  MPI_Comm block = split(comm, color, rank);
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
void butterfly(T *x, int64_t n, MPI_Comm comm, int p, int limit) {
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
    sendReceive(x + sendLo, sendHi - sendLo, other.data(), keepHi - keepLo,
                partner, 7, comm, limit);
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
    MPI_Request request;
    check(MPI_Iallgather(mineDots, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE,
                         block, &request),
          "MPI_Iallgather");
    waitAll(1, &request, "MPI_Iallgather");
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
    sendReceive(x + myLo, myHi - myLo, x + theirLo, theirHi - theirLo, partner,
                11, comm, limit);
  }
}

template <typename T>
void adasum(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
            StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,
            int64_t maxCount) {
  int limit = pieceLimit(maxCount, "coll.adasum");
  MPI_Comm comm = groupComm(groups, groupSize, "coll.adasum");
  int64_t n = count(in, "coll.adasum");
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
    send(x, n, rank - p, 8, comm, limit);
    for (int level = 0; (1 << level) < p; ++level)
      blockComm(comm, p, level); // collective: every rank takes part
    receive(x, n, rank - p, 9, comm, limit);
    return;
  }
  bool hasExtra = rank + p < size;
  if (hasExtra) {
    std::vector<T> extra(n);
    receive(extra.data(), n, rank + p, 8, comm, limit);
    merge(x, extra.data(), x, n, dots(x, extra.data(), n));
  }
  butterfly(x, n, comm, p, limit);
  if (hasExtra)
    send(x, n, rank + p, 9, comm, limit);
}

//===----------------------------------------------------------------------===//
// psum with groups, ppermute, all_gather
//===----------------------------------------------------------------------===//

/// The sum over this rank's group; `op` names the collective in errors.
template <typename T>
MPI_Comm psumGroups(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
                    StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,
                    int64_t maxCount, const char *op) {
  int limit = pieceLimit(maxCount, op);
  MPI_Comm comm = groupComm(groups, groupSize, op);
  T *x = data(in), *y = data(out);
  forEachPiece(count(in, op), limit, [&](int64_t offset, int c) {
    MPI_Request request;
    check(MPI_Iallreduce(x + offset, y + offset, c, mpiType<T>(), MPI_SUM, comm,
                         &request),
          "MPI_Iallreduce");
    waitAll(1, &request, "MPI_Iallreduce");
  });
  return comm;
}

/// The sum over this rank's group divided by the group's size.
template <typename T>
void pmeanGroups(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
                 StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,
                 int64_t maxCount) {
  MPI_Comm comm =
      psumGroups(in, out, groups, groupSize, maxCount, "coll.pmean");
  int size;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  T divisor = static_cast<T>(size), *y = data(out);
  for (int64_t i = 0, e = out->sizes[0]; i < e; ++i)
    y[i] /= divisor;
}

//===----------------------------------------------------------------------===//
// Reductions in flight (coll.psum_start, coll.pmean_start, coll.wait)
//===----------------------------------------------------------------------===//

/// A started reduction: its MPI requests (one per piece), the buffer it
/// reduces in place, and what its wait must do after them.
struct PendingReduction {
  std::vector<MPI_Request> requests;
  const void *buffer;
  int64_t count;
  /// The group's size for a mean, 0 for a sum.
  int divisor;
};

/// Requests by number; numbers are never reused within a process.
struct PendingReductions {
  std::map<int64_t, PendingReduction> byId;
  int64_t next = 1;
};

PendingReductions &pendingReductions() {
  static PendingReductions pending;
  return pending;
}

/// Where the time of the started reductions goes, for TRELLIS_COLL_STATS:
/// the starts (packing excluded: compiled code copies) and the waits, whose
/// time is the communication the overlap did not hide (exposed).
struct ReductionTimes {
  int64_t starts = 0, waits = 0;
  double startSeconds = 0, waitSeconds = 0;
};

ReductionTimes &reductionTimes() {
  static ReductionTimes times;
  return times;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// With TRELLIS_COLL_STATS set (not to 0), one line per rank at the end of
/// the program: the starts and waits of coll.psum_start/pmean_start and the
/// time spent in them.
void printReductionTimes() {
  const char *flag = std::getenv("TRELLIS_COLL_STATS");
  const ReductionTimes &t = reductionTimes();
  if (!flag || !*flag || std::strcmp(flag, "0") == 0 || t.waits == 0)
    return;
  std::fprintf(stderr,
               "trellis: rank %d: reductions started %lld (%.3f ms), waited "
               "for %lld (exposed %.3f ms, %.1f us per wait)\n",
               worldRank(), static_cast<long long>(t.starts),
               t.startSeconds * 1e3, static_cast<long long>(t.waits),
               t.waitSeconds * 1e3, t.waitSeconds * 1e6 / t.waits);
  std::fflush(stderr);
}

template <typename T>
int64_t reduceStart(StridedMemRefType<T, 1> *buffer,
                    StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,
                    bool mean, int64_t maxCount, const char *op) {
  auto started = std::chrono::steady_clock::now();
  int limit = pieceLimit(maxCount, op);
  MPI_Comm comm = groupComm(groups, groupSize, op);
  PendingReduction pending;
  pending.buffer = data(buffer);
  pending.count = count(buffer, op);
  pending.divisor = 0;
  if (mean)
    check(MPI_Comm_size(comm, &pending.divisor), "MPI_Comm_size");
  T *x = data(buffer);
  forEachPiece(pending.count, limit, [&](int64_t offset, int c) {
    MPI_Request request;
    check(MPI_Iallreduce(MPI_IN_PLACE, x + offset, c, mpiType<T>(), MPI_SUM,
                         comm, &request),
          "MPI_Iallreduce");
    pending.requests.push_back(request);
  });
  PendingReductions &all = pendingReductions();
  int64_t id = all.next++;
  all.byId.emplace(id, std::move(pending));
  ReductionTimes &times = reductionTimes();
  ++times.starts;
  times.startSeconds += secondsSince(started);
  return id;
}

template <typename T>
void reduceWait(int64_t id, StridedMemRefType<T, 1> *buffer) {
  auto started = std::chrono::steady_clock::now();
  PendingReductions &all = pendingReductions();
  auto it = all.byId.find(id);
  if (it == all.byId.end())
    fail("coll.wait: internal error: request %lld was not started or was "
         "waited for already",
         static_cast<long long>(id));
  PendingReduction pending = std::move(it->second);
  all.byId.erase(it);
  if (pending.buffer != data(buffer) ||
      pending.count != count(buffer, "coll.wait"))
    fail("coll.wait: internal error: request %lld waits on another buffer "
         "than it started with",
         static_cast<long long>(id));
  if (!pending.requests.empty())
    waitAll(static_cast<int>(pending.requests.size()), pending.requests.data(),
            "MPI_Iallreduce");
  ReductionTimes &times = reductionTimes();
  ++times.waits;
  times.waitSeconds += secondsSince(started);
  if (!pending.divisor)
    return;
  T divisor = static_cast<T>(pending.divisor), *y = data(buffer);
  for (int64_t i = 0; i < pending.count; ++i)
    y[i] /= divisor;
}

template <typename T>
void ppermute(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
              StridedMemRefType<int64_t, 1> *pairs, int64_t maxCount) {
  int limit = pieceLimit(maxCount, "coll.ppermute");
  int size = worldSize(), rank = worldRank();
  int64_t n = count(in, "coll.ppermute");
  const int64_t *p = pairs->data + pairs->offset;
  int source = -1, destination = -1;
  int64_t highest = -1;
  for (int64_t i = 0; i + 1 < pairs->sizes[0]; i += 2) {
    if (p[i] >= size || p[i + 1] >= size)
      fail("coll.ppermute: the pair [%lld, %lld] names a rank the job does "
           "not have (%d ranks)",
           static_cast<long long>(p[i]), static_cast<long long>(p[i + 1]),
           size);
    highest = std::max({highest, p[i], p[i + 1]});
    if (p[i + 1] == rank)
      source = static_cast<int>(p[i]);
    if (p[i] == rank)
      destination = static_cast<int>(p[i + 1]);
  }
  // The pairs name ranks 0 ... highest: the program was written for
  // highest + 1 ranks, and ranks above would silently get zeros.
  if (highest >= 0 && highest + 1 != size)
    fail("coll.ppermute: the program was compiled for %lld ranks (its pairs) "
         "but the job has %d",
         static_cast<long long>(highest + 1), size);
  T *x = data(in), *y = data(out);
  if (source == rank) {
    std::memcpy(y, x, sizeof(T) * n);
    return;
  }
  if (source < 0)
    std::fill(y, y + n, T(0));
  // Post the receive and the send of a piece together so that no cycle can
  // deadlock.
  forEachPiece(n, limit, [&](int64_t offset, int c) {
    MPI_Request requests[2];
    int pending = 0;
    if (source >= 0)
      check(MPI_Irecv(y + offset, c, mpiType<T>(), source, 10, MPI_COMM_WORLD,
                      &requests[pending++]),
            "MPI_Irecv");
    if (destination >= 0)
      check(MPI_Isend(x + offset, c, mpiType<T>(), destination, 10,
                      MPI_COMM_WORLD, &requests[pending++]),
            "MPI_Isend");
    waitAll(pending, requests, "MPI_Irecv/MPI_Isend");
  });
}

/// Without `groups`, the ranks a tiled collective's shapes assume
/// (all_gather, psum_scatter) must be the job's; with them, the verifier
/// tied the shapes to the group size and groupComm checks the groups cover
/// the job.
/// `shapes` says which shapes ("its result shape").
void checkShapedRanks(StridedMemRefType<int64_t, 1> *groups, int64_t numRanks,
                      const char *op, const char *shapes) {
  if (groups->sizes[0] == 0 && numRanks != worldSize())
    fail("%s: the program was compiled for %lld ranks (%s) but the job has %d",
         op, static_cast<long long>(numRanks), shapes, worldSize());
}

/// This rank's block of the sum over its group (the world without groups):
/// `in` holds `numRanks` blocks of `out`'s size, in the order of the
/// group's ranks. MPI_Ireduce_scatter_block, or, for blocks above the piece
/// limit, each block's sum in pieces, block by block.
template <typename T>
void psumScatter(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
                 StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,
                 int64_t numRanks, int64_t maxCount) {
  const char *op = "coll.psum_scatter";
  int limit = pieceLimit(maxCount, op);
  MPI_Comm comm = groupComm(groups, groupSize, op);
  checkShapedRanks(groups, numRanks, op, "its shapes");
  int64_t n = count(out, op);
  T *x = data(in), *y = data(out);
  if (n <= limit) {
    MPI_Request request;
    check(MPI_Ireduce_scatter_block(x, y, static_cast<int>(n), mpiType<T>(),
                                    MPI_SUM, comm, &request),
          "MPI_Ireduce_scatter_block");
    waitAll(1, &request, "MPI_Ireduce_scatter_block");
    return;
  }
  // Above the limit: block by block, every rank taking part in each
  // block's sum; the block's owner keeps it, the others discard theirs.
  int position = 0;
  check(MPI_Comm_rank(comm, &position), "MPI_Comm_rank");
  std::vector<T> discarded(static_cast<size_t>(n));
  for (int64_t block = 0; block < numRanks; ++block) {
    T *target = block == position ? y : discarded.data();
    forEachPiece(n, limit, [&](int64_t offset, int c) {
      MPI_Request request;
      check(MPI_Iallreduce(x + block * n + offset, target + offset, c,
                           mpiType<T>(), MPI_SUM, comm, &request),
            "MPI_Iallreduce");
      waitAll(1, &request, "MPI_Iallreduce");
    });
  }
}

/// Within the communicator of `groups` (the world's without).
template <typename T>
void allGather(StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,
               StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,
               int64_t numRanks, int64_t maxCount) {
  int limit = pieceLimit(maxCount, "coll.all_gather");
  MPI_Comm comm = groupComm(groups, groupSize, "coll.all_gather");
  checkShapedRanks(groups, numRanks, "coll.all_gather", "its result shape");
  int64_t n = count(in, "coll.all_gather");
  T *x = data(in), *y = data(out);
  if (n <= limit) {
    MPI_Request request;
    check(MPI_Iallgather(x, static_cast<int>(n), mpiType<T>(), y,
                         static_cast<int>(n), mpiType<T>(), comm, &request),
          "MPI_Iallgather");
    waitAll(1, &request, "MPI_Iallgather");
    return;
  }
  // Piece by piece, each rank's piece received straight into its place: a
  // piece type whose extent is a whole rank's part (MPI_Aint, 64 bits).
  forEachPiece(n, limit, [&](int64_t offset, int c) {
    MPI_Datatype piece, spaced;
    check(MPI_Type_contiguous(c, mpiType<T>(), &piece), "MPI_Type_contiguous");
    check(MPI_Type_create_resized(
              piece, 0, static_cast<MPI_Aint>(n * sizeof(T)), &spaced),
          "MPI_Type_create_resized");
    check(MPI_Type_commit(&spaced), "MPI_Type_commit");
    MPI_Request request;
    check(MPI_Iallgather(x + offset, c, mpiType<T>(), y + offset, 1, spaced,
                         comm, &request),
          "MPI_Iallgather");
    waitAll(1, &request, "MPI_Iallgather");
    MPI_Type_free(&spaced);
    MPI_Type_free(&piece);
  });
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

/// Whether the checks are on, and the number of checks so far: every rank's
/// k-th check meets the others' k-th, so the count is the same on all ranks
/// at a meeting.
struct CheckState {
  bool enabled = false;
  uint64_t calls = 0;
};

CheckState &checkState() {
  static CheckState state;
  return state;
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

Fingerprint makeFingerprint(const std::string &what, const std::string &where) {
  Fingerprint print;
  std::memset(&print, 0, sizeof(print));
  print.hash = hashBytes(what.data(), what.size());
  std::strncpy(print.what, what.c_str(), sizeof(print.what) - 1);
  std::strncpy(print.where, where.c_str(), sizeof(print.where) - 1);
  return print;
}

bool sameCollective(const Fingerprint &a, const Fingerprint &b) {
  return a.hash == b.hash && std::strncmp(a.what, b.what, sizeof(a.what)) == 0;
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

/// Exchanges this rank's fingerprint with all ranks (on the runtime's
/// communicator, within the timeout plus `extraSeconds`); on a disagreement
/// the lowest rank reports it and ends the job.
void checkAgreement(const std::string &what, const std::string &where,
                    double extraSeconds = 0) {
  ensureInitialized();
  MPI_Comm comm = getRuntimeComm();
  uint64_t call = ++checkState().calls;
  Fingerprint mine = makeFingerprint(what, where);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<Fingerprint> all(size);
  {
    // Compiled code's checks name their collective; a host's, or the end of
    // the program, are in a scope of their own already.
    std::optional<CollectiveScope> scope;
    if (CollectiveScope::current().empty())
      scope.emplace(site(what.c_str(), where));
    MPI_Request request;
    check(MPI_Iallgather(&mine, sizeof(Fingerprint), MPI_BYTE, all.data(),
                         sizeof(Fingerprint), MPI_BYTE, comm, &request),
          "MPI_Iallgather (collective agreement check)");
    waitAll(1, &request, "MPI_Iallgather (collective agreement check)",
            extraSeconds);
  }
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

} // namespace

void trellis::collectives::checkMpi(int rc, const char *call) {
  check(rc, call);
}

void trellis::collectives::checkHostCollective(const char *what,
                                               double extraSeconds) {
  if (checkState().enabled)
    checkAgreement(what, "", extraSeconds);
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
  int provided, rc;
  {
    // MPI_Init waits for every rank. They arrive at different times (each
    // starts, and trellis-run compiles, first): the timeout plus twice this
    // rank's own time so far.
    CallWatchdog watchdog("MPI_Init",
                          "a rank did not start, or stopped or hung before "
                          "it joined the job",
                          launcherRank(), 2 * secondsSinceLoad());
    rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "trellis: MPI_Init_thread failed\n");
    std::exit(1);
  }
  initializedHere = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  // All ranks are here: the runtime's own communicator is made now.
  getRuntimeComm();
}

void trellis_coll_finalize() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initializedHere || !initialized || finalized)
    return;
  printReductionTimes();
  {
    // A rank still about to run a collective meets this one here, and sees
    // what it does (the check) or at least where it waits (the barrier,
    // within the timeout; MPI_Finalize would block without one).
    CollectiveScope scope("the end of the program");
    if (checkState().enabled)
      checkAgreement("no further collective (the program ended)", "");
    else
      timedBarrier(getRuntimeComm());
  }
  freeRuntimeComm();
  for (auto &entry : blockComms())
    if (entry.second != MPI_COMM_NULL)
      MPI_Comm_free(&entry.second);
  blockComms().clear();
  for (auto &entry : groupComms())
    MPI_Comm_free(&entry.second);
  groupComms().clear();
  CallWatchdog watchdog("MPI_Finalize",
                        "a rank stopped or hung after the end of the program",
                        worldRank());
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

void trellis_coll_enable_checks() {
  ensureInitialized();
  getRuntimeComm();
  checkState().enabled = true;
}

void trellis_coll_set_timeout(double seconds) { setTimeout(seconds); }

void _mlir_ciface_trellis_coll_check(StridedMemRefType<int8_t, 1> *what,
                                     StridedMemRefType<int8_t, 1> *where) {
  checkAgreement(bufferText(what), bufferText(where));
}

void _mlir_ciface_trellis_coll_check_result(
    int32_t rc, StridedMemRefType<int8_t, 1> *call) {
  if (rc != MPI_SUCCESS)
    check(rc, bufferText(call).c_str());
}

int64_t trellis_coll_axis_index() {
  ensureInitialized();
  return worldRank();
}

int64_t trellis_coll_axis_size() { return worldSize(); }

#define TRELLIS_COLL_DEFINE(SUFFIX, T)                                         \
  void _mlir_ciface_trellis_coll_psum_groups_##SUFFIX(                         \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t maxCount, StridedMemRefType<int8_t, 1> *where) {                 \
    CollectiveScope scope(site("coll.psum", bufferText(where)));               \
    psumGroups(in, out, groups, groupSize, maxCount, "coll.psum");             \
  }                                                                            \
  void _mlir_ciface_trellis_coll_pmean_groups_##SUFFIX(                        \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t maxCount, StridedMemRefType<int8_t, 1> *where) {                 \
    CollectiveScope scope(site("coll.pmean", bufferText(where)));              \
    pmeanGroups(in, out, groups, groupSize, maxCount);                         \
  }                                                                            \
  void _mlir_ciface_trellis_coll_ppermute_##SUFFIX(                            \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *pairs, int64_t maxCount,                  \
      StridedMemRefType<int8_t, 1> *where) {                                   \
    CollectiveScope scope(site("coll.ppermute", bufferText(where)));           \
    ppermute(in, out, pairs, maxCount);                                        \
  }                                                                            \
  void _mlir_ciface_trellis_coll_all_gather_##SUFFIX(                          \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t numRanks, int64_t maxCount,                                      \
      StridedMemRefType<int8_t, 1> *where) {                                   \
    CollectiveScope scope(site("coll.all_gather", bufferText(where)));         \
    allGather(in, out, groups, groupSize, numRanks, maxCount);                 \
  }                                                                            \
  void _mlir_ciface_trellis_coll_psum_scatter_##SUFFIX(                        \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t numRanks, int64_t maxCount,                                      \
      StridedMemRefType<int8_t, 1> *where) {                                   \
    CollectiveScope scope(site("coll.psum_scatter", bufferText(where)));       \
    psumScatter(in, out, groups, groupSize, numRanks, maxCount);               \
  }                                                                            \
  void _mlir_ciface_trellis_coll_adasum_##SUFFIX(                              \
      StridedMemRefType<T, 1> *in, StridedMemRefType<T, 1> *out,               \
      StridedMemRefType<int64_t, 1> *groups, int64_t groupSize,                \
      int64_t maxCount, StridedMemRefType<int8_t, 1> *where) {                 \
    CollectiveScope scope(site("coll.adasum", bufferText(where)));             \
    adasum(in, out, groups, groupSize, maxCount);                              \
  }                                                                            \
  int64_t _mlir_ciface_trellis_coll_reduce_start_##SUFFIX(                     \
      StridedMemRefType<T, 1> *buffer, StridedMemRefType<int64_t, 1> *groups,  \
      int64_t groupSize, int64_t mean, int64_t maxCount,                       \
      StridedMemRefType<int8_t, 1> *where) {                                   \
    const char *op = mean ? "coll.pmean_start" : "coll.psum_start";            \
    CollectiveScope scope(site(op, bufferText(where)));                        \
    return reduceStart(buffer, groups, groupSize, mean != 0, maxCount, op);    \
  }                                                                            \
  void _mlir_ciface_trellis_coll_reduce_wait_##SUFFIX(                         \
      int64_t request, StridedMemRefType<T, 1> *buffer,                        \
      StridedMemRefType<int8_t, 1> *where) {                                   \
    CollectiveScope scope(site("coll.wait", bufferText(where)));               \
    reduceWait(request, buffer);                                               \
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

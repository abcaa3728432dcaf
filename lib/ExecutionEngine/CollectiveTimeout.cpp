//===- CollectiveTimeout.cpp - Waits for the other ranks, bounded ---------===//
//
// A wait spins on MPI_Testall for its first 10 ms (peers usually arrive
// within them, and a nonblocking collective progresses only while it is
// tested: sleeping would slow down every large one), then sleeps between
// tests for a pause that grows with the time waited, up to 1 ms: a rank
// waiting for a stopped peer then uses a few per cent of a core instead of
// all of it (OpenMPI's blocking calls poll without pause), and a collective
// whose peers arrive late completes at most 1 ms after they do.
//
// When a wait passes the timeout, the rank asks every other rank (a
// question on the runtime's communicator); ranks waiting in the runtime
// serve questions between their tests and answer with their collective and
// whether their own wait has timed out. After a second of answers:
//
// * a rank that did not answer has not arrived;
// * the lowest rank that has timed out reports (one line, MPI_Abort), after
//   telling the others so; a rank that knows of a lower one that has timed
//   out (it asked or answered so), or of a report, leaves the report to it,
//   and reports itself only if the job is still running 5 s later;
// * if the collective completes meanwhile (the late rank arrives), the wait
//   simply returns: a late answer is dropped by its inquiry number.
//
//===----------------------------------------------------------------------===//

#include "CollectiveTimeout.h"

#include "MpiCheck.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

using namespace trellis::collectives;

namespace {

using Clock = std::chrono::steady_clock;

/// Waits shorter than this spin; longer ones pause between tests.
constexpr double kSpinSeconds = 0.01;
/// The longest pause between two tests of a wait.
constexpr double kMaxPauseSeconds = 0.001;
/// How long a timed-out rank collects the other ranks' answers.
constexpr double kAnswerSeconds = 1.0;
/// How long a rank that left the report to a lower rank waits for the job
/// to end before reporting itself.
constexpr double kDeferredSeconds = 5.0;

/// How much longer than rank r - 1 the watchdog of rank r waits (up to rank
/// 10): the launcher ends the job after the first rank's exit.
constexpr double kWatchdogStaggerSeconds = 1.0;

const Clock::time_point loadedAt = Clock::now();
double timeoutSeconds = kDefaultTimeoutSeconds;
std::string currentSite;
MPI_Comm runtimeComm = MPI_COMM_NULL;
uint64_t inquiries = 0;

enum Tag : int { kQuestionTag = 1, kAnswerTag = 2, kReportTag = 3 };

/// Set when another rank has told this one that it reports a timeout: the
/// job is ending.
bool reportedElsewhere = false;

/// An answer to a question: what the answering rank is waiting in.
struct Answer {
  /// The question's inquiry number, echoed.
  uint64_t inquiry;
  /// Nonzero if the answering rank's own wait has passed the timeout.
  int32_t timedOut;
  char site[244];
};
static_assert(sizeof(Answer) == 256, "fixed-size MPI message");

/// Questions and answers in flight, with the bytes they send.
struct PendingSend {
  MPI_Request request;
  std::vector<char> bytes;
};
std::vector<PendingSend> pendingSends;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int rankIn(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int sizeOf(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

void send(int to, int tag, const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  PendingSend pending{MPI_REQUEST_NULL, std::vector<char>(bytes, bytes + size)};
  checkMpi(MPI_Isend(pending.bytes.data(), static_cast<int>(size), MPI_BYTE, to,
                     tag, runtimeComm, &pending.request),
           "MPI_Isend (collective timeout)");
  pendingSends.push_back(std::move(pending));
}

/// Forgets the sends that have completed.
void reapSends() {
  for (size_t i = 0; i < pendingSends.size();) {
    int done = 0;
    MPI_Test(&pendingSends[i].request, &done, MPI_STATUS_IGNORE);
    if (done) {
      pendingSends.erase(pendingSends.begin() + i);
      continue;
    }
    ++i;
  }
}

/// The state of one waitAll.
struct Wait {
  Clock::time_point start = Clock::now();
  /// The longest it may take (seconds; 0: no limit).
  double limit;
  /// What this rank waits in, as it answers questions.
  std::string site;
  bool timedOut = false;
  /// Once timed out: this rank's inquiry, when it asked, and what it knows.
  uint64_t inquiry = 0;
  Clock::time_point askedAt;
  std::vector<bool> answered;
  std::vector<std::string> sites;
  /// Ranks known to have timed out themselves (they asked, or answered so).
  std::vector<bool> peerTimedOut;
  bool deferred = false;
  Clock::time_point deferredAt;

  Wait(double limit, std::string site) : limit(limit), site(std::move(site)) {}
};

/// Answers the questions that have arrived and records the answers to this
/// rank's own inquiry.
void serveQuestions(Wait &wait) {
  if (runtimeComm == MPI_COMM_NULL)
    return;
  size_t size = static_cast<size_t>(sizeOf(runtimeComm));
  if (wait.peerTimedOut.size() != size) {
    wait.answered.assign(size, false);
    wait.sites.assign(size, "");
    wait.peerTimedOut.assign(size, false);
  }
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    checkMpi(
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, runtimeComm, &arrived, &status),
        "MPI_Iprobe (collective timeout)");
    if (!arrived)
      break;
    int from = status.MPI_SOURCE;
    if (status.MPI_TAG == kQuestionTag) {
      uint64_t inquiry = 0;
      checkMpi(MPI_Recv(&inquiry, 1, MPI_UINT64_T, from, kQuestionTag,
                        runtimeComm, MPI_STATUS_IGNORE),
               "MPI_Recv (collective timeout)");
      wait.peerTimedOut[from] = true;
      Answer answer;
      std::memset(&answer, 0, sizeof(answer));
      answer.inquiry = inquiry;
      answer.timedOut = wait.timedOut;
      std::strncpy(answer.site, wait.site.c_str(), sizeof(answer.site) - 1);
      send(from, kAnswerTag, &answer, sizeof(answer));
      continue;
    }
    if (status.MPI_TAG == kReportTag) {
      checkMpi(MPI_Recv(nullptr, 0, MPI_BYTE, from, kReportTag, runtimeComm,
                        MPI_STATUS_IGNORE),
               "MPI_Recv (collective timeout)");
      reportedElsewhere = true;
      continue;
    }
    Answer answer;
    checkMpi(MPI_Recv(&answer, sizeof(answer), MPI_BYTE, from, kAnswerTag,
                      runtimeComm, MPI_STATUS_IGNORE),
             "MPI_Recv (collective timeout)");
    // An answer to an earlier inquiry, whose wait has completed, is stale.
    if (wait.inquiry == 0 || answer.inquiry != wait.inquiry)
      continue;
    wait.answered[from] = true;
    wait.sites[from] =
        std::string(answer.site, strnlen(answer.site, sizeof(answer.site)));
    if (answer.timedOut)
      wait.peerTimedOut[from] = true;
  }
  reapSends();
}

std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", seconds);
  return text;
}

/// The line of a timeout: the ranks that did not answer, then the others
/// grouped by what they wait in.
std::string describeTimeout(const Wait &wait) {
  int self = rankIn(runtimeComm), size = sizeOf(runtimeComm);
  std::vector<int> missing;
  std::vector<std::pair<std::string, std::vector<int>>> waiting;
  for (int r = 0; r < size; ++r) {
    if (r != self && !wait.answered[r]) {
      missing.push_back(r);
      continue;
    }
    const std::string &site = r == self ? wait.site : wait.sites[r];
    auto it =
        std::find_if(waiting.begin(), waiting.end(),
                     [&](const auto &group) { return group.first == site; });
    if (it == waiting.end())
      waiting.push_back({site, {r}});
    else
      it->second.push_back(r);
  }
  std::string text = "collective timeout: ";
  std::string within = formatSeconds(wait.limit) + " s";
  if (!missing.empty())
    text += formatRanks(missing) + " did not arrive within " + within + "; ";
  else
    text += "every rank waits, but their collectives did not complete "
            "within " +
            within + "; ";
  for (size_t i = 0; i < waiting.size(); ++i) {
    const auto &[site, ranks] = waiting[i];
    if (i)
      text += "; ";
    text += formatRanks(ranks) + (ranks.size() == 1 ? " waits" : " wait") +
            " at " + site;
  }
  return text;
}

/// Tells the other ranks that this one reports (so that they do not print
/// a line of their own while the abort reaches them), then reports.
[[noreturn]] void reportTimeout(const std::string &line) {
  if (runtimeComm != MPI_COMM_NULL) {
    int self = rankIn(runtimeComm), size = sizeOf(runtimeComm);
    for (int r = 0; r < size; ++r)
      if (r != self)
        send(r, kReportTag, nullptr, 0);
  }
  std::fprintf(stderr, "trellis: %s\n", line.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

/// One step of a wait past its limit: ask, then decide, then (if the report
/// was left to a lower rank) wait for the end of the job.
void handleTimeout(Wait &wait) {
  if (runtimeComm == MPI_COMM_NULL)
    reportTimeout("rank " + std::to_string(rankIn(MPI_COMM_WORLD)) +
                  ": collective timeout: waited " + formatSeconds(wait.limit) +
                  " s at " + wait.site + " for the other ranks");
  int self = rankIn(runtimeComm), size = sizeOf(runtimeComm);
  if (!wait.timedOut) {
    wait.timedOut = true;
    wait.inquiry = ++inquiries;
    wait.askedAt = Clock::now();
    for (int r = 0; r < size; ++r)
      if (r != self)
        send(r, kQuestionTag, &wait.inquiry, sizeof(wait.inquiry));
    return;
  }
  if (wait.deferred) {
    if (secondsSince(wait.deferredAt) >= kDeferredSeconds)
      reportTimeout(describeTimeout(wait));
    return;
  }
  if (secondsSince(wait.askedAt) < kAnswerSeconds)
    return;
  bool lowerTimedOut =
      std::any_of(wait.peerTimedOut.begin(), wait.peerTimedOut.begin() + self,
                  [](bool timedOut) { return timedOut; });
  if (!lowerTimedOut && !reportedElsewhere)
    reportTimeout(describeTimeout(wait));
  wait.deferred = true;
  wait.deferredAt = Clock::now();
}

/// Sleeps between two tests of a wait that has lasted `waited` seconds.
void pause(double waited) {
  if (waited < kSpinSeconds)
    return;
  double seconds = std::min(kMaxPauseSeconds, waited / 50);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

} // namespace

void trellis::collectives::setTimeout(double seconds) {
  timeoutSeconds = seconds > 0 ? seconds : 0;
}

double trellis::collectives::getTimeout() { return timeoutSeconds; }

CollectiveScope::CollectiveScope(std::string site)
    : previous(std::exchange(currentSite, std::move(site))) {}

CollectiveScope::~CollectiveScope() { currentSite = std::move(previous); }

const std::string &CollectiveScope::current() { return currentSite; }

MPI_Comm trellis::collectives::getRuntimeComm() {
  if (runtimeComm != MPI_COMM_NULL)
    return runtimeComm;
  MPI_Comm comm;
  MPI_Request request;
  checkMpi(MPI_Comm_idup(MPI_COMM_WORLD, &comm, &request), "MPI_Comm_idup");
  waitAll(1, &request, "MPI_Comm_idup");
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  runtimeComm = comm;
  return runtimeComm;
}

void trellis::collectives::freeRuntimeComm() {
  if (runtimeComm == MPI_COMM_NULL)
    return;
  reapSends();
  // Answers are small (sent eagerly); any still pending go unwatched.
  for (PendingSend &pending : pendingSends)
    MPI_Request_free(&pending.request);
  pendingSends.clear();
  MPI_Comm_free(&runtimeComm);
}

void trellis::collectives::waitAll(int count, MPI_Request *requests,
                                   const char *call, double extraSeconds) {
  int done = 0;
  checkMpi(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE), call);
  if (done)
    return;
  const std::string &scope = CollectiveScope::current();
  Wait wait(timeoutSeconds > 0 ? timeoutSeconds + extraSeconds : 0,
            scope.empty() ? call : scope);
  for (;;) {
    checkMpi(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE), call);
    if (done)
      return;
    double waited = secondsSince(wait.start);
    if (waited < kSpinSeconds)
      continue;
    serveQuestions(wait);
    if (wait.limit > 0 && waited >= wait.limit)
      handleTimeout(wait);
    pause(waited);
  }
}

void trellis::collectives::timedBarrier(MPI_Comm comm, double extraSeconds) {
  MPI_Request request;
  checkMpi(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
  waitAll(1, &request, "MPI_Ibarrier", extraSeconds);
}

CallWatchdog::CallWatchdog(std::string call, std::string cause, int rank,
                           double extraSeconds) {
  if (timeoutSeconds <= 0)
    return;
  double limit = timeoutSeconds + extraSeconds +
                 kWatchdogStaggerSeconds * std::min(std::max(rank, 0), 10);
  thread = std::thread([this, call = std::move(call), cause = std::move(cause),
                        rank, limit] {
    std::unique_lock<std::mutex> lock(mutex);
    if (finished.wait_for(lock, std::chrono::duration<double>(limit),
                          [this] { return done; }))
      return;
    std::fprintf(stderr,
                 "trellis: rank %d: collective timeout: %s did not complete "
                 "within the timeout of %s s (waited %.1f s); %s\n",
                 rank, call.c_str(), formatSeconds(timeoutSeconds).c_str(),
                 limit, cause.c_str());
    std::fflush(stderr);
    // Not exit: the atexit handlers would call MPI, which is mid-call.
    std::_Exit(1);
  });
}

CallWatchdog::~CallWatchdog() {
  if (!thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  finished.notify_one();
  thread.join();
}

int trellis::collectives::launcherRank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char *value = std::getenv(name);
    char *end = nullptr;
    if (!value || !*value)
      continue;
    long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank <= INT32_MAX)
      return static_cast<int>(rank);
  }
  return 0;
}

double trellis::collectives::secondsSinceLoad() {
  return secondsSince(loadedAt);
}

std::string trellis::collectives::formatRanks(const std::vector<int> &ranks) {
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

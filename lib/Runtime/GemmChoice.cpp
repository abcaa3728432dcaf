//===- GemmChoice.cpp - The host's f32 GEMM library, by measurement -------===//

#include "GemmChoice.h"

#include "CompileCache.h"
#include "RuntimeError.h"
#include "RuntimeLibraries.h"
#include "trellis/Runtime/Files.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <dlfcn.h>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

using namespace trellis;
using namespace trellis::runtime;

/// The layout of a choice file and what its name covers; bump it whenever
/// either changes.
static constexpr int64_t kChoiceFormat = 8; // 8: three short GEMMs

namespace {
// The two entry points, as the libraries declare them (dnnl.h, cblas.h).
using DnnlSgemm = int (*)(char, char, int64_t, int64_t, int64_t, float,
                          const float *, int64_t, const float *, int64_t, float,
                          float *, int64_t);
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float *,
                            int, const float *, int, float, float *, int);
using GetThreads = int (*)();
constexpr int kCblasRowMajor = 101, kCblasNoTrans = 111, kCblasTrans = 112;

template <typename F> F lookupSymbol(const char *name) {
  return reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
}
} // namespace

/// Passes over kMeasuredGemms; each GEMM's best rate counts.
static constexpr int kMeasurePasses = 3;

/// GFLOP/s of `gemm` (one M×N×K call), best of 5 timings of enough calls
/// for about 40 MFLOP each, after one call to warm up.
template <typename Call>
static double measureRate(const std::array<int64_t, 3> &shape, Call gemm) {
  double flops = 2.0 * shape[0] * shape[1] * shape[2];
  int64_t calls = std::max<int64_t>(1, static_cast<int64_t>(4e7 / flops));
  gemm();
  double best = std::numeric_limits<double>::infinity();
  for (int round = 0; round < 5; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < calls; ++i)
      gemm();
    std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / calls);
  }
  return flops / best / 1e9;
}

void trellis::runtime::judgeGemmRates(GemmMeasurement &measurement) {
  const unsigned cblas = static_cast<unsigned>(GemmLibrary::Cblas);
  const unsigned dnnl = static_cast<unsigned>(GemmLibrary::Dnnl);
  const unsigned large = static_cast<unsigned>(GemmClass::Large);
  for (unsigned lib : {cblas, dnnl})
    measurement.sick[lib] =
        !(measurement.gflops[lib][large] > 0 &&
          measurement.gflops[lib][large] >=
              kSickGemmFraction * measurement.gflops[1 - lib][large]);
  if (measurement.sick[cblas] && measurement.sick[dnnl])
    measurement.sick = {false, false};
  auto choose = [&](GemmClass c) {
    unsigned i = static_cast<unsigned>(c);
    bool useCblas = measurement.sick[dnnl] ||
                    (!measurement.sick[cblas] &&
                     measurement.gflops[cblas][i] >
                         kGemmChoiceMargin * measurement.gflops[dnnl][i]);
    return useCblas ? GemmLibrary::Cblas : GemmLibrary::Dnnl;
  };
  measurement.choice = {choose(GemmClass::Small), choose(GemmClass::Medium),
                        choose(GemmClass::Large), choose(GemmClass::Thin),
                        choose(GemmClass::Short), choose(GemmClass::Narrow)};
  // Each form in the library its class goes to.
  auto formRate = [&](unsigned form) {
    GemmLibrary library =
        measurement.choice.get(kOrientationGemms[form].gemmClass);
    return measurement.orientationGflops[form][static_cast<unsigned>(library)];
  };
  measurement.choice.transposeShort =
      formRate(0) > 0 && formRate(1) > kGemmChoiceMargin * formRate(0);
}

/// Keeps both cores (every thread of both pools) busy for about 0.1 s
/// before a measurement on more than one thread: on a VM a core that was
/// idle ran the first 30-40 ms of a 2-thread GEMM loop at half speed
/// (oneDNN 1024² on Zen 5: 180-290 GFLOP/s for 7 calls, then ~390), longer
/// than the whole timing of a class.
template <typename Call> static void wakeCores(Call gemm) {
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start <
         std::chrono::milliseconds(100))
    gemm();
}

/// Loads the libraries the JIT would (at `options`' paths, LLVM's OpenMP
/// runtime before oneDNN) and returns the threads each would run on: what
/// their own defaults and the variables read when they loaded
/// (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, set from TRELLIS_NUM_THREADS)
/// give. An error if neither library is there.
static llvm::Expected<GemmThreads>
loadGemmLibraries(const CompileOptions &options) {
  llvm::Expected<std::string> dnnlPath =
      findGemmLibrary(GemmLibrary::Dnnl, options);
  llvm::Expected<std::string> blasPath =
      findGemmLibrary(GemmLibrary::Cblas, options);
  std::vector<std::string> libraries;
  if (dnnlPath) {
    // As the JIT loads them: LLVM's OpenMP runtime serves oneDNN's threads.
    if (std::string omp = getOpenMPLibrary(); !omp.empty())
      libraries.push_back(omp);
    libraries.push_back(*dnnlPath);
  }
  if (blasPath)
    libraries.push_back(*blasPath);
  if (!dnnlPath && !blasPath) {
    llvm::consumeError(blasPath.takeError());
    return dnnlPath.takeError();
  }
  llvm::consumeError(dnnlPath ? llvm::Error::success() : dnnlPath.takeError());
  llvm::consumeError(blasPath ? llvm::Error::success() : blasPath.takeError());
  if (llvm::Error err = loadLibrariesForever(libraries))
    return std::move(err);
  GemmThreads threads;
  if (auto get = lookupSymbol<GetThreads>("omp_get_max_threads"))
    threads.openmp = get();
  if (auto get = lookupSymbol<GetThreads>("openblas_get_num_threads"))
    threads.openblas = get();
  return threads;
}

/// Times each of kMeasuredGemms in the libraries loadGemmLibraries loaded,
/// on the `threads` they run on (best of 5, each GEMM's best of
/// kMeasurePasses passes; on more than one thread, after 0.1 s of GEMMs that
/// wake the cores), and chooses.
static GemmMeasurement measureLoadedLibraries(GemmThreads threads) {
  GemmMeasurement result;
  result.threads = threads;
  auto dnnl = lookupSymbol<DnnlSgemm>("dnnl_sgemm");
  auto cblas = lookupSymbol<CblasSgemm>("cblas_sgemm");
  // One set of operands for every GEMM, as large as the largest needs.
  int64_t sizeA = 0, sizeB = 0, sizeC = 0;
  for (const MeasuredGemm &gemm : llvm::concat<const MeasuredGemm>(
           kMeasuredGemms, llvm::ArrayRef(kOrientationGemms[1]))) {
    sizeA = std::max(sizeA, gemm.m * gemm.k);
    sizeB = std::max(sizeB, gemm.k * gemm.n);
    sizeC = std::max(sizeC, gemm.m * gemm.n);
  }
  std::vector<float> a(sizeA, 0.5f), b(sizeB, 0.25f), out(sizeC, 0.0f);
  if (threads.openmp > 1 || threads.openblas > 1) {
    constexpr int64_t n = 512; // within every operand (the cube is measured)
    wakeCores([&] {
      if (dnnl)
        dnnl('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
             out.data(), n);
      if (cblas)
        cblas(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, n, n, n, 1.0f,
              a.data(), n, b.data(), n, 0.0f, out.data(), n);
    });
  }
  // `gemm`'s rate in each library, kept if better than `best`'s.
  auto measureBoth = [&](const MeasuredGemm &gemm,
                         std::array<double, 2> &best) {
    auto [gemmClass, m, n, k, transA, transB] = gemm;
    int64_t lda = transA ? m : k, ldb = transB ? k : n;
    auto keep = [&](GemmLibrary library, double gflops) {
      double &rate = best[static_cast<unsigned>(library)];
      rate = std::max(rate, gflops);
    };
    if (cblas)
      keep(GemmLibrary::Cblas, measureRate({m, n, k}, [&] {
             cblas(kCblasRowMajor, transA ? kCblasTrans : kCblasNoTrans,
                   transB ? kCblasTrans : kCblasNoTrans, m, n, k, 1.0f,
                   a.data(), lda, b.data(), ldb, 0.0f, out.data(), n);
           }));
    if (dnnl)
      keep(GemmLibrary::Dnnl, measureRate({m, n, k}, [&] {
             dnnl(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, 1.0f,
                  a.data(), lda, b.data(), ldb, 0.0f, out.data(), n);
           }));
  };
  // Per GEMM and library, the best rate of kMeasurePasses passes over all
  // the GEMMs: a pass takes ~0.3 s, so a few hundred ms of a busy host or a
  // slow core do not decide a choice that is kept for good. The direct form
  // of the short products is a class's GEMM already; only the transposed
  // one is timed apart.
  std::array<std::array<double, 2>, kMeasuredGemms.size()> best{};
  for (int pass = 0; pass < kMeasurePasses; ++pass) {
    for (auto [index, gemm] : llvm::enumerate(kMeasuredGemms))
      measureBoth(gemm, best[index]);
    measureBoth(kOrientationGemms[1], result.orientationGflops[1]);
  }
  result.orientationGflops[0] = best[kDirectFormIndex];
  // Per library and class: flops and seconds, summed over its GEMMs.
  std::array<std::array<double, kNumGemmClasses>, 2> flops{}, seconds{};
  for (auto [index, gemm] : llvm::enumerate(kMeasuredGemms)) {
    unsigned c = static_cast<unsigned>(gemm.gemmClass);
    double gemmFlops = 2.0 * gemm.m * gemm.n * gemm.k;
    for (unsigned lib = 0; lib < 2; ++lib) {
      if (best[index][lib] <= 0)
        continue;
      flops[lib][c] += gemmFlops;
      seconds[lib][c] += gemmFlops / (best[index][lib] * 1e9);
    }
  }
  for (unsigned lib = 0; lib < 2; ++lib)
    for (unsigned c = 0; c < kNumGemmClasses; ++c)
      result.gflops[lib][c] =
          seconds[lib][c] > 0 ? flops[lib][c] / seconds[lib][c] / 1e9 : 0;
  judgeGemmRates(result);
  return result;
}

/// The size and modification time of `path`, so that a library replaced in
/// place is measured again.
static std::string describeFile(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (path.empty() || llvm::sys::fs::status(path, status))
    return path + ":missing";
  return path + ":" + std::to_string(status.getSize()) + ":" +
         std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
}

std::string trellis::runtime::getGemmChoicePath(const CompileOptions &options,
                                                GemmThreads threads) {
  if (options.tuningDir.empty())
    return "";
  std::string libraries[2];
  for (GemmLibrary library : {GemmLibrary::Cblas, GemmLibrary::Dnnl}) {
    llvm::Expected<std::string> path = findGemmLibrary(library, options);
    libraries[static_cast<unsigned>(library)] =
        path ? *path : (llvm::consumeError(path.takeError()), std::string());
  }
  std::string identity;
  llvm::raw_string_ostream os(identity);
  os << "format " << kChoiceFormat << "\ncpu " << llvm::sys::getHostCPUName()
     << "\nfeatures " << getHostCPUFeatures() << "\ncblas "
     << describeFile(libraries[0]) << "\ndnnl " << describeFile(libraries[1])
     << "\nomp " << describeFile(getOpenMPLibrary()) << "\nthreads "
     << threads.openmp << " " << threads.openblas << "\nvariables\n"
     << options.gemmKernelVariables;
  std::string digest = llvm::toHex(
      llvm::SHA256::hash(llvm::arrayRefFromStringRef(identity)), true);
  return options.tuningDir + "/gemm-choice-" + digest.substr(0, 16) + ".json";
}

/// Parses a library's name in a choice file.
static std::optional<GemmLibrary>
parseLibrary(std::optional<llvm::StringRef> name) {
  if (name == "dnnl")
    return GemmLibrary::Dnnl;
  if (name == "cblas")
    return GemmLibrary::Cblas;
  return std::nullopt;
}

static llvm::StringRef stringifyLibrary(GemmLibrary library) {
  return library == GemmLibrary::Dnnl ? "dnnl" : "cblas";
}

/// The choice the file at `path` holds, if it is a whole one.
static std::optional<GemmChoice> readChoice(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file)
    return std::nullopt;
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*file)->getBuffer());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Object *choice =
      root && root->getInteger("format") == kChoiceFormat
          ? root->getObject("choice")
          : nullptr;
  if (!choice)
    return std::nullopt;
  std::optional<GemmLibrary> small = parseLibrary(choice->getString("small"));
  std::optional<GemmLibrary> medium = parseLibrary(choice->getString("medium"));
  std::optional<GemmLibrary> large = parseLibrary(choice->getString("large"));
  std::optional<GemmLibrary> thin = parseLibrary(choice->getString("thin"));
  std::optional<GemmLibrary> shortRows =
      parseLibrary(choice->getString("short"));
  std::optional<GemmLibrary> narrow = parseLibrary(choice->getString("narrow"));
  std::optional<bool> transposeShort = choice->getBoolean("transpose_short");
  if (!small || !medium || !large || !thin || !shortRows || !narrow ||
      !transposeShort)
    return std::nullopt;
  return GemmChoice{*small,     *medium, *large,         *thin,
                    *shortRows, *narrow, *transposeShort};
}

/// Writes `measurement` to `path` (writeFile: a temporary file renamed over
/// it); false if it cannot.
static bool writeChoice(const std::string &path,
                        const GemmMeasurement &measurement,
                        llvm::StringRef kernelVariables) {
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    llvm::json::OStream json(os, /*IndentSize=*/2);
    json.object([&] {
      json.attribute("format", kChoiceFormat);
      json.attribute("cpu", llvm::sys::getHostCPUName());
      // The libraries' kernel variables the measurement ran under (one file
      // per setting), for the reader.
      json.attributeObject("variables", [&] {
        llvm::SmallVector<llvm::StringRef> lines;
        kernelVariables.split(lines, '\n', -1, /*KeepEmpty=*/false);
        for (llvm::StringRef line : lines) {
          auto [name, value] = line.split('=');
          json.attribute(name, value);
        }
      });
      // The threads the libraries ran on (one file per count).
      json.attributeObject("threads", [&] {
        json.attribute("openmp", measurement.threads.openmp);
        json.attribute("openblas", measurement.threads.openblas);
      });
      json.attributeObject("gflops", [&] {
        for (GemmLibrary library : {GemmLibrary::Dnnl, GemmLibrary::Cblas})
          json.attributeObject(stringifyLibrary(library), [&] {
            for (unsigned c = 0; c < kNumGemmClasses; ++c)
              json.attribute(
                  stringifyGemmClass(static_cast<GemmClass>(c)),
                  measurement.gflops[static_cast<unsigned>(library)][c]);
          });
      });
      // The short products' two forms (kOrientationGemms).
      json.attributeObject("orientation_gflops", [&] {
        for (auto [form, name] : llvm::enumerate(
                 std::array<llvm::StringRef, 2>{"direct", "transposed"}))
          json.attributeObject(name, [&] {
            for (GemmLibrary library : {GemmLibrary::Dnnl, GemmLibrary::Cblas})
              json.attribute(
                  stringifyLibrary(library),
                  measurement
                      .orientationGflops[form][static_cast<unsigned>(library)]);
          });
      });
      json.attributeArray("sick", [&] {
        for (GemmLibrary library : {GemmLibrary::Dnnl, GemmLibrary::Cblas})
          if (measurement.sick[static_cast<unsigned>(library)])
            json.value(stringifyLibrary(library));
      });
      json.attributeObject("choice", [&] {
        for (GemmClass c :
             {GemmClass::Small, GemmClass::Medium, GemmClass::Large,
              GemmClass::Thin, GemmClass::Short, GemmClass::Narrow})
          json.attribute(stringifyGemmClass(c),
                         stringifyLibrary(measurement.choice.get(c)));
        json.attribute("transpose_short", measurement.choice.transposeShort);
      });
    });
    os << "\n";
  }
  if (llvm::Error err = writeFile(path, text)) {
    llvm::consumeError(std::move(err));
    return false;
  }
  return true;
}

GemmChoice trellis::runtime::getHostGemmChoice(const CompileOptions &options) {
  if (options.tuningDir.empty())
    return options.sgemm;
  // The threads the libraries run on pick the file, and only the libraries
  // know them (OMP_NUM_THREADS lists, affinity masks, OpenBLAS's build-time
  // cap): they are loaded here, once per process, as the JIT would load them
  // for a module that calls them.
  llvm::Expected<GemmThreads> threads = loadGemmLibraries(options);
  if (!threads) {
    llvm::consumeError(threads.takeError());
    return options.sgemm;
  }
  std::string path = getGemmChoicePath(options, *threads);
  // Once per file and process.
  static std::mutex mutex;
  static llvm::StringMap<GemmChoice> known;
  std::lock_guard<std::mutex> guard(mutex);
  if (auto it = known.find(path); it != known.end())
    return it->second;
  if (std::optional<GemmChoice> kept = readChoice(path))
    return known[path] = *kept;

  // Measure under an exclusive lock of the directory's lock file: a second
  // process waits, then reads the first's result.
  if (llvm::sys::fs::create_directories(options.tuningDir))
    return options.sgemm;
  int lockFd;
  std::string lockPath = options.tuningDir + "/gemm-choice.lock";
  if (llvm::sys::fs::openFileForWrite(lockPath, lockFd,
                                      llvm::sys::fs::CD_OpenAlways))
    return options.sgemm;
  llvm::scope_exit closeLock(
      [&] { llvm::sys::Process::SafelyCloseFileDescriptor(lockFd); });
  if (llvm::sys::fs::lockFile(lockFd))
    return options.sgemm;
  llvm::scope_exit unlock([&] { (void)llvm::sys::fs::unlockFile(lockFd); });
  if (std::optional<GemmChoice> kept = readChoice(path))
    return known[path] = *kept;
  // The libraries are loaded (above).
  GemmMeasurement measured = measureLoadedLibraries(*threads);
  if (!writeChoice(path, measured, options.gemmKernelVariables))
    return options.sgemm;
  return known[path] = measured.choice;
}

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

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

using namespace trellis;
using namespace trellis::runtime;

/// The layout of a choice file and what its name covers; bump it whenever
/// either changes.
static constexpr int64_t kChoiceFormat = 9; // 9: a table of GEMM shapes

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

/// Passes over the GEMMs measured at once; each GEMM's best rate counts.
static constexpr int kMeasurePasses = 3;

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

GemmLibrary trellis::runtime::judgeShapeRates(GemmLibrary classLibrary,
                                              std::array<double, 2> gflops,
                                              std::array<bool, 2> sick) {
  unsigned own = static_cast<unsigned>(classLibrary), other = 1 - own;
  if (!sick[other] && gflops[other] > kGemmChoiceMargin * gflops[own])
    return static_cast<GemmLibrary>(other);
  return classLibrary;
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

namespace {
/// Times f32 GEMMs in the libraries loadGemmLibraries loaded, on the
/// threads they run on, with operands as large as the largest GEMM needs.
class GemmTimer {
public:
  explicit GemmTimer(llvm::ArrayRef<GemmShape> shapes)
      : dnnl(lookupSymbol<DnnlSgemm>("dnnl_sgemm")),
        cblas(lookupSymbol<CblasSgemm>("cblas_sgemm")) {
    // The cube wakeCores runs lies within every operand too.
    int64_t sizeA = kWakeSize * kWakeSize, sizeB = sizeA, sizeC = sizeA;
    for (const GemmShape &shape : shapes) {
      sizeA = std::max(sizeA, shape.m * shape.k);
      sizeB = std::max(sizeB, shape.k * shape.n);
      sizeC = std::max(sizeC, shape.m * shape.n);
    }
    // Without exceptions: an allocation that fails leaves the timer empty.
    a.reset(static_cast<float *>(std::malloc(sizeA * sizeof(float))));
    b.reset(static_cast<float *>(std::malloc(sizeB * sizeof(float))));
    out.reset(static_cast<float *>(std::malloc(sizeC * sizeof(float))));
    if (!allocated())
      return;
    std::fill_n(a.get(), sizeA, 0.5f);
    std::fill_n(b.get(), sizeB, 0.25f);
    std::fill_n(out.get(), sizeC, 0.0f);
  }

  /// False if the operands could not be allocated: nothing is measured.
  bool allocated() const { return a && b && out; }

  /// Keeps both cores (every thread of both pools) busy for about 0.1 s
  /// before a measurement on more than one thread: on a VM a core that was
  /// idle ran the first 30-40 ms of a 2-thread GEMM loop at half speed
  /// (oneDNN 1024² on Zen 5: 180-290 GFLOP/s for 7 calls, then ~390),
  /// longer than the whole timing of a class.
  void wakeCores() {
    constexpr int64_t n = kWakeSize;
    auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start <
           std::chrono::milliseconds(100)) {
      if (dnnl)
        dnnl('N', 'N', n, n, n, 1.0f, a.get(), n, b.get(), n, 0.0f, out.get(),
             n);
      if (cblas)
        cblas(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, n, n, n, 1.0f,
              a.get(), n, b.get(), n, 0.0f, out.get(), n);
    }
  }

  /// Raises `best` (GFLOP/s, GemmLibrary's order) to `shape`'s rate in each
  /// library, if higher: the best of 5 timings of enough calls for about
  /// 40 MFLOP each, after one call to warm up. A missing library stays 0.
  void measure(const GemmShape &shape, std::array<double, 2> &best) {
    auto [m, n, k, transA, transB] = shape;
    int64_t lda = transA ? m : k, ldb = transB ? k : n;
    auto keep = [&](GemmLibrary library, auto gemm) {
      double &rate = best[static_cast<unsigned>(library)];
      rate = std::max(rate, measureRate(shape, gemm));
    };
    if (cblas)
      keep(GemmLibrary::Cblas, [&] {
        cblas(kCblasRowMajor, transA ? kCblasTrans : kCblasNoTrans,
              transB ? kCblasTrans : kCblasNoTrans, m, n, k, 1.0f, a.get(), lda,
              b.get(), ldb, 0.0f, out.get(), n);
      });
    if (dnnl)
      keep(GemmLibrary::Dnnl, [&] {
        dnnl(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, 1.0f, a.get(),
             lda, b.get(), ldb, 0.0f, out.get(), n);
      });
  }

  /// The rates of `shapes`, each the best of kMeasurePasses passes over all
  /// of them (a pass of the class measurement takes ~0.3 s, so that a few
  /// hundred ms of a busy host or a slow core do not decide a choice that is
  /// kept for good), after waking the cores if `threads` has more than one;
  /// none if the operands could not be allocated.
  std::optional<std::vector<std::array<double, 2>>>
  measureAll(llvm::ArrayRef<GemmShape> shapes, GemmThreads threads) {
    if (!allocated())
      return std::nullopt;
    if (threads.openmp > 1 || threads.openblas > 1)
      wakeCores();
    std::vector<std::array<double, 2>> best(shapes.size());
    for (int pass = 0; pass < kMeasurePasses; ++pass)
      for (auto [shape, rates] : llvm::zip(shapes, best))
        measure(shape, rates);
    return best;
  }

private:
  static constexpr int64_t kWakeSize = 512;

  template <typename Call>
  static double measureRate(const GemmShape &shape, Call gemm) {
    double flops = 2.0 * shape.m * shape.n * shape.k;
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

  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  DnnlSgemm dnnl;
  CblasSgemm cblas;
  std::unique_ptr<float[], Free> a, b, out;
};
} // namespace

/// Times each of kMeasuredGemms and the transposed orientation form in the
/// libraries loadGemmLibraries loaded, on the `threads` they run on
/// (GemmTimer::measureAll), and chooses; none if nothing could be measured.
static std::optional<GemmMeasurement>
measureLoadedLibraries(GemmThreads threads) {
  GemmMeasurement result;
  result.threads = threads;
  // The direct form of the short products is a class's GEMM already; only
  // the transposed one is timed apart.
  llvm::SmallVector<GemmShape> shapes;
  for (const MeasuredGemm &gemm : kMeasuredGemms)
    shapes.push_back(gemm.shape);
  shapes.push_back(kOrientationGemms[1].shape);
  std::optional<std::vector<std::array<double, 2>>> measured =
      GemmTimer(shapes).measureAll(shapes, threads);
  if (!measured)
    return std::nullopt;
  const std::vector<std::array<double, 2>> &best = *measured;
  for (auto [shape, rates] : llvm::zip(shapes, best))
    result.shapeGflops.emplace_back(shape, rates);
  result.orientationGflops[0] = best[kDirectFormIndex];
  result.orientationGflops[1] = best.back();
  // Per library and class: flops and seconds, summed over its GEMMs.
  std::array<std::array<double, kNumGemmClasses>, 2> flops{}, seconds{};
  for (auto [index, gemm] : llvm::enumerate(kMeasuredGemms)) {
    unsigned c = static_cast<unsigned>(gemm.gemmClass);
    double gemmFlops = 2.0 * gemm.shape.m * gemm.shape.n * gemm.shape.k;
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

/// What a choice file's name covers: the host, the two libraries, their
/// kernel variables and threads; a digest of them names the files.
static std::string getTuningDigest(const CompileOptions &options,
                                   GemmThreads threads) {
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
  return digest.substr(0, 16);
}

/// `<tuning dir>/gemm-<kind>-<digest>.json`; empty without a directory.
static std::string getTuningFilePath(const CompileOptions &options,
                                     GemmThreads threads,
                                     llvm::StringRef kind) {
  if (options.tuningDir.empty())
    return "";
  return (options.tuningDir + "/gemm-" + kind + "-" +
          getTuningDigest(options, threads) + ".json")
      .str();
}

std::string trellis::runtime::getGemmChoicePath(const CompileOptions &options,
                                                GemmThreads threads) {
  return getTuningFilePath(options, threads, "choice");
}

std::string trellis::runtime::getGemmShapesPath(const CompileOptions &options,
                                                GemmThreads threads) {
  return getTuningFilePath(options, threads, "shapes");
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

/// The JSON object of the file at `path` if it is one in the current
/// format.
static std::optional<llvm::json::Object> readTuningFile(llvm::StringRef path) {
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
  llvm::json::Object *root = parsed->getAsObject();
  if (!root || root->getInteger("format") != kChoiceFormat)
    return std::nullopt;
  return std::move(*root);
}

namespace {
/// What a choice file keeps that compiles use.
struct KeptChoice {
  GemmChoice choice;
  /// The libraries found sick (GemmLibrary's order): no shape goes to them.
  std::array<bool, 2> sick{};
};
} // namespace

/// The choice the file at `path` holds, if it is a whole one.
static std::optional<KeptChoice> readChoice(const std::string &path) {
  std::optional<llvm::json::Object> root = readTuningFile(path);
  const llvm::json::Object *choice = root ? root->getObject("choice") : nullptr;
  const llvm::json::Array *sickList = root ? root->getArray("sick") : nullptr;
  if (!choice || !sickList)
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
  KeptChoice kept{GemmChoice{*small, *medium, *large, *thin, *shortRows,
                             *narrow, *transposeShort}};
  for (const llvm::json::Value &name : *sickList) {
    std::optional<GemmLibrary> library = parseLibrary(name.getAsString());
    if (!library)
      return std::nullopt;
    kept.sick[static_cast<unsigned>(*library)] = true;
  }
  return kept;
}

namespace {
/// A shapes file: the rates of each GEMM shape measured on the host, under
/// an id made when the file was (GemmShapeChooser::id).
struct ShapeTable {
  std::string id;
  /// GFLOP/s per library (GemmLibrary's order), by GemmShape::str().
  std::map<std::string, std::array<double, 2>> gflops;
};
} // namespace

/// The table the file at `path` holds, if it is a whole one.
static std::optional<ShapeTable> readShapeTable(const std::string &path) {
  std::optional<llvm::json::Object> root = readTuningFile(path);
  std::optional<llvm::StringRef> id =
      root ? root->getString("id") : std::nullopt;
  const llvm::json::Object *gflops = root ? root->getObject("gflops") : nullptr;
  if (!id || id->empty() || !gflops)
    return std::nullopt;
  ShapeTable table{id->str(), {}};
  for (const auto &[shape, rates] : *gflops) {
    const llvm::json::Object *byLibrary = rates.getAsObject();
    std::optional<double> dnnl =
        byLibrary ? byLibrary->getNumber("dnnl") : std::nullopt;
    std::optional<double> cblas =
        byLibrary ? byLibrary->getNumber("cblas") : std::nullopt;
    if (!dnnl || !cblas)
      return std::nullopt;
    std::array<double, 2> &kept = table.gflops[shape.str()];
    kept[static_cast<unsigned>(GemmLibrary::Dnnl)] = *dnnl;
    kept[static_cast<unsigned>(GemmLibrary::Cblas)] = *cblas;
  }
  return table;
}

/// Writes `table` to `path` (writeFile: a temporary file renamed over it);
/// false if it cannot.
static bool writeShapeTable(const std::string &path, const ShapeTable &table) {
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    llvm::json::OStream json(os, /*IndentSize=*/2);
    json.object([&] {
      json.attribute("format", kChoiceFormat);
      json.attribute("id", table.id);
      // M×N×K and the forms of A and B (n: as stored, t: transposed), as a
      // row-major call takes them.
      json.attributeObject("gflops", [&] {
        for (const auto &[shape, rates] : table.gflops)
          json.attributeObject(shape, [&] {
            for (GemmLibrary library : {GemmLibrary::Dnnl, GemmLibrary::Cblas})
              json.attribute(stringifyLibrary(library),
                             rates[static_cast<unsigned>(library)]);
          });
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

/// A new table's id: 16 random hex digits.
static std::string makeTableId() {
  std::random_device device;
  uint64_t bits = (uint64_t(device()) << 32) | device();
  return llvm::utohexstr(bits, /*LowerCase=*/true, /*Width=*/16);
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

namespace {
/// The exclusive lock of a tuning directory's lock file (created with the
/// directory if missing), held while this lives: the processes of a host
/// measure one after the other, and the second reads the first's result.
class TuningLock {
public:
  explicit TuningLock(const std::string &dir) {
    if (llvm::sys::fs::create_directories(dir) ||
        llvm::sys::fs::openFileForWrite(dir + "/gemm-choice.lock", fd,
                                        llvm::sys::fs::CD_OpenAlways))
      return;
    locked = !llvm::sys::fs::lockFile(fd);
  }
  ~TuningLock() {
    if (locked)
      (void)llvm::sys::fs::unlockFile(fd);
    if (fd >= 0)
      llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  }
  TuningLock(const TuningLock &) = delete;
  TuningLock &operator=(const TuningLock &) = delete;

  bool held() const { return locked; }

private:
  int fd = -1;
  bool locked = false;
};
} // namespace

/// Adds to `table` (the one kept at `path`) the rates of those of `shapes`
/// it lacks: the file's, if another process measured them since, else
/// measured on `threads` and written back, under the directory's lock.
/// Nothing is added if the file is no longer that table (measured anew
/// since) or cannot be written: a rate that is not kept does not choose.
static void completeShapeTable(const std::string &dir, const std::string &path,
                               GemmThreads threads,
                               llvm::ArrayRef<GemmShape> shapes,
                               ShapeTable &table) {
  auto missing = [&] {
    llvm::SmallVector<GemmShape> lacking;
    for (const GemmShape &shape : shapes)
      if (isMeasurableShape(shape) && !table.gflops.count(shape.str()))
        lacking.push_back(shape);
    return lacking;
  };
  if (missing().empty())
    return;
  TuningLock lock(dir);
  if (!lock.held())
    return;
  std::optional<ShapeTable> kept = readShapeTable(path);
  if (!kept || kept->id != table.id)
    return;
  table = std::move(*kept);
  llvm::SmallVector<GemmShape> lacking = missing();
  if (lacking.empty())
    return;
  // The libraries are loaded (getHostGemmTuning).
  std::optional<std::vector<std::array<double, 2>>> rates =
      GemmTimer(lacking).measureAll(lacking, threads);
  if (!rates)
    return;
  ShapeTable grown = table;
  for (auto [shape, rate] : llvm::zip(lacking, *rates))
    grown.gflops[shape.str()] = rate;
  if (writeShapeTable(path, grown))
    table = std::move(grown);
}

/// The chooser of `table`, kept at `path`: each shape goes to the library
/// judgeShapeRates picks from its rates (measured the first time a module
/// has it), or, if they cannot be kept, to its class's. The table stays in
/// memory: the file is read again only for a shape it lacks.
static GemmShapeChooser makeShapeChooser(std::string dir, std::string path,
                                         ShapeTable table, GemmThreads threads,
                                         std::array<bool, 2> sick) {
  GemmShapeChooser chooser;
  chooser.id = table.id;
  auto shared = std::make_shared<ShapeTable>(std::move(table));
  chooser.choose = [=](llvm::ArrayRef<GemmShape> shapes,
                       llvm::ArrayRef<GemmLibrary> classLibraries) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> guard(mutex);
    completeShapeTable(dir, path, threads, shapes, *shared);
    llvm::SmallVector<GemmLibrary> libraries(classLibraries);
    for (auto [shape, library] : llvm::zip(shapes, libraries)) {
      auto rates = shared->gflops.find(shape.str());
      if (rates != shared->gflops.end())
        library = judgeShapeRates(library, rates->second, sick);
    }
    return libraries;
  };
  return chooser;
}

HostGemmTuning
trellis::runtime::getHostGemmTuning(const CompileOptions &options) {
  HostGemmTuning given{options.sgemm, {}};
  if (options.tuningDir.empty())
    return given;
  // The threads the libraries run on pick the file, and only the libraries
  // know them (OMP_NUM_THREADS lists, affinity masks, OpenBLAS's build-time
  // cap): they are loaded here, once per process, as the JIT would load them
  // for a module that calls them.
  llvm::Expected<GemmThreads> threads = loadGemmLibraries(options);
  if (!threads) {
    llvm::consumeError(threads.takeError());
    return given;
  }
  std::string choicePath = getGemmChoicePath(options, *threads);
  std::string shapesPath = getGemmShapesPath(options, *threads);
  // Once per file and process.
  static std::mutex mutex;
  static llvm::StringMap<HostGemmTuning> known;
  std::lock_guard<std::mutex> guard(mutex);
  if (auto it = known.find(choicePath); it != known.end())
    return it->second;
  std::optional<KeptChoice> kept = readChoice(choicePath);
  std::optional<ShapeTable> table = readShapeTable(shapesPath);
  if (!kept || !table) {
    TuningLock lock(options.tuningDir);
    if (!lock.held())
      return given;
    kept = readChoice(choicePath);
    table = readShapeTable(shapesPath);
    if (!kept) {
      // The libraries are loaded (above). A new measurement starts a new
      // table, with the rates of the GEMMs it timed.
      std::optional<GemmMeasurement> measured =
          measureLoadedLibraries(*threads);
      if (!measured ||
          !writeChoice(choicePath, *measured, options.gemmKernelVariables))
        return given;
      kept = KeptChoice{measured->choice, measured->sick};
      table = ShapeTable{makeTableId(), {}};
      for (const auto &[shape, rates] : measured->shapeGflops)
        table->gflops[shape.str()] = rates;
      if (!writeShapeTable(shapesPath, *table))
        return given;
    } else if (!table) {
      table = ShapeTable{makeTableId(), {}};
      if (!writeShapeTable(shapesPath, *table))
        return given;
    }
  }
  return known[choicePath] = HostGemmTuning{
             kept->choice,
             makeShapeChooser(options.tuningDir, shapesPath, std::move(*table),
                              *threads, kept->sick)};
}

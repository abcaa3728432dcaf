//===- CompileCache.cpp - Object code kept across runs --------------------===//

#include "CompileCache.h"

#include "Optimizer.h"
#include "RuntimeError.h"
#include "trellis/Runtime/Files.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <dlfcn.h>
#include <limits>
#include <mutex>

#if defined(__linux__)
#include <elf.h>
#include <link.h>
#endif

using namespace trellis;
using namespace trellis::runtime;

/// The layout of the files of an entry and of what the key covers. Bump it
/// whenever either changes, so that older entries become misses.
static constexpr int64_t kCacheFormat = 3; // 3: per-shape GEMM choices

#ifndef TRELLIS_BUILD_VERSION
#define TRELLIS_BUILD_VERSION "unknown"
#endif

bool trellis::runtime::usesCompileCache(const CompileOptions &options) {
  // A shape chooser without an id cannot be told from another.
  return !options.cacheDir.empty() && !options.profile &&
         options.dumpLLVMIR.empty() &&
         (!options.sgemmShapes || !options.sgemmShapes.id.empty());
}

//===----------------------------------------------------------------------===//
// The key
//===----------------------------------------------------------------------===//

namespace {
/// A stream into a SHA-256.
class HashStream final : public llvm::raw_ostream {
public:
  explicit HashStream(llvm::SHA256 &hash) : hash(hash) {}
  ~HashStream() override { flush(); }

  /// Writes `name` and `value`, each with its length, so that no two
  /// sequences of fields write the same bytes.
  void field(llvm::StringRef name, llvm::StringRef value) {
    *this << name.size() << ':' << name << '=' << value.size() << ':' << value
          << '\n';
  }
  void field(llvm::StringRef name, int64_t value) {
    field(name, llvm::StringRef(std::to_string(value)));
  }

private:
  void write_impl(const char *ptr, size_t size) override {
    hash.update(llvm::StringRef(ptr, size));
    position += size;
  }
  uint64_t current_pos() const override { return position; }

  llvm::SHA256 &hash;
  uint64_t position = 0;
};
} // namespace

#if defined(__linux__)
/// The GNU build ID (hex) of the loaded ELF object that contains `address`,
/// or "" if it has none.
static std::string findBuildId(const void *address) {
  struct Search {
    uintptr_t address;
    std::string buildId;
  } search{reinterpret_cast<uintptr_t>(address), ""};
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) -> int {
        auto *search = static_cast<Search *>(data);
        llvm::ArrayRef<ElfW(Phdr)> headers(info->dlpi_phdr, info->dlpi_phnum);
        bool contains = llvm::any_of(headers, [&](const ElfW(Phdr) & header) {
          uintptr_t start = info->dlpi_addr + header.p_vaddr;
          return header.p_type == PT_LOAD && search->address >= start &&
                 search->address < start + header.p_memsz;
        });
        if (!contains)
          return 0;
        for (const ElfW(Phdr) & header : headers) {
          if (header.p_type != PT_NOTE)
            continue;
          const char *note =
              reinterpret_cast<const char *>(info->dlpi_addr + header.p_vaddr);
          const char *end = note + header.p_memsz;
          while (note + sizeof(ElfW(Nhdr)) <= end) {
            const auto *nhdr = reinterpret_cast<const ElfW(Nhdr) *>(note);
            const char *name = note + sizeof(ElfW(Nhdr));
            const char *desc = name + llvm::alignTo(nhdr->n_namesz, 4);
            if (desc + nhdr->n_descsz > end)
              break;
            if (nhdr->n_type == NT_GNU_BUILD_ID && nhdr->n_namesz == 4 &&
                llvm::StringRef(name, 4) == llvm::StringRef("GNU", 4)) {
              search->buildId = llvm::toHex(
                  llvm::StringRef(desc, nhdr->n_descsz), /*LowerCase=*/true);
              return 1;
            }
            note = desc + llvm::alignTo(nhdr->n_descsz, 4);
          }
        }
        return 1;
      },
      &search);
  return search.buildId;
}
#endif

/// What tells this Trellis binary from another: the GNU build ID of the
/// executable or library this code is linked into (the linker's hash of its
/// contents), else a SHA-256 of that file. The CMake version and commit
/// alone would not see a rebuild of changed, uncommitted sources.
static llvm::StringRef getBinaryIdentity() {
  static const std::string identity = []() -> std::string {
    const void *self = reinterpret_cast<const void *>(&getBinaryIdentity);
#if defined(__linux__)
    std::string buildId = findBuildId(self);
    if (!buildId.empty())
      return "build-id:" + buildId;
#endif
    Dl_info info;
    if (::dladdr(self, &info) && info.dli_fname)
      if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
              llvm::MemoryBuffer::getFile(info.dli_fname, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false))
        return "sha256:" +
               llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(
                               (*file)->getBuffer())),
                           /*LowerCase=*/true);
    // Unknown: no entry can be told apart from another build's, so none is
    // shared with any other process.
    return "unknown:" + std::to_string(reinterpret_cast<uintptr_t>(self));
  }();
  return identity;
}

std::string trellis::runtime::getHostCPUFeatures() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  llvm::SmallVector<std::string> sorted;
  for (const auto &feature : features)
    sorted.push_back((feature.getValue() ? "+" : "-") + feature.getKey().str());
  llvm::sort(sorted);
  return llvm::join(sorted, ",");
}

/// The host: its triple, CPU and CPU features (what detectHost() gives the
/// JIT's target machine).
static void hashHost(HashStream &os) {
  os.field("triple", llvm::sys::getProcessTriple());
  os.field("cpu", llvm::sys::getHostCPUName());
  os.field("features", getHostCPUFeatures());
}

/// Every field of CompileOptions that decides the code. The fields are bound
/// by position: a new field breaks the build here (the number of names no
/// longer matches) until it is hashed, or named as not affecting the code,
/// so that two compiles that differ in it cannot share an entry.
static void hashOptions(HashStream &os, const CompileOptions &options) {
  const auto &[attentionChunk, checkCollectives, remat, gradientReduction,
               sgemm, sgemmShapes, transposeShortFlag, parallelLoops, profile,
               pipeline, verifyEachPass, measureGemmLibraries, tuningDir,
               gemmKernelVariables, optLevel, targetCpu, vectorMath,
               outlineLoops, compileThreads, dumpLLVMIR, sharedLibPaths,
               blasLibraryPath, dnnlLibraryPath, cacheDir] = options;
  os.field("attentionChunk", attentionChunk);
  os.field("checkCollectives", checkCollectives);
  const auto &[policy, every, budget] = remat;
  os.field("remat.policy", static_cast<int64_t>(policy));
  os.field("remat.every", every);
  os.field("remat.budget", budget);
  os.field("gradientReduction", gradientReduction.has_value());
  if (gradientReduction) {
    const auto &[reduce, batchNorm, weightShards, ranks, bucketBytes] =
        *gradientReduction;
    os.field("gradientReduction.reduce", static_cast<int64_t>(reduce));
    os.field("gradientReduction.batchNorm", static_cast<int64_t>(batchNorm));
    os.field("gradientReduction.weightShards", weightShards);
    os.field("gradientReduction.ranks", ranks);
    os.field("gradientReduction.bucketBytes", bucketBytes.value_or(-1));
  }
  // The choice itself (the JIT has replaced a measured one by the host's).
  const auto &[sgemmSmall, sgemmMedium, sgemmLarge, sgemmThin, sgemmShort,
               sgemmNarrow, transposeShort] = sgemm;
  os.field("sgemm.small", static_cast<int64_t>(sgemmSmall));
  os.field("sgemm.medium", static_cast<int64_t>(sgemmMedium));
  os.field("sgemm.large", static_cast<int64_t>(sgemmLarge));
  os.field("sgemm.thin", static_cast<int64_t>(sgemmThin));
  os.field("sgemm.short", static_cast<int64_t>(sgemmShort));
  os.field("sgemm.narrow", static_cast<int64_t>(sgemmNarrow));
  // The per-shape choices by the table they come from (shapes measured
  // later are added to it; a kept rate never changes).
  os.field("sgemm.shapes", sgemmShapes ? sgemmShapes.id : std::string());
  // The form the pipeline takes: the flag's over the measured one.
  os.field("transposeShort", transposeShortFlag.value_or(transposeShort));
  (void)measureGemmLibraries;
  (void)tuningDir;
  (void)gemmKernelVariables;
  os.field("parallelLoops", parallelLoops);
  // Never on here (usesCompileCache), hashed all the same.
  os.field("profile", profile);
  os.field("pipeline", pipeline);
  // Verification checks the code, it does not change it.
  (void)verifyEachPass;
  os.field("optLevel", optLevel);
  os.field("targetCpu", targetCpu);
  os.field("vectorMath", vectorMath);
  os.field("outlineLoops", outlineLoops);
  // Not the code's: how many threads generate it, where the IR is dumped
  // (never here) and the cache.
  (void)compileThreads;
  (void)dumpLLVMIR;
  (void)cacheDir;
  os.field("sharedLibPaths", static_cast<int64_t>(sharedLibPaths.size()));
  for (const std::string &path : sharedLibPaths)
    os.field("sharedLibPath", path);
  os.field("blasLibraryPath", blasLibraryPath);
  os.field("dnnlLibraryPath", dnnlLibraryPath);
}

std::string
trellis::runtime::computeCompileCacheKey(mlir::ModuleOp module,
                                         llvm::ArrayRef<std::string> entryNames,
                                         const CompileOptions &options) {
  llvm::SHA256 hash;
  {
    HashStream os(hash);
    os.field("format", kCacheFormat);
    os.field("trellis", TRELLIS_BUILD_VERSION);
    os.field("binary", getBinaryIdentity());
    os.field("llvm", LLVM_VERSION_STRING);
    hashHost(os);
    hashOptions(os, options);
    // Whether the vectorizer may call libmvec depends on finding it.
    os.field("vectorMathLibrary", vectorMathLibraryPath());
    os.field("entries", static_cast<int64_t>(entryNames.size()));
    for (const std::string &name : entryNames)
      os.field("entry", name);
    // The module in full: generic form, no locations, nothing elided
    // whatever the command line asks of the printer.
    mlir::OpPrintingFlags flags;
    flags.printGenericOpForm()
        .enableDebugInfo(false)
        .skipRegions(false)
        .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
        .elideLargeResourceString(std::numeric_limits<int64_t>::max());
    os << "module:";
    module->print(os, flags);
  }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// The entries
//===----------------------------------------------------------------------===//

std::string CompileCacheEntry::getPath() const { return directory + "/" + key; }

/// Returns true the first time it is called with `what` in this process:
/// each warning is printed once.
static bool firstTime(llvm::StringRef what) {
  static std::mutex mutex;
  static llvm::StringSet<> seen;
  std::lock_guard<std::mutex> lock(mutex);
  return seen.insert(what).second;
}

void CompileCacheEntry::warnIgnored(const llvm::Twine &reason) const {
  if (firstTime("entry:" + getPath()))
    llvm::errs() << "trellis: cache entry " << getPath()
                 << " ignored: " << reason << "\n";
}

/// Prints that the cache directory `directory` cannot hold entries.
static void warnUnwritable(llvm::StringRef directory,
                           const llvm::Twine &reason) {
  if (firstTime(("directory:" + directory).str()))
    llvm::errs() << "trellis: cache directory '" << directory
                 << "' not used: " << reason << "\n";
}

/// The SHA-256 of `bytes`, in hex.
static std::string getSha256(llvm::StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)),
                     /*LowerCase=*/true);
}

/// Returns copies of the members of the ar archive `archive`, in order; an
/// archive without members is an error.
static llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
readArchive(llvm::MemoryBufferRef archive) {
  llvm::Expected<std::unique_ptr<llvm::object::Archive>> parsed =
      llvm::object::Archive::create(archive);
  if (!parsed)
    return parsed.takeError();
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> members;
  llvm::Error err = llvm::Error::success();
  for (const llvm::object::Archive::Child &child : (*parsed)->children(err)) {
    llvm::Expected<llvm::MemoryBufferRef> member = child.getMemoryBufferRef();
    if (!member) {
      llvm::consumeError(std::move(err));
      return member.takeError();
    }
    members.push_back(llvm::MemoryBuffer::getMemBufferCopy(
        member->getBuffer(), member->getBufferIdentifier()));
  }
  if (err)
    return std::move(err);
  if (members.empty())
    return makeError("it has no object");
  return members;
}

std::optional<CachedCode> CompileCacheEntry::load() const {
  std::string manifestPath = getPath() + ".json";
  std::string archivePath = getPath() + ".a";
  // No manifest: a miss. (An archive without one is a store under way or an
  // interrupted one: the manifest is renamed into place last.)
  if (!llvm::sys::fs::exists(manifestPath))
    return std::nullopt;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> manifestFile =
      llvm::MemoryBuffer::getFile(manifestPath);
  if (!manifestFile) {
    warnIgnored("cannot read " + manifestPath + ": " +
                manifestFile.getError().message());
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*manifestFile)->getBuffer());
  if (!parsed) {
    warnIgnored("malformed manifest: " + llvm::toString(parsed.takeError()));
    return std::nullopt;
  }
  const llvm::json::Object *manifest = parsed->getAsObject();
  std::optional<int64_t> format =
      manifest ? manifest->getInteger("format") : std::nullopt;
  if (!format || *format != kCacheFormat) {
    warnIgnored("not a manifest of cache format " + llvm::Twine(kCacheFormat));
    return std::nullopt;
  }
  std::optional<llvm::StringRef> manifestKey = manifest->getString("key");
  std::optional<int64_t> size = manifest->getInteger("archive_bytes");
  std::optional<llvm::StringRef> sha256 = manifest->getString("archive_sha256");
  std::optional<bool> communicates = manifest->getBoolean("communicates");
  const llvm::json::Array *libraries = manifest->getArray("libraries");
  if (!manifestKey || *manifestKey != key || !size || !sha256 ||
      !communicates || !libraries) {
    warnIgnored("malformed manifest (a field is missing or of another key)");
    return std::nullopt;
  }
  CachedCode code;
  code.info.communicates = *communicates;
  for (const llvm::json::Value &library : *libraries) {
    std::optional<llvm::StringRef> path = library.getAsString();
    if (!path) {
      warnIgnored("malformed manifest (a library is not a path)");
      return std::nullopt;
    }
    if (!llvm::sys::fs::exists(*path)) {
      warnIgnored("its library " + *path + " is gone");
      return std::nullopt;
    }
    code.info.libraries.push_back(path->str());
  }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(archivePath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file) {
    warnIgnored("cannot read " + archivePath + ": " +
                file.getError().message());
    return std::nullopt;
  }
  llvm::StringRef bytes = (*file)->getBuffer();
  if (static_cast<int64_t>(bytes.size()) != *size) {
    warnIgnored("the archive has " + llvm::Twine(bytes.size()) +
                " bytes, the manifest says " + llvm::Twine(*size));
    return std::nullopt;
  }
  if (getSha256(bytes) != *sha256) {
    warnIgnored("the archive's SHA-256 is not the manifest's");
    return std::nullopt;
  }
  llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>> objects =
      readArchive((*file)->getMemBufferRef());
  if (!objects) {
    warnIgnored("the archive does not parse: " +
                llvm::toString(objects.takeError()));
    return std::nullopt;
  }
  code.objects = std::move(*objects);
  return code;
}

/// Returns true if `object` has sections of constructors or destructors (or
/// cannot be read), which the JIT does not run. (The IR's llvm.global_ctors
/// and dtors are not among them: lowerGlobalConstructors made a function of
/// them, which a compile and a hit run alike.)
static bool hasInitializers(llvm::MemoryBufferRef object) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(object);
  if (!file) {
    llvm::consumeError(file.takeError());
    return true;
  }
  for (const llvm::object::SectionRef &section : (*file)->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      return true;
    }
    for (llvm::StringRef prefix :
         {".init_array", ".fini_array", ".ctors", ".dtors"})
      if (name->starts_with(prefix))
        return true;
  }
  return false;
}

void CompileCacheEntry::store(
    llvm::ArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects,
    const CachedCodeInfo &info) const {
  if (llvm::any_of(objects, [](const std::unique_ptr<llvm::MemoryBuffer> &o) {
        return hasInitializers(o->getMemBufferRef());
      }))
    return;
  std::vector<std::string> names;
  std::vector<llvm::NewArchiveMember> members;
  for (size_t i = 0; i < objects.size(); ++i)
    names.push_back(std::to_string(i) + ".o");
  for (size_t i = 0; i < objects.size(); ++i) {
    members.emplace_back(objects[i]->getMemBufferRef());
    members.back().MemberName = names[i];
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> archive =
      llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NoSymtab,
                                 llvm::object::Archive::K_GNU,
                                 /*Deterministic=*/true, /*Thin=*/false);
  if (!archive)
    return warnUnwritable(directory, "cannot make an archive of the code: " +
                                         llvm::toString(archive.takeError()));
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return warnUnwritable(directory, "cannot create it: " + ec.message());
  llvm::StringRef bytes = (*archive)->getBuffer();

  std::string manifest;
  {
    llvm::raw_string_ostream os(manifest);
    llvm::json::OStream json(os, /*IndentSize=*/2);
    json.object([&] {
      json.attribute("format", kCacheFormat);
      json.attribute("key", key);
      json.attribute("trellis", TRELLIS_BUILD_VERSION);
      json.attribute("llvm", LLVM_VERSION_STRING);
      json.attribute("cpu", llvm::sys::getHostCPUName());
      json.attributeArray("libraries", [&] {
        for (const std::string &library : info.libraries)
          json.value(library);
      });
      json.attribute("communicates", info.communicates);
      json.attribute("objects", static_cast<int64_t>(objects.size()));
      json.attribute("archive_bytes", static_cast<int64_t>(bytes.size()));
      json.attribute("archive_sha256", getSha256(bytes));
    });
    os << "\n";
  }
  // Each file is written under a temporary name in the directory and
  // renamed over the entry's (llvm::writeToOutput), the manifest last: a
  // reader sees a whole entry or none, and concurrent writers of one key
  // each leave a whole one.
  for (const auto &file :
       {std::pair{getPath() + ".a", bytes},
        std::pair{getPath() + ".json", llvm::StringRef(manifest)}})
    if (llvm::Error err = writeFile(file.first, file.second))
      return warnUnwritable(directory, "cannot write " + file.first + ": " +
                                           llvm::toString(std::move(err)));
}

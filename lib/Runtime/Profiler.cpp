//===- Profiler.cpp - Time the sites of instrumented code -----------------===//

#include "trellis/Runtime/Profiler.h"

#include "RuntimeError.h"
#include "trellis/Conversion/Profile/ProfileOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace trellis;
using namespace trellis::runtime;

namespace {
/// The profile the hooks of this thread add to, and the open site's start.
thread_local Profile *activeProfile = nullptr;
thread_local std::chrono::steady_clock::time_point siteStart;
} // namespace

extern "C" void trellis_profile_begin(int64_t) {
  if (activeProfile)
    siteStart = std::chrono::steady_clock::now();
}

extern "C" void trellis_profile_end(int64_t site) {
  Profile *profile = activeProfile;
  if (!profile || site < 0 ||
      static_cast<uint64_t>(site) >= profile->times.size())
    return;
  auto &time = profile->times[site];
  time.ns += std::chrono::duration<double, std::nano>(
                 std::chrono::steady_clock::now() - siteStart)
                 .count();
  ++time.runs;
}

ProfileScope::ProfileScope(Profile &profile) : previous(activeProfile) {
  activeProfile = &profile;
}

ProfileScope::~ProfileScope() { activeProfile = previous; }

void trellis::runtime::registerProfilerHooks(llvm::orc::LLJIT &jit) {
  llvm::orc::MangleAndInterner interner(jit.getExecutionSession(),
                                        jit.getDataLayout());
  llvm::orc::SymbolMap symbols;
  symbols[interner(kProfileBeginFunction)] = {
      llvm::orc::ExecutorAddr::fromPtr(&trellis_profile_begin),
      llvm::JITSymbolFlags::Exported};
  symbols[interner(kProfileEndFunction)] = {
      llvm::orc::ExecutorAddr::fromPtr(&trellis_profile_end),
      llvm::JITSymbolFlags::Exported};
  llvm::cantFail(
      jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(symbols)));
}

//===----------------------------------------------------------------------===//
// Source ops
//===----------------------------------------------------------------------===//

/// The file location an op's location comes from: the callee of a callsite
/// (the op inlined), the child of a name, the first of a fusion.
static std::optional<mlir::FileLineColLoc> findSourceLoc(mlir::Location loc) {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return file;
  if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(loc))
    return findSourceLoc(callSite.getCallee());
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
    return findSourceLoc(name.getChildLoc());
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location part : fused.getLocations())
      if (std::optional<mlir::FileLineColLoc> file = findSourceLoc(part))
        return file;
  return std::nullopt;
}

SourceOps SourceOps::collect(mlir::ModuleOp module) {
  SourceOps sources;
  module.walk([&](mlir::Operation *op) {
    auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(op->getLoc());
    if (loc && !llvm::isa<mlir::ModuleOp>(op))
      sources.names.try_emplace(loc, op->getName().getStringRef().str());
  });
  return sources;
}

std::pair<std::string, std::string>
SourceOps::lookup(mlir::Location loc) const {
  std::optional<mlir::FileLineColLoc> file = findSourceLoc(loc);
  if (!file)
    return {"?", "?"};
  std::string where =
      (llvm::sys::path::filename(file->getFilename().strref()) + ":" +
       llvm::Twine(file->getLine()) + ":" + llvm::Twine(file->getColumn()))
          .str();
  auto it = names.find(*file);
  return {it == names.end() ? std::string("?") : it->second, where};
}

//===----------------------------------------------------------------------===//
// Profile
//===----------------------------------------------------------------------===//

llvm::Expected<Profile> Profile::fromModule(mlir::ModuleOp lowered,
                                            const SourceOps &sources) {
  auto table = lowered->getAttrOfType<mlir::ArrayAttr>(kProfileSitesAttrName);
  if (!table)
    return makeError("the lowered module has no profile sites ('" +
                     kProfileSitesAttrName +
                     "'): trellis-profile-ops did "
                     "not run");
  Profile profile;
  for (mlir::Attribute entry : table) {
    auto pair = llvm::dyn_cast<mlir::ArrayAttr>(entry);
    mlir::StringAttr kind = pair && pair.size() == 2
                                ? llvm::dyn_cast<mlir::StringAttr>(pair[0])
                                : nullptr;
    auto loc = pair && pair.size() == 2
                   ? llvm::dyn_cast<mlir::LocationAttr>(pair[1])
                   : nullptr;
    if (!kind || !loc || !symbolizeProfileClass(kind.getValue()))
      return makeError("malformed profile site table ('" +
                       kProfileSitesAttrName + "')");
    auto [sourceOp, location] = sources.lookup(loc);
    ProfileSite site{kind.getValue().str(), sourceOp, location};
    // Attention's softmax, masking and rescaling: its own class.
    if (sourceOp == "nn.attention" && kind.getValue() != "gemm" &&
        kind.getValue() != "allocation")
      site.kind = "attention";
    profile.sites.push_back(std::move(site));
  }
  profile.times.resize(profile.sites.size());
  return profile;
}

namespace {
/// A row of a table: time and runs, and per class for source-op rows.
struct Row {
  double ns = 0;
  uint64_t runs = 0;
  llvm::MapVector<llvm::StringRef, double> byClass;
};
} // namespace

/// At most this many source-op rows are printed, the slowest first.
static constexpr size_t kMaxSourceRows = 30;

void Profile::print(llvm::raw_ostream &os, llvm::StringRef entry) const {
  double perCall = calls ? 1.0 / calls : 0.0;
  double wallMs = wallTotalNs * perCall * 1e-6;
  os << "profile of @" << entry << ": " << calls << " call"
     << (calls == 1 ? "" : "s") << ", " << llvm::format("%.3f", wallMs)
     << " ms per call, " << sites.size() << " sites\n";
  if (!calls)
    return;
  auto pct = [&](double ns) {
    return wallTotalNs > 0 ? 100.0 * ns / wallTotalNs : 0.0;
  };

  llvm::MapVector<llvm::StringRef, Row> classes, kinds;
  llvm::MapVector<std::pair<llvm::StringRef, llvm::StringRef>, Row> sources;
  double timedNs = 0;
  for (auto [site, time] : llvm::zip_equal(sites, times)) {
    Row &byClass = classes[site.kind];
    byClass.ns += time.ns;
    byClass.runs += time.runs;
    Row &byKind = kinds[site.sourceOp];
    byKind.ns += time.ns;
    byKind.runs += time.runs;
    byKind.byClass[site.kind] += time.ns;
    Row &bySource = sources[{site.sourceOp, site.location}];
    bySource.ns += time.ns;
    bySource.runs += time.runs;
    bySource.byClass[site.kind] += time.ns;
    timedNs += time.ns;
  }

  os << llvm::format("%-20s %12s %8s %12s\n", "class", "ms/call", "% call",
                     "runs/call");
  auto classRows = classes.takeVector();
  llvm::stable_sort(classRows, [](const auto &a, const auto &b) {
    return a.second.ns > b.second.ns;
  });
  for (const auto &[kind, row] : classRows)
    os << llvm::format("%-20s %12.3f %7.1f%% %12.1f\n", kind.str().c_str(),
                       row.ns * perCall * 1e-6, pct(row.ns),
                       row.runs * perCall);
  double restNs = std::max(0.0, wallTotalNs - timedNs);
  os << llvm::format("%-20s %12.3f %7.1f%%\n", "(between sites)",
                     restNs * perCall * 1e-6, pct(restNs));

  // "gemm 12.345, elementwise 1.234": a row's time per class, largest first.
  auto splitByClass = [&](const Row &row) {
    std::string split;
    llvm::raw_string_ostream splitOs(split);
    llvm::SmallVector<std::pair<llvm::StringRef, double>> parts(
        row.byClass.begin(), row.byClass.end());
    llvm::stable_sort(parts, [](const auto &a, const auto &b) {
      return a.second > b.second;
    });
    for (auto [i, part] : llvm::enumerate(parts))
      splitOs << (i ? ", " : "") << part.first << " "
              << llvm::format("%.3f", part.second * perCall * 1e-6);
    return split;
  };

  // Per kind of source op (torch.profiler's grouping by op name).
  auto kindRows = kinds.takeVector();
  llvm::stable_sort(kindRows, [](const auto &a, const auto &b) {
    return a.second.ns > b.second.ns;
  });
  os << "\n"
     << llvm::format("%-22s %12s %8s %10s  %s\n", "source op kind", "ms/call",
                     "% call", "runs/call", "by class (ms/call)");
  for (const auto &[kind, row] : kindRows)
    os << llvm::format("%-22s %12.3f %7.1f%% %10.1f  ", kind.str().c_str(),
                       row.ns * perCall * 1e-6, pct(row.ns), row.runs * perCall)
       << splitByClass(row) << "\n";

  auto sourceRows = sources.takeVector();
  llvm::stable_sort(sourceRows, [](const auto &a, const auto &b) {
    return a.second.ns > b.second.ns;
  });
  os << "\n"
     << llvm::format("%-22s %-22s %12s %8s %10s  %s\n", "source op", "location",
                     "ms/call", "% call", "runs/call", "by class (ms/call)");
  for (const auto &[key, row] :
       llvm::ArrayRef(sourceRows)
           .take_front(std::min(kMaxSourceRows, sourceRows.size())))
    os << llvm::format("%-22s %-22s %12.3f %7.1f%% %10.1f  ",
                       key.first.str().c_str(), key.second.str().c_str(),
                       row.ns * perCall * 1e-6, pct(row.ns), row.runs * perCall)
       << splitByClass(row) << "\n";
  if (sourceRows.size() > kMaxSourceRows)
    os << "(" << sourceRows.size() - kMaxSourceRows
       << " more source ops below)\n";
}

//===- Report.cpp - What a training run shows and writes ------------------===//

#include "trellis/Train/Report.h"

#include "TrainError.h"
#include "trellis/Runtime/Files.h"
#include "trellis/Runtime/Jit.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unistd.h>

using namespace trellis;
using namespace trellis::train;

/// Formats `seconds` as hh:mm:ss.
static std::string formatDuration(double seconds) {
  int64_t s = static_cast<int64_t>(seconds + 0.5);
  return llvm::formatv("{0:2}:{1:2}:{2:2}", s / 3600, s / 60 % 60, s % 60)
      .str();
}

/// A loss curve (and eval metrics in [0, 1] on a second axis) as SVG.
llvm::Error
trellis::train::writeCurveSvg(llvm::StringRef path,
                              llvm::ArrayRef<std::pair<int64_t, double>> losses,
                              llvm::ArrayRef<std::pair<int64_t, double>> metric,
                              llvm::StringRef metricName) {
  std::string svg;
  llvm::raw_string_ostream os(svg);
  const double W = 640, H = 400, L = 60, R = 60, T = 30, B = 40;
  double maxStep = 1, maxLoss = 1e-12, minLoss = 0;
  for (auto [s, l] : losses) {
    maxStep = std::max(maxStep, double(s));
    if (std::isfinite(l))
      maxLoss = std::max(maxLoss, l);
  }
  auto x = [&](double s) { return L + (W - L - R) * s / maxStep; };
  auto y = [&](double v, double lo, double hi) {
    return H - B - (H - T - B) * (v - lo) / (hi - lo);
  };
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << llvm::format("<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
                     "stroke=\"black\"/>\n",
                     L, H - B, W - R, H - B)
     << llvm::format("<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
                     "stroke=\"black\"/>\n",
                     L, T, L, H - B)
     << llvm::format("<text x=\"%g\" y=\"%g\">step (0 … %lld)</text>\n",
                     W / 2 - 40, H - 10, static_cast<long long>(maxStep))
     << llvm::format("<text x=\"5\" y=\"%g\" fill=\"steelblue\">loss</text>\n",
                     T - 10)
     << llvm::format("<text x=\"5\" y=\"%g\">%.3g</text>\n", T + 4, maxLoss)
     << llvm::format("<text x=\"5\" y=\"%g\">0</text>\n", H - B);
  os << "<polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"1.5\" "
        "points=\"";
  for (auto [s, l] : losses)
    if (std::isfinite(l))
      os << llvm::format("%.1f,%.1f ", x(s), y(l, minLoss, maxLoss));
  os << "\"/>\n";
  if (!metric.empty()) {
    os << llvm::format("<text x=\"%g\" y=\"%g\" fill=\"darkorange\">%s "
                       "(0 … 1)</text>\n",
                       W - R - 60, T - 10, metricName.str().c_str());
    os << "<polyline fill=\"none\" stroke=\"darkorange\" stroke-width=\"1.5\" "
          "points=\"";
    for (auto [s, m] : metric)
      os << llvm::format("%.1f,%.1f ", x(s), y(m, 0, 1));
    os << "\"/>\n";
  }
  os << "</svg>\n";
  if (llvm::Error err = runtime::writeFile(path, svg))
    return fail("cannot write '" + path +
                "': " + llvm::toString(std::move(err)));
  return llvm::Error::success();
}

llvm::Error TrainingReport::openMetrics(llvm::StringRef path,
                                        int64_t resumeStep,
                                        llvm::StringRef metricName) {
  metricsPath = path.str();
  if (!leader)
    return llvm::Error::success();
  // Never through a symbolic link planted at the path (O_NOFOLLOW).
  llvm::Expected<int> fd = runtime::openNoFollow(path, resumeStep >= 0);
  if (!fd)
    return fail(llvm::toString(fd.takeError()));
  if (resumeStep >= 0) {
    // Not a link (openNoFollow checked): read it back.
    ::close(*fd);
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> old =
        runtime::readRegularFile(path, /*isText=*/true);
    if (!old)
      return fail("cannot read '" + path +
                  "': " + llvm::toString(old.takeError()));
    std::string kept;
    llvm::SmallVector<llvm::StringRef> lines;
    (*old)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef line : lines) {
      llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
      if (!value) {
        llvm::consumeError(value.takeError());
        continue;
      }
      const llvm::json::Object *object = value->getAsObject();
      std::optional<int64_t> step =
          object ? object->getInteger("step") : std::nullopt;
      if (!step || *step > resumeStep)
        continue;
      kept += line.str() + "\n";
      if (const llvm::json::Value *loss = object->get("loss"))
        losses.push_back({*step, loss->getAsNumber().value_or(NAN)});
      if (const llvm::json::Object *eval = object->getObject("eval"))
        if (const llvm::json::Value *m = eval->get(metricName))
          metricCurve.push_back({*step, m->getAsNumber().value_or(NAN)});
    }
    // Rewritten atomically: a kill now leaves the old lines.
    if (llvm::Error err = runtime::writeFile(path, kept))
      return fail("cannot write '" + path +
                  "': " + llvm::toString(std::move(err)));
    fd = runtime::openNoFollow(path, /*append=*/true);
    if (!fd)
      return fail(llvm::toString(fd.takeError()));
  }
  metrics = std::make_unique<llvm::raw_fd_ostream>(*fd, /*shouldClose=*/true);
  return llvm::Error::success();
}

llvm::Error TrainingReport::flushMetrics() {
  metrics->flush();
  if (!metrics->has_error())
    return llvm::Error::success();
  std::error_code ec = metrics->error();
  // Reported here, not as LLVM's fatal "IO failure" when it is destroyed.
  metrics->clear_error();
  return fail("cannot write '" + metricsPath + "': " + ec.message());
}

void TrainingReport::reportCompile(double totalMs,
                                   const runtime::CompileStats &stats) {
  if (!leader)
    return;
  out << llvm::format("compiled in %.0f ms (MLIR %.0f ms, LLVM %.0f ms, "
                      "cache %s %.0f ms, GEMM tuning %.0f ms)\n",
                      totalMs, stats.mlirMs, stats.llvmMs,
                      runtime::stringifyCache(stats.cache).str().c_str(),
                      stats.cacheMs, stats.tuningMs);
}

void TrainingReport::startTiming(int64_t step) {
  startStep = step;
  started = std::chrono::steady_clock::now();
}

/// `value` as a JSON number with `digits` significant digits, or null if it
/// is NaN or infinite (JSON has neither).
static std::string formatJsonNumber(double value, int digits) {
  if (!std::isfinite(value))
    return "null";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.*g", digits, value);
  return text;
}

llvm::Error TrainingReport::reportLoss(int64_t step, double loss) {
  losses.push_back({step, loss});
  if (leader) {
    *metrics << "{\"step\": " << step
             << ", \"loss\": " << formatJsonNumber(loss, 8) << "}\n";
    if (llvm::Error err = flushMetrics())
      return err;
  }
  printProgress(step, loss);
  return llvm::Error::success();
}

llvm::Error TrainingReport::reportEval(int64_t step,
                                       llvm::ArrayRef<std::string> names,
                                       llvm::ArrayRef<double> values) {
  if (!values.empty())
    metricCurve.push_back({step, values[0]});
  if (!leader)
    return llvm::Error::success();
  *metrics << "{\"step\": " << step << ", \"eval\": {";
  out << "eval at step " << step << ":";
  for (auto [i, v] : llvm::enumerate(values)) {
    *metrics << (i ? ", " : "") << "\"" << names[i]
             << "\": " << formatJsonNumber(v, 6);
    out << " " << names[i] << " " << llvm::format("%.4f", v);
  }
  *metrics << "}}\n";
  out << "\n";
  return flushMetrics();
}

void TrainingReport::printProgress(int64_t step, double loss) {
  if (!leader)
    return;
  bool last = step == steps;
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  int64_t done = step - startStep;
  double rate = elapsed > 0 ? done / elapsed : 0;
  double eta = rate > 0 ? (steps - step) / rate : 0;
  // Under mpirun a rank's stdout may be a pseudo-terminal of the launcher
  // whatever the user's is: plain lines there.
  if (ranks == 1 && llvm::sys::Process::StandardOutIsDisplayed()) {
    int width = 30;
    int filled = static_cast<int>(width * step / std::max<int64_t>(1, steps));
    out << "\r[" << std::string(filled, '#') << std::string(width - filled, '.')
        << "] "
        << llvm::format("step %lld/%lld  %.2f steps/s  loss %.4f  ETA %s",
                        static_cast<long long>(step),
                        static_cast<long long>(steps), rate, loss,
                        formatDuration(eta).c_str());
    if (last)
      out << "\n";
    out.flush();
    return;
  }
  int64_t every = logEvery > 0 ? logEvery : std::max<int64_t>(1, steps / 20);
  if (last || step % every == 0)
    out << llvm::format("step %lld/%lld  %.2f steps/s  loss %.4f  ETA %s\n",
                        static_cast<long long>(step),
                        static_cast<long long>(steps), rate, loss,
                        formatDuration(eta).c_str());
}

void TrainingReport::reportStop(int64_t step, llvm::StringRef signalName) {
  if (!leader)
    return;
  if (step != steps && ranks == 1 &&
      llvm::sys::Process::StandardOutIsDisplayed())
    out << "\n";
  out << "stopped by " << signalName << " after step " << step << " of "
      << steps << " (continue with --resume)\n";
}

llvm::Error TrainingReport::finish(double loss, llvm::StringRef checkpointPath,
                                   llvm::StringRef curvePath,
                                   llvm::StringRef metricName) {
  if (!leader)
    return llvm::Error::success();
  if (llvm::Error err =
          writeCurveSvg(curvePath, losses, metricCurve, metricName))
    return err;
  out << "final loss " << llvm::format("%.4f", loss) << "\n"
      << "checkpoint: " << checkpointPath << "\nmetrics:    " << metricsPath
      << "\ncurve:      " << curvePath << "\n";
  out.flush();
  return llvm::Error::success();
}

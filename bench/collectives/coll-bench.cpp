//===- coll-bench.cpp - Trellis collectives vs raw MPI_Allreduce ----------===//
//
// Run under mpirun. JIT-compiles `coll.psum` and `coll.adasum` of one f32
// vector (default 16 MiB) through the normal Trellis pipeline and times them
// against a raw MPI_Allreduce(SUM) of a buffer of the same size, in the same
// process, alternating every iteration (5 warm-up + 20 timed, each after a
// barrier; an iteration's time is the maximum over ranks, as in
// ../shared/anchors/allreduce_bench.c). Prints medians and the ratios of
// issue 5's targets:
//   psum throughput / allreduce throughput   (target >= 0.95)
//   adasum time / allreduce time             (target <= 1.5)
// The JIT'd functions are called in place (no argument copies between the
// barrier and the call) and timed alone (CallStats), which includes
// allocating their result buffer.
//
// usage: mpirun -np N coll-bench [MiB]
//
//===----------------------------------------------------------------------===//

#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/InitAll.h"
#include "trellis/Runtime/Jit.h"
#include "trellis/Runtime/RuntimeConfig.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace trellis::runtime;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static double maxOverRanks(double seconds) {
  double max;
  MPI_Allreduce(&seconds, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max;
}

static std::unique_ptr<JitModule>
compile(mlir::MLIRContext &ctx, const std::string &text,
        const trellis::CompileOptions &options) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module) {
    std::fprintf(stderr, "coll-bench: cannot parse the module\n");
    std::exit(1);
  }
  auto jit = JitModule::compile(*module, "main", options);
  if (!jit) {
    std::fprintf(stderr, "coll-bench: %s\n",
                 llvm::toString(jit.takeError()).c_str());
    std::exit(1);
  }
  return std::move(*jit);
}

int main(int argc, char **argv) {
  long mib = argc > 1 ? std::atol(argv[1]) : 16;
  long n = mib * (1L << 20) / 4;
  llvm::Expected<RuntimeConfig> config = RuntimeConfig::fromEnvironment();
  if (!config) {
    std::fprintf(stderr, "coll-bench: %s\n",
                 llvm::toString(config.takeError()).c_str());
    return 1;
  }
  configureProcess(*config);
  trellis::CompileOptions options;
  config->applyTo(options);
  trellis_coll_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  mlir::DialectRegistry registry;
  trellis::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::string type = "tensor<" + std::to_string(n) + "xf32>";
  auto module = [&](const char *op) {
    return "func.func @main(%x: " + type + ") -> " + type + " {\n  %y = " +
           op + " %x {axis = \"batch\"} : " + type + "\n  return %y : " +
           type + "\n}\n";
  };
  std::unique_ptr<JitModule> psum = compile(ctx, module("coll.psum"), options);
  std::unique_ptr<JitModule> adasum =
      compile(ctx, module("coll.adasum"), options);

  llvm::Expected<HostArray> input = HostArray::create(DType::F32, {n});
  if (!input) {
    std::fprintf(stderr, "coll-bench: %s\n",
                 llvm::toString(input.takeError()).c_str());
    return 1;
  }
  float *x = reinterpret_cast<float *>(input->getData());
  for (long i = 0; i < n; ++i)
    x[i] = static_cast<float>(rank + 1) * 1e-3f * static_cast<float>(i % 97);
  std::vector<float> out(n);

  const int warmup = 5, iterations = 20;
  std::vector<double> tRaw, tPsum, tAdasum;
  float psumCheck = 0;
  for (int it = 0; it < warmup + iterations; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(x, out.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    double raw = maxOverRanks(MPI_Wtime() - t0);

    MPI_Barrier(MPI_COMM_WORLD);
    CallStats stats;
    auto results = psum->callInPlace("main", *input, &stats);
    if (!results) {
      std::fprintf(stderr, "coll-bench: %s\n",
                   llvm::toString(results.takeError()).c_str());
      return 1;
    }
    psumCheck = reinterpret_cast<float *>((*results)[0].getData())[5];
    double p = maxOverRanks(stats.runMs / 1e3);

    MPI_Barrier(MPI_COMM_WORLD);
    auto adaResults = adasum->callInPlace("main", *input, &stats);
    if (!adaResults) {
      std::fprintf(stderr, "coll-bench: %s\n",
                   llvm::toString(adaResults.takeError()).c_str());
      return 1;
    }
    double a = maxOverRanks(stats.runMs / 1e3);
    if (it >= warmup) {
      tRaw.push_back(raw);
      tPsum.push_back(p);
      tAdasum.push_back(a);
    }
  }
  if (rank == 0) {
    double raw = median(tRaw), p = median(tPsum), a = median(tAdasum);
    std::printf("np=%d size=%ld MiB f32 (median of %d, max over ranks)\n",
                size, mib, iterations);
    std::printf("  MPI_Allreduce        %9.2f ms  %6.2f GB/s\n", raw * 1e3,
                n * 4 / raw / 1e9);
    std::printf("  trellis coll.psum    %9.2f ms  %6.2f GB/s  "
                "throughput ratio %.3f (target >= 0.95)%s\n",
                p * 1e3, n * 4 / p / 1e9, raw / p,
                raw / p >= 0.95 ? "" : "  MISSED");
    std::printf("  trellis coll.adasum  %9.2f ms              "
                "time ratio %.3f (target <= 1.5)%s\n",
                a * 1e3, a / raw, a / raw <= 1.5 ? "" : "  MISSED");
    std::printf("  check: psum[5] = %g, allreduce[5] = %g\n", psumCheck,
                out[5]);
  }
  trellis_coll_finalize();
  return 0;
}

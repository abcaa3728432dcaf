//===- trellis-aot.cpp - Compile functions ahead of time ------------------===//
//
// Lowers a module with the Trellis pipeline (or --pipeline) and writes an
// object file defining `_mlir_ciface_<f>` for each --function plus a C
// header declaring them. Everything happens in trellis::Compiler.
//
//   trellis-aot model.mlir --function=forward -o model.o --header=model.h
//
//===----------------------------------------------------------------------===//

#include "trellis/API/Compiler.h"
#include "trellis/Runtime/RuntimeConfig.h"
#include "trellis/Tools/CompileFlags.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFilename(cl::Positional, cl::desc("<input .mlir>"), cl::init("-"));
static cl::list<std::string>
    functions("function", cl::desc("Public func.func to export (repeatable)"),
              cl::value_desc("name"), cl::OneOrMore);
static cl::opt<std::string> objectPath("o", cl::desc("Object file to write"),
                                       cl::value_desc("file"), cl::Required);
static cl::opt<std::string> headerPath("header", cl::desc("C header to write"),
                                       cl::value_desc("file"));
static cl::opt<std::string>
    pipeline("pipeline",
             cl::desc("Lowering to the LLVM dialect as pass-pipeline text "
                      "(default: trellis-lower-to-llvm)"),
             cl::init(""));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::Prefix, cl::init(3));
static cl::OptionCategory loweringCategory("Lowering options");
static trellis::tools::LoweringFlags loweringFlags(loweringCategory);
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU to generate code for: host, generic, x86-64-v3..."),
        cl::init("host"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "Trellis ahead-of-time compiler: .mlir to an "
                              "object file and a C header\n");
  trellis::CompileOptions options;
  options.pipeline = pipeline;
  options.optLevel = optLevel;
  loweringFlags.fill(options);

  trellis::AotOptions aot;
  aot.functions.assign(functions.begin(), functions.end());
  aot.objectPath = objectPath;
  aot.headerPath = headerPath;
  aot.cpu = cpu;
  llvm::Error err = [&]() -> llvm::Error {
    llvm::Expected<trellis::runtime::RuntimeConfig> config =
        trellis::runtime::RuntimeConfig::fromEnvironment();
    if (!config)
      return config.takeError();
    trellis::runtime::configureProcess(*config);
    trellis::Compiler compiler(options, std::move(*config));
    llvm::Expected<trellis::Module> module = compiler.loadModule(inputFilename);
    if (!module)
      return module.takeError();
    return compiler.compileToObject(*module, aot);
  }();
  if (err) {
    llvm::WithColor::error(llvm::errs(), "trellis-aot")
        << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}

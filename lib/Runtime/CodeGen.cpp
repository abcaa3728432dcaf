//===- CodeGen.cpp - Object code of an LLVM module, on several threads ----===//

#include "CodeGen.h"

#include "RuntimeError.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <optional>

using namespace trellis::runtime;

void trellis::runtime::addPackedWrappers(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  llvm::SmallVector<llvm::Function *> defined;
  for (llvm::Function &func : module)
    if (!func.isDeclaration() && !func.hasLocalLinkage())
      defined.push_back(&func);
  auto *wrapperType = llvm::FunctionType::get(
      builder.getVoidTy(), builder.getPtrTy(), /*isVarArg=*/false);
  for (llvm::Function *func : defined) {
    auto *wrapper =
        llvm::Function::Create(wrapperType, llvm::GlobalValue::ExternalLinkage,
                               "_mlir_" + func->getName(), module);
    builder.SetInsertPoint(llvm::BasicBlock::Create(context, "", wrapper));
    llvm::Value *args = wrapper->getArg(0);
    auto slot = [&](unsigned index) {
      llvm::Value *address =
          builder.CreateConstGEP1_64(builder.getPtrTy(), args, index);
      return builder.CreateLoad(builder.getPtrTy(), address);
    };
    llvm::SmallVector<llvm::Value *> operands;
    for (llvm::Argument &arg : func->args())
      operands.push_back(
          builder.CreateLoad(arg.getType(), slot(arg.getArgNo())));
    llvm::CallInst *result = builder.CreateCall(func, operands);
    if (!result->getType()->isVoidTy())
      builder.CreateStore(result, slot(func->arg_size()));
    builder.CreateRetVoid();
  }
}

/// Replaces the array `arrayName` (llvm.global_ctors or dtors) by a function
/// `callerName` calling its functions by ascending (or, if not `ascending`,
/// descending) priority, entries of one priority in array order.
static void lowerInitializerArray(llvm::Module &module,
                                  llvm::StringRef arrayName,
                                  llvm::StringRef callerName, bool ascending) {
  llvm::GlobalVariable *array = module.getNamedGlobal(arrayName);
  if (!array)
    return;
  llvm::SmallVector<std::pair<unsigned, llvm::Function *>> calls;
  for (const llvm::orc::CtorDtorIterator::Element &entry :
       arrayName == "llvm.global_ctors" ? llvm::orc::getConstructors(module)
                                        : llvm::orc::getDestructors(module))
    if (entry.Func)
      calls.emplace_back(entry.Priority, entry.Func);
  std::stable_sort(calls.begin(), calls.end(), [&](auto &a, auto &b) {
    return ascending ? a.first < b.first : a.first > b.first;
  });
  array->eraseFromParent();

  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *caller = llvm::Function::Create(
      llvm::FunctionType::get(builder.getVoidTy(), /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, callerName, module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "", caller));
  for (auto [priority, func] : calls)
    builder.CreateCall(func);
  builder.CreateRetVoid();
}

void trellis::runtime::lowerGlobalConstructors(llvm::Module &module) {
  lowerInitializerArray(module, "llvm.global_ctors", kInitFunctionName,
                        /*ascending=*/true);
  lowerInitializerArray(module, "llvm.global_dtors", kFiniFunctionName,
                        /*ascending=*/false);
}

llvm::Expected<llvm::orc::JITTargetMachineBuilder>
trellis::runtime::getTargetMachineBuilder(llvm::StringRef cpu) {
  if (cpu.empty())
    return llvm::orc::JITTargetMachineBuilder::detectHost();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target)
    return makeError("no code generator for " + triple.str() + ": " + message);
  // Asked of a generic subtarget first: one made for an unknown CPU warns
  // on stderr (and would generate generic code).
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!generic || !generic->isCPUStringValid(cpu))
    return makeError("unknown target CPU '" + cpu.str() + "' for " +
                     triple.str());
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpu, ""));
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  for (const llvm::SubtargetFeatureKV &feature :
       subtarget->getAllProcessorFeatures()) {
    // Tuning flags are not in the host's map; instruction sets are.
    auto it = host.find(feature.Key);
    if (subtarget->getFeatureBits().test(feature.Value) && it != host.end() &&
        !it->second)
      return makeError("target CPU '" + cpu.str() + "' has " + feature.Key +
                       ", which this host (" + llvm::sys::getHostCPUName() +
                       ") lacks: its code would not run here");
  }
  llvm::orc::JITTargetMachineBuilder builder(triple);
  builder.setCPU(cpu.str());
  return builder;
}

/// Generates the object code of `module` with a target machine of
/// `builder`'s, as ORC's compile layer does.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitObject(llvm::Module &module, llvm::orc::JITTargetMachineBuilder builder) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      builder.createTargetMachine();
  if (!machine)
    return machine.takeError();
  llvm::orc::SimpleCompiler compiler(**machine);
  return compiler(module);
}

/// The estimated cost of generating `func`'s code: its instructions, three
/// times over if it is optimized. (On the 4-layer Transformer LM step, an
/// optnone instruction of the wrapper, its blocks split, took 16 µs, one of
/// the optimized loop functions 41-47 µs.)
static uint64_t getCodeGenCost(const llvm::Function &func) {
  uint64_t instructions = func.getInstructionCount();
  return func.hasOptNone() ? instructions : 3 * instructions;
}

/// Assigns each function defined in `module` to one of `partitions` parts:
/// the costliest first, each to the part with the least cost so far
/// (longest processing time first). Everything else goes with part 0.
static llvm::DenseMap<const llvm::GlobalValue *, unsigned>
assignPartitions(llvm::Module &module, unsigned partitions) {
  llvm::SmallVector<std::pair<uint64_t, llvm::Function *>> functions;
  for (llvm::Function &func : module)
    if (!func.isDeclaration())
      functions.emplace_back(getCodeGenCost(func), &func);
  llvm::stable_sort(functions,
                    [](auto &a, auto &b) { return a.first > b.first; });
  llvm::SmallVector<uint64_t> load(partitions, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> part;
  for (auto [cost, func] : functions) {
    unsigned least = std::min_element(load.begin(), load.end()) - load.begin();
    part[func] = least;
    load[least] += cost;
  }
  return part;
}

/// Gives every symbol of `module` that other parts may refer to external
/// linkage, hidden (each part's objects still link with the others in the
/// JIT, and nothing outside sees them), and a name if it has none.
static void externalizeLocals(llvm::Module &module) {
  unsigned unnamed = 0;
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.getName().starts_with("llvm."))
      continue;
    if (!value.hasName())
      value.setName("__trellis_unnamed." + llvm::Twine(unnamed++));
    if (value.hasLocalLinkage()) {
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  }
}

llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
trellis::runtime::generateObjects(
    std::unique_ptr<llvm::Module> module,
    const llvm::orc::JITTargetMachineBuilder &builder, unsigned threads) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  unsigned defined = llvm::count_if(
      *module, [](const llvm::Function &f) { return !f.isDeclaration(); });
  unsigned partitions = std::max(1u, std::min(threads, defined));
  if (partitions == 1) {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
        emitObject(*module, builder);
    if (!object)
      return object.takeError();
    objects.push_back(std::move(*object));
    return objects;
  }

  // Each part is a copy of the module with the definitions assigned to it
  // and declarations of the rest. The first is generated here, in the
  // module's context; the others are written as bitcode and read back in
  // contexts of their own, one per task (an LLVM context is not shared
  // between threads).
  externalizeLocals(*module);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> part =
      assignPartitions(*module, partitions);
  auto cloneMember = [&](unsigned index) {
    llvm::ValueToValueMapTy map;
    return llvm::CloneModule(*module, map, [&](const llvm::GlobalValue *gv) {
      auto it = part.find(gv);
      return (it == part.end() ? 0 : it->second) == index;
    });
  };
  std::vector<llvm::SmallVector<char, 0>> bitcode(partitions - 1);
  for (unsigned i = 1; i < partitions; ++i) {
    llvm::raw_svector_ostream os(bitcode[i - 1]);
    llvm::WriteBitcodeToFile(*cloneMember(i), os);
  }
  std::unique_ptr<llvm::Module> first = cloneMember(0);
  module.reset();

  objects.resize(partitions);
  std::vector<std::optional<std::string>> errors(partitions);
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(partitions - 1));
    for (unsigned i = 1; i < partitions; ++i)
      pool.async([&, i] {
        llvm::LLVMContext context;
        llvm::Expected<std::unique_ptr<llvm::Module>> member =
            llvm::parseBitcodeFile(
                llvm::MemoryBufferRef(llvm::StringRef(bitcode[i - 1].data(),
                                                      bitcode[i - 1].size()),
                                      "partition"),
                context);
        llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
            member ? emitObject(**member, builder)
                   : llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>(
                         member.takeError());
        if (object)
          objects[i] = std::move(*object);
        else
          errors[i] = llvm::toString(object.takeError());
      });
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
        emitObject(*first, builder);
    if (object)
      objects[0] = std::move(*object);
    else
      errors[0] = llvm::toString(object.takeError());
    pool.wait();
  }
  for (const std::optional<std::string> &error : errors)
    if (error)
      return makeError("code generation failed: " + *error);
  return objects;
}

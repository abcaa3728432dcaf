//===- CodeGen.cpp - Object code of an LLVM module, on several threads ----===//

#include "CodeGen.h"

#include "RuntimeError.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
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
#include <atomic>
#include <numeric>
#include <optional>

using namespace trellis::runtime;

/// Parts per thread of generateObjects.
static constexpr unsigned kPartsPerThread = 4;

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
/// `builder`'s, as ORC's compile layer does, after `prepare` (if any) with
/// that machine.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitObject(llvm::Module &module, llvm::orc::JITTargetMachineBuilder builder,
           const PartTransform &prepare) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      builder.createTargetMachine();
  if (!machine)
    return machine.takeError();
  if (prepare)
    if (llvm::Error err = prepare(module, **machine))
      return std::move(err);
  llvm::orc::SimpleCompiler compiler(**machine);
  return compiler(module);
}

/// The estimated cost of optimizing and generating `func`'s code: its
/// instructions, three times over unless it is optnone. (On the 4-layer
/// Transformer LM step, an optnone instruction of the wrapper, its blocks
/// split, took 16 µs, one of the optimized loop functions 41-47 µs.)
static uint64_t getCodeGenCost(const llvm::Function &func) {
  uint64_t instructions = func.getInstructionCount();
  return func.hasOptNone() ? instructions : 3 * instructions;
}

/// The functions and variables whose code or initializer refers to `value`
/// (through constant expressions too).
static llvm::SmallPtrSet<llvm::GlobalValue *, 2>
getReferencingGlobals(llvm::GlobalValue &value) {
  llvm::SmallPtrSet<llvm::GlobalValue *, 2> globals;
  llvm::SmallVector<llvm::User *> worklist(value.users());
  llvm::SmallPtrSet<llvm::User *, 8> seen;
  while (!worklist.empty()) {
    llvm::User *user = worklist.pop_back_val();
    if (!seen.insert(user).second)
      continue;
    if (auto *inst = llvm::dyn_cast<llvm::Instruction>(user))
      globals.insert(inst->getFunction());
    else if (auto *variable = llvm::dyn_cast<llvm::GlobalVariable>(user))
      globals.insert(variable);
    else if (llvm::isa<llvm::Constant>(user) &&
             !llvm::isa<llvm::GlobalValue>(user))
      worklist.append(user->user_begin(), user->user_end());
  }
  return globals;
}

/// Assigns each function and variable defined in `module` to one of
/// `partitions` parts. A local symbol that one function alone refers to
/// goes with that function or variable (an OpenMP region's outlined body with
/// the loop that forks it, a constant with its loop), and so does an
/// always-inline function with its callers (an entry with its packed wrapper):
/// each part is optimized alone, and these must meet there to stay local or be
/// inlined. The groups, costliest first, each go to the part with the least
/// cost so far (longest processing time first), which `load` returns.
/// Everything else goes with part 0, which gets the costliest group.
static llvm::DenseMap<const llvm::GlobalValue *, unsigned>
assignPartitions(llvm::Module &module, unsigned partitions,
                 llvm::SmallVectorImpl<uint64_t> &load) {
  llvm::SmallVector<llvm::GlobalValue *> defined;
  for (llvm::GlobalValue &value : module.global_values())
    if (!value.isDeclaration() && (llvm::isa<llvm::Function>(value) ||
                                   llvm::isa<llvm::GlobalVariable>(value)))
      defined.push_back(&value);
  llvm::EquivalenceClasses<llvm::GlobalValue *> groups;
  for (llvm::GlobalValue *value : defined) {
    groups.insert(value);
    auto *func = llvm::dyn_cast<llvm::Function>(value);
    bool inlined = func && func->hasFnAttribute(llvm::Attribute::AlwaysInline);
    bool localVariable = !func && value->hasLocalLinkage();
    if (!inlined && !localVariable)
      continue;
    llvm::SmallPtrSet<llvm::GlobalValue *, 2> users =
        getReferencingGlobals(*value);
    if (users.size() == 1 || inlined)
      for (llvm::GlobalValue *user : users)
        groups.unionSets(value, user);
  }
  llvm::DenseMap<llvm::GlobalValue *, uint64_t> groupCost;
  for (llvm::GlobalValue *value : defined)
    if (auto *func = llvm::dyn_cast<llvm::Function>(value))
      groupCost[groups.getLeaderValue(value)] += getCodeGenCost(*func);
  llvm::SmallVector<std::pair<uint64_t, llvm::GlobalValue *>> order;
  for (auto [leader, cost] : groupCost)
    order.emplace_back(cost, leader);
  llvm::stable_sort(order, [](auto &a, auto &b) {
    return a.first != b.first ? a.first > b.first
                              : a.second->getName() < b.second->getName();
  });
  load.assign(partitions, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> leaderPart;
  for (auto [cost, leader] : order) {
    unsigned least = std::min_element(load.begin(), load.end()) - load.begin();
    leaderPart[leader] = least;
    load[least] += cost;
  }
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> part;
  for (llvm::GlobalValue *value : defined)
    part[value] = leaderPart.lookup(groups.getLeaderValue(value));
  return part;
}

/// Gives every local symbol of `module` that another part refers to
/// external linkage, hidden (each part's objects still link with the
/// others in the JIT, and nothing outside sees them), and every symbol a
/// name if it has none.
static void externalizeSharedLocals(
    llvm::Module &module,
    const llvm::DenseMap<const llvm::GlobalValue *, unsigned> &part) {
  unsigned unnamed = 0;
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.getName().starts_with("llvm."))
      continue;
    if (!value.hasName())
      value.setName("__trellis_unnamed." + llvm::Twine(unnamed++));
    if (!value.hasLocalLinkage())
      continue;
    unsigned home = part.lookup(&value);
    bool shared = llvm::any_of(
        getReferencingGlobals(value),
        [&](llvm::GlobalValue *user) { return part.lookup(user) != home; });
    if (shared) {
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  }
}

llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
trellis::runtime::generateObjects(
    std::unique_ptr<llvm::Module> module,
    const llvm::orc::JITTargetMachineBuilder &builder, unsigned threads,
    const PartTransform &prepare) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  unsigned defined = llvm::count_if(
      *module, [](const llvm::Function &f) { return !f.isDeclaration(); });
  // More parts than threads, taken costliest first by whichever thread is
  // free: estimates of a function's cost before optimization are rough.
  unsigned partitions =
      threads <= 1 ? 1 : std::min(threads * kPartsPerThread, defined);
  if (partitions <= 1) {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
        emitObject(*module, builder, prepare);
    if (!object)
      return object.takeError();
    objects.push_back(std::move(*object));
    return objects;
  }

  // Each part is a copy of the module with the definitions assigned to it
  // and declarations of the rest. Part 0 (the costliest) stays in the
  // module's context; the others are written as bitcode and read back in
  // contexts of their own, one per task (an LLVM context is not shared
  // between threads).
  llvm::SmallVector<uint64_t> load;
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> part =
      assignPartitions(*module, partitions, load);
  externalizeSharedLocals(*module, part);
  auto cloneMember = [&](unsigned index) {
    llvm::ValueToValueMapTy map;
    return llvm::CloneModule(*module, map, [&](const llvm::GlobalValue *gv) {
      auto it = part.find(gv);
      return (it == part.end() ? 0 : it->second) == index;
    });
  };
  std::vector<llvm::SmallVector<char, 0>> bitcode(partitions);
  for (unsigned i = 1; i < partitions; ++i) {
    llvm::raw_svector_ostream os(bitcode[i]);
    llvm::WriteBitcodeToFile(*cloneMember(i), os);
  }
  std::unique_ptr<llvm::Module> first = cloneMember(0);
  module.reset();

  llvm::SmallVector<unsigned> order(partitions);
  std::iota(order.begin(), order.end(), 0u);
  llvm::stable_sort(order,
                    [&](unsigned a, unsigned b) { return load[a] > load[b]; });
  objects.resize(partitions);
  std::vector<std::optional<std::string>> errors(partitions);
  auto generate = [&](unsigned i) {
    llvm::LLVMContext context;
    llvm::Expected<std::unique_ptr<llvm::Module>> member =
        i == 0 ? llvm::Expected<std::unique_ptr<llvm::Module>>(std::move(first))
               : llvm::parseBitcodeFile(
                     llvm::MemoryBufferRef(
                         llvm::StringRef(bitcode[i].data(), bitcode[i].size()),
                         "partition"),
                     context);
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
        member ? emitObject(**member, builder, prepare)
               : llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>(
                     member.takeError());
    if (object)
      objects[i] = std::move(*object);
    else
      errors[i] = llvm::toString(object.takeError());
  };
  std::atomic<unsigned> next{0};
  auto work = [&] {
    for (unsigned k; (k = next.fetch_add(1)) < partitions;)
      generate(order[k]);
  };
  {
    unsigned helpers = std::min(threads, partitions) - 1;
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(helpers));
    for (unsigned t = 0; t < helpers; ++t)
      pool.async(work);
    work();
    pool.wait();
  }
  for (const std::optional<std::string> &error : errors)
    if (error)
      return makeError("code generation failed: " + *error);
  return objects;
}

// The pipeline (Pipeline.h), written out as its stages: analyses, layouts, LLVM IR, LLVM's optimiser, PTX.
#include "gpu_backend/Pipeline.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "gpu_backend/NvptxWorkarounds.h"
#include "gpu_backend/PtxasWorkarounds.h"
#include "gpu_backend/RemainderVersioning.h"
#include "gpu_backend/layout/LayoutAssignment.h"
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/analysis/ReducePatterns.h"

namespace tilesim::gpu {
namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";

// LLVM's O1 pipeline, not O3 (Triton's). The lowered module is already SSA without allocas, calls or C++
// abstractions, and O3's extra passes (GVN, the loop and SLP vectorizers, unrolling, argument promotion, more
// InstCombine rounds) find little in it. Over the 15 golden, 12 real-kernel and 5 benchmark kernels (triton
// profile, opt-19 + llc-19 on the lowered IR) the PTX is identical for 24 of 32, including all 5 benchmark
// kernels and golden/matmul_f16; of the other 8, O1's has fewer instructions in 5 (tut06 attention 2860
// against 3026), as many in 1, and 2 or 3 more in 2 (of 250 and 380). The optimiser takes up to half the time
// (tut06: 138 -> 73 ms, process included). docs/performance.md "Compile latency".
const llvm::OptimizationLevel& kOptimizationLevel = llvm::OptimizationLevel::O1;

// The kernel (and stage) this thread is compiling, for the fatal error handler below.
thread_local const char* compilingKernel = nullptr;
thread_local const char* compilingStage = nullptr;

// An LLVM fatal error (report_fatal_error: "Cannot select: ...", an unsupported construct in the NVPTX backend)
// cannot be recovered from: LLVM is built without exceptions and its state is undefined after one. Instead of a
// bare "LLVM ERROR: ..." and SIGABRT, say which kernel and stage hit it and that it is a tilesim GPU backend bug,
// then exit with status 3 (not an abort: no core dump, and a script sees a distinct, documented status).
void fatalLlvmError(void*, const char* reason, bool) {
  std::fprintf(stderr,
               "tilesim: error: internal error in the GPU backend: LLVM failed during %s of kernel @%s: %s\n"
               "tilesim: note: this is a tilesim bug (the lowering produced IR that NVPTX cannot compile); please "
               "report it with the kernel's .ttir (`tilesim compile KERNEL --emit=llvm` shows the IR)\n",
               compilingStage ? compilingStage : "code generation", compilingKernel ? compilingKernel : "?", reason);
  std::fflush(stderr);
  std::_Exit(3);
}

// Adds the milliseconds since the last lap (or construction) to a stage's total.
class StageClock {
 public:
  void lap(double& stage) {
    auto now = std::chrono::steady_clock::now();
    stage += std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

struct CompilingScope {
  CompilingScope(std::string kernel, const char* stage) : name(std::move(kernel)) {  // owns the name it publishes
    compilingKernel = name.c_str();
    compilingStage = stage;
  }
  ~CompilingScope() { compilingKernel = compilingStage = nullptr; }
  CompilingScope(const CompilingScope&) = delete;
  CompilingScope& operator=(const CompilingScope&) = delete;
  std::string name;
};

// NVPTX code generation without Loop Strength Reduction. Its rewrite of the loop-carried pointers (a tt.load
// through a tensor of pointers advanced every iteration: 32 pointer phis per thread in golden/matmul_f16) is a
// quarter of code generation there (llc-19 -time-passes: 9.4 of 35 ms) and gives back no instructions: without
// it the PTX of golden/matmul_f16 has 999 instructions instead of 1013, matmul_blockptr_f16 700 instead of 780,
// the benchmark kernels the same (layernorm 992 instead of 997, the others identical). LLVM has no API for
// this, only the `-disable-lsr` option, which is process-wide; Triton sets its NVPTX options (`nvptx-short-ptr`)
// the same way. docs/performance.md "Compile latency".
void disableLoopStrengthReduction() {
  auto& options = llvm::cl::getRegisteredOptions();
  auto found = options.find("disable-lsr");
  TILESIM_ASSERT(found != options.end(), "LLVM has no -disable-lsr option");
  static_cast<llvm::cl::opt<bool>*>(found->second)->setValue(true);
}

// 32-bit shared-memory addresses (`nvptx-short-ptr`, as Triton sets it): the NVPTX data layout then makes
// address space 3 (and 4, 5) pointers 32 bits wide, so every staged operand's address takes one register instead
// of two. A kernel's shared memory is at most 227 KiB (layout/TargetLimits.h), far below 4 GiB. Like
// -disable-lsr, LLVM offers it only as a process-wide option.
void useShortSharedPointers() {
  auto& options = llvm::cl::getRegisteredOptions();
  auto found = options.find("nvptx-short-ptr");
  TILESIM_ASSERT(found != options.end(), "LLVM has no -nvptx-short-ptr option");
  static_cast<llvm::cl::opt<bool>*>(found->second)->setValue(true);
}

void initializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(fatalLlvmError, nullptr);
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    disableLoopStrengthReduction();
    useShortSharedPointers();
  });
}

// `ptxVersion` (10 * major + minor, 0 for LLVM's default) becomes the "+ptxNN" feature: the `.version` of the PTX.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const CompileOptions& options, std::string* error,
                                                         int ptxVersion = 0) {
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, *error);
  if (!target) return nullptr;
  llvm::TargetOptions targetOptions;
  // The exact profile never fuses a multiply into an add (docs/gpu-backend.md: Strict keeps mul.rn / add.rn apart);
  // the triton profile contracts like Triton.
  targetOptions.AllowFPOpFusion =
      options.profile == FloatProfile::Exact ? llvm::FPOpFusion::Strict : llvm::FPOpFusion::Fast;
  // Code generation at Default, not Aggressive (Triton's): the only difference in NVPTX's pipeline is that its
  // two IR-level redundancy passes are EarlyCSE instead of GVN, which on the optimised module finds nothing
  // more (the PTX of 614 of the 620 conformance and benchmark compiles, both profiles, is identical; the other 6
  // differ in register numbering and a few moves) and costs a third of code generation (golden/matmul_f16:
  // 44 -> 28 ms). docs/performance.md "Compile latency".
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kTriple, options.sm, ptxVersion > 0 ? "+ptx" + std::to_string(ptxVersion) : "", targetOptions, std::nullopt,
      std::nullopt, llvm::CodeGenOptLevel::Default));
}

std::string printModule(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream out(text);
  module.print(out, nullptr);
  return text;
}

// The optimiser's pipeline as text: LLVM 19's O1 (kOptimizationLevel), printed as `opt -print-pipeline-passes`
// would, without 4 of its 8 InstCombine runs (the third, fourth, sixth and seventh) and without
// CalledValuePropagation. On the module the lowering hands over they change almost nothing the PTX shows: of the
// 680 conformance and benchmark compiles under both profiles, 678 give O1's PTX; the other two are Liger's
// in-place RMS-norm backward, whose single-iteration row loop O1 deletes and this pipeline keeps (ctest
// gpu_optimiser_pipeline_test checks exactly that). The fifth run was cut too until the attention kernels'
// hoisted q (2026-12-07): without any of the five, the D 128 attention kernels kept 18 more ld.shared than O1;
// with the fifth back, none (compiles of the 20 matrix and 15 golden kernels: 2.27 s without it, 2.23 s with it,
// noise). The optimiser took about a fifth less time than O1 with five cut (golden/matmul_f16: 16.0-16.9 ->
// 12.8-13.2 ms).
// If LLVM's O1 ever has another number of InstCombine runs, it is used as it is. The text is computed once per
// process and per target (it does not depend on the kernel).
std::string optimiserPipeline(llvm::TargetMachine& machine) {
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::PassBuilder builder(&machine, llvm::PipelineTuningOptions(), std::nullopt, &callbacks);
  llvm::ModulePassManager o1 = builder.buildPerModuleDefaultPipeline(kOptimizationLevel);
  std::string text;
  llvm::raw_string_ostream out(text);
  o1.printPipeline(out, [&](llvm::StringRef className) {
    llvm::StringRef name = callbacks.getPassNameForClassName(className);
    return name.empty() ? className : name;
  });
  out.flush();
  std::vector<std::pair<size_t, size_t>> runs;  // [begin, end) of each "instcombine<...>"
  for (size_t at = text.find("instcombine<"); at != std::string::npos; at = text.find("instcombine<", at + 1))
    runs.emplace_back(at, text.find('>', at) + 1);
  if (runs.size() != 8) return text;
  for (int run : {6, 5, 3, 2}) {  // from the back, so earlier positions stay valid
    auto [begin, end] = runs[static_cast<size_t>(run)];
    if (end < text.size() && text[end] == ',') ++end;       // with its separating comma: the one after,
    else if (begin > 0 && text[begin - 1] == ',') --begin;  // or, last in its group, the one before
    text.erase(begin, end - begin);
  }
  const std::string calledValuePropagation = "called-value-propagation,";
  if (size_t at = text.find(calledValuePropagation); at != std::string::npos) text.erase(at, calledValuePropagation.size());
  return text;
}

void optimize(llvm::Module& module, llvm::TargetMachine& machine, bool untrimmed) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  if (untrimmed) {
    passes = builder.buildPerModuleDefaultPipeline(kOptimizationLevel);
  } else {
    // One text per target, built the first time: the pipeline is the same for every kernel.
    static std::mutex mutex;
    static std::map<std::string, std::string> pipelines;
    std::string pipeline;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      const std::string key = machine.getTargetCPU().str() + machine.getTargetFeatureString().str();
      auto found = pipelines.find(key);
      if (found == pipelines.end()) found = pipelines.emplace(key, optimiserPipeline(machine)).first;
      pipeline = found->second;
    }
    if (llvm::Error error = builder.parsePassPipeline(passes, pipeline))
      TILESIM_UNREACHABLE("LLVM cannot parse the optimiser pipeline it printed: " + llvm::toString(std::move(error)));
  }
  passes.run(module, modules);
}

std::string emitPtx(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream out(text);
  llvm::legacy::PassManager passes;
  bool failed = machine.addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::AssemblyFile);
  TILESIM_ASSERT(!failed, "NVPTX cannot emit PTX");
  passes.run(module);
  return std::string(text.str());
}

// LLVM 19: an unknown llvm.nvvm.* name becomes an undefined external call with no error. After optimisation only
// intrinsics may remain as declarations.
std::string unresolvedFunction(const llvm::Module& module) {
  for (const llvm::Function& function : module)
    if (function.isDeclaration() && !function.isIntrinsic() && function.getName() != "vprintf")  // the driver's
      return function.getName().str();
  return "";
}

// What an op's lowering needs of the target (10 * major + minor), and why; 0 when any known target will do. The
// backend was written for sm_80 and newer: these are the instructions an older target rejects.
std::pair<int, const char*> opRequirement(const Operation& op) {
  auto typeNeeds = [&](Type type) -> std::pair<int, const char*> {
    if (!type.isTensor() && !type.isScalar()) return {0, ""};
    const Type element = type.element();
    if (!element.isScalar()) return {0, ""};
    const ScalarKind kind = element.scalarKind();
    if (kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2) return {89, "fp8 conversions (cvt ... e4m3x2/e5m2x2, sm_89)"};
    if (kind == ScalarKind::BF16) return {80, "bf16 conversions (cvt.rn.bf16.f32, sm_80)"};
    return {0, ""};
  };
  std::pair<int, const char*> need{0, ""};
  auto atLeast = [&](std::pair<int, const char*> other) {
    if (other.first > need.first) need = other;
  };
  const std::pair<int, const char*> shuffles{70, "warp shuffles with .sync (shfl.sync, PTX 6.0, sm_70)"};
  const OpFamily family = opFamily(op.kind);  // the other families need nothing beyond their types
  if (family == OpFamily::ReduceScan) atLeast(shuffles);
  if (family == OpFamily::Dot) atLeast({80, "tensor-core mma.sync and ldmatrix (sm_80)"});
  if (family == OpFamily::Shape) {
    switch (familyOp<ShapeOp>(op.kind)) {
      case ShapeOp::TTHistogram:
      case ShapeOp::TTGather: atLeast(shuffles); break;
      case ShapeOp::TTSplat:
      case ShapeOp::TTUnsplat:
      case ShapeOp::TTBroadcast:
      case ShapeOp::TTExpandDims:
      case ShapeOp::TTReshape:
      case ShapeOp::TTTrans:
      case ShapeOp::TTJoin:
      case ShapeOp::TTSplit:
      case ShapeOp::TTCat: break;
    }
  }
  if (family == OpFamily::Memory) {
    switch (familyOp<MemoryOp>(op.kind)) {
      case MemoryOp::TTDescriptorLoad:
      case MemoryOp::TTDescriptorStore:
      case MemoryOp::TTDescriptorGather:
      case MemoryOp::TTDescriptorScatter: atLeast({90, "tensor memory access (cp.async.bulk.tensor, sm_90)"}); break;
      case MemoryOp::TTLoad:
      case MemoryOp::TTStore: break;
    }
  }
  for (const Value* operand : op.operands) atLeast(typeNeeds(operand->type));
  for (size_t r = 0; r < op.numResults(); ++r) atLeast(typeNeeds(op.result(r)->type));
  return need;
}

// The first op (in text order) whose lowering needs a newer target than `version`, as a diagnostic.
std::optional<Diagnostic> targetTooOld(const Function& kernel, int version, const std::string& sm) {
  std::optional<Diagnostic> found;
  walk(*kernel.op(), [&](const Operation& op) {
    if (found) return;
    const auto [needed, why] = opRequirement(op);
    if (needed > version)
      found = Diagnostic{op.textPos, std::string(op.name()) + " needs sm_" + std::to_string(needed) + " or newer for " +
                                         why + "; --sm " + sm + " is older"};
  });
  return found;
}

// TTGIR is parsed, verified and run by the interpreter, but not lowered yet (issue 23): the first ttg/ttng op,
// or an encoded tensor type, as a diagnostic instead of a lowering that would misread it.
std::optional<Diagnostic> ttgirNotLowered(const Module& module, const Function& kernel) {
  std::optional<Diagnostic> ttgOp, encoded;
  walk(*kernel.op(), [&](const Operation& op) {
    const OpFamily family = opFamily(op.kind);
    const std::string where = std::string(op.name()) + " at " + std::to_string(op.textPos.line);
    if (!ttgOp && (family == OpFamily::SharedMemory || family == OpFamily::Hopper))
      ttgOp = Diagnostic{op.textPos, "TTGIR ops are not lowered by the GPU backend yet: " + where + " (run it with --engine interp)"};
    for (size_t r = 0; r < op.numResults() && !encoded; ++r)
      if (op.result(r)->type.encoding().isValid())
        encoded = Diagnostic{op.textPos, "TTGIR layouts are not lowered by the GPU backend yet: " + where + " (run it with --engine interp)"};
  });
  if (ttgOp) return ttgOp;
  if (encoded) return encoded;
  if (module.isTTGIR())
    return Diagnostic{kernel.op()->textPos, "TTGIR modules (ttg.* module attributes) are not lowered by the GPU backend yet"};
  return std::nullopt;
}

}  // namespace

std::optional<Stage> parseStage(std::string_view name) {
  if (name == "layout") return Stage::Layout;
  if (name == "llvm") return Stage::Llvm;
  if (name == "llvm-opt") return Stage::LlvmOptimized;
  if (name == "ptx") return Stage::Ptx;
  return std::nullopt;
}

std::map<const Operation*, ReduceAxisLayout> tritonReduceLayouts(const Module& module, const Function& kernel, int numWarps) {
  std::map<const Operation*, ReduceAxisLayout> result;
  if (numWarps <= 0 || (numWarps & (numWarps - 1)) != 0 || numWarps > 32) return result;
  Diagnostics diagnostics;
  const analysis::AxisInfoAnalysis axisInfo(module);
  LayoutAssignment layouts = LayoutAssignment::assign(kernel, numWarps, diagnostics, &axisInfo, false, /*tensorCores=*/true);
  if (!diagnostics.empty()) return result;
  walk(*kernel.op(), [&](const Operation& op) {
    if (op.kind != OpKind::TTReduce) return;
    const LinearLayout* layout = layouts.layoutOf(op.operand(0));
    if (!layout) return;
    std::optional<TritonReduceAxis> shape = tritonReduceOrder(op, *layout);
    if (!shape) return;
    ReduceAxisLayout axisLayout;
    axisLayout.sizePerThread = int64_t{1} << shape->lowRegisterBits;
    axisLayout.threadsPerWarp = int64_t{1} << shape->laneBits.size();
    axisLayout.warpsPerCTA = int64_t{1} << shape->warpBits.size();
    axisLayout.fusedMultiply = analysis::reduceFusesMultiply(op, kernel);
    result[&op] = axisLayout;
  });
  return result;
}

std::span<const std::string_view> knownSmTargets() {
  static constexpr std::string_view kTargets[] = {"sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50",
                                                  "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72",
                                                  "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};
  return kTargets;
}

std::optional<int> smVersion(std::string_view sm) {
  for (std::string_view known : knownSmTargets())
    if (known == sm) return (sm[3] - '0') * 10 + (sm[4] - '0');
  return std::nullopt;
}

namespace {

// A kernel compiled for launches whose remainder guards hold (RemainderVersioning.h): the AxisInfo that assumes
// them, and the layouts assigned from it.
struct GuardedVersion {
  std::unique_ptr<analysis::AxisInfoAnalysis> axisInfo;
  LayoutAssignment layouts;
};

// Whether every tt.reduce and tt.scan gets the same operand layout in both assignments: the interpreter is told
// the GPU's combine order from the unspecialised one (tritonReduceLayouts), so the versions must not differ there.
bool sameCombineLayouts(const Function& kernel, const LayoutAssignment& a, const LayoutAssignment& b) {
  bool same = true;
  walk(*kernel.op(), [&](const Operation& op) {
    if (op.kind != OpKind::TTReduce && op.kind != OpKind::TTScan) return;
    const LinearLayout *left = a.layoutOf(op.operand(0)), *right = b.layoutOf(op.operand(0));
    same = same && (left == right || (left && right && *left == *right));
  });
  return same;
}

// The specialised version of `kernel`, or nothing when it has no remainder worth guarding or the specialised
// layouts would change a combine order (then the launch runs the kernel as AxisInfo proves it, which is correct).
std::optional<GuardedVersion> guardedVersion(const Module& module, const Function& kernel, const CompileOptions& options,
                                             const analysis::AxisInfoAnalysis& axisInfo, const LayoutAssignment& layouts) {
  if (!options.assumeRemainderGuards) return std::nullopt;
  std::vector<GuardedRemainder> remainders = findGuardedRemainders(kernel, axisInfo);
  if (remainders.empty()) return std::nullopt;
  auto guardedAxisInfo = std::make_unique<analysis::AxisInfoAnalysis>(module, guardedAssumptions(remainders));
  Diagnostics diagnostics;
  LayoutAssignment guardedLayouts =
      LayoutAssignment::assign(kernel, options.numWarps, diagnostics, guardedAxisInfo.get(), false,
                               options.profile == FloatProfile::Triton, sharedBytesPerBlock(options.sm));
  if (!diagnostics.empty() || !sameCombineLayouts(kernel, layouts, guardedLayouts)) return std::nullopt;
  return GuardedVersion{std::move(guardedAxisInfo), std::move(guardedLayouts)};
}

}  // namespace

// One compile; *pipelined says whether the lowering pipelined a loop (lowering/PipelinedLoop.cpp).
static CompileResult compileOnce(const Module& module, const Function& kernel, const CompileOptions& options, bool* pipelined) {
  CompileResult result;
  if (!smVersion(options.sm)) {
    result.diagnostics.push_back({{}, "unknown NVPTX target '" + options.sm + "' (expected sm_XY, e.g. sm_80, sm_90a)"});
    return result;
  }
  if (std::optional<Diagnostic> ttgir = ttgirNotLowered(module, kernel)) {
    result.diagnostics.push_back(*ttgir);
    return result;
  }
  if (std::optional<Diagnostic> tooOld = targetTooOld(kernel, *smVersion(options.sm), options.sm)) {
    result.diagnostics.push_back(*tooOld);
    return result;
  }
  if (options.numWarps <= 0 || (options.numWarps & (options.numWarps - 1)) != 0 || options.numWarps > 32) {
    result.diagnostics.push_back({{}, "num_warps must be a power of two from 1 to 32, not " + std::to_string(options.numWarps)});
    return result;
  }
  StageClock clock;
  // 1. Analyses (AxisInfo: contiguity, divisibility, constancy), then layouts.
  const analysis::AxisInfoAnalysis axisInfo(module);
  LayoutAssignment layouts = LayoutAssignment::assign(kernel, options.numWarps, result.diagnostics, &axisInfo, false,
                                                      options.profile == FloatProfile::Triton,
                                                      sharedBytesPerBlock(options.sm));
  if (!result.diagnostics.empty()) return result;
  std::optional<GuardedVersion> guarded = guardedVersion(module, kernel, options, axisInfo, layouts);
  if (options.dumpStage == Stage::Layout) result.dump = (guarded ? guarded->layouts : layouts).print(kernel);
  clock.lap(result.milliseconds.layouts);

  // 2. LLVM IR.
  initializeNvptx();
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(options, &error);
  if (!machine) {
    result.diagnostics.push_back({{}, "cannot create the NVPTX target for " + options.sm + ": " + error});
    return result;
  }
  llvm::LLVMContext context;
  llvm::Module llvmModule(module.sourceName.empty() ? "tilesim" : module.sourceName, context);
  llvmModule.setTargetTriple(kTriple);
  llvmModule.setDataLayout(machine->createDataLayout());
  KernelLowering lowering(llvmModule, kernel, guarded ? guarded->layouts : layouts, options);
  lowering.axisInfo = guarded ? guarded->axisInfo.get() : &axisInfo;
  lowering.sourceModule = &module;  // tt.call callees
  try {
    lowering.lower();
  } catch (const LoweringFailure& failure) {
    *pipelined = lowering.pipelinedLoops;
    result.diagnostics.push_back(failure.diagnostic);
    return result;
  }
  if (lowering.minimumPtxVersion > 0) {  // an instruction newer than LLVM's default `.version` (fp8 mma.sync)
    machine = createTargetMachine(options, &error, lowering.minimumPtxVersion);
    TILESIM_ASSERT(machine, "cannot create the NVPTX target with +ptx" + std::to_string(lowering.minimumPtxVersion));
  }
  if (std::string linkError = linkLibdevice(llvmModule, options); !linkError.empty()) {
    result.diagnostics.push_back({{}, linkError});
    return result;
  }
  std::string broken;
  llvm::raw_string_ostream brokenOut(broken);
  TILESIM_ASSERT(!llvm::verifyModule(llvmModule, &brokenOut), "gpu lowering produced invalid LLVM IR: " + broken);
  clock.lap(result.milliseconds.lowering);
  if (options.dumpStage == Stage::Llvm) {  // the stage asked for: no need to optimise and generate code after it
    result.dump = printModule(llvmModule);
    return result;
  }

  // 3. LLVM's optimiser (O1, see kOptimizationLevel).
  {
    const CompilingScope scope(kernel.name(), "LLVM optimisation");
    optimize(llvmModule, *machine, options.untrimmedOptimiser);
  }
  clock.lap(result.milliseconds.optimize);
  avoidPtxasSixteenBitNegation(llvmModule);  // PtxasWorkarounds.h: after optimisation, which forms the patterns
  avoidNvptxSignedBoolToFloat(llvmModule);   // NvptxWorkarounds.h: likewise
  avoidNvptxHalfSignOps(llvmModule);         // NvptxWorkarounds.h: likewise
  if (std::string name = unresolvedFunction(llvmModule); !name.empty())
    TILESIM_UNREACHABLE("gpu lowering left a call to the undefined function " + name);
  if (options.dumpStage == Stage::LlvmOptimized) {
    result.dump = printModule(llvmModule);
    return result;
  }

  // 4. PTX.
  CompiledKernel compiled;
  compiled.name = kernel.name();
  {
    const CompilingScope scope(compiled.name, "PTX code generation");
    // PtxasWorkarounds.h
    compiled.ptx = avoidPtxasS64ToF32(avoidPtxasNegAbs(avoidPtxasHighHalfMove(emitPtx(llvmModule, *machine))));
  }
  clock.lap(result.milliseconds.codegen);
  compiled.threads = 32 * options.numWarps;
  compiled.sharedBytes = lowering.sharedBytes();
  for (size_t i = 0; i < kernel.numArguments(); ++i) compiled.parameterTypes.push_back(kernel.argument(i)->type);
  if (options.dumpStage == Stage::Ptx) result.dump = compiled.ptx;
  result.kernel = std::move(compiled);
  return result;
}

namespace {

// compileOnce, and where a pipelined loop's ring left too little shared memory for the rest of the kernel, again
// with fewer stages, down to the loops as written (Triton's answer is an error: out of resources).
CompileResult compileWithFewerStages(const Module& module, const Function& kernel, const CompileOptions& options) {
  bool pipelined = false;
  CompileResult result = compileOnce(module, kernel, options, &pipelined);
  for (CompileOptions fewer = options; !result.ok() && pipelined && fewer.numStages > 1;) {
    --fewer.numStages;
    result = compileOnce(module, kernel, fewer, &pipelined);
  }
  return result;
}

}  // namespace

CompileResult compileKernel(const Module& module, const Function& kernel, const CompileOptions& options) {
  if (options.numStages < 1 || options.numStages > 8) {
    CompileResult result;
    result.diagnostics.push_back({{}, "num_stages must be an integer from 1 to 8, not " + std::to_string(options.numStages)});
    return result;
  }
  // Descriptor accesses as pointer tensors: the rewritten copy is compiled; its kernel's PTX parameters are the
  // original's (a host descriptor's base and padding slot), and so are the parameter types the engine binds. The
  // copy is an optimisation: where it does not compile, the kernel as written is compiled (descriptor accesses
  // lowered one element at a time), and its diagnostics are the ones reported.
  CompileResult result;
  if (options.descriptorsAsPointers)
    if (std::unique_ptr<Module> rewritten = descriptorsAsPointers(module, kernel.name(), options.hostDescriptors))
      result = compileWithFewerStages(*rewritten, *rewritten->findFunction(kernel.name()), options);
  if (!result.kernel && (!result.diagnostics.empty() || result.dump.empty()))
    result = compileWithFewerStages(module, kernel, options);
  if (result.kernel) {
    result.kernel->parameterTypes.clear();
    for (size_t i = 0; i < kernel.numArguments(); ++i) result.kernel->parameterTypes.push_back(kernel.argument(i)->type);
  }
  return result;
}

}  // namespace tilesim::gpu

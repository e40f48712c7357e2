// The GPU backend's pipeline, one function: a verified TTIR kernel -> layout assignment -> LLVM IR (NVPTX)
// -> LLVM's optimiser (O1) -> PTX. Each stage can be dumped (`tilesim compile --emit=layout|llvm|llvm-opt|ptx`).
//
//   CompileOptions options;  options.numWarps = 4;  options.dumpStage = Stage::Ptx;
//   CompileResult result = compileKernel(module, *module.kernel(), options);
//   if (!result.ok()) print(result.diagnostics);   // e.g. "the GPU engine does not support tt.dot yet (12:5)"
//   result.kernel->ptx                              // what the CUDA driver loads
//
// Float profiles: `exact` keeps every + - * / sqrt correctly rounded and separate (no FMA contraction, div.rn,
// sqrt.rn), so results agree with the interpreter bit for bit; `triton` allows contraction and uses
// div.full.f32 and sqrt.approx.ftz.f32, Triton's own lowering. Math functions (exp, log, sin, ...) are not
// lowered yet in either profile (they need the deterministic shared implementation docs/semantics.md names).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <span>
#include <string_view>

#include "gpu_backend/DescriptorPointers.h"
#include "gpu_backend/TensorCoreChoice.h"
#include "ir/Diagnostic.h"
#include "ir/IR.h"
#include "ir/launch/Launch.h"
#include "ir/launch/Profiles.h"

namespace tilesim::gpu {

enum class Stage : uint8_t { None, Layout, Llvm, LlvmOptimized, Ptx };
std::optional<Stage> parseStage(std::string_view name);  // "layout" | "llvm" | "llvm-opt" | "ptx"

// The NVPTX targets LLVM 19 knows (-mcpu), oldest first; anything else is refused, never passed to LLVM (which
// would warn and emit `.target garbage`).
std::span<const std::string_view> knownSmTargets();
// sm_XY -> 10 * X + Y (sm_90a -> 90); nullopt for a name not in knownSmTargets().
std::optional<int> smVersion(std::string_view sm);
// The oldest target the backend's lowering supports: it uses warp shuffles with .sync (PTX 6.0), f16/bf16
// conversions and cp.async / ldmatrix / mma.sync (sm_80). An older --sm is a diagnostic naming the first op and
// what it needs.
constexpr int kMinimumSmVersion = 80;

struct CompileOptions {
  int numWarps = 4;
  FloatProfile profile = FloatProfile::Exact;
  std::string sm = "sm_90a";  // -mcpu for NVPTX
  Stage dumpStage = Stage::None;  // the stage whose text goes to CompileResult::dump
  // LLVM's O1 exactly as LLVM builds it, not the trimmed pipeline compileKernel runs (Pipeline.cpp,
  // optimiserPipeline); the test that compares the two pipelines' PTX compiles with both.
  bool untrimmedOptimiser = false;
  // Compile for launches in which every guarded `(start + arange) % n` has start >= 0 and n > 0 in every program
  // (RemainderVersioning.h): such offsets then vectorise. Only for launches remainderGuardsHold() has checked.
  bool assumeRemainderGuards = false;
  // mma.sync or wgmma for the triton profile's tensor-core dots (TensorCoreChoice.h).
  TensorCoreChoice tensorCores = TensorCoreChoice::Auto;
  // Triton's num_stages (1 to 8): a k loop whose wgmma operands come from global memory stages them through a
  // ring of shared-memory buffers, num_stages - 1 iterations ahead (lowering/PipelinedLoop.cpp); 1: no pipelining.
  int numStages = 3;
  // Descriptor accesses as pointer tensors (DescriptorPointers.h): those of descriptors the kernel makes, and of the
  // host descriptor parameters a launch checked (the facts are in the compiled kernel's cache key). Off: every
  // descriptor access stays one scalar access per element (lowering/Descriptors.cpp).
  bool descriptorsAsPointers = true;
  std::vector<HostDescriptorFacts> hostDescriptors;
};

struct CompiledKernel {
  std::string name;  // the PTX entry
  std::string ptx;
  std::vector<Type> parameterTypes;  // one per tt.func parameter, in order (pointers are 8-byte addresses)
  int threads = 128;                 // 32 * num_warps
  int sharedBytes = 0;               // dynamic shared memory the launch must provide
};

// Wall-clock milliseconds of each stage of one compileKernel call (`tilesim compile --time` prints their medians).
struct StageMilliseconds {
  double layouts = 0;   // AxisInfo and the layout assignment
  double lowering = 0;  // TTIR -> LLVM IR, libdevice linked, the module verified
  double optimize = 0;  // LLVM's optimiser
  double codegen = 0;   // NVPTX: LLVM IR -> PTX text
};

struct CompileResult {
  Diagnostics diagnostics;  // unsupported ops and types, with their TTIR position
  std::optional<CompiledKernel> kernel;
  std::string dump;         // the text of options.dumpStage (when it was reached)
  StageMilliseconds milliseconds;
  bool ok() const { return diagnostics.empty() && kernel.has_value(); }
};

CompileResult compileKernel(const Module& module, const Function& kernel, const CompileOptions& options);

// The order the `triton` profile's lowering reduces each tt.reduce of `kernel` in, as the interpreter's
// LaunchOptions::reduceLayouts (docs/gpu-backend.md "Reductions"): for every reduce whose operand layout (this
// backend's layout assignment for `numWarps`) is Triton-shaped along the axis, {elements per thread, lanes, warps}
// along it, and fusedMultiply where LLVM contracts the operand's f32 mulf into the per-thread fold. Reduces
// left out are lowered in the contract order. With these, the interpreter combines in the GPU's order, so
// `tilesim diff --profile triton` can be bit-exact for kernels whose other ops are exact.
std::map<const Operation*, ReduceAxisLayout> tritonReduceLayouts(const Module& module, const Function& kernel, int numWarps);

}  // namespace tilesim::gpu

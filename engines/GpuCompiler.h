// The GPU backend's compiler (TTIR -> layouts -> LLVM IR -> PTX) as consumers ask for it without a GPU: the
// `tilesim compile` command, the fuzzer's ptxas check. Like EngineRegistry.h it is the one place that knows
// whether this build has the backend, so no consumer includes gpu_backend/ or writes `#ifdef
// TILESIM_HAVE_GPU_BACKEND`; a build without it answers every request with `unavailable` set.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/Diagnostic.h"
#include "ir/IR.h"
#include "ir/launch/Profiles.h"

namespace tilesim {

struct GpuCompileRequest {
  int numWarps = 4;
  int numStages = 3;  // gpu::CompileOptions::numStages
  FloatProfile profile = FloatProfile::Exact;
  std::string sm = "sm_90a";
  std::string emit = "ptx";  // the stage whose text comes back: layout, llvm, llvm-opt or ptx
  bool assumeRemainderGuards = false;  // gpu::CompileOptions::assumeRemainderGuards
  std::string tensorCores = "auto";    // gpu::CompileOptions::tensorCores: auto, mma or wgmma
};

// Wall-clock milliseconds of one compile, by stage (`tilesim compile --time` prints their medians).
struct GpuCompileMilliseconds {
  double total = 0;
  double layouts = 0;   // AxisInfo and the layout assignment
  double lowering = 0;  // TTIR -> LLVM IR, libdevice linked, the module verified
  double optimize = 0;  // LLVM's optimiser
  double codegen = 0;   // NVPTX: LLVM IR -> PTX text
};

struct GpuCompileOutcome {
  std::string unavailable;  // non-empty when this build has no GPU backend: why, in one sentence
  Diagnostics diagnostics;  // ops and types the backend does not lower, with their TTIR position
  std::string stageText;    // the text of request.emit
  std::string ptx;          // the kernel's PTX, when compilation went that far (emit = ptx)
  GpuCompileMilliseconds milliseconds;
  bool ok() const { return unavailable.empty() && diagnostics.empty(); }
};

// Whether this build has the GPU backend (LLVM 19 found and TILESIM_GPU_BACKEND on); a GPU need not be present.
bool hasGpuBackend();

GpuCompileOutcome compileForGpu(const Module& module, const Function& kernel, const GpuCompileRequest& request);

// "" when `sm` is an NVPTX target LLVM 19 knows (or this build has no backend to ask: compileForGpu then says
// it is unavailable); otherwise why not, with the targets it knows.
std::string checkSmTarget(std::string_view sm);

}  // namespace tilesim

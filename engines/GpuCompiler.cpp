// GpuCompiler.h over gpu_backend/Pipeline.h when the build has the backend (TILESIM_HAVE_GPU_BACKEND), and the
// answer "unavailable, because ..." when it does not (the same sentence EngineRegistry.cpp gives for the engine).
#include "engines/GpuCompiler.h"

#include <chrono>

#ifdef TILESIM_HAVE_GPU_BACKEND
#include "gpu_backend/Pipeline.h"
#endif

namespace tilesim {

#ifdef TILESIM_HAVE_GPU_BACKEND

bool hasGpuBackend() { return true; }

GpuCompileOutcome compileForGpu(const Module& module, const Function& kernel, const GpuCompileRequest& request) {
  gpu::CompileOptions options;
  options.numWarps = request.numWarps;
  options.numStages = request.numStages;
  options.profile = request.profile;
  options.sm = request.sm;
  options.assumeRemainderGuards = request.assumeRemainderGuards;
  options.tensorCores = gpu::parseTensorCoreChoice(request.tensorCores).value_or(gpu::TensorCoreChoice::Auto);
  const std::optional<gpu::Stage> stage = gpu::parseStage(request.emit);
  options.dumpStage = stage ? *stage : gpu::Stage::Ptx;
  const auto start = std::chrono::steady_clock::now();
  gpu::CompileResult result = gpu::compileKernel(module, kernel, options);
  GpuCompileOutcome outcome;
  outcome.milliseconds.total =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  outcome.milliseconds.layouts = result.milliseconds.layouts;
  outcome.milliseconds.lowering = result.milliseconds.lowering;
  outcome.milliseconds.optimize = result.milliseconds.optimize;
  outcome.milliseconds.codegen = result.milliseconds.codegen;
  outcome.diagnostics = std::move(result.diagnostics);
  outcome.stageText = std::move(result.dump);
  if (result.kernel) outcome.ptx = std::move(result.kernel->ptx);
  return outcome;
}

std::string checkSmTarget(std::string_view sm) {
  if (gpu::smVersion(sm)) return "";
  std::string known;
  for (std::string_view name : gpu::knownSmTargets()) known += (known.empty() ? "" : " ") + std::string(name);
  return "'" + std::string(sm) + "' is not an NVPTX target LLVM 19 knows (" + known + ")";
}

#else

bool hasGpuBackend() { return false; }

GpuCompileOutcome compileForGpu(const Module&, const Function&, const GpuCompileRequest&) {
  GpuCompileOutcome outcome;
  outcome.unavailable = "this tilesim was built without the GPU backend (LLVM 19 was not found, or TILESIM_GPU_BACKEND=OFF)";
  return outcome;
}

std::string checkSmTarget(std::string_view) { return ""; }

#endif

}  // namespace tilesim

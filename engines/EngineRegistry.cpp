// The engines compiled into this binary. The GPU engine joins when gpu_backend/ is built
// (TILESIM_HAVE_GPU_BACKEND); otherwise asking for it says why not (TILESIM_GPU_BACKEND=OFF, or no LLVM 19).
#include "engines/EngineRegistry.h"

#include "interpreter/Interpreter.h"
#ifdef TILESIM_HAVE_GPU_BACKEND
#include "gpu_backend/GpuEngine.h"
#include "gpu_backend/Pipeline.h"
#endif

namespace tilesim {

const char* engineKindName(EngineKind kind) {
  switch (kind) {
    case EngineKind::Interpreter: return "interp";
    case EngineKind::Gpu: return "gpu";
  }
  return "?";
}

std::optional<EngineKind> parseEngineKind(std::string_view name) {
  if (name == "interp" || name == "interpreter") return EngineKind::Interpreter;
  if (name == "gpu") return EngineKind::Gpu;
  return std::nullopt;
}

EngineChoice createEngine(EngineKind kind) {
  EngineChoice choice;
  switch (kind) {
    case EngineKind::Interpreter: choice.engine = std::make_unique<InterpreterEngine>(); break;
    case EngineKind::Gpu:
#ifdef TILESIM_HAVE_GPU_BACKEND
      choice.engine = createGpuEngine(&choice.unavailable);
#elif defined(TILESIM_GPU_BACKEND_OFF)
      choice.unavailable =
          "this build has no GPU engine: it was configured with TILESIM_GPU_BACKEND=OFF (the interpreter only; "
          "pip builds the GPU engine with --config-settings=cmake.define.TILESIM_GPU_BACKEND=ON, docs/python.md)";
#else
      choice.unavailable = "this tilesim was built without the GPU engine (gpu_backend/ is not part of the build)";
#endif
      break;
  }
  return choice;
}

std::map<const Operation*, ReduceAxisLayout> reduceOrderOf(EngineKind kind, const Launch& launch) {
  if (!launch.module || !launch.kernel) return {};
  switch (kind) {
    case EngineKind::Interpreter: return {};
    case EngineKind::Gpu:
#ifdef TILESIM_HAVE_GPU_BACKEND
      return gpu::tritonReduceLayouts(*launch.module, *launch.kernel, launch.numWarps);
#else
      return {};
#endif
  }
  return {};
}

}  // namespace tilesim

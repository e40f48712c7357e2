// TILESIM_PTXAS_LEVEL: the ptxas optimisation level (CU_JIT_OPTIMIZATION_LEVEL) the GPU worker compiles PTX at.
// Header-only and free of the backend's libraries, so that the CLI validates the variable (tools/cli/Support.cpp
// checkEnvironment) in builds without the GPU backend too; the worker (runtime/CudaWorkerDevice.cpp) obeys it and
// the engine (GpuEngine.cpp) puts it into the kernel cache's key.
#pragma once

#include <cstdlib>
#include <optional>
#include <string_view>

namespace tilesim::gpu {

// The worker's own choice (CudaWorkerDevice.cpp, compileWithFewestSpills): the driver's default level, and -O1
// where the default spills and -O1 needs at most half its local memory.
inline constexpr int kPtxasLevelAuto = -1;

// "" or "auto": kPtxasLevelAuto; "0" to "4": that level; anything else: nullopt.
inline std::optional<int> parsePtxasLevel(std::string_view text) {
  if (text.empty() || text == "auto") return kPtxasLevelAuto;
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '4') return text[0] - '0';
  return std::nullopt;
}

inline std::optional<int> ptxasLevelFromEnvironment() {
  const char* text = std::getenv("TILESIM_PTXAS_LEVEL");
  return parsePtxasLevel(text ? text : "");
}

}  // namespace tilesim::gpu

// Which tensor-core instructions the `triton` profile's dots use: TILESIM_TENSOR_CORES (launches) and
// `tilesim compile --tensor-cores` (PTX). Header-only and free of the backend's libraries, so that the CLI validates
// the variable (tools/cli/Support.cpp checkEnvironment) in builds without the GPU backend too; the engine
// (GpuEngine.cpp) puts the choice into the kernel cache's key and CompileOptions.
//  - mma: mma.sync everywhere (Triton's MMAv2; sm_80 and later).
//  - wgmma: on sm_90a, wgmma.mma_async for the dots layout/WgmmaLayouts.h wgmmaPlan accepts, mma.sync for the
//    others (Triton's MMAv3 on Hopper).
//  - auto (the default): wgmma on sm_90a, mma.sync elsewhere, except for the dot types whose wgmma path has not run
//    on a GPU yet (tf32, int8, an 8-bit b along N: lowering/DotWgmma.cpp wgmmaRanOnDevice), which keep mma.sync. Checked on an H100 (2026-12-07): device_dots.sh,
//    30 of 30 dot cases within the interpreter's bounds, the 11 that take wgmma among them; matmul 8192³
//    128×256×64 w8 392.9 TFLOP/s against mma.sync's 211.3 in the same run (docs/performance.md).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace tilesim::gpu {

enum class TensorCoreChoice : uint8_t { Auto, MmaSync, Wgmma };

// "" or "auto", "mma", "wgmma"; anything else: nullopt.
inline std::optional<TensorCoreChoice> parseTensorCoreChoice(std::string_view text) {
  if (text.empty() || text == "auto") return TensorCoreChoice::Auto;
  if (text == "mma") return TensorCoreChoice::MmaSync;
  if (text == "wgmma") return TensorCoreChoice::Wgmma;
  return std::nullopt;
}

inline std::optional<TensorCoreChoice> tensorCoreChoiceFromEnvironment() {
  const char* text = std::getenv("TILESIM_TENSOR_CORES");
  return parseTensorCoreChoice(text ? text : "");
}

inline const char* tensorCoreChoiceName(TensorCoreChoice choice) {
  switch (choice) {
    case TensorCoreChoice::Auto: return "auto";
    case TensorCoreChoice::MmaSync: return "mma";
    case TensorCoreChoice::Wgmma: return "wgmma";
  }
  return "auto";
}

// Whether `choice` means wgmma on `sm` ("sm_90a": wgmma needs the arch-specific target).
inline bool usesWgmma(TensorCoreChoice choice, std::string_view sm) {
  return choice != TensorCoreChoice::MmaSync && sm == "sm_90a";
}

}  // namespace tilesim::gpu

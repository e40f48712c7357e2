// What a compute capability allows one program (CUDA block), for the decisions that depend on it: how much
// shared memory the lowering may plan, and hence which dots may stage their operands and results for tensor
// cores. The numbers are the CUDA programming guide's "maximum amount of shared memory per thread block" with
// the opt-in (cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), which the runtime makes for
// a kernel that needs more than 48 KiB: gpu_backend/runtime/CudaDriver.cpp).
#pragma once

#include <cstdint>
#include <string_view>

namespace tilesim::gpu {

inline constexpr int64_t kSharedBytesWithoutOptIn = 48 * 1024;
inline constexpr std::string_view kDefaultSm = "sm_90a";  // CompileOptions::sm's default

// The shared memory one block may use on `sm` ("sm_XY" or "sm_XYa"); 48 KiB for what is not listed.
constexpr int64_t sharedBytesPerBlock(std::string_view sm) {
  if (sm.size() < 5 || sm.substr(0, 3) != "sm_") return kSharedBytesWithoutOptIn;
  const int major = sm[3] - '0', minor = sm[4] - '0';
  const int capability = major * 10 + minor;
  if (capability >= 90 && capability < 100) return 227 * 1024;  // Hopper
  if (capability == 80 || capability == 87) return 163 * 1024;  // A100, Orin
  if (capability == 86 || capability == 89) return 99 * 1024;   // GA10x, Ada
  return kSharedBytesWithoutOptIn;
}

static_assert(sharedBytesPerBlock("sm_90a") == 232448 && sharedBytesPerBlock("sm_80") == 166912 &&
              sharedBytesPerBlock("sm_75") == 49152 && sharedBytesPerBlock("bogus") == 49152);

}  // namespace tilesim::gpu

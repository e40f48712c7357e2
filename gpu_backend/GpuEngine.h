// The GPU engine: runs a Launch on an NVIDIA GPU through the backend's pipeline (Pipeline.h) and the CUDA driver
// loaded at run time (runtime/CudaDriver.h). Per launch: compile (cached by module contents, kernel, num_warps
// and float profile), one device buffer per storage (aliases from placeBuffers point into their storage at their
// offset), copy in, launch `grid` programs of 32 * num_warps threads, copy out, refresh alias views.
//
// What it does NOT do: the interpreter's checks. Out-of-bounds accesses, undefined lanes, races and --check=ub
// are the interpreter's job; a GPU run returns no such Reports (an out-of-bounds access may fault, and a fault is
// a diagnostic naming the kernel; the driver then resets the GPU context, so the engine stays usable and the
// next launch recompiles or reloads what it needs). tt.print and tt.assert are not lowered yet. Ops the
// backend cannot lower come back as diagnostics before anything runs.
//
// Compiled kernels are kept in memory for the engine's lifetime and on disk across runs (runtime/KernelCache.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/launch/Engine.h"

namespace tilesim {

// Null, with `whyNot` set to one sentence, when libcuda.so.1 cannot be loaded or there is no GPU.
std::unique_ptr<Engine> createGpuEngine(std::string* whyNot);

// In-process timing of a GPU launch (`tilesim run --engine gpu --time N`, bench/gpu/).
struct GpuTimingRequest {
  int warmup = 10;      // untimed launches after the first
  int iterations = 100; // timed launches, each between two CUDA events on the default stream
};
struct GpuTiming {
  std::string source;           // where the kernel came from: "compiled", "disk-cache" or "memory-cache" (no spaces: the
                                // `--time` line is space-separated key=value fields)
  double compileMs = 0;         // TTIR -> PTX in this process (0 unless compiled)
  double loadMs = 0;            // PTX -> cubin (driver JIT) -> module, or cached cubin -> module
  std::vector<float> launchMs;  // one per timed launch
  int threads = 0;              // per program (32 * num_warps)
  int sharedBytes = 0;          // dynamic shared memory per program
  int registers = -1;           // per thread, as the driver reports for the loaded kernel
};
// Runs `launch` on `engine` (which must be a GPU engine) exactly as Engine::run does — the outputs copied back
// are those of the first launch — then, on the same device buffers, `warmup` more launches and `iterations`
// timed ones. Kernels that read what they write give the same outputs only if they are idempotent.
LaunchOutcome runTimedOnGpu(Engine& engine, Launch& launch, const LaunchOptions& options,
                            const GpuTimingRequest& request, GpuTiming* timing);

}  // namespace tilesim

// The GPU engine: runs a Launch on an NVIDIA GPU through the backend's pipeline (Pipeline.h) and the CUDA driver
// loaded at run time (runtime/CudaDriver.h). Per launch: compile (cached by module contents, kernel, num_warps
// and float profile), one device buffer per storage (aliases from placeBuffers point into their storage at their
// offset), copy in, launch `grid` programs of 32 * num_warps threads, copy out, refresh alias views.
//
// What it does NOT do: the interpreter's checks. Out-of-bounds accesses, undefined lanes, races and --check=ub
// are the interpreter's job; a GPU run returns no such Reports (an out-of-bounds access may fault, and a fault is
// a diagnostic naming the kernel, after which this process's CUDA context is unusable). tt.print and tt.assert
// are not lowered yet. Ops the backend cannot lower come back as diagnostics before anything runs.
#pragma once

#include <memory>
#include <string>

#include "ir/launch/Engine.h"

namespace tilesim {

// Null, with `whyNot` set to one sentence, when libcuda.so.1 cannot be loaded or there is no GPU.
std::unique_ptr<Engine> createGpuEngine(std::string* whyNot);

}  // namespace tilesim

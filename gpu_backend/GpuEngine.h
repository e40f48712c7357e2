// The GPU engine: runs a Launch on an NVIDIA GPU through the backend's pipeline (Pipeline.h) and the CUDA driver
// loaded at run time (runtime/CudaDriver.h). Per launch: bind the arguments (ir/launch/Binding.h, the binding
// the interpreter uses), compile (cached by module contents, kernel, num_warps and float profile), one device
// buffer per storage (aliases point into their storage at their offset), copy in, launch `grid` programs of 32 * num_warps threads, copy out, refresh alias views.
//
// Timing (Engine::runTimed, `tilesim run --engine gpu --time N`): after the launch, more launches on the same
// device buffers, each between two CUDA events.
//
// Every CUDA call is made in a GPU worker process (runtime/GpuWorker.h); this process compiles TTIR -> PTX and
// never loads libcuda itself. A fault (an illegal address; a trap from tt.assert, said as "the kernel asserted")
// ends the worker, and the launch returns a diagnostic naming the kernel; a worker that dies or runs past the
// timeout (TILESIM_GPU_TIMEOUT, 120 s by default; the worker is then killed) likewise. The next launch starts
// a new worker, so the engine stays usable.
//
// What it does NOT do: the interpreter's checks. Out-of-bounds accesses, undefined lanes, races and --check=ub
// are the interpreter's job; a GPU run returns no such Reports, and no error bounds (the conformance runner
// judges its outputs with the interpreter's bounds: CaseOptions::boundsEngine). tt.print is not lowered. Ops
// the backend cannot lower come back as diagnostics before anything runs.
//
// Compiled kernels are kept in memory for the engine's lifetime (the PTX in this process, the module in the
// worker) and on disk across runs (runtime/KernelCache.h, read and written by the worker).
#pragma once

#include <memory>
#include <string>

#include "gpu_backend/runtime/GpuWorker.h"
#include "ir/launch/Engine.h"

namespace tilesim {

// Null, with `whyNot` set to one sentence, when libcuda.so.1 cannot be loaded or there is no GPU (the worker
// says so in its hello).
std::unique_ptr<Engine> createGpuEngine(std::string* whyNot);
// The same engine over a worker whose device `factory` makes in the child (the tests' fake devices, no GPU
// needed); `timeoutSeconds` bounds each request to the worker (<= 0: none).
std::unique_ptr<Engine> createGpuEngineWithDevice(gpu::WorkerClient::DeviceFactory factory, double timeoutSeconds,
                                                  std::string* whyNot);

}  // namespace tilesim

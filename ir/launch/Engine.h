// The seam between the things that run kernels and the things that ask for runs. An Engine takes a Launch and
// returns a LaunchOutcome; the conformance runner, `tilesim run/conformance`, the fuzzer and the benchmarks call
// this interface and never an engine's internals. The interpreter (InterpreterEngine, interpreter/Interpreter.h) is one
// implementation; the GPU backend is the other. Which engines exist in a binary, and whether the machine can run
// them, is the engine registry's business (engines/EngineRegistry.h).
//
// Capabilities some engines have and others lack are virtual functions with a default that says "not here":
// timing launches on a device (runTimed: the GPU engine), so a caller asks the Engine and never includes an
// engine's own header.
#pragma once

#include <string>
#include <vector>

#include "ir/launch/Launch.h"

namespace tilesim {

// Timing launches on a device (`tilesim run --engine gpu --time N`, bench/gpu/).
struct TimingRequest {
  int warmup = 10;       // untimed launches after the first
  int iterations = 100;  // timed launches, each between two device events on the default stream
};
struct LaunchTiming {
  std::string source;           // where the kernel came from: "compiled", "disk-cache" or "memory-cache" (no spaces: the
                                // `--time` line is space-separated key=value fields)
  double compileMs = 0;         // TTIR -> device code in this process (0 unless compiled)
  double loadMs = 0;            // device code -> loaded module
  std::vector<float> launchMs;  // one per timed launch
  int threads = 0;              // per program (32 * num_warps on a GPU)
  int sharedBytes = 0;          // dynamic shared memory per program
  int registers = -1;           // per thread, as the driver reports for the loaded kernel
};

class Engine {
 public:
  virtual ~Engine() = default;
  // The short name the command line uses: "interp" or "gpu".
  virtual const char* name() const = 0;
  // One line for logs and benchmark tables: "interpreter (16 threads)", "gpu: NVIDIA H200 (sm_90a)".
  virtual std::string description() const = 0;
  // Runs the launch. Buffers in launch.arguments hold the outputs afterwards.
  virtual LaunchOutcome run(Launch& launch, const LaunchOptions& options) = 0;

  // Whether runTimed times this engine's launches (the GPU engine's do; the interpreter has no device to time).
  virtual bool canTime() const { return false; }
  // Runs the launch exactly as run() does — the outputs are those of the first launch — then, on the same
  // device buffers, `request.warmup` more launches and `request.iterations` timed ones. Kernels that read what
  // they write give the same outputs only if they are idempotent. Without the capability: a diagnostic.
  virtual LaunchOutcome runTimed(Launch& launch, const LaunchOptions& options, const TimingRequest& request,
                                 LaunchTiming* timing);
};

}  // namespace tilesim

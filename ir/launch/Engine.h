// The seam between the things that run kernels and the things that ask for runs. An Engine takes a Launch and
// returns a LaunchOutcome; the conformance runner, `tilesim run/conformance`, the fuzzer and the benchmarks call
// this interface and never an engine's internals. The interpreter (interpreter/InterpreterEngine.h) is one
// implementation; the GPU backend is the other. Which engines exist in a binary, and whether the machine can run
// them, is tools/engines' business (EngineRegistry.h).
#pragma once

#include <string>

#include "ir/launch/Launch.h"

namespace tilesim {

class Engine {
 public:
  virtual ~Engine() = default;
  // The short name the command line uses: "interp" or "gpu".
  virtual const char* name() const = 0;
  // One line for logs and benchmark tables: "interpreter (16 threads)", "gpu: NVIDIA H200 (sm_90a)".
  virtual std::string description() const = 0;
  // Runs the launch. Buffers in launch.arguments hold the outputs afterwards.
  virtual LaunchOutcome run(Launch& launch, const LaunchOptions& options) = 0;
};

}  // namespace tilesim

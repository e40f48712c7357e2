// Writes a failing fuzz program as a conformance case (docs/conformance.md's golden format) so that
// `tilesim run conformance/regressions/<name>` replays it: kernel.ttir (the printed module), case.json (grid and
// buffer arguments), each buffer's input .npy and, for the output buffers, the reference evaluator's expected .npy.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/programs/KernelGen.h"

namespace tilesim::fuzz {

// `expected[i]` holds buffer argument i after the launch, per the reference. Returns "" or an error message.
std::string writeRegressionCase(const std::string& directory, const std::string& name, const BuiltKernel& kernel,
                                const std::vector<std::vector<uint8_t>>& expected, const std::string& note);

// Another engine's buffers beside the expected ones: written as `outN.<engine>.npy` (named in case.json's
// `engine_outputs`, informational: the runner compares only `expected`).
struct EngineOutputs {
  std::string engine;                          // "gpu", "buggy", ...
  std::vector<std::vector<uint8_t>> buffers;   // per buffer argument, after that engine's launch
};

struct CaseWriteOptions {
  std::string note;
  std::vector<EngineOutputs> others;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // merged into case.json (e.g. "fuzz": {...})
};

// The general form: `kernel.module` is printed as kernel.ttir; `expected` as above.
std::string writeCase(const std::string& directory, const std::string& name, const BuiltKernel& kernel,
                      const std::vector<std::vector<uint8_t>>& expected, const CaseWriteOptions& options);

}  // namespace tilesim::fuzz

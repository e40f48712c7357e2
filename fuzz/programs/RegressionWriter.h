// Writes a failing fuzz program as a conformance case (docs/conformance.md's golden format) so that
// `tilesim run conformance/regressions/<name>` replays it: kernel.ttir (the printed module), case.json (grid and
// buffer arguments), each buffer's input .npy and, for the output buffers, the reference evaluator's expected .npy.
#pragma once

#include <string>
#include <vector>

#include "fuzz/programs/KernelGen.h"

namespace tilesim::fuzz {

// `expected[i]` holds buffer argument i after the launch, per the reference. Returns "" or an error message.
std::string writeRegressionCase(const std::string& directory, const std::string& name, const BuiltKernel& kernel,
                                const std::vector<std::vector<uint8_t>>& expected, const std::string& note);

}  // namespace tilesim::fuzz

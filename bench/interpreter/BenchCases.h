// The interpreter benchmark's cases: for each kernel in bench/interpreter/kernels/, its launch (grid and
// arguments built from random inputs with a fixed seed), a straightforward C++ reference that checks the outputs,
// the work done (elements or flops) and, where one was measured, the Triton 3.6 interpreter's time.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "ir/launch/Launch.h"

namespace tilesim::bench {

struct CheckResult {
  double maxAbsError = 0;
  double tolerance = 0;
  std::string what;  // "out vs fp64 softmax"
  bool ok() const { return maxAbsError <= tolerance; }
};

struct BenchCase {
  std::string name;     // what --kernel selects
  std::string file;     // TTIR file under the kernels directory
  std::string shape;    // for the table
  std::array<int64_t, 3> grid{1, 1, 1};
  std::vector<LaunchArgument> arguments;  // inputs; outputs are compared after a launch on a copy
  std::function<CheckResult(const std::vector<LaunchArgument>&)> check;
  double work = 0;           // elements or flops per launch
  bool workIsFlops = false;
  double tritonSeconds = 0;  // Triton 3.6 interpreter (TRITON_INTERPRET=1) on the same problem; 0 = not measured
  std::string tritonSource;  // where that number comes from
};

// All cases in table order; building them generates their inputs (deterministic).
std::vector<BenchCase> makeBenchCases();

// The argument named `name` in `arguments` (aborts when absent: a bug in the case).
const LaunchArgument& findArgument(const std::vector<LaunchArgument>& arguments, const std::string& name);

}  // namespace tilesim::bench

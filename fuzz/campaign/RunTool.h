// Running an external tool (ptxas) from the fuzzer with no shell in between: posix_spawn with an argv, so no
// character of a path or of $TMPDIR is ever interpreted, and the tool's output captured through a pipe.
#pragma once

#include <string>
#include <vector>

namespace tilesim::fuzz {

struct ToolRun {
  int exitStatus = -1;  // the tool's exit code; 128 + N when signal N ended it; -1 when it could not start
  std::string output;   // stdout and stderr, the first 64 KiB
  std::string error;    // why it could not start ("" when it ran)
};

// Runs argv[0] (a path, not looked up on PATH) with `argv` and waits for it.
ToolRun runTool(const std::vector<std::string>& argv);

}  // namespace tilesim::fuzz

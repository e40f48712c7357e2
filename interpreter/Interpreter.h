// The interpreter's public entry points: run a TTIR kernel over a grid on host buffers, with checks. The launch
// contract (Launch, LaunchOptions, LaunchResult, Report) is engine-neutral and lives in ir/launch/; callers that
// do not care which engine runs use the Engine interface (InterpreterEngine below is the interpreter's).
//
// Program outcomes (out-of-bounds accesses, undefined lanes reaching memory, races, assert failures, UB under
// --check=ub) are Reports, never aborts. Programs run in parallel (OpenMP) in the requested order; reports are
// merged and sorted, so results do not depend on the thread count or the order.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "interpreter/Elementwise.h"
#include "interpreter/Tile.h"
#include "ir/IR.h"
#include "ir/launch/Engine.h"
#include "ir/launch/Launch.h"

namespace tilesim {

// Tracing (tilesim trace): `hook` is called after every op that `program` executes, in execution order, with the
// op's result tiles. The traced program runs alone on the calling thread, so the hook needs no locking.
struct ProgramTrace {
  std::array<int64_t, 3> program{0, 0, 0};
  std::function<void(const Operation&, const std::vector<TileRef>& results)> hook;
};

// Runs the launch on the interpreter; with `trace`, only the traced program runs.
LaunchOutcome runLaunch(Launch& launch, const LaunchOptions& options, const ProgramTrace* trace = nullptr);

// A pointer value of this launch in words: `&x_ptr[3]` (element 3 of buffer argument x_ptr), `x_ptr+13B` for a
// misaligned address, `x_ptr[end+2]` past the end, or hex when it is in no buffer's window. Aliases are named by
// the storage they point into.
std::string describeAddress(const Launch& launch, uint64_t address);

class InterpreterEngine final : public Engine {
 public:
  const char* name() const override { return "interp"; }
  std::string description() const override;
  LaunchOutcome run(Launch& launch, const LaunchOptions& options) override { return runLaunch(launch, options); }
};

}  // namespace tilesim

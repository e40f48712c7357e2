// The interpreter's public entry point: run a TTIR kernel over a grid on host buffers, with checks.
//
//   Launch launch;                           // what to run
//   launch.module = &module; launch.kernel = *module.kernel();
//   launch.arguments = {LaunchArgument::buffer("x_ptr", ScalarKind::F32, bytes), LaunchArgument::scalar("n", 5000)};
//   launch.grid = {10, 1, 1};
//   LaunchResult result = runLaunch(launch, options);   // buffers in launch.arguments hold the outputs
//
// Arguments are bound to the tt.func parameters by name (Triton drops parameters that were specialised to
// constants; arguments with no parameter of their name are ignored and listed in result.unusedArguments).
// A missing or ill-typed argument is a Diagnostic naming it. Program outcomes (out-of-bounds accesses,
// undefined lanes reaching memory, races, assert failures, UB under --check=ub) are Reports, never aborts.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/Elementwise.h"
#include "interpreter/Tile.h"
#include "ir/Diagnostic.h"
#include "ir/IR.h"

namespace tilesim {

struct LaunchArgument {
  enum class Kind : uint8_t { Buffer, Scalar };
  std::string name;
  Kind kind = Kind::Scalar;
  // Buffer: element type and contents (row-major bytes), updated in place by the launch.
  ScalarKind elementKind = ScalarKind::F32;
  std::vector<uint8_t> bytes;
  // After the launch, per element of the buffer: the error bound of the value last stored there under the
  // triton float profile (0 = must match the GPU bit for bit). Empty when every element is exact.
  std::vector<double> errorBound;
  // Scalar: the value; bound to the parameter's type (ints wrap to its width, floats round to it).
  bool scalarIsFloat = false;
  int64_t intValue = 0;
  double floatValue = 0.0;

  static LaunchArgument buffer(std::string name, ScalarKind kind, std::vector<uint8_t> bytes);
  static LaunchArgument integer(std::string name, int64_t value);
  static LaunchArgument floating(std::string name, double value);
};

enum class ProgramOrder : uint8_t { Forward, Reverse, Shuffled };

struct LaunchOptions {
  FloatProfile profile = FloatProfile::Exact;
  bool checks = true;          // out-of-bounds, undefined lanes, races, asserts
  bool checkUB = false;        // also report integer division by zero, oversized shifts, ... (--check=ub)
  int threads = 0;             // 0 = OpenMP default
  ProgramOrder order = ProgramOrder::Forward;
  uint64_t shuffleSeed = 1;
  int maxReportsPerKind = 10;  // further reports of a kind are counted, not stored
  bool echoPrints = true;      // tt.print output to stdout (in program order)
  // Tracing (tilesim trace): when traceProgram is set, traceHook is called after every op that program executes,
  // in execution order, with the op's result tiles.
  std::optional<std::array<int64_t, 3>> traceProgram;
  std::function<void(const Operation&, const std::vector<TileRef>& results)> traceHook;
};

struct Report {
  enum class Kind : uint8_t {
    OutOfBounds,      // unmasked access outside every buffer of the launch
    UndefinedUse,     // an undefined lane reached memory, an address or control flow
    Race,             // two programs touch one address, at least one writing, without atomics
    AssertFailed,     // tt.assert
    UndefinedBehavior,  // --check=ub: division by zero, oversized shift, float->int out of range, overflow
    Unsupported,      // the kernel uses something the interpreter cannot run (inline asm, ...)
  };
  Kind kind;
  std::array<int64_t, 3> program{};  // program id (x, y, z)
  std::vector<int64_t> lane;         // multi-index into the op's tile; empty for scalars
  std::string op;                    // "tt.load"
  SourcePos ttirPos;                 // the op's line in the TTIR
  std::string sourceLoc;             // Python source from the loc table, "kernels.py:12:24"
  std::string buffer;                // argument name of the buffer involved, if any
  int64_t byteOffset = -1;           // offset into that buffer
  std::string message;               // the rest, e.g. "read 4 bytes at 0x... past the end of x_ptr (20000 bytes)"
  std::string str() const;           // one line for humans
};
const char* reportKindName(Report::Kind kind);

// All reports of one kind from one op in one program, summarised: how many lanes, the first and last lane
// (row-major order) and the range of byte offsets. Every report is counted here, stored or not.
struct ReportGroup {
  Report first;                 // the group's first report (smallest lane)
  int64_t count = 0;
  std::vector<int64_t> lastLane;
  int64_t minByteOffset = -1, maxByteOffset = -1;
  std::string str() const;      // one line; for a single report, Report::str()
};

struct LaunchResult {
  std::vector<Report> reports;        // sorted by kind, program, op; at most maxReportsPerKind of each kind
  std::vector<ReportGroup> groups;    // every report, grouped by kind, program and op; same order
  std::array<int64_t, 6> totalByKind{};  // including those not stored
  std::vector<std::string> unusedArguments;
  std::vector<std::string> printed;   // tt.print lines, in program order
  bool ok() const { return reports.empty(); }
};

struct Launch {
  const Module* module = nullptr;
  std::optional<Function> kernel;
  std::vector<LaunchArgument> arguments;
  std::array<int64_t, 3> grid{1, 1, 1};
};

// Runs the launch. Returns diagnostics (bad arguments, unsupported IR) instead of a result when it cannot start.
struct LaunchOutcome {
  Diagnostics diagnostics;
  LaunchResult result;
  bool started() const { return diagnostics.empty(); }
};
LaunchOutcome runLaunch(Launch& launch, const LaunchOptions& options);

// A pointer value of this launch in words: `&x_ptr[3]` (element 3 of buffer argument x_ptr), `x_ptr+13B` for a
// misaligned address, `x_ptr[end+2]` past the end, or hex when it is in no buffer's window.
std::string describeAddress(const Launch& launch, uint64_t address);

}  // namespace tilesim

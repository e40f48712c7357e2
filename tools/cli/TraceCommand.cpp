// `tilesim trace`: step through one program of a launch, printing each op's results as it executes.
//   tilesim trace KERNEL.ttir --grid 4 --arg ... --program 2[,0,0] [--at LINE]
//   tilesim trace CASE_DIR --program 1
// Each line: the op's line in the TTIR, its name, each result's SSA name, type and values (summarised like
// NumPy: `[0, 1, 2, ..., 1021, 1022, 1023]`, undefined lanes as `undef`) and the Python source position. Ops in
// loops print once per iteration. `--at LINE` keeps only the ops on that TTIR line.
#include <cstdio>
#include <fmt/format.h>

#include "conformance/runner/Format.h"
#include "interpreter/Interpreter.h"
#include "interpreter/Tile.h"
#include "ir/text/Printer.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {

struct TraceFlags {
  LaunchFlags launch;
  std::string program = "0";
  int atLine = 0;
  int64_t threshold = 64;
};

std::string blockPointerText(const BlockPointer& pointer) {
  auto list = [&](const auto* values) {
    std::vector<int64_t> items(values, values + pointer.rank);
    return fmt::format("[{}]", fmt::join(items, ", "));
  };
  return fmt::format("{{base=0x{:x}, shape={}, strides={}, offsets={}, order={}}}", pointer.base, list(pointer.shape),
                     list(pointer.strides), list(pointer.offsets), list(pointer.order));
}

std::string tileText(const Tile& tile, int64_t threshold, const Launch& launch) {
  Type element = tile.elementType();
  const uint8_t* undefined = tile.undefinedMask();
  std::function<std::string(int64_t)> format;
  if (element.isPointer() && element.pointee().isTensor()) {
    format = [&](int64_t lane) { return blockPointerText(tile.as<BlockPointer>()[lane]); };
  } else if (element.isPointer()) {
    format = [&](int64_t lane) { return describeAddress(launch, tile.bitsAt(lane)); };
  } else {
    ScalarKind kind = element.scalarKind();
    format = [&, kind](int64_t lane) { return formatElement(tile.bitsAt(lane), kind); };
  }
  auto lane = [&](int64_t index) { return undefined && undefined[index] ? std::string("undef") : format(index); };
  SummaryOptions options;
  options.threshold = threshold;
  return summarizeArray(tile.shape(), lane, options);
}

int runTrace(const TraceFlags& flags) {
  PreparedLaunch prepared;
  if (flags.launch.engine != "interp") {
    printError("trace steps through a program on the interpreter; --engine " + flags.launch.engine +
               " cannot step programs (use tilesim run --engine " + flags.launch.engine + ")");
    return kExitBadInput;
  }
  if (int code = prepareLaunch(flags.launch, prepared); code != kExitOk) return code;
  std::optional<std::array<int64_t, 3>> program = parseTriple(flags.program, 0);
  const auto& grid = prepared.launch.grid;
  if (!program) {
    printError("--program '" + flags.program + "': expected X[,Y,Z] with non-negative integers");
    return kExitBadInput;
  }
  for (size_t axis = 0; axis < 3; ++axis)
    if ((*program)[axis] >= grid[axis]) {
      printError(fmt::format("--program {}: outside the grid {}x{}x{}", flags.program, grid[0], grid[1], grid[2]));
      return kExitBadInput;
    }

  const Module& module = *prepared.module;
  int64_t printed = 0;
  ProgramTrace trace;
  trace.program = *program;
  trace.hook = [&](const Operation& op, const std::vector<TileRef>& results) {
    if (flags.atLine > 0 && op.textPos.line != flags.atLine) return;
    ++printed;
    std::string source = module.locations.describe(op.loc);
    std::string text = fmt::format("{:>5}  {}", op.textPos.line, op.name());
    for (size_t i = 0; i < op.numResults(); ++i) {
      text += fmt::format("{}  {} : {} = ", i ? "\n      " + std::string(op.name().size(), ' ') : "",
                          printValueName(*op.result(i)), op.result(i)->type.str());
      text += i < results.size() && results[i] ? tileText(*results[i], flags.threshold, prepared.launch) : "(no value)";
    }
    if (!source.empty()) text += "    # " + source;
    std::printf("%s\n", text.c_str());
  };
  std::printf("trace of program (%lld, %lld, %lld) of @%s on grid %lldx%lldx%lld\n", static_cast<long long>((*program)[0]),
              static_cast<long long>((*program)[1]), static_cast<long long>((*program)[2]),
              prepared.launch.kernel->name().c_str(), static_cast<long long>(grid[0]), static_cast<long long>(grid[1]),
              static_cast<long long>(grid[2]));
  LaunchOutcome outcome = runLaunch(prepared.launch, prepared.options, &trace);
  if (!outcome.started()) {
    printDiagnostics(outcome.diagnostics);
    return kExitBadInput;
  }
  if (flags.atLine > 0 && printed == 0) std::printf("(no op on line %d executed in this program)\n", flags.atLine);
  printReports(outcome.result);
  return outcome.result.ok() ? kExitOk : kExitFailed;
}

}  // namespace

void addTraceCommand(CLI::App& app, int& exitCode) {
  auto [trace, flags] =
      addLaunchCommand(app, "trace", "print every op's results for one program, as it executes", runTrace, exitCode);
  trace->add_option("--program", flags->program, "the program to trace, X[,Y,Z] (default 0)");
  trace->add_option("--at", flags->atLine, "only print ops on this TTIR line")->check(CLI::PositiveNumber);
  trace->add_option("--threshold", flags->threshold, "print tiles with more elements than this summarised")
      ->check(CLI::PositiveNumber);
}

}  // namespace tilesim::cli

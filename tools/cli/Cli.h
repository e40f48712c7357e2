// Shared pieces of the `tilesim` command line: exit codes, the command registration functions (one per file),
// loading and verifying TTIR, and preparing a launch from either a kernel plus `--arg`s or a golden-case directory.
//
// Exit codes (the same for every command, documented in `tilesim --help` and docs/cli.md):
//   0  success: the file is valid, every output matched, no check reported anything
//   1  the command ran and the answer is "no": TTIR diagnostics (parse/check), an output that does not match,
//      a report from the checks (out-of-bounds, undefined lane, race, assert, UB), a conformance case failing
//   2  the command could not run: usage errors, unreadable or malformed files (TTIR that does not parse when it is
//      to be run, case.json, .npy), arguments that do not bind to the kernel
//   3  internal error (a tilesim bug)
//   4  skipped: the engine asked for (--engine gpu) is not built into this binary or has no GPU to run on
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "conformance/runner/GoldenCase.h"
#include "conformance/runner/Npy.h"
#include "engines/EngineRegistry.h"
#include "ir/IR.h"

namespace tilesim {
struct CaseOptions;  // conformance/runner/Conformance.h
}  // namespace tilesim

namespace tilesim::cli {

enum ExitCode : int { kExitOk = 0, kExitFailed = 1, kExitBadInput = 2, kExitInternal = 3, kExitEngineUnavailable = 4 };

// Each registers its subcommands; the callback stores the command's exit code in `exitCode`.
void addParseCommands(CLI::App& app, int& exitCode);  // parse, check
void addRunCommand(CLI::App& app, int& exitCode);
void addTraceCommand(CLI::App& app, int& exitCode);
void addConformanceCommand(CLI::App& app, int& exitCode);
void addOpsCommand(CLI::App& app, int& exitCode);
void addCompileCommand(CLI::App& app, int& exitCode);  // compile (GPU backend stages)
void addDiffCommand(CLI::App& app, int& exitCode);     // diff (interpreter vs another engine)
void addFuzzCommand(CLI::App& app, int& exitCode);     // fuzz (differential campaigns)
void addPassesCommand(CLI::App& app, int& exitCode);
void addBenchCommand(CLI::App& app, int& exitCode);    // bench (check and time cases; --autotune)   // passes (Triton's pipeline pass by pass)
// `tilesim fuzz` without OMP_WAIT_POLICY in the environment: re-executes itself with OMP_WAIT_POLICY=passive
// (libgomp reads it once, at load). Returns only when it did not re-execute.
void reexecFuzzWithPassiveOpenMP(int argc, char** argv);

// Option validators that name what they want. CLI::Range and CLI::NonNegativeNumber let NaN through (every
// comparison with it is false): these parse the text and refuse NaN and infinities.
CLI::Validator finiteRange(double lo, double hi);
// Triton's num_warps: a power of two from 1 to 32.
CLI::Validator powerOfTwoWarps();

// The environment variables tilesim reads (TILESIM_GPU_TIMEOUT, TILESIM_PTXAS_LEVEL, TILESIM_LIBDEVICE,
// TILESIM_CACHE_DIR): each,
// when set, must hold what it names; otherwise one error naming the variable. Returns kExitOk or kExitBadInput.
int checkEnvironment();

// One line on stderr: "tilesim: error: MESSAGE".
void printError(const std::string& message);
void printDiagnostics(const Diagnostics& diagnostics);  // one per line on stderr
// Prints the stored reports (one per line, stdout) and a count of those not stored; returns the total.
int64_t printReports(const LaunchResult& result);

// `--engine interp|gpu` (every command that runs kernels): adds the option, and creates the engine it names.
// When that engine is unavailable, prints why ("skipped: ...") and returns null with `exitCode` = 4.
void addEngineOption(CLI::App& command, std::string& engine);
std::unique_ptr<Engine> engineFor(const std::string& name, int& exitCode);
// The engine whose error bounds judge `engine`'s outputs in a case (CaseOptions::boundsEngine): the
// interpreter for an engine without bounds (the GPU), null for the interpreter itself.
std::unique_ptr<Engine> boundsEngineFor(const Engine& engine);
// The case driver's options from the flags `run` (on a case directory) and `conformance` share: --profile
// (anything but "exact" is triton; empty: the case's recorded profile, else triton), --no-check, --check=ub, --threads, --max-steps. The caller adds the rest.
CaseOptions caseOptionsFromFlags(const std::string& profile, bool noCheck, const std::string& check, int threads,
                                 uint64_t maxSteps);

// The case directories under `roots` (conformance/runner findCaseDirectories); empty, after an error naming each
// missing root or saying that none holds a case, when there is nothing to run.
std::vector<std::string> caseDirectoriesOrReport(const std::vector<std::string>& roots);

// Parses a TTIR file without verifying it, printing diagnostics. Returns null and sets `exitCode` on failure.
std::unique_ptr<Module> parseModuleOrReport(const std::string& path, int& exitCode);

// Parses and verifies a TTIR file, printing diagnostics. Returns null and sets `exitCode` on failure.
std::unique_ptr<Module> loadModule(const std::string& path, int& exitCode);

// Options shared by `run` and `trace`.
struct LaunchFlags {
  std::string target;  // KERNEL.ttir or CASE_DIR
  std::string grid;    // "X[,Y,Z]"
  std::vector<std::string> arguments;  // NAME=FILE.npy | NAME=@OTHER[+BYTES] | NAME=VALUE
  std::string entry;
  bool noCheck = false;
  std::string check;    // "ub"
  std::string profile;  // "exact" | "triton"; empty: exact for kernels, triton for cases
  int threads = 0;
  std::string engine = "interp";
  uint64_t maxSteps = LaunchOptions{}.maxSteps;  // per program; 0 = no limit
  uint64_t scheduleSeed = 0;  // ttg.warp_specialize: 0 = round robin, else a random schedule (LaunchOptions)
  void addTo(CLI::App& command);
};

// A launch ready to run: the module, the Launch itself, and where each buffer came from.
struct PreparedLaunch {
  std::unique_ptr<Module> module;
  Launch launch;
  LaunchOptions options;
  std::vector<std::string> inputPaths;        // per launch argument; empty for scalars
  std::vector<std::string> protectedPaths;    // other files --out must never replace (a case's own files)
  std::vector<NpyType> fileTypes;             // per launch argument, NumPy dtype of the input file
  std::vector<std::vector<int64_t>> shapes;   // per launch argument, shape of the input file
  std::optional<GoldenCase> goldenCase;       // set when the target was a case directory
};

// Builds the launch from the flags; prints errors and returns the exit code (kExitOk on success).
int prepareLaunch(const LaunchFlags& flags, PreparedLaunch& prepared);

// The most worker threads --threads accepts.
constexpr int kMaxThreadsFlag = 1024;

// "10" / "4,2" / "4,2,1" -> {X, Y, Z}; nullopt on bad syntax or a value below `minimum`.
std::optional<std::array<int64_t, 3>> parseTriple(const std::string& text, int64_t minimum);

}  // namespace tilesim::cli

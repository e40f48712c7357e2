// The `tilesim` command line: one subcommand per task (parse, check, run, trace, conformance, ops), each in
// its own file. main() turns every outcome into an exit code (see Cli.h) and never lets an exception escape.
#include <cstdio>
#include <exception>
#include <new>

#include "ir/Mutation.h"
#include "tools/cli/Cli.h"

namespace tilesim::cli {
extern const char* const kBuildVersion;  // BuildVersion.cpp, generated at build time (cmake/BuildVersion.cmake)
}  // namespace tilesim::cli

namespace {

constexpr const char* kExitCodeHelp =
    "Exit codes:\n"
    "  0  success: valid input, every output matched, no check reported anything\n"
    "  1  ran, and the answer is no: TTIR diagnostics, an output mismatch, a check report, a failing case\n"
    "  2  could not run: usage error, unreadable or malformed file, arguments that do not bind\n"
    "  3  internal error (a tilesim bug; please report it)\n"
    "  4  skipped: the engine asked for (--engine gpu) is not built in or has no GPU here\n";

int runMain(int argc, char** argv) {
  using namespace tilesim::cli;
  CLI::App app{"tilesim: run, trace and check Triton TTIR kernels on the CPU, compile them for NVIDIA GPUs"};
  app.footer(kExitCodeHelp);
  app.set_version_flag("--version", kBuildVersion);  // the version, the commit and the build type
  app.require_subcommand(1);
  int exitCode = kExitOk;
  addParseCommands(app, exitCode);
  addRunCommand(app, exitCode);
  addTraceCommand(app, exitCode);
  addConformanceCommand(app, exitCode);
  addOpsCommand(app, exitCode);
  addCompileCommand(app, exitCode);
  addDiffCommand(app, exitCode);
  addFuzzCommand(app, exitCode);
  addPassesCommand(app, exitCode);
  addBenchCommand(app, exitCode);
  if (int code = checkEnvironment(); code != kExitOk) return code;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);  // prints help, or the usage error and a hint
    return code == 0 ? kExitOk : kExitBadInput;
  }
  return exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  tilesim::mutation::checkMutantEnvironment();  // an unknown TILESIM_MUTANT: exit 2 before anything runs
  tilesim::cli::reexecFuzzWithPassiveOpenMP(argc, argv);
  try {
    return runMain(argc, argv);
  } catch (const std::bad_alloc&) {  // the input needs more memory than this machine gives: not a tilesim bug
    std::fprintf(stderr, "tilesim: error: out of memory (the input needs more host memory than is available)\n");
    return tilesim::cli::kExitBadInput;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tilesim: internal error: %s\n", error.what());
  } catch (...) {
    std::fprintf(stderr, "tilesim: internal error\n");
  }
  return tilesim::cli::kExitInternal;
}

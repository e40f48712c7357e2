// `tilesim compile KERNEL.ttir --emit=layout|llvm|llvm-opt|ptx`: runs the GPU backend's pipeline
// (through engines/GpuCompiler.h, gpu_backend/Pipeline.h) and prints the stage asked for: the layout of every tensor value, the LLVM IR as
// lowered, the LLVM IR after the optimiser (LLVM O1), or the PTX. Needs no GPU. An op the backend does not lower yet is a
// diagnostic with its position and exit code 1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "engines/GpuCompiler.h"
#include "ir/FileIO.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {

struct CompileFlags {
  std::string target;
  std::string emit = "ptx";
  std::string entry;
  std::string profile = "exact";
  std::string sm = "sm_90a";
  std::string output;
  int numWarps = 4;
  int numStages = 3;
  int timeRuns = 0;  // --time N: compile N more times and print the median on stderr
  bool assumeRemainderGuards = false;
  std::string tensorCores = "auto";
};

// --time N: compile N more times and print the median of the whole pipeline (TTIR module -> PTX text, in this
// process, parsing excluded) and of each stage on stderr.
void printCompileTimes(const Module& module, const Function& kernel, GpuCompileRequest request, int runs) {
  request.emit = "ptx";
  std::vector<double> total, layouts, lowering, optimize, codegen;
  for (int i = 0; i < runs; ++i) {
    const GpuCompileMilliseconds again = compileForGpu(module, kernel, request).milliseconds;
    total.push_back(again.total);
    layouts.push_back(again.layouts);
    lowering.push_back(again.lowering);
    optimize.push_back(again.optimize);
    codegen.push_back(again.codegen);
  }
  auto median = [](std::vector<double>& values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  const double totalMedian = median(total);
  std::fprintf(stderr,
               "compile-time @%s: runs=%d median_ms=%.2f min_ms=%.2f max_ms=%.2f"
               " (stage medians: layouts %.2f, lowering %.2f, optimiser %.2f, codegen %.2f)\n",
               kernel.name().c_str(), runs, totalMedian, total.front(), total.back(), median(layouts),
               median(lowering), median(optimize), median(codegen));
}

int runCompile(const CompileFlags& flags) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!flags.output.empty() && fs::exists(flags.output, error) && fs::exists(flags.target, error) &&
      fs::equivalent(flags.output, flags.target, error)) {
    printError("-o " + flags.output + " is the input file; choose another output");
    return kExitBadInput;
  }
  int exitCode = kExitOk;
  std::unique_ptr<Module> module = loadModule(flags.target, exitCode);
  if (!module) return exitCode;
  std::optional<Function> kernel = module->kernel(flags.entry);
  if (!kernel) {
    printError(flags.target + (flags.entry.empty() ? ": no single public tt.func to compile (pick one with --entry)"
                                                   : ": no tt.func named '" + flags.entry + "'"));
    return kExitBadInput;
  }
  GpuCompileRequest request;
  request.numWarps = flags.numWarps;
  request.numStages = flags.numStages;
  request.profile = flags.profile == "triton" ? FloatProfile::Triton : FloatProfile::Exact;
  request.sm = flags.sm;
  request.emit = flags.emit;
  request.assumeRemainderGuards = flags.assumeRemainderGuards;
  request.tensorCores = flags.tensorCores;
  GpuCompileOutcome result = compileForGpu(*module, *kernel, request);
  if (!result.unavailable.empty()) {
    std::fprintf(stderr, "tilesim: skipped: %s\n", result.unavailable.c_str());
    return kExitEngineUnavailable;
  }
  if (!result.diagnostics.empty()) {
    printDiagnostics(result.diagnostics);
    return kExitFailed;
  }
  if (flags.timeRuns > 0) printCompileTimes(*module, *kernel, request, flags.timeRuns);
  if (flags.output.empty() || flags.output == "-") {  // `-o -`: stdout, as for most compilers
    std::fwrite(result.stageText.data(), 1, result.stageText.size(), stdout);
    return kExitOk;
  }
  // By replacing the directory entry (ir/FileIO.h): a symlink at FILE is never written through.
  if (std::string error = replaceFile(flags.output, result.stageText); !error.empty()) {
    printError("-o " + error);
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

void addCompileCommand(CLI::App& app, int& exitCode) {
  auto [compile, flags] = addCommandWithFlags(app, "compile", "compile a kernel with the GPU backend and print a stage",
                                              runCompile, exitCode);
  compile->add_option("target", flags->target, "a .ttir kernel file")->required();
  compile->add_option("--emit", flags->emit, "the stage to print: layout, llvm (as lowered), llvm-opt (after LLVM O1), ptx")
      ->check(CLI::IsMember({"layout", "llvm", "llvm-opt", "ptx"}));
  compile->add_option("--num-warps", flags->numWarps, "warps per program (Triton's num_warps; 1, 2, 4, ... 32)")
      ->check(powerOfTwoWarps());
  compile->add_option("--num-stages", flags->numStages,
                      "Triton's num_stages: k loops feeding wgmma stage their operands num_stages - 1 iterations ahead "
                      "(1 to 8, default 3; 1: no pipelining)")
      ->check(CLI::Range(1, 8));
  compile->add_option("--profile", flags->profile, "float profile: exact (default) or triton")
      ->check(CLI::IsMember({"exact", "triton"}));
  CLI::Option* sm = compile->add_option("--sm", flags->sm, "the NVPTX target (-mcpu), sm_90a by default");
  sm->check(CLI::Validator([](std::string& text) { return checkSmTarget(text); }, "sm_XY"));
  compile->add_option("--entry", flags->entry, "the tt.func to compile when the module has several");
  compile->add_option("--time", flags->timeRuns, "compile N more times; print the median TTIR -> PTX time on stderr")
      ->check(CLI::Range(1, 10000));
  compile->add_flag("--assume-remainder-guards", flags->assumeRemainderGuards,
                    "compile the version a GPU launch gets when every `(start + arange) % n` offset has start >= 0 and "
                    "n > 0 in every program (the engine checks that per launch); such offsets then vectorise");
  compile->add_option("--tensor-cores", flags->tensorCores,
                      "the triton profile's tensor-core instructions: auto (default: wgmma on sm_90a), mma (mma.sync "
                      "everywhere) or wgmma (wgmma.mma_async on sm_90a where the dot allows it, else mma.sync)")
      ->check(CLI::IsMember({"auto", "mma", "wgmma"}));
  compile->add_option("-o,--output", flags->output, "write the stage to FILE instead of stdout (`-` is stdout)");
}

}  // namespace tilesim::cli

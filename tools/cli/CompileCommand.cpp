// `tilesim compile KERNEL.ttir --emit=layout|llvm|llvm-opt|ptx`: runs the GPU backend's pipeline
// (gpu_backend/Pipeline.h) and prints the stage asked for: the layout of every tensor value, the LLVM IR as
// lowered, the LLVM IR after the optimiser (LLVM O1), or the PTX. Needs no GPU. An op the backend does not lower yet is a
// diagnostic with its position and exit code 1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "ir/FileIO.h"
#include "tools/cli/Cli.h"
#ifdef TILESIM_HAVE_GPU_BACKEND
#include "gpu_backend/Pipeline.h"
#endif

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
  int timeRuns = 0;  // --time N: compile N more times and print the median on stderr
};

int runCompile(const CompileFlags& flags) {
#ifndef TILESIM_HAVE_GPU_BACKEND
  (void)flags;
  std::fprintf(stderr, "tilesim: skipped: this tilesim was built without the GPU backend (LLVM 19 was not found)\n");
  return kExitEngineUnavailable;
#else
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
  gpu::CompileOptions options;
  options.numWarps = flags.numWarps;
  options.profile = flags.profile == "triton" ? FloatProfile::Triton : FloatProfile::Exact;
  options.sm = flags.sm;
  options.dumpStage = *gpu::parseStage(flags.emit);
  gpu::CompileResult result = gpu::compileKernel(*module, *kernel, options);
  if (!result.diagnostics.empty()) {
    printDiagnostics(result.diagnostics);
    return kExitFailed;
  }
  if (flags.timeRuns > 0) {  // the whole pipeline, TTIR module -> PTX text, in this process (parsing excluded)
    options.dumpStage = gpu::Stage::None;
    std::vector<double> total, layouts, lowering, optimize, codegen;
    for (int i = 0; i < flags.timeRuns; ++i) {
      auto start = std::chrono::steady_clock::now();
      gpu::CompileResult again = gpu::compileKernel(*module, *kernel, options);
      total.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      layouts.push_back(again.milliseconds.layouts);
      lowering.push_back(again.milliseconds.lowering);
      optimize.push_back(again.milliseconds.optimize);
      codegen.push_back(again.milliseconds.codegen);
    }
    auto median = [](std::vector<double>& values) {
      std::sort(values.begin(), values.end());
      return values[values.size() / 2];
    };
    const double totalMedian = median(total);
    std::fprintf(stderr,
                 "compile-time @%s: runs=%d median_ms=%.2f min_ms=%.2f max_ms=%.2f"
                 " (stage medians: layouts %.2f, lowering %.2f, optimiser %.2f, codegen %.2f)\n",
                 kernel->name().c_str(), flags.timeRuns, totalMedian, total.front(), total.back(), median(layouts),
                 median(lowering), median(optimize), median(codegen));
  }
  if (flags.output.empty() || flags.output == "-") {  // `-o -`: stdout, as for most compilers
    std::fwrite(result.dump.data(), 1, result.dump.size(), stdout);
    return kExitOk;
  }
  // By replacing the directory entry (ir/FileIO.h): a symlink at FILE is never written through.
  if (std::string error = replaceFile(flags.output, result.dump); !error.empty()) {
    printError("-o " + error);
    return kExitBadInput;
  }
  return kExitOk;
#endif
}

}  // namespace

void addCompileCommand(CLI::App& app, int& exitCode) {
  auto flags = std::make_shared<CompileFlags>();
  CLI::App* compile = app.add_subcommand("compile", "compile a kernel with the GPU backend and print a stage");
  compile->add_option("target", flags->target, "a .ttir kernel file")->required();
  compile->add_option("--emit", flags->emit, "the stage to print: layout, llvm (as lowered), llvm-opt (after LLVM O1), ptx")
      ->check(CLI::IsMember({"layout", "llvm", "llvm-opt", "ptx"}));
  compile->add_option("--num-warps", flags->numWarps, "warps per program (Triton's num_warps; 1, 2, 4, ... 32)")
      ->check(powerOfTwoWarps());
  compile->add_option("--profile", flags->profile, "float profile: exact (default) or triton")
      ->check(CLI::IsMember({"exact", "triton"}));
  CLI::Option* sm = compile->add_option("--sm", flags->sm, "the NVPTX target (-mcpu), sm_90a by default");
#ifdef TILESIM_HAVE_GPU_BACKEND
  sm->check(CLI::Validator(
      [](std::string& text) -> std::string {
        if (gpu::smVersion(text)) return "";
        std::string known;
        for (std::string_view name : gpu::knownSmTargets()) known += (known.empty() ? "" : " ") + std::string(name);
        return "'" + text + "' is not an NVPTX target LLVM 19 knows (" + known + ")";
      },
      "sm_XY"));
#else
  (void)sm;
#endif
  compile->add_option("--entry", flags->entry, "the tt.func to compile when the module has several");
  compile->add_option("--time", flags->timeRuns, "compile N more times; print the median TTIR -> PTX time on stderr")
      ->check(CLI::Range(1, 10000));
  compile->add_option("-o,--output", flags->output, "write the stage to FILE instead of stdout (`-` is stdout)");
  compile->callback([flags, &exitCode] { exitCode = runCompile(*flags); });
}

}  // namespace tilesim::cli

// Triton's pipeline pass by pass (TritonPipeline.h): running triton_pipeline.py, reading its manifest back,
// judging each module, and the IR diff of one pass.
#include "fuzz/campaign/TritonPipeline.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/campaign/RunTool.h"
#include "fuzz/campaign/TritonWorker.h"
#include "ir/FileIO.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim::fuzz {
namespace fs = std::filesystem;
namespace {

constexpr int kScriptBadInput = 2;
constexpr int kScriptUnavailable = 4;
constexpr size_t kMaxModuleBytes = size_t{64} << 20;

std::string readText(const fs::path& path) {
  std::string text, error;
  if (!readRegularFile(path.string(), kMaxModuleBytes, text, error)) return "";
  return text;
}

// manifest.tsv: INDEX \t PASS \t FILE \t STATUS per line (triton_pipeline.py's docstring).
std::vector<PipelineModule> readManifest(const fs::path& outDir, std::string& running) {
  std::vector<PipelineModule> modules;
  std::istringstream lines(readText(outDir / "manifest.tsv"));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream columns(line);
    for (std::string field; std::getline(columns, field, '\t');) fields.push_back(field);
    if (fields.size() != 4 || fields[0].empty() || fields[0].size() > 6 ||
        fields[0].find_first_not_of("0123456789") != std::string::npos)
      continue;
    if (fields[3] == "running") {
      running = fields[1];
      continue;
    }
    PipelineModule module;
    module.index = std::stoi(fields[0]);
    module.pass = fields[1];
    module.path = (outDir / fields[2]).string();
    module.status = fields[3];
    module.text = readText(module.path);
    modules.push_back(std::move(module));
  }
  return modules;
}

// The line without its ` loc(...)` parts (balanced parentheses: `loc(callsite(#loc10 at #loc38))`).
std::string withoutLocationsOnLine(const std::string& line) {
  std::string out;
  size_t at = 0;
  for (size_t found = line.find(" loc(", at); found != std::string::npos; found = line.find(" loc(", at)) {
    out += line.substr(at, found - at);
    size_t end = found + 5;
    for (int depth = 1; end < line.size() && depth > 0; ++end) depth += line[end] == '(' ? 1 : line[end] == ')' ? -1 : 0;
    at = end;
  }
  return out + line.substr(std::min(at, line.size()));
}

// The module's text without its locations: `#loc...` lines dropped, ` loc(...)` parts removed.
std::string withoutLocations(const std::string& text) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#loc", 0) != 0) out += withoutLocationsOnLine(line) + "\n";
  return out;
}

}  // namespace

const std::vector<std::string>& pipelineInjectionKinds() {
  static const std::vector<std::string> kinds = {"addf-to-subf", "cmpi-predicate", "drop-async-wait",
                                                 "make-range-shift"};
  return kinds;
}

PipelineRun runTritonPipeline(const std::string& ttirPath, const std::string& outDir, const PipelineOptions& options) {
  PipelineRun run;
  std::string badPython;
  std::vector<std::string> pythons = tritonPythonCandidates(badPython);
  if (!badPython.empty()) {
    run.kind = PipelineRun::Kind::BadInput;
    run.message = badPython;
    return run;
  }
  const std::string worker = findTritonWorkerScript();
  if (worker.empty()) {
    run.message = "conformance/triton/triton_pipeline.py not found in the source tree or above the executable";
    return run;
  }
  const std::string script = (fs::path(worker).parent_path() / "triton_pipeline.py").string();
  std::vector<std::string> argv = {"", script, "--ttir", ttirPath, "--out", outDir,
                                   "--capability", std::to_string(options.capability),
                                   "--num-warps", std::to_string(options.numWarps),
                                   "--num-stages", std::to_string(options.numStages)};
  if (options.injectAfter >= 1)
    argv.insert(argv.end(), {"--inject-after", std::to_string(options.injectAfter), "--inject", options.inject});
  if (pythons.empty()) run.message = "no Python found (TILESIM_PYTHON, .venv, .venv-peer, python3 on PATH)";
  for (const std::string& python : pythons) {
    argv[0] = python;
    std::error_code ignored;
    fs::remove(fs::path(outDir) / "manifest.tsv", ignored);
    ToolRun tool = runTool(argv);
    if (!tool.error.empty() || tool.exitStatus == kScriptUnavailable) {
      run.message += (run.message.empty() ? "" : "; ") + (tool.error.empty() ? tool.output : tool.error);
      continue;
    }
    run.python = python;
    run.message = tool.output.rfind("error: ", 0) == 0 ? tool.output.substr(7) : tool.output;
    while (!run.message.empty() && run.message.back() == '\n') run.message.pop_back();
    if (tool.exitStatus == kScriptBadInput) {
      run.kind = PipelineRun::Kind::BadInput;
      return run;
    }
    std::string running;
    run.modules = readManifest(outDir, running);
    if (tool.exitStatus != 0) {  // Triton aborted (an LLVM assertion) or the script failed
      run.kind = PipelineRun::Kind::Crashed;
      run.message = (running.empty() ? "" : "pass " + running + ": ") + "exit status " +
                    std::to_string(tool.exitStatus) + "\n" + tool.output;
      return run;
    }
    run.kind = PipelineRun::Kind::Ran;
    return run;
  }
  run.kind = PipelineRun::Kind::Unavailable;
  return run;
}

PipelineVerdict judgePipeline(const PipelineRun& run,
                              const std::function<ModuleJudgement(const Module&, const PipelineModule&)>& judge) {
  PipelineVerdict verdict;
  for (const PipelineModule& module : run.modules) {
    ModuleJudgement judgement;
    if (module.status == "failed") {
      judgement.detail = "the pass failed";
    } else if (module.text.find("ttg.warp_specialize") != std::string::npos) {
      judgement.detail = "not runnable yet (warp_specialize)";
      ++verdict.warpSpecialize;
    } else {
      ParseResult parsed = parseModule(module.text, module.path);
      Diagnostics problems = parsed.module ? verifyModule(*parsed.module) : parsed.diagnostics;
      if (!parsed.module || !problems.empty()) {
        // The message and its line, not the file's path (a temporary directory): a fuzz finding's kind is made
        // from this text, and the shrinker needs it the same for every candidate.
        judgement.detail = "tilesim cannot " + std::string(parsed.module ? "verify" : "parse") + " it: " +
                           (problems.empty() ? std::string("no module")
                                             : problems.front().message + " (line " +
                                                   std::to_string(problems.front().pos.line) + ")");
        ++verdict.notRunnable;
      } else {
        judgement = judge(*parsed.module, module);
        if (judgement.kind == ModuleJudgement::Kind::NotRunnable) ++verdict.notRunnable;
      }
    }
    if (judgement.kind == ModuleJudgement::Kind::Differs && verdict.firstDiffering < 0)
      verdict.firstDiffering = module.index;
    verdict.judgements.push_back(std::move(judgement));
  }
  return verdict;
}

std::string passDiff(const PipelineModule& before, const PipelineModule& after, const std::string& scratchDir) {
  const fs::path a = fs::path(scratchDir) / "diff-before.mlir", b = fs::path(scratchDir) / "diff-after.mlir";
  std::ofstream(a) << withoutLocations(before.text);
  std::ofstream(b) << withoutLocations(after.text);
  const std::string labelA = fs::path(before.path).filename().string(), labelB = fs::path(after.path).filename().string();
  ToolRun diff = runTool({"/usr/bin/diff", "-u", "--label", labelA, "--label", labelB, a.string(), b.string()});
  std::error_code ignored;
  fs::remove(a, ignored);
  fs::remove(b, ignored);
  if (!diff.error.empty()) return "(no diff: " + diff.error + ")\n";
  return diff.exitStatus == 0 ? "(the pass changed nothing but locations)\n" : diff.output;
}

}  // namespace tilesim::fuzz

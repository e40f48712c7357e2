// The checks of a campaign that concern the target engine (see TargetChecks.h): what a program must be for a
// GPU (its size, the values its error bounds follow), the oracle in the GPU's reduce order, and ptxas.
#include "fuzz/campaign/TargetChecks.h"

#include <algorithm>
#include <filesystem>

#include <unistd.h>

#include "engines/EngineRegistry.h"
#include "engines/GpuCompiler.h"
#include "fuzz/campaign/RunTool.h"
#include "ir/analysis/ApproximationTaint.h"
#include "ir/launch/Redzones.h"

namespace tilesim::fuzz {

std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

bool isTargetFault(const std::string& diagnostic) {
  return diagnostic.rfind("the GPU run of kernel @", 0) == 0 && diagnostic.find(" faulted: ") != std::string::npos;
}

std::string unfollowedApproximateValue(const Module& module) {
  analysis::ApproximationTaint taint(module, *module.kernel());
  std::optional<analysis::ApproximationTaint::UnfollowedUse> use = taint.firstUnfollowedUse();
  if (!use) return "";
  return std::string(use->user->name()) + " (operand " + std::to_string(use->operand) + ") uses a value computed by an "
         "approximate float op, which the triton profile's error bounds do not follow there";
}

// The program's launch as generated: its module and kernel, fresh copies of its arguments, grid, num_warps.
Launch launchOf(const KernelPlan& plan, const CheckedProgram& program) {
  Launch launch;
  launch.module = program.parsed.get();
  launch.kernel = program.parsed->kernel();
  launch.arguments = program.built.arguments;
  launch.grid = program.built.grid;
  launch.numWarps = plan.numWarps;
  return launch;
}

namespace {

// "" when every tensor of the program spreads over its threads at most kMaxElementsPerThread elements each;
// else why not. Past that a GPU compile takes minutes: an H200 campaign's 256x256 tiles at num_warps 1 (2048
// elements a thread) gave 2.4 MB of PTX that ptxas had not finished after 200 s (2026-12-01). Triton's own
// kernels stay far below (a 128x128 f32 tile at 4 warps is 128 a thread).
constexpr int64_t kMaxElementsPerThread = 512;

}  // namespace

std::string tooLargeForGpu(const KernelPlan& plan, const CheckedProgram& program) {
  int64_t largest = 0;
  walk(*program.parsed->kernel()->op(), [&](const Operation& op) {
    for (const auto& result : op.results)
      if (result->type.isTensor()) largest = std::max<int64_t>(largest, result->type.numElements());
  });
  const int64_t threads = int64_t{32} * std::max(1, plan.numWarps);
  const int64_t perThread = (largest + threads - 1) / threads;
  if (perThread <= kMaxElementsPerThread) return "";
  return "a " + std::to_string(largest) + "-element tensor at num_warps " + std::to_string(plan.numWarps) + " is " +
         std::to_string(perThread) + " elements a thread (more than " + std::to_string(kMaxElementsPerThread) +
         "): too slow to compile for a GPU";
}

// Under the triton profile the GPU backend reduces in Triton's order (reduceOrderOf, engines/), which the
// profile leaves open, so its oracle is the interpreter reducing in that same order, as `tilesim diff
// --profile triton` does: in the contract order a float product or an argmin over a NaN can differ without a
// bound covering it (0 * x * inf: NaN in one order, 0 in the other; 9 of the 28 cases of the H200 campaign of
// 2026-12-01; in the GPU's order 8 are bit-exact and the 9th differs in a NaN's bits only). `oracle` is replaced when some reduce has such a layout.
void reduceInTargetOrder(const CampaignOptions& campaign, Engine& interpreter, const KernelPlan& plan,
                         const CheckedProgram& program, std::vector<LaunchArgument>& oracle) {
  if (campaign.targetName != "gpu") return;
  Launch launch = launchOf(plan, program);
  LaunchOptions options;
  options.echoPrints = false;
  options.profile = FloatProfile::Triton;
  options.reduceLayouts = reduceOrderOf(EngineKind::Gpu, launch);  // what the GPU engine does, asked of the registry
  if (options.reduceLayouts.empty()) return;
  if (interpreter.run(launch, options).started()) oracle = std::move(launch.arguments);
}

// tilesim's GPU pipeline to PTX, then ptxas. "" when ptxas accepts it.
std::string checkPtxas(const std::string& ptxasPath, const KernelPlan& plan, const CheckedProgram& program) {
  GpuCompileRequest request;
  request.numWarps = plan.numWarps;
  GpuCompileOutcome compiled = compileForGpu(*program.parsed, *program.parsed->kernel(), request);
  if (!compiled.unavailable.empty()) return "ptxas-unsupported: " + compiled.unavailable;
  if (!compiled.diagnostics.empty()) return "ptxas-unsupported: " + compiled.diagnostics[0].str();
  if (compiled.ptx.empty()) return "ptxas-unsupported: no kernel";
  // The PTX goes to a new file (mkstemps: never an existing file or link) in $TMPDIR, and ptxas runs with an
  // argv (RunTool.h): no shell, so no character of $TMPDIR or of the ptxas path is interpreted.
  std::error_code ec;
  std::string ptxPath = (std::filesystem::temp_directory_path(ec) / "tilesim-fuzz-XXXXXX.ptx").string();
  if (ec) ptxPath = "/tmp/tilesim-fuzz-XXXXXX.ptx";
  const int descriptor = ::mkstemps(ptxPath.data(), 4);
  if (descriptor < 0) return "ptxas: cannot create a temporary file " + ptxPath;
  const std::string& ptx = compiled.ptx;
  const bool written = ::write(descriptor, ptx.data(), ptx.size()) == static_cast<ssize_t>(ptx.size());
  ::close(descriptor);
  ToolRun run;
  if (written) run = runTool({ptxasPath, "-arch=sm_90a", ptxPath, "-o", "/dev/null"});
  ::unlink(ptxPath.c_str());
  if (!written) return "ptxas: cannot write " + ptxPath;
  if (!run.error.empty()) return "ptxas: " + run.error;
  return run.exitStatus == 0 ? "" : "ptxas: rejects tilesim's PTX (exit " + std::to_string(run.exitStatus) + "): " + firstLine(run.output);
}

std::string strayWrites(const std::vector<LaunchArgument>& arguments, const LaunchResult& target, const char* targetName,
                        std::vector<std::string>& written) {
  const std::string lines = compareOutOfBoundsWrites(arguments, {}, target.reports, targetName);
  if (lines.empty()) return "";
  for (const Report& report : target.reports)
    if (report.kind == Report::Kind::OutOfBounds && report.op == kRedzoneCheckOp &&
        std::find(written.begin(), written.end(), report.buffer) == written.end())
      written.push_back(report.buffer);
  return std::string("oob-write: ") + targetName + " writes outside a buffer where the interpreter does not\n" + lines;
}

void addReplayFields(nlohmann::ordered_json& json, const CheckedProgram& program, const std::string& check,
                     bool targetCheck, bool tritonProfile) {
  json["profile"] = targetCheck && tritonProfile ? "triton" : "exact";
  const bool undefinedBehaviour = program.reference.undefinedBehaviour;
  if (undefinedBehaviour || check.find("undefined-behavior") != std::string::npos) json["check"] = "ub";
  nlohmann::ordered_json reports = nlohmann::ordered_json::array();
  auto expect = [&](const char* kind) {
    nlohmann::ordered_json entry{{"kind", kind}};
    if (targetCheck) entry["engines"] = nlohmann::ordered_json::array({"interp"});
    reports.push_back(entry);
  };
  if (program.reference.undefinedReachesMemory) expect("undefined-value");
  if (undefinedBehaviour) expect("undefined-behavior");
  if (program.reference.outOfBounds) expect("out-of-bounds");
  if (!reports.empty()) json["expect_reports"] = reports;
}

}  // namespace tilesim::fuzz

// The checks of a campaign that concern its target engine (Campaign.cpp runs them per program): whether a
// program is small enough to compile for a GPU, whether under the triton profile it uses an approximate value
// where the interpreter's error bounds do not follow it (Campaign.h, unfollowedApproximateValue), the
// interpreter's outputs in the GPU's reduce order, writes outside every buffer (oob-write), ptxas on tilesim's PTX,
// and what a target's regression case records so that it replays as found.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/campaign/Campaign.h"
#include "fuzz/programs/ProgramCheck.h"
#include "ir/launch/Engine.h"

namespace tilesim::fuzz {

// The first line of a message.
std::string firstLine(const std::string& text);

// The program's launch as generated: its module and kernel, fresh copies of its arguments, grid, num_warps.
Launch launchOf(const KernelPlan& plan, const CheckedProgram& program);

// "" when every tensor of the program spreads over its threads at most 512 elements each; else why not.
std::string tooLargeForGpu(const KernelPlan& plan, const CheckedProgram& program);

// Under the triton profile with the gpu target: `oracle` becomes the interpreter's outputs reducing in the GPU's
// order, when some reduce of the program has such an order (else it is left as it is).
void reduceInTargetOrder(const CampaignOptions& campaign, Engine& interpreter, const KernelPlan& plan,
                         const CheckedProgram& program, std::vector<LaunchArgument>& oracle);

// tilesim's GPU pipeline to PTX, then `ptxasPath`. "" when ptxas accepts it; "ptxas-unsupported: ..." when there
// is no PTX to assemble; "ptxas: ..." when ptxas fails or rejects it.
std::string checkPtxas(const std::string& ptxasPath, const KernelPlan& plan, const CheckedProgram& program);

// The oob-write check: "" when the target wrote outside no buffer (its redzone findings, ir/launch/Redzones.h);
// else the failure's message ("oob-write: gpu writes outside a buffer ...", one line per write), with `written`
// the storages written past. A program that reaches the target passed the interpreter's check, which allows no
// out-of-bounds report, so the interpreter's side is empty: any write the target shows is one it does not make.
std::string strayWrites(const std::vector<LaunchArgument>& arguments, const LaunchResult& target, const char* targetName,
                        std::vector<std::string>& written);

// Whether a target's launch diagnostic says that the kernel ran and faulted — a misaligned or illegal address,
// a trap (GpuEngine::failure's "the GPU run of kernel @K faulted: ..."; gpu_backend/GpuEngine.cpp) — rather than
// that the program could not start there (an op the backend does not lower, a compile error). A program reaches
// the target only after the interpreter ran it with no report, so a fault is a disagreement (check
// `target-fault`), not an unsupported program: counted as a skip, the planted misaligned vector access of issue 20
// (`ld.global.v4` on an 8-byte aligned address) went unseen on an H100.
bool isTargetFault(const std::string& diagnostic);

// What `tilesim run DIR` needs to judge a shrunk case as the campaign did (docs/conformance.md "Case format"),
// added to its case.json: "profile" (a target check: the campaign's; else exact, the reference's), "check": "ub"
// where the oracle sees undefined behaviour or the failure is about it, and "expect_reports": the reports the
// oracle makes, limited to the interpreter ("engines": ["interp"]) for a target check, whose engine does not run
// those checks.
void addReplayFields(nlohmann::ordered_json& json, const CheckedProgram& program, const std::string& check,
                     bool targetCheck, bool tritonProfile);

}  // namespace tilesim::fuzz

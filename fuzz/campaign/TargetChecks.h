// The checks of a campaign that concern its target engine (Campaign.cpp runs them per program): whether a
// program is small enough to compile for a GPU, whether under the triton profile it uses an approximate value
// where the interpreter's error bounds do not follow it (Campaign.h, unfollowedApproximateValue), the
// interpreter's outputs in the GPU's reduce order, and ptxas on tilesim's PTX.
#pragma once

#include <string>
#include <vector>

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

}  // namespace tilesim::fuzz

// Why the mutant gpu_vector_width_unchecked (fuzz/mutants/Mutants.def) is equivalent: vectorWidth (layout/
// DistributedLayouts.cpp) takes the run of register bases 1, 2, 4, ... and then shrinks it while another basis
// touches the run's bits; the mutant skips that check. Every distributed layout this backend makes is a blocked
// or tensor-core layout (each basis a single bit, the non-zero ones distinct) moved by bit permutations (tt.trans,
// tt.reshape), dimension insertions (tt.expand_dims, broadcast sources) and slices (tt.reduce, whose removed bits
// become zero bases). Such a layout has no basis but the run's own on the run's bits, so the check never shrinks a
// run and the mutant changes no vector width. This test checks that property on the layout of every value of every
// conformance kernel, at 1 and 4 warps, with and without the tensor-core layouts; a new layout kind that breaks
// it (a swizzle, an XOR of bits) makes the check — and the mutant — live, and fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/LayoutAssignment.h"
#include "ir/analysis/AxisInfo.h"
#include "ir/text/Parser.h"

namespace tilesim::gpu {
namespace {

// "" when every basis is zero or one bit and the non-zero ones are distinct; else what breaks it.
std::string singleDistinctBits(const LinearLayout& layout) {
  std::set<uint64_t> seen;
  for (uint64_t basis : layout.bases()) {
    if (basis == 0) continue;
    if ((basis & (basis - 1)) != 0) return "a basis of several bits: " + std::to_string(basis);
    if (!seen.insert(basis).second) return "two bases on one bit: " + std::to_string(basis);
  }
  return "";
}

int uncheckedRun(const LinearLayout& layout) {
  const std::vector<uint64_t> bases = layout.dimBases(kRegisterDim);
  size_t k = 0;
  while (k < bases.size() && bases[k] == (uint64_t{1} << k)) ++k;
  return 1 << k;
}

TEST(LayoutBases, EveryLayoutOfTheConformanceKernelsIsSingleDistinctBits) {
  const std::filesystem::path root = std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance";
  int kernels = 0, layoutsChecked = 0, runsAboveOne = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".ttir" || entry.path().string().find("malformed") != std::string::npos) continue;
    ParseResult parsed = parseModuleFile(entry.path().string());
    if (!parsed.module || !parsed.module->kernel()) continue;
    const Function kernel = *parsed.module->kernel();
    const analysis::AxisInfoAnalysis axisInfo(*parsed.module);
    ++kernels;
    for (int numWarps : {1, 4})
      for (bool tensorCores : {false, true}) {
        Diagnostics diagnostics;
        LayoutAssignment layouts = LayoutAssignment::assign(kernel, numWarps, diagnostics, &axisInfo, false, tensorCores);
        if (!diagnostics.empty()) continue;  // a kernel the GPU engine does not take (non-power-of-two shapes)
        walk(*kernel.op(), [&](const Operation& op) {
          for (const auto& result : op.results) {
            const LinearLayout* layout = layouts.layoutOf(result.get());
            if (!layout) continue;
            ++layoutsChecked;
            EXPECT_EQ(singleDistinctBits(*layout), "") << entry.path() << " " << op.name() << " warps " << numWarps;
            EXPECT_EQ(vectorWidth(*layout), uncheckedRun(*layout)) << entry.path() << " " << op.name();
            runsAboveOne += vectorWidth(*layout) > 1;
          }
        });
      }
  }
  EXPECT_GT(kernels, 200);
  EXPECT_GT(runsAboveOne, 100) << "the check must see vectorisable layouts";
  RecordProperty("layouts", layoutsChecked);
}

}  // namespace
}  // namespace tilesim::gpu

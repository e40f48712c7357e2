// NvptxWorkarounds.h against the kernels that found each NVPTX miscompilation: compiled to PTX (no GPU needed),
// the rewritten pattern must be gone. What the GPU computes for them is checked by the conformance cases named
// here, on a GPU (gpu_backend/tests/device_check.sh).
#include <gtest/gtest.h>

#include <filesystem>

#include "gpu_backend/Pipeline.h"
#include "ir/text/Parser.h"

namespace tilesim::gpu {
namespace {

std::string ptxOf(const std::string& caseName, int numWarps) {
  const std::filesystem::path kernel =
      std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance" / "regressions" / caseName / "kernel.ttir";
  ParseResult parsed = parseModuleFile(kernel.string());
  EXPECT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  if (!parsed.module) return "";
  CompileOptions options;
  options.numWarps = numWarps;
  CompileResult compiled = compileKernel(*parsed.module, *parsed.module->kernel(), options);
  EXPECT_TRUE(compiled.ok());
  return compiled.ok() ? compiled.kernel->ptx : "";
}

// sitofp(extui(b) - 1) for a loaded bool b: LLVM folds it to `sitofp i1 !b`, which NVPTX 19 selected as
// `selp.u32 1, 0` + `cvt.rn.f32.s32` (+1.0). After the rewrite the PTX selects the float -1.0 (0fBF800000) and
// converts no integer.
TEST(NvptxWorkarounds, SignedBoolToFloatSelectsMinusOne) {
  const std::string ptx = ptxOf("gpu_sitofp_bool_true_is_minus_one", 1);
  EXPECT_NE(ptx.find("0fBF800000"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("cvt.rn.f32.s32"), std::string::npos) << ptx;
}

// |x| of bf16 NaNs, bitcast to i16: NVPTX 19 selected `abs.bf16` (the H100 gives 0x7FFF for any NaN). After the
// rewrite the sign bit is cleared by an integer `and` with 32767, as Triton 3.6 emits it, and no half-precision
// abs or neg is left.
TEST(NvptxWorkarounds, HalfPrecisionAbsKeepsTheNaNPayload) {
  const std::string ptx = ptxOf("gpu_absf_bf16_nan_payload", 1);
  EXPECT_EQ(ptx.find("abs.bf16"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("neg.bf16"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("and.b16 %rs"), std::string::npos) << ptx;
}

}  // namespace
}  // namespace tilesim::gpu

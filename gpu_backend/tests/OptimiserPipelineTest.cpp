// The optimiser pipeline compileKernel runs (Pipeline.cpp, optimiserPipeline: LLVM 19's O1 without four of
// its eight InstCombine runs and without CalledValuePropagation) gives the same PTX as O1 itself, for every
// conformance and benchmark kernel the backend compiles, under both float profiles, but one: the backward
// kernel of Liger's in-place RMS norm, whose row loop (at most one iteration per program) O1 deletes and the
// trimmed pipeline keeps (150 PTX instructions instead of 143; the same outputs on the H200, docs/performance.md).
// Any other difference fails, so a change of the lowering that makes the trimmed pipeline fall behind O1
// shows here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "gpu_backend/Pipeline.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim::gpu {
namespace {

namespace fs = std::filesystem;

// The case's num_warps (4 when it has no case.json or does not say); the benchmark kernels' as the benchmark
// runs them (bench/gpu/compile_latency.sh).
int numWarpsOf(const fs::path& kernel) {
  const std::map<std::string, int> benchmark{{"softmax_f32_32768x4096", 8}, {"softmax_f32_4096x32768", 16},
                                             {"layernorm_f16_16384x8192", 8}};
  if (kernel.parent_path().filename() == "ttir") {
    auto found = benchmark.find(kernel.stem().string());
    return found == benchmark.end() ? 4 : found->second;
  }
  std::ifstream in(kernel.parent_path() / "case.json");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch match;
  const std::string json = text.str();
  if (std::regex_search(json, match, std::regex(R"("num_warps"\s*:\s*(\d+))"))) return std::stoi(match[1]);
  return 4;
}

// NVPTX numbers the call sequences it prints (`// callseq N`, a comment) with a counter that runs on across the
// compiles of a process.
std::string withoutCallNumbers(const std::string& ptx) {
  return std::regex_replace(ptx, std::regex(R"(// callseq \d+)"), "// callseq");
}

// Kernels whose PTX is known to differ between the two pipelines (see the top of the file).
bool knownToDiffer(const fs::path& kernel) {
  return kernel.parent_path().filename() == "liger_rms_norm_f16_noweight_inplace_rms_norm_backward_kernel_0";
}

TEST(OptimiserPipeline, TrimmedO1GivesTheSamePtxAsO1ForEveryConformanceAndBenchmarkKernel) {
  std::vector<fs::path> kernels;
  for (const char* root : {"conformance", "bench/gpu/ttir"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TILESIM_SOURCE_DIR) / root))
      if (entry.is_regular_file() && entry.path().extension() == ".ttir") kernels.push_back(entry.path());
  std::sort(kernels.begin(), kernels.end());
  ASSERT_GT(kernels.size(), 250u);
  int compared = 0, differing = 0;
  for (const fs::path& path : kernels) {
    ParseResult parsed = parseModuleFile(path.string());
    if (!parsed.module || !verifyModule(*parsed.module).empty()) continue;  // the diagnostics suite's bad kernels
    std::optional<Function> kernel = parsed.module->kernel();
    if (!kernel) continue;
    for (FloatProfile profile : {FloatProfile::Exact, FloatProfile::Triton}) {
      CompileOptions options;
      options.numWarps = numWarpsOf(path);
      options.profile = profile;
      CompileResult trimmed = compileKernel(*parsed.module, *kernel, options);
      if (!trimmed.ok()) continue;  // not supported by the backend (compile_conformance.sh tracks those)
      options.untrimmedOptimiser = true;
      CompileResult full = compileKernel(*parsed.module, *kernel, options);
      ASSERT_TRUE(full.ok()) << path;
      const bool same = withoutCallNumbers(trimmed.kernel->ptx) == withoutCallNumbers(full.kernel->ptx);
      EXPECT_EQ(same, !knownToDiffer(path)) << path << (profile == FloatProfile::Exact ? " (exact)" : " (triton)")
                                            << (same ? ": the same PTX, but listed as differing" : ": PTX differs");
      ++compared;
      differing += !same;
    }
  }
  std::printf("compared the PTX of %d compiles (trimmed O1 against O1): %d identical, %d differ (the known kernel)\n",
              compared, compared - differing, differing);
  EXPECT_GT(compared, 500);
}

}  // namespace
}  // namespace tilesim::gpu

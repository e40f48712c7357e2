// The optimiser pipeline compileKernel runs (Pipeline.cpp, optimiserPipeline: LLVM 19's O1 without four of
// its InstCombine runs) gives the same PTX as O1 itself, for every conformance and benchmark kernel the
// backend compiles, under both float profiles. What was checked on the H200 with O1 therefore holds for the
// trimmed pipeline too: same PTX, same program.
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

TEST(OptimiserPipeline, TrimmedO1GivesTheSamePtxAsO1ForEveryConformanceAndBenchmarkKernel) {
  std::vector<fs::path> kernels;
  for (const char* root : {"conformance", "bench/gpu/ttir"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TILESIM_SOURCE_DIR) / root))
      if (entry.is_regular_file() && entry.path().extension() == ".ttir") kernels.push_back(entry.path());
  std::sort(kernels.begin(), kernels.end());
  ASSERT_GT(kernels.size(), 250u);
  int compared = 0;
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
      EXPECT_EQ(withoutCallNumbers(trimmed.kernel->ptx), withoutCallNumbers(full.kernel->ptx))
          << path << (profile == FloatProfile::Exact ? " (exact)" : " (triton)");
      ++compared;
    }
  }
  std::printf("compared the PTX of %d compiles (trimmed O1 against O1)\n", compared);
  EXPECT_GT(compared, 500);
}

}  // namespace
}  // namespace tilesim::gpu

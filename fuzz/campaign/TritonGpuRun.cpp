// `tilesim fuzz --engine triton --triton-run gpu` (TritonTarget.h): each program written as a conformance case
// into a temporary directory, compiled by real Triton for sm_90 and launched by the worker
// (conformance/triton/triton_worker_gpu.py, reusing triton_gpu_compile.py and triton_gpu_launch.py), and Triton's
// buffers judged against the interpreter's under the triton profile, as the gpu target judges tilesim's backend.
#include <cstring>
#include <filesystem>

#include "conformance/runner/Compare.h"
#include "conformance/runner/Npy.h"
#include "fuzz/campaign/Campaign.h"
#include "fuzz/campaign/ScratchDirectory.h"
#include "fuzz/campaign/TargetChecks.h"
#include "fuzz/campaign/TritonTarget.h"

namespace tilesim::fuzz {
namespace {

namespace fs = std::filesystem;

// Triton's buffers (OUT/NAME.npy) against the interpreter's triton-profile outputs and bounds; "" when they agree.
std::string judge(const CheckedProgram& program, const std::string& outDir, std::vector<std::string>& differing,
                  EngineOutputs& triton) {
  std::string message;
  size_t buffer = 0;
  for (const LaunchArgument& oracle : program.tritonOutputs) {
    if (!oracle.isBuffer()) continue;
    const std::vector<uint8_t>& undefined = program.undefinedElements.at(buffer++);
    NpyLoad loaded = readNpyFile((fs::path(outDir) / (oracle.name + ".npy")).string());
    if (!loaded.ok()) return "  no output from Triton's launch: " + loaded.error + "\n";
    std::vector<uint8_t> got = std::move(loaded.array.bytes);
    triton.buffers.push_back(got);
    if (got.size() != oracle.bytes.size())
      return "  " + oracle.name + ": Triton wrote " + std::to_string(got.size()) + " bytes, expected " +
             std::to_string(oracle.bytes.size()) + "\n";
    const int bytes = storageBytes(oracle.elementKind);
    const int64_t count = static_cast<int64_t>(oracle.bytes.size()) / bytes;
    for (int64_t e = 0; e < count; ++e)  // an undefined lane's store has no single right value
      if (undefined[static_cast<size_t>(e)])
        std::memcpy(got.data() + e * bytes, oracle.bytes.data() + e * bytes, static_cast<size_t>(bytes));
    std::vector<int64_t> shape{count};
    OutputComparison comparison = compareOutput(oracle.name, oracle.elementKind, shape, got, oracle.bytes, oracle.errorBound);
    if (!comparison.passed()) {
      message += "  triton " + comparison.details() + "\n";
      differing.push_back(oracle.name);
    }
  }
  return message;
}

}  // namespace

TritonVerdict TritonTarget::checkOnGpu(const KernelPlan& plan, const CheckedProgram& program, bool compareResults,
                                       const std::function<void(const char*)>& ran) {
  if (!compareResults)
    return TritonVerdict::skip("target-ub",
                               "the program has undefined behaviour in some lane; its result is not compared");
  if (std::string large = tooLargeForGpu(plan, program); !large.empty())
    return TritonVerdict::skip("target-too-large", large);
  if (std::string unspecified = unfollowedApproximateValue(*program.parsed); !unspecified.empty())
    return TritonVerdict::skip("target-unspecified", unspecified);
  ScratchDirectory scratch("tilesim-triton-run");
  if (scratch.path.empty()) return TritonVerdict::skip("target-unavailable", "cannot make a temporary directory");
  std::vector<std::vector<uint8_t>> expected;
  for (const LaunchArgument& argument : program.tritonOutputs) expected.push_back(argument.bytes);
  CaseWriteOptions write;
  write.note = "tilesim fuzz --engine triton --triton-run gpu: one program for Triton to compile and launch";
  if (std::string error = writeCase(scratch.path, "case", program.built, expected, write); !error.empty())
    return TritonVerdict::skip("target-unavailable", "cannot write the case for Triton: " + error);
  std::error_code ec;
  const std::string tilesim = fs::read_symlink("/proc/self/exe", ec).string();
  const std::string outDir = (fs::path(scratch.path) / "out").string();
  TritonAnswer answer = worker_.launch((fs::path(scratch.path) / "case").string(), outDir, tilesim);
  switch (answer.kind) {
    case TritonAnswer::Kind::Unavailable:
    case TritonAnswer::Kind::Timeout: return TritonVerdict::skip("target-unavailable", answer.diagnostic);
    case TritonAnswer::Kind::Crash:
      return tritonFailure("triton-crash", "the compiler or the launch aborted", answer.diagnostic, program.text);
    case TritonAnswer::Kind::CompileError:
      return tritonFailure("triton-crash", "triton.compile failed", answer.diagnostic, program.text);
    case TritonAnswer::Kind::LaunchError:
      return TritonVerdict::finding(
          "triton-launch-error", "triton-launch-error",
          "triton-launch-error: " + firstLine(answer.diagnostic) + "\n" + answer.diagnostic + "\n" + program.text);
    case TritonAnswer::Kind::Ok:
    case TritonAnswer::Kind::ParseError:
    case TritonAnswer::Kind::TtirPass:
    case TritonAnswer::Kind::TtgirPass:
      return TritonVerdict::skip("target-unavailable", "the worker answered a launch request as a compile");
    case TritonAnswer::Kind::Launched:
      break;
  }
  ran("triton-launch");
  std::vector<std::string> differing;
  EngineOutputs triton{"triton", {}};
  const std::string difference = judge(program, outDir, differing, triton);
  if (difference.empty()) return {};
  if (differing.empty())
    return TritonVerdict::finding("triton-launch-error", "triton-launch-error",
                                  "triton-launch-error: " + difference + program.text);
  TritonVerdict verdict = TritonVerdict::finding("triton-gpu-mismatch", "triton-gpu-mismatch",
                                                 "triton-gpu-mismatch: Triton's kernel and the interpreter "
                                                 "disagree (triton profile)\n" +
                                                     difference + program.built.summary + program.text,
                                                 differing);
  verdict.others.push_back(std::move(triton));
  return verdict;
}

}  // namespace tilesim::fuzz

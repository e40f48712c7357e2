// Cases that replay as found (issue 20, part 5) and writes outside a buffer as a campaign failure (part 1), with
// test-only target engines built on the interpreter:
//   LastBitEngine: under the exact profile, flips the last bit of each float output element the triton profile
//     gives a bound the flip stays within, so a campaign under `exact` fails the program while the triton profile
//     would pass it. Its shrunk case must record "profile": "exact" and fail on it when replayed with no flag.
//   StrayStoreEngine: the interpreter, plus a redzone finding (ir/launch/Redzones.h) after the end of the last
//     buffer whenever the kernel has an arith.subi — a GPU whose store wrote one element too many. The campaign
//     fails such programs with the check `oob-write`, shrinks them keeping the subi, and the case passes on the
//     interpreter (the right engine) and fails on the stray one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "conformance/runner/Conformance.h"
#include "fuzz/campaign/Campaign.h"
#include "fuzz/campaign/tests/TestEngine.h"
#include "interpreter/Interpreter.h"
#include "ir/FloatBits.h"
#include "ir/launch/Redzones.h"
#include "ir/text/Printer.h"

namespace tilesim::fuzz {
namespace {

class LastBitEngine final : public InterpreterVariantEngine {
 public:
  LastBitEngine() : InterpreterVariantEngine("lastbit", "test engine: the last bit of bounded float outputs flipped") {}
  LaunchOutcome run(Launch& launch, const LaunchOptions& options) override {
    Launch triton = launch;
    LaunchOptions tritonOptions = options;
    tritonOptions.profile = FloatProfile::Triton;
    LaunchOutcome bounds = interpreter_.run(triton, tritonOptions);
    LaunchOutcome outcome = interpreter_.run(launch, options);
    if (!bounds.started() || !outcome.started() || options.profile != FloatProfile::Exact) return outcome;
    for (size_t i = 0; i < launch.arguments.size(); ++i) {
      LaunchArgument& argument = launch.arguments[i];
      const std::vector<double>& bound = triton.arguments[i].errorBound;
      if (!argument.isBuffer() || argument.isAlias() || argument.elementKind != ScalarKind::F32 || bound.empty()) continue;
      for (size_t e = 0; e < bound.size(); ++e) {
        uint32_t bits = 0;
        std::memcpy(&bits, argument.bytes.data() + 4 * e, 4);
        float value = 0, flipped = 0;
        std::memcpy(&value, &bits, 4);
        const uint32_t other = bits ^ 1u;
        std::memcpy(&flipped, &other, 4);
        if (std::isfinite(value) && bound[e] > 0 && std::fabs(static_cast<double>(flipped) - value) <= bound[e])
          std::memcpy(argument.bytes.data() + 4 * e, &other, 4);
      }
    }
    return outcome;
  }
};

class StrayStoreEngine final : public InterpreterVariantEngine {
 public:
  StrayStoreEngine()
      : InterpreterVariantEngine("stray",
                                 "test engine: a kernel with arith.subi writes past its last buffer") {}
  LaunchOutcome run(Launch& launch, const LaunchOptions& options) override {
    LaunchOutcome outcome = interpreter_.run(launch, options);
    if (!outcome.started() || printModule(*launch.module).find("arith.subi") == std::string::npos) return outcome;
    for (auto argument = launch.arguments.rbegin(); argument != launch.arguments.rend(); ++argument) {
      if (!argument->isBuffer() || argument->isAlias()) continue;
      const RedzoneLayout layout = redzoneLayout(argument->bytes.size());
      const RedzoneWrite stray{false, static_cast<int64_t>(layout.size), {0, 0, 0x80, 0x3f}};
      for (Report& report : redzoneReports(launch.kernel->name(), argument->name, layout, {stray}))
        outcome.result.reports.push_back(std::move(report));
      break;
    }
    return outcome;
  }
};

CampaignOptions replayOptions(const std::string& name, int64_t count) {
  CampaignOptions options;
  options.seed = 20261206;
  options.count = count;
  options.keepRecords = true;
  options.regressionDir = (std::filesystem::temp_directory_path() / ("tilesim-replay-test-" + name)).string();
  std::filesystem::remove_all(options.regressionDir);
  return options;
}

std::string readText(const std::string& path) {
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

TEST(Replay, AnExactProfileCaseFailsWhenReplayedWithoutFlags) {
  CampaignOptions options = replayOptions("lastbit", 80);
  options.targetName = "lastbit";
  options.makeTarget = [] { return std::make_unique<LastBitEngine>(); };
  options.shrinkBudget = 40;  // the engine runs the interpreter twice: keep the test short
  CampaignResult result = runCampaign(options);
  ASSERT_GT(result.summary.failed, 0) << "no program had a float output the triton profile bounds\n" << result.summary.human();
  std::printf("lastbit: %lld of %lld programs failed\n", static_cast<long long>(result.summary.failed),
              static_cast<long long>(result.summary.programs));
  int replayed = 0;
  for (const ProgramRecord& failure : result.summary.failures) {
    ASSERT_EQ(failure.check, "target-mismatch") << failure.message;
    ASSERT_FALSE(failure.casePath.empty());
    const std::string json = readText(failure.casePath + "/case.json");
    EXPECT_NE(json.find("\n \"profile\": \"exact\""), std::string::npos) << json;
    CaseLoad load = loadGoldenCase(failure.casePath);
    ASSERT_TRUE(load.ok()) << load.error;
    ASSERT_TRUE(load.goldenCase.profile.has_value());
    EXPECT_EQ(*load.goldenCase.profile, FloatProfile::Exact);
    // No flag (CaseOptions{}: triton unless the case records a profile): the recorded exact profile judges.
    LastBitEngine wrong;
    CaseOutcome bad = runCase(failure.casePath, CaseOptions{}, wrong);
    EXPECT_EQ(bad.status, CaseOutcome::Status::Failed) << bad.details();
    EXPECT_EQ(bad.profile, FloatProfile::Exact);
    EXPECT_TRUE(bad.profileFromCase);
    InterpreterEngine interpreter;
    CaseOutcome good = runCase(failure.casePath, CaseOptions{}, interpreter);
    EXPECT_TRUE(good.passed()) << good.details();
    // --profile triton overrides the record, and within the triton bounds the last bit does not matter: this is
    // the replay that used to pass on the buggy engine.
    CaseOptions triton;
    triton.profile = FloatProfile::Triton;
    triton.profileRequested = true;
    triton.boundsEngine = &interpreter;
    CaseOutcome lenient = runCase(failure.casePath, triton, wrong);
    EXPECT_EQ(lenient.profile, FloatProfile::Triton);
    EXPECT_FALSE(lenient.profileFromCase);
    EXPECT_TRUE(lenient.passed()) << lenient.details();
    ++replayed;
  }
  EXPECT_GT(replayed, 0);
  std::filesystem::remove_all(options.regressionDir);
}

TEST(Replay, AWriteOutsideABufferIsAnOobWriteFailureThatReplays) {
  CampaignOptions options = replayOptions("stray", 20);
  options.shrinkBudget = 40;
  options.targetName = "stray";
  options.makeTarget = [] { return std::make_unique<StrayStoreEngine>(); };
  CampaignResult result = runCampaign(options);
  ASSERT_GT(result.summary.failed, 0) << result.summary.human();
  std::printf("stray: %lld of %lld programs failed\n", static_cast<long long>(result.summary.failed),
              static_cast<long long>(result.summary.programs));
  for (const ProgramRecord& failure : result.summary.failures) {
    ASSERT_EQ(failure.check, "oob-write") << failure.message;
    EXPECT_NE(failure.message.find("oob-write: stray writes outside a buffer where the interpreter does not"),
              std::string::npos)
        << failure.message;
    ASSERT_FALSE(failure.casePath.empty());
    EXPECT_NE(readText(failure.casePath + "/kernel.ttir").find("arith.subi"), std::string::npos);
    const std::string json = readText(failure.casePath + "/case.json");
    EXPECT_NE(json.find("\"check\": \"oob-write\""), std::string::npos) << json;
    // Reports the oracle makes that the GPU engine does not check are expected from the interpreter only.
    CaseLoad load = loadGoldenCase(failure.casePath);
    ASSERT_TRUE(load.ok()) << load.error;
    for (const ExpectedReport& expected : load.goldenCase.expectReports)
      EXPECT_EQ(expected.engines, std::vector<std::string>{"interp"}) << expected.kind;
    InterpreterEngine interpreter;
    CaseOutcome good = runCase(failure.casePath, CaseOptions{}, interpreter);
    EXPECT_TRUE(good.passed()) << good.details();
    StrayStoreEngine stray;
    CaseOutcome bad = runCase(failure.casePath, CaseOptions{}, stray);
    EXPECT_EQ(bad.status, CaseOutcome::Status::Failed) << bad.details();
    EXPECT_NE(bad.details().find("seen in its redzone"), std::string::npos) << bad.details();
  }
  std::filesystem::remove_all(options.regressionDir);
}

}  // namespace
}  // namespace tilesim::fuzz

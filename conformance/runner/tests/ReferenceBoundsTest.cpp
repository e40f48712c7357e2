// Judging an engine without error bounds (the GPU engine) with the interpreter's (CaseOptions::boundsEngine,
// compareWithReference): element rules on hand-made buffers, then whole golden cases through runCase with a
// fake "GPU" engine — the interpreter's own output with its bounds thrown away, optionally perturbed within or
// beyond the bound — judged against the real-Triton expected outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "conformance/runner/Compare.h"
#include "conformance/runner/Conformance.h"
#include "interpreter/Interpreter.h"
#include "ir/launch/HostBytes.h"

namespace tilesim {
namespace {

TEST(CompareWithReference, WithinTheBoundOfBothExpectedAndReference) {
  const std::vector<int64_t> shape = {6};
  // expected e, reference r (the interpreter, within b of e), got g (the GPU engine).
  auto expected = bytesOf<float>({1.0f, 1.0f, 1.0f, 1.0f, 1.0f, NAN});
  auto reference = bytesOf<float>({1.0f, 1.05f, 1.05f, 0.95f, 1.0f, NAN});
  auto got = bytesOf<float>({1.0f, 1.02f, 1.2f, 1.08f, 1.0f, -NAN});
  const std::vector<double> bounds = {0, 0.1, 0.1, 0.1, 0, 0};
  OutputComparison result = compareWithReference("y", ScalarKind::F32, shape, got, expected, reference, bounds);
  EXPECT_EQ(result.exact, 2);              // [0], [4]
  EXPECT_EQ(result.withinBound, 2);        // [1]: 0.02 from e, 0.03 from r; [5] both NaN
  EXPECT_EQ(result.failing, 2);            // [2]: 0.2 from e; [3]: 0.08 from e but 0.13 from r
  EXPECT_EQ(result.outsideReference, 1);   // [3]
  ASSERT_EQ(result.firstFailures.size(), 2u);
  EXPECT_EQ(result.firstFailures[1].index, 3);
  EXPECT_EQ(result.firstFailures[1].reference, "0.95");
  EXPECT_NE(result.summary().find("1 outside the reference's bound"), std::string::npos) << result.summary();
  EXPECT_NE(result.details().find("y[3]: got 1.08, expected 1 (abs error 0.08, bound 0.1), interpreter 0.95"),
            std::string::npos)
      << result.details();
}

TEST(CompareWithReference, BitExactWithExpectedPassesWhateverTheReference) {
  const std::vector<int64_t> shape = {2};
  auto expected = bytesOf<float>({2.0f, 3.0f});
  auto reference = bytesOf<float>({7.0f, 3.0f});  // the interpreter disagrees: its own case would fail
  OutputComparison result = compareWithReference("y", ScalarKind::F32, shape, expected, expected, reference, {});
  EXPECT_TRUE(result.bitExact());
  // An integer is bit for bit unless its bound is positive (unspecified lanes: infinite).
  auto ints = bytesOf<int32_t>({5, -1});
  auto intsGot = bytesOf<int32_t>({5, 9});
  const std::vector<double> unspecified = {0, INFINITY};
  OutputComparison integers = compareWithReference("q", ScalarKind::I32, shape, intsGot, ints, ints, unspecified);
  EXPECT_TRUE(integers.passed());
  EXPECT_EQ(integers.unconstrained, 1);
  OutputComparison strict = compareWithReference("q", ScalarKind::I32, shape, intsGot, ints, ints, {});
  EXPECT_EQ(strict.failing, 1);
}

TEST(CompareWithReference, AMissingReferenceIsAnError) {
  const std::vector<int64_t> shape = {1};
  auto data = bytesOf<float>({1.0f});
  OutputComparison result = compareWithReference("y", ScalarKind::F32, shape, data, data, {}, {});
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.error, "the reference engine produced no output");
}

// A stand-in for the GPU engine: runs the interpreter (contract-order reductions, as the GPU engine ignores
// Triton's TTGIR layouts) and returns its outputs without error bounds, each f32 element with a bound of at
// least 8 ulps moved from the expected value: `perturbation` * bound, towards the interpreter's value
// (perturbation > 0) — or, for perturbation > 1, away from it.
class FakeGpuEngine final : public Engine {
 public:
  FakeGpuEngine(double perturbation, std::map<std::string, std::vector<uint8_t>> expected, bool tritonOrder = false)
      : perturbation_(perturbation), expected_(std::move(expected)), tritonOrder_(tritonOrder) {}
  const char* name() const override { return "fake-gpu"; }
  std::string description() const override { return "fake gpu"; }
  LaunchOutcome run(Launch& launch, const LaunchOptions& options) override {
    LaunchOptions contractOrder = options;
    if (!tritonOrder_) contractOrder.reduceLayouts.clear();
    LaunchOutcome outcome = interpreter_.run(launch, contractOrder);
    for (LaunchArgument& argument : launch.arguments) {
      auto found = expected_.find(argument.name);
      if (found != expected_.end() && argument.elementKind == ScalarKind::F32 && perturbation_ != 0)
        perturb(argument, found->second);
      argument.errorBound.clear();  // a GPU has no bounds
    }
    return outcome;
  }
  int64_t perturbed = 0;

 private:
  void perturb(LaunchArgument& argument, const std::vector<uint8_t>& expectedBytes) {
    const size_t count = argument.bytes.size() / sizeof(float);
    if (argument.errorBound.size() != count || expectedBytes.size() != argument.bytes.size()) return;
    auto* values = reinterpret_cast<float*>(argument.bytes.data());
    const auto* expected = reinterpret_cast<const float*>(expectedBytes.data());
    for (size_t i = 0; i < count; ++i) {
      const double bound = argument.errorBound[i], e = expected[i], r = values[i];
      const double ulp = std::nextafter(std::fabs(expected[i]), INFINITY) - std::fabs(expected[i]);
      if (!std::isfinite(bound) || !std::isfinite(e) || !std::isfinite(r) || bound < 8 * ulp) continue;
      const double towardsReference = r >= e ? 1.0 : -1.0;
      const double direction = perturbation_ > 1 ? -towardsReference : towardsReference;
      values[i] = static_cast<float>(e + direction * perturbation_ * bound);
      ++perturbed;
    }
  }

  InterpreterEngine interpreter_;
  double perturbation_;
  std::map<std::string, std::vector<uint8_t>> expected_;
  bool tritonOrder_;
};

std::map<std::string, std::vector<uint8_t>> expectedOutputs(const std::string& directory) {
  CaseLoad load = loadGoldenCase(directory);
  std::map<std::string, std::vector<uint8_t>> outputs;
  for (const CaseArgument& argument : load.goldenCase.arguments)
    if (argument.isTensor && !argument.expectedPath.empty())
      outputs[argument.name] = readExpected(load.goldenCase, argument).array.bytes;
  return outputs;
}

const std::string kSoftmax = std::string(TILESIM_SOURCE_DIR) + "/conformance/golden/softmax_f32";
const std::string kDotTf32 = std::string(TILESIM_SOURCE_DIR) + "/conformance/golden-extra/dot_tf32_f32";

TEST(ReferenceBounds, WithoutBoundsTheApproximateLanesFailAndWithTheInterpretersTheyPass) {
  for (const std::string& directory : {kSoftmax, kDotTf32}) {
    FakeGpuEngine gpu(0, {});
    InterpreterEngine interpreter;
    CaseOptions options;
    CaseOutcome bitForBit = runCase(directory, options, gpu);
    ASSERT_EQ(bitForBit.status, CaseOutcome::Status::Failed) << bitForBit.details() << bitForBit.error;
    options.boundsEngine = &interpreter;
    CaseOutcome judged = runCase(directory, options, gpu);
    EXPECT_TRUE(judged.passed()) << judged.details() << judged.error;
    EXPECT_EQ(judged.boundsEngine, "interp");
    ASSERT_FALSE(judged.outputs.empty());
    EXPECT_GT(judged.outputs[0].withinBound, 0);
    EXPECT_NE(judged.line().find("(interp bounds)"), std::string::npos) << judged.line();
  }
}

TEST(ReferenceBounds, PerturbedWithinTheBoundPassesBeyondItFails) {
  for (const std::string& directory : {kSoftmax, kDotTf32}) {
    InterpreterEngine interpreter;
    CaseOptions options;
    options.boundsEngine = &interpreter;
    FakeGpuEngine within(0.5, expectedOutputs(directory));
    CaseOutcome inside = runCase(directory, options, within);
    EXPECT_GT(within.perturbed, 0) << directory;
    std::printf("%s: %lld elements moved by half their bound\n", directory.c_str(), static_cast<long long>(within.perturbed));
    EXPECT_TRUE(inside.passed()) << inside.details() << inside.error;
    FakeGpuEngine beyond(2.0, expectedOutputs(directory));
    CaseOutcome outside = runCase(directory, options, beyond);
    ASSERT_EQ(outside.status, CaseOutcome::Status::Failed) << outside.details() << outside.error;
    EXPECT_EQ(outside.outputs.at(0).failing, beyond.perturbed) << outside.details();
  }
}

TEST(ReferenceBounds, TheReferenceRunCannotChangeTheEnginesOutputs) {
  // The bounds engine runs on fresh arguments: the judged buffers are the engine's, not the interpreter's.
  InterpreterEngine interpreter;
  CaseOptions options;
  options.boundsEngine = &interpreter;
  FakeGpuEngine beyond(2.0, expectedOutputs(kSoftmax));
  CaseOutcome outcome = runCase(kSoftmax, options, beyond);
  ASSERT_GT(beyond.perturbed, 0);
  EXPECT_EQ(outcome.outputs.at(0).failing, beyond.perturbed);
  EXPECT_EQ(outcome.outputs.at(0).outsideReference, 0);  // beyond e's bound already
}

TEST(ReferenceBounds, EveryCaseTheInterpreterPassesPassesForAGpuReducingInTritonsOrder) {
  // The judge must not fail a GPU whose only difference from the bounds run is the reduction order: a "GPU"
  // that is the interpreter in Triton's order (from each case's kernel.ttgir, as Triton reduces) and gives no
  // bounds, judged by the contract-order run with its any-order bounds, over golden, golden-extra, real-kernels.
  std::vector<std::string> missing;
  const std::string root = std::string(TILESIM_SOURCE_DIR) + "/conformance/";
  std::vector<std::string> cases =
      findCaseDirectories({root + "golden", root + "golden-extra", root + "real-kernels"}, missing);
  ASSERT_TRUE(missing.empty());
  ASSERT_GE(cases.size(), 70u);
  InterpreterEngine interpreter;
  FakeGpuEngine triton(0, {}, /*tritonOrder=*/true);
  int interpreterPasses = 0, judgedPasses = 0, bounded = 0;
  for (const std::string& directory : cases) {
    CaseOptions options;
    const bool interpreterPassed = runCase(directory, options, interpreter).passed();
    options.boundsEngine = &interpreter;
    CaseOutcome judged = runCase(directory, options, triton);
    interpreterPasses += interpreterPassed;
    judgedPasses += judged.passed();
    for (const OutputComparison& output : judged.outputs) bounded += output.withinBound > 0;
    if (interpreterPassed) {
      EXPECT_TRUE(judged.passed()) << judged.details() << judged.error;
    }
  }
  std::printf("%zu cases: the interpreter passes %d; the Triton-order 'GPU' judged with its bounds passes %d (%d "
              "outputs within bounds)\n", cases.size(), interpreterPasses, judgedPasses, bounded);
  EXPECT_GT(bounded, 5);
}

}  // namespace
}  // namespace tilesim

// The triton profile's error bounds where they once went wrong (docs/semantics.md "Error bounds"): an exact zero
// times an unbounded value is unbounded (0 * inf was NaN, and NaN > 0 is false, so the bound became 0 and
// liger's rms_norm and geglu failed outside it); libdevice functions propagate an operand's bound through the
// function (monotone: its values at the interval's ends) instead of giving up; exact infinities stay exact.
#include <algorithm>
#include <array>
#include <cmath>

#include "interpreter/MeasuredBounds.h"
#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// y = f(x * x) [* 0] over 4 lanes, with f a libdevice symbol.
std::string kernel(const std::string& symbol, bool timesZero) {
  std::string text = R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) {
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %x_0 = tt.addptr %x, %offs : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %x_1 = tt.load %x_0 : tensor<4x!tt.ptr<f32>>
    %sq = arith.mulf %x_1, %x_1 : tensor<4xf32>
    %f = tt.extern_elementwise %sq {libname = "", libpath = "", pure = true, symbol = ")" + symbol + R"("} : (tensor<4xf32>) -> tensor<4xf32>
)";
  if (timesZero) {
    text += "    %zero = arith.constant dense<0.000000e+00> : tensor<4xf32>\n";
    text += "    %r = arith.mulf %zero, %f : tensor<4xf32>\n";
  } else {
    text += "    %r = arith.addf %f, %f : tensor<4xf32>\n";
  }
  text += R"(    %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %y_0 = tt.addptr %y, %offs : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    tt.store %y_0, %r : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}
)";
  return text;
}

LaunchOptions triton() {
  LaunchOptions options = testOptions();
  options.profile = FloatProfile::Triton;
  return options;
}

TEST(ErrorBounds, ExactZeroTimesUnboundedValueIsUnbounded) {
  // lgamma is not monotone, so a bounded operand leaves its result unbounded; 0 * that must stay unbounded
  KernelRun run(kernel("__nv_lgammaf", true));
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>{1.5f, 2.5f, -0.5f, 3.0f})
      .buffer("y_ptr", ScalarKind::F32, std::vector<float>(4, 0));
  ASSERT_TRUE(run.run(triton()).ok());
  std::vector<double> bounds = run.errorBounds("y_ptr");
  ASSERT_EQ(bounds.size(), 4u);
  for (double bound : bounds) EXPECT_TRUE(std::isinf(bound)) << bound;
}

TEST(ErrorBounds, LibdeviceTanhPropagatesItsOperandsBound) {
  const std::vector<float> x = {0.3f, 0.7f, 1.1f, 2.0f};
  KernelRun run(kernel("__nv_tanhf", false));
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, std::vector<float>(4, 0));
  ASSERT_TRUE(run.run(triton()).ok());
  std::vector<double> bounds = run.errorBounds("y_ptr");
  ASSERT_EQ(bounds.size(), 4u);
  for (size_t i = 0; i < x.size(); ++i) {
    const double square = static_cast<double>(x[i]) * x[i];
    // the operand x*x is within half an ulp plus its rounding of the exact square; tanh' <= 1, so the
    // propagated part is at most that; the bound is finite, and at least tanh's own assumed error
    const double ulpOfTanh = std::ldexp(1.0, std::ilogb(std::tanh(square)) - 23);
    EXPECT_TRUE(std::isfinite(bounds[i])) << i;
    EXPECT_GE(bounds[i], 2 * 2 * ulpOfTanh) << i;  // y = f + f: twice f's bound
    EXPECT_LE(bounds[i], 2 * (2 * std::ldexp(1.0, std::ilogb(square) - 23) + 8 * ulpOfTanh)) << i;
  }
}

// Program p adds x[p] * x[p] - c[p] to out[0] with tt.atomic_rmw fadd (grid = the number of values).
constexpr const char* kAtomicAddKernel = R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>, %c_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>) {
    %pid = tt.get_program_id x : i32
    %xp = tt.addptr %x_ptr, %pid : !tt.ptr<f32>, i32
    %x = tt.load %xp : !tt.ptr<f32>
    %cp = tt.addptr %c_ptr, %pid : !tt.ptr<f32>, i32
    %c = tt.load %cp : !tt.ptr<f32>
    %sq = arith.mulf %x, %x : f32
    %v = arith.subf %sq, %c : f32
    %true = arith.constant true
    %old = tt.atomic_rmw fadd, relaxed, gpu, %out_ptr, %v, %true : (!tt.ptr<f32>, f32, i1) -> f32
    tt.return
  }
}
)";

TEST(ErrorBounds, AtomicAddCarriesTheAddendsBound) {
  // 1.0001^2 - 1.0002 cancels: the addend's own bound (mulf may be contracted into the subf: half an ulp of
  // the square) is far above a rounding of the small sum, which was all the bound held before.
  KernelRun run(kAtomicAddKernel);
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>{1.0001f})
      .buffer("c_ptr", ScalarKind::F32, std::vector<float>{1.0002f})
      .buffer("out_ptr", ScalarKind::F32, std::vector<float>{0.0f});
  ASSERT_TRUE(run.run(triton()).ok());
  std::vector<double> bounds = run.errorBounds("out_ptr");
  ASSERT_EQ(bounds.size(), 1u);
  const float square = 1.0001f * 1.0001f;
  EXPECT_GE(bounds[0], 0.5 * std::ldexp(1.0, std::ilogb(square) - 23));
  EXPECT_TRUE(std::isfinite(bounds[0]));
}

TEST(ErrorBounds, AtomicAddBoundCoversEveryArrivalOrder) {
  // x*x - c gives 1e8, -1e8, 3 and 0.5 exactly (c chosen so that the square is exact: x = 0 there);
  // the f32 sum of those four depends on the order (1e8 + 3 rounds): every order's result must be within
  // the bound of ours, whichever order the host threads took.
  const std::vector<float> c = {-1e8f, 1e8f, -3.0f, -0.5f};
  KernelRun run(kAtomicAddKernel);
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>(4, 0.0f))
      .buffer("c_ptr", ScalarKind::F32, c)
      .buffer("out_ptr", ScalarKind::F32, std::vector<float>{0.0f})
      .grid(4);
  ASSERT_TRUE(run.run(triton()).ok());
  const float ours = run.values<float>("out_ptr")[0];
  const std::vector<double> bounds = run.errorBounds("out_ptr");
  ASSERT_EQ(bounds.size(), 1u);
  std::array<int, 4> order = {0, 1, 2, 3};
  float smallest = INFINITY, largest = -INFINITY;
  do {
    float sum = 0.0f;
    for (int index : order) sum += -c[index];
    smallest = std::min(smallest, sum);
    largest = std::max(largest, sum);
    EXPECT_LE(std::fabs(static_cast<double>(sum) - ours), bounds[0]) << sum << " vs ours " << ours;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_LT(smallest, largest);  // the orders do disagree: the test can fail
  EXPECT_LE(bounds[0], 1e3);     // and the bound is the gamma_4 * 2e8 order, not infinite
}

TEST(MeasuredBounds, RowsAreFoundBySignAndExponent) {
  const MeasuredBound rows[] = {
      {"f", ScalarKind::F32, 1, -126, 0, 1.5, true, false},
      {"f", ScalarKind::F32, 1, 0, 128, 2.5, true, false},
      {"f", ScalarKind::F32, -1, -126, 128, 7.0, true, false},
      {"f", ScalarKind::F32, 0, kZeroExponent, kZeroExponent + 1, 0.0, true, false},
  };
  MeasuredFunction function(rows);
  EXPECT_TRUE(function.measured());
  EXPECT_TRUE(function.flushesInput());
  EXPECT_EQ(function.at(0.25)->maxUlp, 1.5);
  EXPECT_EQ(function.at(3.0)->maxUlp, 2.5);
  EXPECT_EQ(function.at(-3.0)->maxUlp, 7.0);
  EXPECT_EQ(function.at(0.0)->maxUlp, 0.0);
  EXPECT_EQ(function.at(-0.0)->maxUlp, 0.0);
  EXPECT_EQ(function.at(INFINITY), nullptr);  // no row for inf: the assumption applies
  EXPECT_EQ(boundExponent(1e-40), std::ilogb(1e-40));
  EXPECT_FALSE(findMeasuredFunction("no such function", ScalarKind::F32).measured());
}

}  // namespace
}  // namespace tilesim::enginetest

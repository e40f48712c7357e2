// The triton profile's error bounds where they once went wrong (docs/semantics.md "Error bounds"): an exact zero
// times an unbounded value is unbounded (0 * inf was NaN, and NaN > 0 is false, so the bound became 0 and
// liger's rms_norm and geglu failed outside it); libdevice functions propagate an operand's bound through the
// function (monotone: its values at the interval's ends) instead of giving up; exact infinities stay exact.
#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "interpreter/ElementwiseBoundRules.h"
#include "interpreter/MeasuredBounds.h"
#include "ir/FloatBits.h"
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

// The three lines that store `value` (a tensor<4xi32>) at %<name>_ptr[%offs], %offs being 0..3.
std::string storeFourI32(const std::string& name, const std::string& value) {
  return "    %" + name + "_lanes = tt.splat %" + name + "_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>\n"
         "    %" + name + "_at = tt.addptr %" + name + "_lanes, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>\n"
         "    tt.store %" + name + "_at, " + value + " : tensor<4x!tt.ptr<i32>>\n";
}

// findMeasuredFunction answers from a per-exponent index; the scan over the rows (what a table built by hand
// uses) is the oracle: every measured function, both signs, every exponent a double has, zero and inf.
TEST(MeasuredBounds, TheIndexFindsTheRowTheScanFinds) {
  std::map<std::pair<std::string, ScalarKind>, std::vector<MeasuredBound>> functions;
  for (const MeasuredBound& row : measuredBounds()) functions[{std::string(row.function), row.kind}].push_back(row);
  ASSERT_FALSE(functions.empty());
  int64_t compared = 0;
  for (const auto& [key, rows] : functions) {
    const MeasuredFunction indexed = findMeasuredFunction(key.first, key.second);
    const MeasuredFunction scanned(rows);
    std::vector<double> inputs = {0.0, INFINITY};
    for (int e = -1074; e <= 1023; ++e) inputs.push_back(std::ldexp(1.0, e) * 1.5);
    for (double magnitude : inputs)
      for (double x : {magnitude, -magnitude}) {
        const MeasuredBound* a = indexed.at(x);
        const MeasuredBound* b = scanned.at(x);
        ASSERT_EQ(a == nullptr, b == nullptr) << key.first << " at " << x;
        if (a) {
          ASSERT_EQ(a->maxUlp, b->maxUlp) << key.first << " at " << x;
          ASSERT_EQ(a->exponentLow, b->exponentLow) << key.first << " at " << x;
        }
        ++compared;
      }
  }
  EXPECT_GT(compared, 10000);
}

// boundExponent and ulpOf read exponents off the bits; ilogb and ldexp (what they replaced) are the oracle, on
// random doubles of every exponent (subnormals included), both signs, and the edges.
TEST(MeasuredBounds, BitExponentsEqualIlogbAndLdexp) {
  std::mt19937_64 random(7);
  std::vector<double> values = {0.0, -0.0, INFINITY, -INFINITY, NAN, 5e-324, 0x1p-1022, 0x1.fffffffffffffp-1023,
                                0x1p-126, 0x1p-149, 65504.0, DBL_MAX};
  for (int i = 0; i < 200000; ++i) values.push_back(std::bit_cast<double>(random()));
  for (double x : values) {
    if (std::isfinite(x) && x != 0) {
      ASSERT_EQ(boundExponent(x), std::ilogb(x)) << x;
    }
    for (ScalarKind kind : {ScalarKind::F32, ScalarKind::F64, ScalarKind::F16, ScalarKind::BF16, ScalarKind::F8E4M3FN,
                            ScalarKind::F8E5M2}) {
      double expected = INFINITY;
      if (std::isfinite(x)) {
        const FloatFormat format = floatFormat(kind);
        int exponent = x == 0 ? 0 : std::ilogb(std::fabs(x));
        exponent = std::max(exponent, 1 - format.bias);
        expected = std::ldexp(1.0, exponent - format.mantissaBits);
      }
      ASSERT_EQ(elementwise::ulpOf(x, kind), expected) << x << " " << scalarKindName(kind);
    }
  }
}

// Findings G9: a quotient (div.full.f32, 2 ulp under the triton profile) truncated by fptosi, then used as an
// integer. x / y = {3.5, -1, 2, 1/3}: the GPU's quotient lies within 2 ulp, so fptosi gives {3, -1 or 0,
// 1 or 2, 0}: lanes 1 and 2 straddle an integer (bound 1), lanes 0 and 3 cannot differ (bound 0). Expected
// bounds below follow from those integer sets by hand, not from the engine.
const std::string kQuotientToIntegerKernel = std::string(R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %src_ptr: !tt.ptr<i32>, %n_ptr: !tt.ptr<i32>,
                    %same_ptr: !tt.ptr<i32>, %ult_ptr: !tt.ptr<i32>, %and_ptr: !tt.ptr<i32>, %g_ptr: !tt.ptr<i32>,
                    %l_ptr: !tt.ptr<i32>, %out_ptr: !tt.ptr<i32>, %lm_ptr: !tt.ptr<i32>, %lu_ptr: !tt.ptr<i32>) {
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %offs8 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %xp = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %xq = tt.addptr %xp, %offs : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %x = tt.load %xq : tensor<4x!tt.ptr<f32>>
    %yp = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %yq = tt.addptr %yp, %offs : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %y = tt.load %yq : tensor<4x!tt.ptr<f32>>
    %sp = tt.splat %src_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %sq = tt.addptr %sp, %offs8 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %src = tt.load %sq : tensor<8x!tt.ptr<i32>>
    %q = arith.divf %x, %y : tensor<4xf32>
    %n = arith.fptosi %q : tensor<4xf32> to tensor<4xi32>
)") + storeFourI32("n", "%n") + R"(    %c100 = arith.constant dense<100> : tensor<4xi32>
    %c200 = arith.constant dense<200> : tensor<4xi32>
    %nan = arith.cmpf une, %q, %q : tensor<4xf32>
    %same = arith.select %nan, %c100, %c200 : tensor<4xi1>, tensor<4xi32>
)" + storeFourI32("same", "%same") + R"(    %c5 = arith.constant dense<5> : tensor<4xi32>
    %below = arith.cmpi ult, %n, %c5 : tensor<4xi32>
    %ult = arith.select %below, %c100, %c200 : tensor<4xi1>, tensor<4xi32>
)" + storeFourI32("ult", "%ult") + R"(    %c7 = arith.constant dense<7> : tensor<4xi32>
    %m = arith.andi %n, %c7 : tensor<4xi32>
)" + storeFourI32("and", "%m") + R"(    %g = tt.gather %src[%m] {axis = 0 : i32} : (tensor<8xi32>, tensor<4xi32>) -> tensor<4xi32>
)" + storeFourI32("g", "%g") + R"(    %lp = tt.splat %src_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %lq = tt.addptr %lp, %m : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %l = tt.load %lq : tensor<4x!tt.ptr<i32>>
)" + storeFourI32("l", "%l") + R"(    %c2 = arith.constant dense<2> : tensor<4xi32>
    %first2 = arith.cmpi slt, %offs, %c2 : tensor<4xi32>
    %cm5 = arith.constant dense<-5> : tensor<4xi32>
    %lm = tt.load %lq, %first2, %cm5 : tensor<4x!tt.ptr<i32>>
)" + storeFourI32("lm", "%lm") + R"(    %sp4 = tt.splat %src_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %sq4 = tt.addptr %sp4, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %lu = tt.load %sq4, %below, %cm5 : tensor<4x!tt.ptr<i32>>
)" + storeFourI32("lu", "%lu") + R"(    %c4 = arith.constant dense<4> : tensor<4xi32>
    %at = arith.addi %n, %c4 : tensor<4xi32>
    %op = tt.splat %out_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %oq = tt.addptr %op, %at : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %c9 = arith.constant dense<9> : tensor<4xi32>
    tt.store %oq, %c9 : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
)";

// kQuotientToIntegerKernel's inputs: x / y = {3.5, -1, 2, 0.33}, the gather source, zeroed outputs.
void addQuotientToIntegerBuffers(KernelRun& run) {
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>{7, -1, 10, 1})
      .buffer("y_ptr", ScalarKind::F32, std::vector<float>{2, 1, 5, 3})
      .buffer("src_ptr", ScalarKind::I32, std::vector<int32_t>{10, 11, 12, 13, 14, 15, 16, 17});
  for (const char* name : {"n_ptr", "same_ptr", "ult_ptr", "and_ptr", "g_ptr", "l_ptr"})
    run.buffer(name, ScalarKind::I32, std::vector<int32_t>(4, 0));
  run.buffer("out_ptr", ScalarKind::I32, std::vector<int32_t>(8, 0));
  run.buffer("lm_ptr", ScalarKind::I32, std::vector<int32_t>(4, 0)).buffer("lu_ptr", ScalarKind::I32, std::vector<int32_t>(4, 0));
}

TEST(ErrorBounds, ApproximateQuotientThroughFptosiAndIntegerUses) {
  KernelRun run(kQuotientToIntegerKernel);
  addQuotientToIntegerBuffers(run);
  ASSERT_TRUE(run.run(triton()).ok());
  const double inf = INFINITY;
  EXPECT_EQ(run.values<int32_t>("n_ptr"), (std::vector<int32_t>{3, -1, 2, 0}));
  EXPECT_EQ(run.errorBounds("n_ptr"), (std::vector<double>{0, 1, 1, 0}));  // was 1 + 2 ulp on every lane
  // q != q of one finite bounded value: the GPU's q is a number too, so the answer is certain (was +inf)
  EXPECT_EQ(run.values<int32_t>("same_ptr"), (std::vector<int32_t>(4, 200)));
  EXPECT_TRUE(run.errorBounds("same_ptr").empty());
  // n <u 5: lane 1 is -1 = 0xFFFFFFFF (false) but the GPU's 0 is below 5: uncertain, although |-1 - 5| > 1
  // signed; lane 2 (1..3) is certain
  EXPECT_EQ(run.values<int32_t>("ult_ptr"), (std::vector<int32_t>{100, 200, 100, 100}));
  EXPECT_EQ(run.errorBounds("ult_ptr"), (std::vector<double>{0, 100, 0, 0}));  // select: |100 - 200|
  // n & 7: lane 1 {-2, -1, 0} & 7 = {6, 7, 0}: 7 away from ours; lane 2 {1, 2, 3}: 1
  EXPECT_EQ(run.values<int32_t>("and_ptr"), (std::vector<int32_t>{3, 7, 2, 0}));
  EXPECT_EQ(run.errorBounds("and_ptr"), (std::vector<double>{0, 7, 1, 0}));
  // an uncertain gather index or load address: that lane may be any element
  EXPECT_EQ(run.values<int32_t>("g_ptr"), (std::vector<int32_t>{13, 17, 12, 10}));
  EXPECT_EQ(run.errorBounds("g_ptr"), (std::vector<double>{0, inf, inf, 0}));
  EXPECT_EQ(run.values<int32_t>("l_ptr"), (std::vector<int32_t>{13, 17, 12, 10}));
  EXPECT_EQ(run.errorBounds("l_ptr"), (std::vector<double>{0, inf, inf, 0}));
  // the same uncertain addresses with lanes 2 and 3 masked off (certainly: `other`); an uncertain mask (n <u 5)
  // on certain addresses: lane 1 may be loaded or `other`
  EXPECT_EQ(run.values<int32_t>("lm_ptr"), (std::vector<int32_t>{13, 17, -5, -5}));
  EXPECT_EQ(run.errorBounds("lm_ptr"), (std::vector<double>{0, inf, 0, 0}));
  EXPECT_EQ(run.values<int32_t>("lu_ptr"), (std::vector<int32_t>{10, -5, 12, 13}));
  EXPECT_EQ(run.errorBounds("lu_ptr"), (std::vector<double>{0, inf, 0, 0}));
  // a store at n + 4 = {7, 3, 6, 4}: lane 1 may write 2..4, lane 2 5..7; elements 0 and 1 are certain (0)
  EXPECT_EQ(run.values<int32_t>("out_ptr"), (std::vector<int32_t>{0, 0, 0, 9, 9, 0, 9, 9}));
  EXPECT_EQ(run.errorBounds("out_ptr"), (std::vector<double>{0, 0, inf, inf, inf, inf, inf, inf}));
}

// The same kernel under the exact profile allocates no bounds at all.
TEST(ErrorBounds, ExactProfileHasNoIntegerBounds) {
  KernelRun run(kQuotientToIntegerKernel);
  addQuotientToIntegerBuffers(run);
  ASSERT_TRUE(run.run().ok());
  for (const char* name : {"n_ptr", "same_ptr", "ult_ptr", "and_ptr", "g_ptr", "l_ptr", "out_ptr", "lm_ptr", "lu_ptr"})
    EXPECT_TRUE(run.errorBounds(name).empty()) << name;
}

}  // namespace
}  // namespace tilesim::enginetest

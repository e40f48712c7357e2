// Engine semantics of the tt casts and numerics ops the golden cases do not reach, end to end through a launch:
// tt.bitcast f32 <-> i32, tt.fp_to_fp to f8E4M3FN / f8E5M2 (RNE + satfinite, NaN -> 0x7F) and f32 -> f16 with
// rounding = rtz, tt.clampf, tt.precise_divf, tt.extern_elementwise (__nv_powf, __nv_tanhf), tt.mulhiui, and
// ub.poison reaching memory. Expected bits come from the formats' definitions (docs/semantics.md "Casts",
// "Floats", "Libdevice") written out by hand, not from ir/FloatBits.
#include <cmath>
#include <limits>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// Loads 8 f32 from x_ptr as %x (and %offs, %xs pointers); `body` follows.
std::string vectorKernel(const std::string& parameters, const std::string& body) {
  return R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>)" + parameters + R"() attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %xs_0 = tt.addptr %xs, %offs : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %x = tt.load %xs_0 : tensor<8x!tt.ptr<f32>>
)" + body + "    tt.return\n  }\n}\n";
}

// TTIR storing %value (tensor<8x`element`>) to `buffer`[0..8).
std::string storeTo(const std::string& buffer, const std::string& value, const std::string& element) {
  std::string ptrs = "tensor<8x!tt.ptr<" + element + ">>";
  return "    %" + buffer + "_s = tt.splat %" + buffer + " : !tt.ptr<" + element + "> -> " + ptrs + "\n    %" + buffer +
         "_a = tt.addptr %" + buffer + "_s, %offs : " + ptrs + ", tensor<8xi32>\n    tt.store %" + buffer + "_a, %" +
         value + " : " + ptrs + "\n";
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(EngineCast, BitcastRoundTrip) {
  KernelRun run(vectorKernel(", %i_ptr: !tt.ptr<i32>, %f_ptr: !tt.ptr<f32>",
                             "    %i = tt.bitcast %x : tensor<8xf32> -> tensor<8xi32>\n"
                             "    %f = tt.bitcast %i : tensor<8xi32> -> tensor<8xf32>\n" +
                                 storeTo("i_ptr", "i", "i32") + storeTo("f_ptr", "f", "f32")));
  std::vector<uint32_t> bits = {0x3F800000u, 0x80000000u, 0x7FC00001u, 0xFFFFFFFFu, 0x00000001u, 0x7F800000u,
                                0xC0490FDBu, 0x12345678u};
  run.buffer("x_ptr", ScalarKind::F32, bits).buffer("i_ptr", ScalarKind::I32, std::vector<int32_t>(8, 0))
      .buffer("f_ptr", ScalarKind::F32, std::vector<float>(8, 0.0f));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(run.values<uint32_t>("i_ptr"), bits);  // NaN payloads and signs kept
  EXPECT_EQ(run.values<uint32_t>("f_ptr"), bits);
}

TEST(EngineCast, FpToFpFp8SatfiniteAndF16TowardZero) {
  KernelRun run(vectorKernel(", %e4_ptr: !tt.ptr<f8E4M3FN>, %e5_ptr: !tt.ptr<f8E5M2>, %h_ptr: !tt.ptr<f16>",
                             "    %e4 = tt.fp_to_fp %x, rounding = rtne : tensor<8xf32> -> tensor<8xf8E4M3FN>\n"
                             "    %e5 = tt.fp_to_fp %x, rounding = rtne : tensor<8xf32> -> tensor<8xf8E5M2>\n"
                             "    %h = tt.fp_to_fp %x, rounding = rtz : tensor<8xf32> -> tensor<8xf16>\n" +
                                 storeTo("e4_ptr", "e4", "f8E4M3FN") + storeTo("e5_ptr", "e5", "f8E5M2") +
                                 storeTo("h_ptr", "h", "f16")));
  // 1 + 0.75 * 2^-10 lies between f16 neighbours 1 and 1 + 2^-10, nearer the upper: rtz gives 1.
  std::vector<float> x = {1e6f, -1e6f, kNaN, 1.0f, -0.0f, kInf, 448.0f, 1.000732421875f};
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("e4_ptr", ScalarKind::F8E4M3FN, std::vector<uint8_t>(8, 0xAA))
      .buffer("e5_ptr", ScalarKind::F8E5M2, std::vector<uint8_t>(8, 0xAA))
      .buffer("h_ptr", ScalarKind::F16, std::vector<uint16_t>(8, 0xAAAA));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  // e4m3fn: bias 7, max 448 = 0x7E, NaN 0x7F, 1.0 = 0 0111 000. e5m2: bias 15, max 57344 = 0x7B, 1.0 = 0 01111 00,
  // 448 = 1.75 * 2^8 = 0 10111 11. f16 rtz: 1e6 -> max finite 0x7BFF, inf stays 0x7C00, NaN 0x7FFF.
  EXPECT_EQ(run.values<uint8_t>("e4_ptr"), (std::vector<uint8_t>{0x7E, 0xFE, 0x7F, 0x38, 0x80, 0x7E, 0x7E, 0x38}));
  EXPECT_EQ(run.values<uint8_t>("e5_ptr"), (std::vector<uint8_t>{0x7B, 0xFB, 0x7F, 0x3C, 0x80, 0x7B, 0x5F, 0x3C}));
  EXPECT_EQ(run.values<uint16_t>("h_ptr"),
            (std::vector<uint16_t>{0x7BFF, 0xFBFF, 0x7FFF, 0x3C00, 0x8000, 0x7C00, 0x5F00, 0x3C00}));
}

TEST(EngineCast, ClampPreciseDivAndLibdevice) {
  KernelRun run(vectorKernel(", %y_ptr: !tt.ptr<f32>, %none_ptr: !tt.ptr<f32>, %all_ptr: !tt.ptr<f32>, "
                             "%div_ptr: !tt.ptr<f32>, %pow_ptr: !tt.ptr<f32>, %tanh_ptr: !tt.ptr<f32>", R"(
    %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %ys_0 = tt.addptr %ys, %offs : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %y = tt.load %ys_0 : tensor<8x!tt.ptr<f32>>
    %lo = arith.constant dense<-1.500000e+00> : tensor<8xf32>
    %hi = arith.constant dense<2.000000e+00> : tensor<8xf32>
    %none = tt.clampf %x, %lo, %hi, propagateNan = none : tensor<8xf32>
    %all = tt.clampf %x, %lo, %hi, propagateNan = all : tensor<8xf32>
    %div = tt.precise_divf %x, %y : tensor<8xf32>
    %pow = tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %tanh = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<8xf32>) -> tensor<8xf32>
)" + storeTo("none_ptr", "none", "f32") + storeTo("all_ptr", "all", "f32") + storeTo("div_ptr", "div", "f32") +
                                 storeTo("pow_ptr", "pow", "f32") + storeTo("tanh_ptr", "tanh", "f32")));
  std::vector<float> x = {-5.0f, -1.0f, 0.5f, 3.0f, kNaN, 2.0f, 4.0f, 0.1f};
  std::vector<float> y = {3.0f, 7.0f, -0.5f, 3.0f, 2.0f, 10.0f, 0.5f, 3.0f};
  std::vector<float> zeros(8, 0.0f);
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, y).buffer("none_ptr", ScalarKind::F32, zeros)
      .buffer("all_ptr", ScalarKind::F32, zeros).buffer("div_ptr", ScalarKind::F32, zeros)
      .buffer("pow_ptr", ScalarKind::F32, zeros).buffer("tanh_ptr", ScalarKind::F32, zeros);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<float> none = run.values<float>("none_ptr"), all = run.values<float>("all_ptr");
  std::vector<float> div = run.values<float>("div_ptr"), pow = run.values<float>("pow_ptr"), tanh = run.values<float>("tanh_ptr");
  for (int k = 0; k < 8; ++k) {
    SCOPED_TRACE(k);
    if (std::isnan(x[k])) {
      EXPECT_EQ(none[k], -1.5f);  // NaN-ignoring max then min: max(NaN, lo) = lo
      EXPECT_EQ(floatBits(all[k]), 0x7FFFFFFFu);  // propagated, canonical NaN
      EXPECT_TRUE(std::isnan(pow[k]));
      EXPECT_TRUE(std::isnan(tanh[k]));
    } else {
      float clamped = std::min(std::max(x[k], -1.5f), 2.0f);
      EXPECT_EQ(none[k], clamped);
      EXPECT_EQ(all[k], clamped);
      // libdevice: evaluated in double and rounded once to f32.
      EXPECT_EQ(floatBits(pow[k]), floatBits(static_cast<float>(std::pow(double{x[k]}, double{y[k]}))));
      EXPECT_EQ(floatBits(tanh[k]), floatBits(static_cast<float>(std::tanh(double{x[k]}))));
    }
    // Correctly rounded; a NaN result is the canonical 0x7FFFFFFF (docs/semantics.md "Floats").
    EXPECT_EQ(floatBits(div[k]), std::isnan(x[k]) ? 0x7FFFFFFFu : floatBits(x[k] / y[k]));
  }
  EXPECT_EQ(pow[0], -125.0f);
  EXPECT_EQ(pow[6], 2.0f);
}

TEST(EngineCast, MulhiuiIsTheUnsignedHighHalf) {
  KernelRun run(R"(module {
  tt.func public @mulhi(%a_ptr: !tt.ptr<i32>, %b_ptr: !tt.ptr<i32>, %h_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %a = tt.splat %a_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %a_0 = tt.addptr %a, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %a_1 = tt.load %a_0 : tensor<4x!tt.ptr<i32>>
    %b = tt.splat %b_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %b_0 = tt.addptr %b, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %b_1 = tt.load %b_0 : tensor<4x!tt.ptr<i32>>
    %h = tt.mulhiui %a_1, %b_1 : tensor<4xi32>
    %o = tt.splat %h_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %o_0 = tt.addptr %o, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %o_0, %h : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
)");
  std::vector<uint32_t> a = {0xFFFFFFFFu, 0x80000000u, 123456789u, 0xFFFFFFFFu};
  std::vector<uint32_t> b = {2u, 4u, 987654321u, 0xFFFFFFFFu};
  run.buffer("a_ptr", ScalarKind::I32, a).buffer("b_ptr", ScalarKind::I32, b)
      .buffer("h_ptr", ScalarKind::I32, std::vector<uint32_t>(4, 0));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<uint32_t> expected;
  for (int k = 0; k < 4; ++k) expected.push_back(static_cast<uint32_t>((uint64_t{a[k]} * uint64_t{b[k]}) >> 32));
  EXPECT_EQ(expected[0], 1u);  // umulhi(-1, 2) = 1 (SEMANTICS §1.6)
  EXPECT_EQ(run.values<uint32_t>("h_ptr"), expected);
}

TEST(EngineCast, PoisonReachingMemoryIsReported) {
  KernelRun run(R"(module {
  tt.func public @poison(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %0 = ub.poison : i32
    %1 = arith.addi %0, %c1_i32 : i32
    tt.store %y_ptr, %1 : !tt.ptr<i32>
    tt.return
  }
}
)");
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>{5});
  LaunchResult result = run.run();
  ASSERT_EQ(countOf(result, Report::Kind::UndefinedUse), 1) << describe(result);
  EXPECT_EQ(result.reports.front().op, "tt.store");
}

}  // namespace
}  // namespace tilesim::enginetest

// Hostile launches, fuzzed (issue 6, part 6): small TTIR kernels from templates whose numbers an attacker
// picks — gather index shapes and values, i64 pointer offsets (up to ±2^63), grids whose product overflows,
// loop bounds at the edge of the induction variable's type, misaligned addresses, block-pointer strides and
// advances that overflow, tt.print of whole tiles. Property: parse + verify reject with a diagnostic, or the
// launch ends with a diagnostic or with reports — never a crash, a sanitizer finding, a hang (a small step
// budget), or a write to the guard buffer that no pointer of the kernel is derived from.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <string>

#include "interpreter/Interpreter.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim::fuzz {
namespace {

const int64_t kEdgeValues[] = {0, 1, -1, 3, 4, 7, 8, 1 << 20, INT32_MAX, INT32_MIN, int64_t{1} << 38,
                               int64_t{1} << 40, -(int64_t{1} << 40), INT64_MAX, INT64_MIN, INT64_MAX - 3};

rc::Gen<int64_t> edgeValue() {
  return rc::gen::oneOf(rc::gen::elementOf(std::vector<int64_t>(std::begin(kEdgeValues), std::end(kEdgeValues))),
                        rc::gen::arbitrary<int64_t>());
}

std::string shape(int64_t rows, int64_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

// One kernel of `family` with the given numbers: %x_ptr is its buffer (i32, 64 elements), %n an i64 scalar.
std::string hostileKernel(int family, int64_t a, int64_t b, int64_t c) {
  const std::string head = "module {\n  tt.func public @k(%x_ptr: !tt.ptr<i32>, %n: i64) attributes {noinline = false} {\n";
  const std::string tail = "    tt.return\n  }\n}\n";
  auto pow2 = [](int64_t v) { return int64_t{1} << (static_cast<uint64_t>(v) % 4); };  // 1, 2, 4 or 8
  switch (family) {
    case 0: {  // gather: source 4x4, index RxC with R, C in {1,2,4,8}, values `a`, along axis b % 2
      int64_t rows = pow2(a), cols = pow2(b >> 8);
      std::string index = "tensor<" + shape(rows, cols) + "xi32>";
      return head + "    %src = arith.constant dense<1> : tensor<4x4xi32>\n" +
             "    %i = arith.constant dense<" + std::to_string(static_cast<int32_t>(c)) + "> : " + index + "\n" +
             "    %g = tt.gather %src[%i] {axis = " + std::to_string(static_cast<uint64_t>(b) % 2) +
             " : i32} : (tensor<4x4xi32>, " + index + ") -> tensor<" + shape(rows, cols) + "xi32>\n" +
             "    %s = tt.reshape %g : tensor<" + shape(rows, cols) + "xi32> -> tensor<" + std::to_string(rows * cols) + "xi32>\n" +
             "    %r = tt.make_range {end = " + std::to_string(rows * cols) + " : i32, start = 0 : i32} : tensor<" +
             std::to_string(rows * cols) + "xi32>\n" + "    %p = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<" +
             std::to_string(rows * cols) + "x!tt.ptr<i32>>\n" + "    %q = tt.addptr %p, %r : tensor<" +
             std::to_string(rows * cols) + "x!tt.ptr<i32>>, tensor<" + std::to_string(rows * cols) + "xi32>\n" +
             "    tt.store %q, %s : tensor<" + std::to_string(rows * cols) + "x!tt.ptr<i32>>\n" + tail;
    }
    case 1:  // a scalar pointer moved by an arbitrary i64 offset, loaded from and stored to
      return head + "    %o = arith.constant " + std::to_string(a) + " : i64\n" +
             "    %p = tt.addptr %x_ptr, %o : !tt.ptr<i32>, i64\n    %v = tt.load %p : !tt.ptr<i32>\n" +
             "    %p2 = tt.addptr %p, %n : !tt.ptr<i32>, i64\n    tt.store %p2, %v : !tt.ptr<i32>\n" + tail;
    case 2:  // an i64 (or i32) scf.for with bounds and step at the type's edge
      return head + "    %lb = arith.constant " + std::to_string(a) + " : i64\n    %ub = arith.constant " +
             std::to_string(b) + " : i64\n    %st = arith.constant " + std::to_string(c == 0 ? 1 : c) + " : i64\n" +
             "    scf.for %iv = %lb to %ub step %st  : i64 {\n      %t = arith.trunci %iv : i64 to i32\n" +
             "      tt.store %x_ptr, %t : !tt.ptr<i32>\n    }\n" + tail;
    case 3:  // an address `a` bytes past the buffer's start through int_to_ptr, then an atomic and a load
      return head + "    %o = arith.constant " + std::to_string(a) + " : i64\n    %c1 = arith.constant 1 : i32\n" +
             "    %b = tt.ptr_to_int %x_ptr : !tt.ptr<i32> -> i64\n    %s = arith.addi %b, %o : i64\n" +
             "    %p = tt.int_to_ptr %s : i64 -> !tt.ptr<i32>\n" +
             "    %old = tt.atomic_rmw add, acq_rel, gpu, %p, %c1 : (!tt.ptr<i32>, i32) -> i32\n" +
             "    %v = tt.load %p : !tt.ptr<i32>\n" + tail;
    case 4:  // a block pointer with hostile shape, stride and offset, advanced by `c`, then loaded and stored
      return head + "    %sh = arith.constant " + std::to_string(a) + " : i64\n    %st = arith.constant " +
             std::to_string(b) + " : i64\n    %of = arith.constant " + std::to_string(static_cast<int32_t>(c)) + " : i32\n" +
             "    %bp = tt.make_tensor_ptr %x_ptr, [%sh], [%st], [%of] {order = array<i32: 0>} : <tensor<8xi32>>\n" +
             "    %bq = tt.advance %bp, [%of] : <tensor<8xi32>>\n" +
             "    %v = tt.load %bq {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<8xi32>>\n" +
             "    tt.store %bq, %v : !tt.ptr<tensor<8xi32>>\n" + tail;
    default:  // a while loop whose trip count is `a` (possibly never ending)
      return head + "    %c0 = arith.constant 0 : i64\n    %c1 = arith.constant 1 : i64\n    %lim = arith.constant " +
             std::to_string(a) + " : i64\n" +
             "    %r = scf.while (%i = %c0) : (i64) -> (i64) {\n      %k = arith.cmpi ne, %i, %lim : i64\n" +
             "      scf.condition(%k) %i : i64\n    } do {\n    ^bb0(%i: i64):\n      %j = arith.addi %i, %c1 : i64\n" +
             "      scf.yield %j : i64\n    }\n" + tail;
  }
}

RC_GTEST_PROP(HostileFuzz, HostileKernelsEndCleanly, ()) {
  const int family = *rc::gen::inRange(0, 6);
  const int64_t a = *edgeValue(), b = *edgeValue(), c = *edgeValue(), n = *edgeValue();
  const std::string text = hostileKernel(family, a, b, c);
  ParseResult parsed = parseModule(text, "hostile.ttir");
  if (!parsed.diagnostics.empty() || !parsed.module) RC_SUCCEED("rejected by the parser");
  if (!verifyModule(*parsed.module).empty()) RC_SUCCEED("rejected by the verifier");
  Launch launch;
  launch.module = parsed.module.get();
  launch.kernel = parsed.module->kernel();
  launch.arguments = {LaunchArgument::buffer("x_ptr", ScalarKind::I32, std::vector<uint8_t>(256, 0)),
                      LaunchArgument::buffer("guard", ScalarKind::I32, std::vector<uint8_t>(256, 0xAB)),
                      LaunchArgument::integer("n", n)};
  const int64_t gridValues[] = {1, 2, 3, (int64_t{1} << 31) - 1, int64_t{1} << 31, -1, 0};
  const bool hostileGrid = *rc::gen::inRange(0, 8) == 0;
  if (hostileGrid)
    for (int64_t& g : launch.grid) g = *rc::gen::elementOf(std::vector<int64_t>(std::begin(gridValues), std::end(gridValues)));
  LaunchOptions options;
  options.echoPrints = false;
  options.threads = *rc::gen::inRange(1, 4);
  options.maxSteps = 20000;
  LaunchOutcome outcome = runLaunch(launch, options);
  if (!outcome.started()) {
    RC_ASSERT(!outcome.diagnostics.empty());
    RC_SUCCEED("launch refused");
  }
  RC_TAG(family, outcome.result.ok() ? "clean" : "reports");
  // No pointer of the kernel is derived from the guard buffer, so nothing may have written it (family 3 makes
  // its address with int_to_ptr from plain integers, which may name any buffer, as on the GPU).
  if (family != 3) RC_ASSERT(launch.arguments[1].bytes == std::vector<uint8_t>(256, 0xAB));
}

// The templates are valid TTIR for ordinary numbers, so the property above is not vacuous.
TEST(HostileFuzz, TemplatesVerifyWithOrdinaryNumbers) {
  for (int family = 0; family < 6; ++family) {
    std::string text = hostileKernel(family, family == 0 ? 2 : 8, family == 0 ? 256 + 1 : 16, family == 0 ? 1 : 2);
    ParseResult parsed = parseModule(text, "hostile.ttir");
    ASSERT_TRUE(parsed.diagnostics.empty()) << parsed.diagnostics[0].str() << "\n" << text;
    Diagnostics problems = verifyModule(*parsed.module);
    EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems[0].str()) << "\n" << text;
  }
}

}  // namespace
}  // namespace tilesim::fuzz

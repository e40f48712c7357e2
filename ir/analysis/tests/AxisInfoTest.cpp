// AxisInfo on hand-written TTIR: the patterns Triton kernels use (pid * BLOCK + arange, 2D row/column
// offsets, pointer advances in loops) and the cases where soundness forces a weaker claim than Triton's
// (division by a non-constant, sign extension of an unaligned run, remsi).
#include <gtest/gtest.h>

#include "ir/analysis/AxisInfo.h"
#include "ir/analysis/AxisInfoCheck.h"
#include "ir/analysis/tests/AnalysisTestSupport.h"

namespace tilesim::analysis {
namespace {

using analysistest::findValue;
using analysistest::parseVerified;

constexpr int64_t kAny = kMaxDivisibility;

void expectInfo(const AxisInfoAnalysis& analysis, const Module& module, std::string_view name,
                std::vector<int64_t> contiguity, std::vector<int64_t> divisibility, std::vector<int64_t> constancy,
                std::optional<int64_t> constant = std::nullopt) {
  AxisInfo info = analysis.info(*findValue(module, name));
  EXPECT_EQ(info.contiguity, contiguity) << "%" << name << ": " << info.str();
  EXPECT_EQ(info.divisibility, divisibility) << "%" << name << ": " << info.str();
  EXPECT_EQ(info.constancy, constancy) << "%" << name << ": " << info.str();
  EXPECT_EQ(info.constantValue, constant) << "%" << name << ": " << info.str();
}

TEST(AxisInfo, ProgramBlockOffsetsAndPointers) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %c1024 = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c1024 : i32
    %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %bases = tt.splat %base : i32 -> tensor<1024xi32>
    %offs = arith.addi %bases, %range : tensor<1024xi32>
    %ptrs0 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %ptrs = tt.addptr %ptrs0, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %nn = tt.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %nn : tensor<1024xi32>
    tt.return
  }
}
)");
  AxisInfoAnalysis analysis(*module);
  expectInfo(analysis, *module, "c1024", {1}, {1024}, {1}, 1024);
  expectInfo(analysis, *module, "x_ptr", {1}, {16}, {1});
  expectInfo(analysis, *module, "pid", {1}, {1}, {1});
  expectInfo(analysis, *module, "base", {1}, {1024}, {1});
  expectInfo(analysis, *module, "range", {1024}, {kAny}, {1});
  expectInfo(analysis, *module, "bases", {1}, {1024}, {1024});
  expectInfo(analysis, *module, "offs", {1024}, {1024}, {1});
  expectInfo(analysis, *module, "ptrs0", {1}, {16}, {1024});
  expectInfo(analysis, *module, "ptrs", {1024}, {16}, {1});
  expectInfo(analysis, *module, "mask", {1}, {1}, {1});
}

// `offs < n` with n a multiple of 16: the mask is constant in aligned blocks of 16 (what lets a masked access be
// one predicated vector); `<=` changes inside a block, and a mirrored `n > offs` keeps the blocks.
TEST(AxisInfo, MaskOfContiguousOffsetsAgainstAlignedBound) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%n: i32 {tt.divisibility = 16 : i32}, %odd: i32) {
    %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %nn = tt.splat %n : i32 -> tensor<1024xi32>
    %oo = tt.splat %odd : i32 -> tensor<1024xi32>
    %lt = arith.cmpi slt, %range, %nn : tensor<1024xi32>
    %ge = arith.cmpi uge, %range, %nn : tensor<1024xi32>
    %le = arith.cmpi sle, %range, %nn : tensor<1024xi32>
    %gt = arith.cmpi sgt, %nn, %range : tensor<1024xi32>
    %eq = arith.cmpi eq, %range, %nn : tensor<1024xi32>
    %unaligned = arith.cmpi slt, %range, %oo : tensor<1024xi32>
    tt.return
  }
}
)");
  AxisInfoAnalysis analysis(*module);
  expectInfo(analysis, *module, "lt", {1}, {1}, {16});
  expectInfo(analysis, *module, "ge", {1}, {1}, {16});
  expectInfo(analysis, *module, "le", {1}, {1}, {1});
  expectInfo(analysis, *module, "gt", {1}, {1}, {16});
  expectInfo(analysis, *module, "eq", {1}, {1}, {1});
  expectInfo(analysis, *module, "unaligned", {1}, {1}, {1});
}

TEST(AxisInfo, RowAndColumnOffsets) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%s: i32 {tt.divisibility = 16 : i32}) {
    %rm = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %rm2 = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %stride = tt.splat %s : i32 -> tensor<16x1xi32>
    %rows = arith.muli %rm2, %stride : tensor<16x1xi32>
    %rowsb = tt.broadcast %rows : tensor<16x1xi32> -> tensor<16x32xi32>
    %rn2 = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %colsb = tt.broadcast %rn2 : tensor<1x32xi32> -> tensor<16x32xi32>
    %offs = arith.addi %rowsb, %colsb : tensor<16x32xi32>
    %t = tt.trans %offs {order = array<i32: 1, 0>} : tensor<16x32xi32> -> tensor<32x16xi32>
    %flat = tt.reshape %rn2 : tensor<1x32xi32> -> tensor<32xi32>
    tt.return
  }
}
)");
  AxisInfoAnalysis analysis(*module);
  expectInfo(analysis, *module, "rm2", {16, 1}, {kAny, 1}, {1, 1});
  expectInfo(analysis, *module, "stride", {1, 1}, {16, 16}, {16, 1});
  expectInfo(analysis, *module, "rows", {1, 1}, {16, 16}, {1, 1});
  expectInfo(analysis, *module, "rowsb", {1, 1}, {16, 16}, {1, 32});
  expectInfo(analysis, *module, "colsb", {1, 32}, {1, kAny}, {16, 1});
  expectInfo(analysis, *module, "offs", {1, 32}, {1, 16}, {1, 1});
  expectInfo(analysis, *module, "t", {32, 1}, {16, 1}, {1, 1});
  expectInfo(analysis, *module, "flat", {32}, {kAny}, {1});
}

// A remsi the caller guards (AxisAssumptions::positiveRemainders: dividends in [0, max], divisor > 0) keeps aligned
// runs as long as the divisor's divisibility: (pid * 128 + arange(128)) % n with n a multiple of 16 is
// contiguous in runs of 16 starting at multiples of 16. Unguarded it claims nothing; a divisor of unknown
// divisibility gains nothing from the guard.
TEST(AxisInfo, GuardedRemainderKeepsRunsUpToTheDivisorsDivisibility) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%n: i32 {tt.divisibility = 16 : i32}, %m: i32) {
    %c128 = arith.constant 128 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c128 : i32
    %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %bases = tt.splat %base : i32 -> tensor<128xi32>
    %offs = arith.addi %bases, %range : tensor<128xi32>
    %nn = tt.splat %n : i32 -> tensor<128xi32>
    %mm = tt.splat %m : i32 -> tensor<128xi32>
    %wrapped = arith.remsi %offs, %nn : tensor<128xi32>
    %wrapped_m = arith.remsi %offs, %mm : tensor<128xi32>
    tt.return
  }
}
)");
  const AxisInfoAnalysis unguarded(*module);
  expectInfo(unguarded, *module, "wrapped", {1}, {1}, {1});
  AxisAssumptions assumptions;
  assumptions.positiveRemainders = {analysistest::definingOp(*module, "wrapped"), analysistest::definingOp(*module, "wrapped_m")};
  const AxisInfoAnalysis guarded(*module, assumptions);
  expectInfo(guarded, *module, "wrapped", {16}, {16}, {1});
  expectInfo(guarded, *module, "wrapped_m", {1}, {1}, {1});
  expectInfo(guarded, *module, "offs", {128}, {128}, {1});  // the rest is as before
}

TEST(AxisInfo, DivisionRemainderAndExtensionStayConservative) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%n: i32) {
    %c8 = arith.constant dense<8> : tensor<64xi32>
    %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %nn = tt.splat %n : i32 -> tensor<64xi32>
    %q = arith.divsi %range, %nn : tensor<64xi32>
    %q8 = arith.divsi %nn, %c8 : tensor<64xi32>
    %rs = arith.remsi %range, %c8 : tensor<64xi32>
    %ru = arith.remui %range, %c8 : tensor<64xi32>
    %shifted = arith.addi %range, %nn : tensor<64xi32>
    %wide = arith.extsi %shifted : tensor<64xi32> to tensor<64xi64>
    %wide0 = arith.extsi %range : tensor<64xi32> to tensor<64xi64>
    %sh = arith.shli %nn, %c8 : tensor<64xi32>
    tt.return
  }
}
)");
  AxisInfoAnalysis analysis(*module);
  expectInfo(analysis, *module, "q", {1}, {1}, {1});             // n may be 0: x / 0 = -1
  expectInfo(analysis, *module, "q8", {1}, {1}, {64});           // same inputs, same output
  expectInfo(analysis, *module, "rs", {1}, {1}, {1});            // remsi: no contiguity (negative dividends)
  expectInfo(analysis, *module, "ru", {8}, {8}, {1});            // 0..7 repeated
  expectInfo(analysis, *module, "shifted", {64}, {1}, {1});      // n + 0 .. n + 63
  expectInfo(analysis, *module, "wide", {1}, {1}, {1});          // the run may cross 2^31
  expectInfo(analysis, *module, "wide0", {64}, {kAny}, {1});     // starts at a multiple of 64: cannot
  expectInfo(analysis, *module, "sh", {1}, {256}, {64});
}

TEST(AxisInfo, LoopCarriedPointersAndBranches) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32, %c: i1) {
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %step32 = arith.constant dense<32> : tensor<64xi32>
    %four = arith.constant dense<4> : tensor<64xi32>
    %eight = arith.constant dense<8> : tensor<64xi32>
    %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %ptrs0 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %ptrs = tt.addptr %ptrs0, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %last = scf.for %i = %c0 to %n step %c16 iter_args(%p = %ptrs) -> (tensor<64x!tt.ptr<f32>>) : i32 {
      %next = tt.addptr %p, %step32 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
      scf.yield %next : tensor<64x!tt.ptr<f32>>
    }
    %either = scf.if %c -> (tensor<64xi32>) {
      scf.yield %four : tensor<64xi32>
    } else {
      scf.yield %eight : tensor<64xi32>
    }
    %w:2 = scf.while (%a = %c0, %b = %range) : (i32, tensor<64xi32>) -> (i32, tensor<64xi32>) {
      %go = arith.cmpi slt, %a, %n : i32
      scf.condition(%go) %a, %b : i32, tensor<64xi32>
    } do {
    ^bb0(%a2: i32, %b2: tensor<64xi32>):
      %a3 = arith.addi %a2, %c16 : i32
      %b3 = arith.addi %b2, %step32 : tensor<64xi32>
      scf.yield %a3, %b3 : i32, tensor<64xi32>
    }
    tt.return
  }
}
)");
  AxisInfoAnalysis analysis(*module);
  expectInfo(analysis, *module, "i", {1}, {16}, {1});
  expectInfo(analysis, *module, "p", {64}, {16}, {1});
  expectInfo(analysis, *module, "next", {64}, {16}, {1});
  expectInfo(analysis, *module, "last", {64}, {16}, {1});
  expectInfo(analysis, *module, "either", {1}, {4}, {64});
  expectInfo(analysis, *module, "a", {1}, {16}, {1});
  expectInfo(analysis, *module, "b", {64}, {32}, {1});
  expectInfo(analysis, *module, "b2", {64}, {32}, {1});
  AxisInfo whileResult = analysis.info(*analysistest::definingOp(*module, "w")->result(1));  // %w#1
  EXPECT_EQ(whileResult.contiguity, std::vector<int64_t>{64}) << whileResult.str();
  EXPECT_EQ(whileResult.divisibility, std::vector<int64_t>{32}) << whileResult.str();
}

TEST(AxisInfo, ConstantsFoldAndSelectPicks) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%m: tensor<8xi1>) {
    %a = arith.constant dense<12> : tensor<8xi32>
    %b = arith.constant dense<-4> : tensor<8xi32>
    %sum = arith.addi %a, %b : tensor<8xi32>
    %lt = arith.cmpi slt, %b, %a : tensor<8xi32>
    %pick = arith.select %lt, %a, %b : tensor<8xi1>, tensor<8xi32>
    %either = arith.select %m, %a, %b : tensor<8xi1>, tensor<8xi32>
    tt.return
  }
}
)");
  AxisInfoAnalysis analysis(*module);
  expectInfo(analysis, *module, "sum", {1}, {8}, {8}, 8);
  expectInfo(analysis, *module, "lt", {1}, {1}, {8}, 1);
  expectInfo(analysis, *module, "pick", {1}, {4}, {8}, 12);
  expectInfo(analysis, *module, "either", {1}, {4}, {1});
}

TEST(AxisInfoCheck, FindsWrongClaims) {
  AxisInfo claims = AxisInfo::pessimistic(1);
  claims.contiguity = {4};
  claims.divisibility = {4};
  std::vector<int64_t> good = {8, 9, 10, 11, 4, 5, 6, 7}, bad = {8, 9, 10, 12, 4, 5, 6, 7}, unaligned = {6, 7, 8, 9, 4, 5, 6, 7};
  std::vector<int64_t> shape = {8};
  EXPECT_TRUE(checkAxisInfo(claims, good, shape, 1, 32).failures.empty());
  EXPECT_EQ(checkAxisInfo(claims, good, shape, 1, 32).claimsChecked, 2);
  EXPECT_EQ(checkAxisInfo(claims, bad, shape, 1, 32).failures.size(), 1u);
  EXPECT_EQ(checkAxisInfo(claims, unaligned, shape, 1, 32).failures.size(), 1u);  // 6 is not a multiple of 4
  std::vector<int64_t> wrapping = {0x7FFFFFFE, 0x7FFFFFFF, -0x7FFFFFFF - 1, -0x7FFFFFFF};
  AxisInfo run = AxisInfo::pessimistic(1);
  run.contiguity = {4};
  EXPECT_TRUE(checkAxisInfo(run, wrapping, std::vector<int64_t>{4}, 1, 32).failures.empty());  // modulo 2^32
  EXPECT_FALSE(checkAxisInfo(run, wrapping, std::vector<int64_t>{4}, 1, 64).failures.empty());
}

}  // namespace
}  // namespace tilesim::analysis

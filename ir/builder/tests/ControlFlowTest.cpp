// Structured control flow in the builder: scf.for with iter_args and scf.if with results (docs/builder.md).
// Every built module is checked well formed (verifier + print/re-parse/equal) and run end to end with runLaunch
// against plain C++: a K-loop matmul with tl.dot (ieee: sequential fma over k, bit-exact), loops with a runtime
// trip count and a counting-down literal step, an if/else on pid % 2 == 0; then Triton's errors for a carried
// variable changing type and branches yielding different types.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "interpreter/Interpreter.h"
#include "ir/builder/KernelBuilder.h"
#include "ir/builder/NameHint.h"
#include "ir/builder/tests/RunSupport.h"
#include "ir/builder/tests/WellFormed.h"

namespace tilesim::builder {
namespace {

using testing::buildAndRun;
using testing::findOp;

// (a) C = A @ B with a K loop: acc = tl.dot(a, b, acc, input_precision="ieee"); pointers advance each step.
TEST(BuilderControlFlow, KLoopMatmulMatchesSequentialFma) {
  constexpr int64_t kM = 16, kN = 32, kK = 64, kBlockK = 16;
  KernelBuilder kb("matmul_kernel");
  Tensor a = kb.pointerArg("a_ptr", DType::Fp32);
  Tensor b = kb.pointerArg("b_ptr", DType::Fp32);
  Tensor c = kb.pointerArg("c_ptr", DType::Fp32);
  Tensor rm = named(kb, "rm").arange(0, kM);
  Tensor rn = named(kb, "rn").arange(0, kN);
  Tensor rk = named(kb, "rk").arange(0, kBlockK);
  Tensor aPtrs = named(kb, "a_ptrs").add(a, kb.add(kb.mul(kb.expandDims(rm, 1), kK), kb.expandDims(rk, 0)));
  Tensor bPtrs = named(kb, "b_ptrs").add(b, kb.add(kb.mul(kb.expandDims(rk, 1), kN), kb.expandDims(rn, 0)));
  Tensor acc = named(kb, "acc").zeros({kM, kN}, DType::Fp32);
  kb.setNameHint("");
  std::vector<Tensor> out = kb.forLoop(
      0, kK, kBlockK, {acc, aPtrs, bPtrs},
      [&](KernelBuilder& k, const Tensor&, const std::vector<Tensor>& carried) {
        Tensor aTile = named(k, "a").load(carried[1]);
        Tensor bTile = named(k, "b").load(carried[2]);
        Tensor next = named(k, "acc").dot(aTile, bTile, carried[0], "ieee");
        Tensor nextA = named(k, "a_ptrs").add(carried[1], kBlockK);
        Tensor nextB = named(k, "b_ptrs").add(carried[2], kBlockK * kN);
        k.setNameHint("");
        return std::vector<Tensor>{next, nextA, nextB};
      },
      {"k", "acc", "a_ptrs", "b_ptrs"});
  ASSERT_EQ(out.size(), 3u) << kb.error()->str();
  EXPECT_EQ(out[0].value->name.rfind("acc", 0), 0u) << out[0].value->name;
  kb.store(kb.add(c, kb.add(kb.mul(kb.expandDims(rm, 1), kN), kb.expandDims(rn, 0))), out[0]);
  kb.ret();

  std::vector<float> av(kM * kK), bv(kK * kN);
  for (int64_t i = 0; i < kM * kK; ++i) av[i] = std::sin(0.37f * static_cast<float>(i)) * 1.7f;
  for (int64_t i = 0; i < kK * kN; ++i) bv[i] = std::cos(0.53f * static_cast<float>(i)) / 3.0f;
  std::vector<LaunchArgument> result = buildAndRun(
      kb, OpKind::SCFFor,
      {LaunchArgument::buffer("a_ptr", ScalarKind::F32, bytesOf(av)), LaunchArgument::buffer("b_ptr", ScalarKind::F32, bytesOf(bv)),
       LaunchArgument::buffer("c_ptr", ScalarKind::F32, std::vector<uint8_t>(kM * kN * sizeof(float)))},
      {1, 1, 1});
  ASSERT_EQ(result.size(), 3u);
  std::vector<float> got = valuesOf<float>(result[2]);
  int mismatches = 0;
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kN; ++j) {
      float expected = 0.0f;
      for (int64_t k = 0; k < kK; ++k) expected = std::fma(av[i * kK + k], bv[k * kN + j], expected);
      if (got[i * kN + j] != expected && ++mismatches < 5) ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got[i * kN + j] << " vs " << expected;
    }
  EXPECT_EQ(mismatches, 0);
}

// (b) A runtime trip count from a scalar argument, and a literal negative step counting down from it.
TEST(BuilderControlFlow, RuntimeTripCountAndNegativeStep) {
  constexpr int64_t kSize = 16;
  KernelBuilder kb("loop_kernel");
  Tensor x = kb.pointerArg("x_ptr", DType::Int32);
  Tensor up = kb.pointerArg("up_ptr", DType::Int32);
  Tensor down = kb.pointerArg("down_ptr", DType::Int32);
  Tensor n = kb.scalarArg("n", DType::Int32);
  Tensor offs = named(kb, "offs").arange(0, kSize);
  Tensor v = named(kb, "v").load(kb.add(x, offs));
  kb.setNameHint("");
  auto step = [](KernelBuilder& k, const Tensor& i, const std::vector<Tensor>& carried) {
    Tensor next = named(k, "v").add(k.mul(carried[0], 3), i);
    k.setNameHint("");
    return std::vector<Tensor>{next};
  };
  std::vector<Tensor> upward = kb.forLoop(0, n, 1, {v}, step, {"i", "v"});
  std::vector<Tensor> downward = kb.forLoop(n, 0, -2, {v}, step, {"i", "v"});
  ASSERT_EQ(upward.size(), 1u) << kb.error()->str();
  ASSERT_EQ(downward.size(), 1u);
  kb.store(kb.add(up, offs), upward[0]);
  kb.store(kb.add(down, offs), downward[0]);
  kb.ret();

  constexpr int32_t kTrips = 7;
  std::vector<int32_t> xv(kSize);
  for (int64_t i = 0; i < kSize; ++i) xv[i] = static_cast<int32_t>(i * 1'000'003 - 5);
  std::vector<LaunchArgument> result = buildAndRun(
      kb, OpKind::SCFFor,
      {LaunchArgument::buffer("x_ptr", ScalarKind::I32, bytesOf(xv)),
       LaunchArgument::buffer("up_ptr", ScalarKind::I32, std::vector<uint8_t>(kSize * 4)),
       LaunchArgument::buffer("down_ptr", ScalarKind::I32, std::vector<uint8_t>(kSize * 4)), LaunchArgument::integer("n", kTrips)},
      {1, 1, 1});
  ASSERT_EQ(result.size(), 4u);
  std::vector<int32_t> gotUp = valuesOf<int32_t>(result[1]), gotDown = valuesOf<int32_t>(result[2]);
  for (int64_t e = 0; e < kSize; ++e) {
    uint32_t expectUp = static_cast<uint32_t>(xv[e]), expectDown = static_cast<uint32_t>(xv[e]);
    for (int32_t i = 0; i < kTrips; ++i) expectUp = expectUp * 3u + static_cast<uint32_t>(i);
    for (int32_t i = kTrips; i > 0; i -= 2) expectDown = expectDown * 3u + static_cast<uint32_t>(i);
    EXPECT_EQ(gotUp[e], static_cast<int32_t>(expectUp)) << e;
    EXPECT_EQ(gotDown[e], static_cast<int32_t>(expectDown)) << e;
  }
}

// An int64 bound makes the induction variable int64 (integer_promote_impl); int32 bounds are extended.
TEST(BuilderControlFlow, Int64BoundGivesInt64InductionVariable) {
  KernelBuilder kb("k");
  Tensor out = kb.pointerArg("out_ptr", DType::Int64);
  Tensor n = kb.scalarArg("n", DType::Int64);
  Tensor start = kb.programId(0);
  Tensor zero = kb.zeros({16}, DType::Int64);
  std::vector<Tensor> total = kb.forLoop(start, n, 1, {zero}, [](KernelBuilder& k, const Tensor& i, const std::vector<Tensor>& c) {
    EXPECT_EQ(i.dtype, DType::Int64);
    return std::vector<Tensor>{k.add(c[0], i)};
  });
  ASSERT_EQ(total.size(), 1u) << kb.error()->str();
  kb.store(kb.add(out, kb.arange(0, 16)), total[0]);
  BuildResult built = kb.finish();
  ASSERT_TRUE(built.module);
  EXPECT_EQ(checkWellFormed(*built.module), "");
  const Operation* loop = findOp(*built.module, OpKind::SCFFor);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->operand(0)->type.str(), "i64");
  EXPECT_EQ(loop->operand(0)->definingOp->kind, OpKind::ArithExtSI);
}

// (c) if pid % 2 == 0: r = x * 2 else: r = x - 1, with a value defined outside used in both branches.
TEST(BuilderControlFlow, IfElseOnProgramIdParity) {
  constexpr int64_t kSize = 16, kPrograms = 4;
  KernelBuilder kb("parity_kernel");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor out = kb.pointerArg("out_ptr", DType::Fp32);
  Tensor pid = named(kb, "pid").programId(0);
  Tensor offs = named(kb, "offs").add(kb.mul(pid, kSize), kb.arange(0, kSize));
  Tensor v = named(kb, "v").load(kb.add(x, offs));
  kb.setNameHint("");
  std::vector<Tensor> r = kb.ifThenElse(
      kb.eq(kb.mod(pid, 2), 0), [&](KernelBuilder& k) { return std::vector<Tensor>{k.mul(v, 2.0), k.add(pid, 100)}; },
      [&](KernelBuilder& k) { return std::vector<Tensor>{k.sub(v, 1.0), k.sub(pid, 100)}; }, {"r", "tag"});
  ASSERT_EQ(r.size(), 2u) << kb.error()->str();
  EXPECT_EQ(r[0].value->name, "r");
  kb.store(kb.add(out, offs), kb.add(r[0], r[1]));
  kb.ret();

  std::vector<float> xv(kSize * kPrograms);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.1f * static_cast<float>(i) - 3.0f;
  std::vector<LaunchArgument> result =
      buildAndRun(kb, OpKind::SCFIf,
                  {LaunchArgument::buffer("x_ptr", ScalarKind::F32, bytesOf(xv)),
                   LaunchArgument::buffer("out_ptr", ScalarKind::F32, std::vector<uint8_t>(xv.size() * 4))},
                  {kPrograms, 1, 1});
  ASSERT_EQ(result.size(), 2u);
  std::vector<float> got = valuesOf<float>(result[1]);
  for (int64_t p = 0; p < kPrograms; ++p)
    for (int64_t e = 0; e < kSize; ++e) {
      float value = xv[p * kSize + e];
      float expected = p % 2 == 0 ? value * 2.0f + static_cast<float>(p + 100) : (value - 1.0f) + static_cast<float>(p - 100);
      EXPECT_EQ(got[p * kSize + e], expected) << p << "," << e;
    }
}

// An if without else and without results (a conditional store) keeps an empty else region.
TEST(BuilderControlFlow, IfWithoutElse) {
  KernelBuilder kb("k");
  Tensor out = kb.pointerArg("out_ptr", DType::Int32);
  Tensor n = kb.scalarArg("n", DType::Int32);
  Tensor pid = kb.programId(0);
  std::vector<Tensor> none = kb.ifThenElse(kb.lt(pid, n), [&](KernelBuilder& k) {
    k.store(k.add(out, pid), pid);
    return std::vector<Tensor>{};
  }, nullptr);
  EXPECT_FALSE(kb.failed()) << kb.error()->str();
  std::vector<LaunchArgument> result = buildAndRun(
      kb, OpKind::SCFIf,
      {LaunchArgument::buffer("out_ptr", ScalarKind::I32, std::vector<uint8_t>(4 * 4, 0xFF)), LaunchArgument::integer("n", 2)},
      {4, 1, 1});
  ASSERT_EQ(result.size(), 2u);
  EXPECT_EQ(valuesOf<int32_t>(result[0]), (std::vector<int32_t>{0, 1, -1, -1}));
}

// (d) errors, with Triton's kinds and wording.
TEST(BuilderControlFlow, CarriedTypeChangeIsAssertionError) {
  KernelBuilder kb("k");
  Tensor acc = kb.zeros({16}, DType::Fp32);
  std::vector<Tensor> out = kb.forLoop(0, 4, 1, {acc}, [](KernelBuilder& k, const Tensor&, const std::vector<Tensor>& c) {
    return std::vector<Tensor>{k.cast(c[0], DType::Fp16)};
  }, {"i", "acc"});
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(kb.failed());
  EXPECT_EQ(kb.error()->str(),
            "AssertionError: Loop-carried variable acc has initial type <(16,), fp32> but is re-assigned to <(16,), fp16> in "
            "loop! Please make sure that the type stays consistent.");
  EXPECT_FALSE(kb.finish().module);

  KernelBuilder scalar("k");
  std::vector<Tensor> widened = scalar.forLoop(0, 4, 1, {scalar.toTensor(0)}, [](KernelBuilder& k, const Tensor& i, const std::vector<Tensor>& c) {
    return std::vector<Tensor>{k.add(c[0], k.cast(i, DType::Int64))};
  });
  EXPECT_TRUE(widened.empty());
  ASSERT_TRUE(scalar.failed());
  EXPECT_EQ(scalar.error()->str(), "AssertionError: Loop-carried variable arg0 has initial type int32 but is re-assigned to int64 in "
                                   "loop! Please make sure that the type stays consistent.");
}

TEST(BuilderControlFlow, MismatchedBranchTypesIsAssertionError) {
  KernelBuilder kb("k");
  Tensor pid = kb.programId(0);
  std::vector<Tensor> r = kb.ifThenElse(
      kb.eq(pid, 0), [](KernelBuilder& k) { return std::vector<Tensor>{k.zeros({16}, DType::Int32)}; },
      [](KernelBuilder& k) { return std::vector<Tensor>{k.zeros({16}, DType::Fp32)}; }, {"r"});
  EXPECT_TRUE(r.empty());
  ASSERT_TRUE(kb.failed());
  EXPECT_EQ(kb.error()->str(), "AssertionError: Mismatched type for r between then block (<(16,), int32>) and else block (<(16,), fp32>)");
}

TEST(BuilderControlFlow, BoundAndConditionErrors) {
  KernelBuilder floatBound("k");
  floatBound.forLoop(0, 2.5, 1, {}, [](KernelBuilder&, const Tensor&, const std::vector<Tensor>&) { return std::vector<Tensor>{}; });
  ASSERT_TRUE(floatBound.failed());
  EXPECT_EQ(floatBound.error()->str(), "TypeError: For loop bounds and step must all be ints, are (int32, fp32, int32)");

  KernelBuilder blockCondition("k");
  blockCondition.ifThenElse(blockCondition.lt(blockCondition.arange(0, 16), 4), [](KernelBuilder&) { return std::vector<Tensor>{}; }, nullptr);
  ASSERT_TRUE(blockCondition.failed());
  EXPECT_EQ(blockCondition.error()->kind, FrontendError::Kind::UnsupportedLanguageConstruct);

  // A constexpr condition is resolved at build time: no scf.if.
  KernelBuilder constexprCondition("k");
  std::vector<Tensor> taken = constexprCondition.ifThenElse(
      true, [](KernelBuilder& k) { return std::vector<Tensor>{k.arange(0, 16)}; }, [](KernelBuilder& k) { return std::vector<Tensor>{k.arange(0, 32)}; });
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].shape, (std::vector<int64_t>{16}));
}

}  // namespace
}  // namespace tilesim::builder

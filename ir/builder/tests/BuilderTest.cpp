// Unit tests of the builder's typing rules beyond the probes: strong vs weak literals, broadcasting, the
// dtype rules of sum/max, math-function dtype errors. Expected behaviour is Triton 3.6's (docs/builder.md) and
// §3.7 (observed on Triton 3.6). Every module a test builds successfully must also be well formed: verified,
// and equal to itself after printing and re-parsing (tests/WellFormed.h).
#include <gtest/gtest.h>

#include "ir/builder/KernelBuilder.h"
#include "ir/builder/tests/WellFormed.h"

namespace tilesim::builder {
namespace {

struct Kernel {
  KernelBuilder kb{"k"};
  Tensor offs = kb.arange(0, 16);
  Tensor load(DType dtype, const std::string& name) { return kb.load(kb.add(kb.pointerArg(name, dtype), offs)); }
};

const Operation* definer(const Tensor& t) { return t.value->definingOp; }

void expectWellFormed(KernelBuilder& kb) {
  BuildResult result = kb.finish();
  ASSERT_TRUE(result.module) << (result.error ? result.error->str() : "");
  EXPECT_EQ(checkWellFormed(*result.module), "");
}

TEST(BuilderLiterals, ComparisonWithFloatLiteralRunsInFp32) {
  Kernel k;
  Tensor x = k.load(DType::Fp16, "x");
  Tensor r = k.kb.eq(x, 0.1);
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(definer(r)->keywordAttr("predicate"), "oeq");
  EXPECT_EQ(definer(r)->operand(0)->type.str(), "tensor<16xf32>");
  expectWellFormed(k.kb);
}

TEST(BuilderLiterals, UnsignedGreaterThanMinusOneIsUnsignedCompare) {
  Kernel k;
  Tensor r = k.kb.gt(k.load(DType::UInt32, "x"), -1);
  ASSERT_TRUE(r.valid()) << k.kb.error()->str();
  EXPECT_EQ(definer(r)->keywordAttr("predicate"), "ugt");
  const Operation* constant = definer(r)->operand(1)->definingOp;
  ASSERT_EQ(constant->kind, OpKind::ArithConstant);
  EXPECT_EQ(constant->attr("value")->denseBitsAt(0), 0xFFFFFFFFu);
  expectWellFormed(k.kb);
}

TEST(BuilderLiterals, WeakIntLiteralKeepsUint8) {
  Kernel k;
  Tensor r = k.kb.add(k.load(DType::UInt8, "x"), 1);
  EXPECT_EQ(r.dtype, DType::UInt8);
  EXPECT_EQ(definer(r)->kind, OpKind::ArithAddI);
  EXPECT_EQ(r.value->type.str(), "tensor<16xi8>");
  expectWellFormed(k.kb);
}

TEST(BuilderLiterals, OutOfRangeLiteralIsValueError) {
  Kernel k;
  Tensor r = k.kb.add(k.load(DType::Int8, "x"), 1000);
  EXPECT_FALSE(r.valid());
  ASSERT_TRUE(k.kb.error());
  EXPECT_EQ(k.kb.error()->kind, FrontendError::Kind::ValueError);
  EXPECT_EQ(k.kb.error()->message, "Scalar 1000 is out of range for type int8");
  EXPECT_FALSE(k.kb.finish().module);
}

TEST(BuilderLiterals, MaximumLiteralIsStrong) {
  Kernel k;
  Tensor r = k.kb.maximum(k.load(DType::Fp16, "x"), 0.0);
  EXPECT_EQ(r.dtype, DType::Fp32);
  EXPECT_EQ(definer(r)->kind, OpKind::ArithMaxNumF);
  Tensor p = k.kb.maximum(r, 1.0, PropagateNan::All);
  EXPECT_EQ(definer(p)->kind, OpKind::ArithMaximumF);
  expectWellFormed(k.kb);
}

TEST(BuilderBroadcast, ColumnPlusRowGivesMatrix) {
  Kernel k;
  Tensor column = k.kb.expandDims(k.offs, 1);  // 16x1
  Tensor row = k.kb.arange(0, 8);              // 8
  Tensor r = k.kb.add(column, row);
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(r.value->type.str(), "tensor<16x8xi32>");
  expectWellFormed(k.kb);
}

TEST(BuilderBroadcast, IncompatibleShapesAreAnError) {
  Kernel k;
  Tensor row = k.kb.arange(0, 8);
  Tensor bad = k.kb.add(k.offs, row);
  EXPECT_FALSE(bad.valid());
  EXPECT_EQ(k.kb.error()->message, "Cannot make_shape_compatible: incompatible dimensions at index 0: 16 and 8");
}

TEST(BuilderReduce, SumAndMaxDTypes) {
  Kernel k;
  EXPECT_EQ(k.kb.sum(k.load(DType::Int8, "a"), 0).dtype, DType::Int32);
  EXPECT_EQ(k.kb.sum(k.load(DType::UInt16, "b"), 0).dtype, DType::UInt32);
  EXPECT_EQ(k.kb.sum(k.load(DType::Fp16, "c"), 0).dtype, DType::Fp16);
  EXPECT_EQ(k.kb.max(k.load(DType::Fp16, "d"), 0).dtype, DType::Fp32);
  EXPECT_EQ(k.kb.max(k.load(DType::UInt8, "e"), 0).dtype, DType::Int32);
  Tensor index = k.kb.argmax(k.load(DType::Fp32, "f"), 0);
  EXPECT_EQ(index.dtype, DType::Int32);
  Tensor cumulative = k.kb.cumsum(k.load(DType::Int8, "g"), 0);
  EXPECT_EQ(cumulative.value->type.str(), "tensor<16xi32>");
  ASSERT_FALSE(k.kb.failed()) << k.kb.error()->str();
  expectWellFormed(k.kb);
}

TEST(BuilderMath, OnlyFp32AndFp64) {
  Kernel k;
  EXPECT_TRUE(k.kb.exp(k.load(DType::Fp32, "a")).valid());
  EXPECT_FALSE(k.kb.exp(k.load(DType::Fp16, "b")).valid());
  EXPECT_EQ(k.kb.error()->message, "Expected dtype ['fp32', 'fp64'] but got fp16");
}

TEST(BuilderShift, ShrFollowsLeftOperandSignedness) {
  Kernel k;
  Tensor r = k.kb.shr(k.load(DType::UInt8, "a"), k.load(DType::Int32, "b"));
  EXPECT_EQ(definer(r)->kind, OpKind::ArithShRUI);
  EXPECT_EQ(r.value->type.str(), "tensor<16xi32>");
  expectWellFormed(k.kb);
}

TEST(BuilderDot, Fp16DotAccumulatesInFp32) {
  KernelBuilder kb("dot");
  Tensor a = kb.zeros({16, 32}, DType::Fp16);
  Tensor b = kb.zeros({32, 16}, DType::Fp16);
  Tensor c = kb.dot(a, b);
  ASSERT_TRUE(c.valid()) << kb.error()->str();
  EXPECT_EQ(c.value->type.str(), "tensor<16x16xf32>");
  expectWellFormed(kb);
}

// Triton 3.6: clamp is floats only with strong literals; umulhi takes 32/64-bit ints; fma is math.fma.
TEST(BuilderMathExtra, ClampFmaUmulhiTyping) {
  Kernel k;
  Tensor clamped = k.kb.clamp(k.load(DType::Fp16, "a"), 0.0, 1.0);
  ASSERT_TRUE(clamped.valid()) << k.kb.error()->str();
  EXPECT_EQ(clamped.dtype, DType::Fp32);  // the fp32 literals are strong
  EXPECT_EQ(definer(clamped)->kind, OpKind::TTClampF);
  EXPECT_EQ(definer(clamped)->keywordAttr("propagateNan"), "none");
  EXPECT_EQ(definer(k.kb.clamp(k.load(DType::BF16, "b"), -1.0, 1.0, PropagateNan::All))->keywordAttr("propagateNan"), "all");
  Tensor fused = k.kb.fma(k.load(DType::Fp32, "c"), k.load(DType::Fp32, "d"), 2.0);
  EXPECT_EQ(definer(fused)->kind, OpKind::MathFma);
  EXPECT_EQ(fused.value->type.str(), "tensor<16xf32>");
  Tensor high = k.kb.umulhi(k.load(DType::UInt32, "e"), 3);
  EXPECT_EQ(definer(high)->kind, OpKind::TTMulhiUI);
  EXPECT_EQ(high.dtype, DType::UInt32);
  Tensor permuted = k.kb.permute(k.kb.broadcastTo(k.kb.expandDims(k.offs, 1), {16, 4}), {1, 0});
  EXPECT_EQ(permuted.value->type.str(), "tensor<4x16xi32>");
  Tensor joined = k.kb.cat(k.offs, k.offs, true);
  EXPECT_EQ(joined.value->type.str(), "tensor<32xi32>");
  EXPECT_EQ(definer(joined)->kind, OpKind::TTCat);
  expectWellFormed(k.kb);
}

TEST(BuilderMathExtra, Errors) {
  Kernel clampInt;
  EXPECT_FALSE(clampInt.kb.clamp(clampInt.load(DType::Int32, "a"), 0, 1).valid());
  EXPECT_EQ(clampInt.kb.error()->str(), "ValueError: Unexpected dtype int32. Only floating point clamp is supported");
  Kernel umulhiInt8;
  EXPECT_FALSE(umulhiInt8.kb.umulhi(umulhiInt8.load(DType::Int8, "a"), 2).valid());
  EXPECT_EQ(umulhiInt8.kb.error()->str(), "ValueError: Expected dtype ['int32', 'int64', 'uint32', 'uint64'] but got int8");
  Kernel catOrdered;
  EXPECT_FALSE(catOrdered.kb.cat(catOrdered.offs, catOrdered.offs).valid());
  EXPECT_EQ(catOrdered.kb.error()->kind, FrontendError::Kind::AssertionError);
}

}  // namespace
}  // namespace tilesim::builder

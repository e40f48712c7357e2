// Unit tests of the builder's typing rules beyond the probes: strong vs weak literals, broadcasting, the
// dtype rules of sum/max, math-function dtype errors. Expected behaviour is from SEMANTICS.md §1.3-§2 and
// §3.7 (observed on Triton 3.6).
#include <gtest/gtest.h>

#include "ir/builder/KernelBuilder.h"

namespace tilesim::builder {
namespace {

struct Kernel {
  KernelBuilder kb{"k"};
  Tensor offs = kb.arange(0, 16);
  Tensor load(DType dtype, const std::string& name) { return kb.load(kb.add(kb.pointerArg(name, dtype), offs)); }
};

const Operation* definer(const Tensor& t) { return t.value->definingOp; }

TEST(BuilderLiterals, ComparisonWithFloatLiteralRunsInFp32) {
  Kernel k;
  Tensor x = k.load(DType::Fp16, "x");
  Tensor r = k.kb.eq(x, 0.1);
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(definer(r)->keywordAttr("predicate"), "oeq");
  EXPECT_EQ(definer(r)->operand(0)->type.str(), "tensor<16xf32>");
}

TEST(BuilderLiterals, UnsignedGreaterThanMinusOneIsUnsignedCompare) {
  Kernel k;
  Tensor r = k.kb.gt(k.load(DType::UInt32, "x"), -1);
  ASSERT_TRUE(r.valid()) << k.kb.error()->str();
  EXPECT_EQ(definer(r)->keywordAttr("predicate"), "ugt");
  const Operation* constant = definer(r)->operand(1)->definingOp;
  ASSERT_EQ(constant->kind, OpKind::ArithConstant);
  EXPECT_EQ(constant->attr("value")->denseBitsAt(0), 0xFFFFFFFFu);
}

TEST(BuilderLiterals, WeakIntLiteralKeepsUint8) {
  Kernel k;
  Tensor r = k.kb.add(k.load(DType::UInt8, "x"), 1);
  EXPECT_EQ(r.dtype, DType::UInt8);
  EXPECT_EQ(definer(r)->kind, OpKind::ArithAddI);
  EXPECT_EQ(r.value->type.str(), "tensor<16xi8>");
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
}

TEST(BuilderBroadcast, ColumnPlusRowGivesMatrix) {
  Kernel k;
  Tensor column = k.kb.expandDims(k.offs, 1);  // 16x1
  Tensor row = k.kb.arange(0, 8);              // 8
  Tensor r = k.kb.add(column, row);
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(r.value->type.str(), "tensor<16x8xi32>");
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
  BuildResult result = k.kb.finish();
  EXPECT_TRUE(result.module);
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
}

TEST(BuilderDot, Fp16DotAccumulatesInFp32) {
  KernelBuilder kb("dot");
  Tensor a = kb.zeros({16, 32}, DType::Fp16);
  Tensor b = kb.zeros({32, 16}, DType::Fp16);
  Tensor c = kb.dot(a, b);
  ASSERT_TRUE(c.valid()) << kb.error()->str();
  EXPECT_EQ(c.value->type.str(), "tensor<16x16xf32>");
}

}  // namespace
}  // namespace tilesim::builder

// Types are interned and print in MLIR spelling.
#include <gtest/gtest.h>

#include "ir/Type.h"

namespace tilesim {
namespace {

TEST(Type, InterningMakesEqualTypesIdentical) {
  Type a = Type::tensor({32, 64}, Type::f16());
  Type b = Type::tensor({32, 64}, Type::f16());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Type::tensor({64, 32}, Type::f16()));
  EXPECT_EQ(a.numElements(), 2048);
  EXPECT_TRUE(a.isFloat());
}

TEST(Type, PrintsLikeMlir) {
  EXPECT_EQ(Type::tensor({1024}, Type::pointer(Type::f32())).str(), "tensor<1024x!tt.ptr<f32>>");
  EXPECT_EQ(Type::pointer(Type::tensor({32, 32}, Type::bf16())).str(), "!tt.ptr<tensor<32x32xbf16>>");
  EXPECT_EQ(Type::scalar(ScalarKind::F8E4M3FN).str(), "f8E4M3FN");
  std::vector<Type> in{Type::f32()}, out{Type::f32()};
  EXPECT_EQ(Type::function(in, out).str(), "(f32) -> f32");
}

// Triton prints a tensor descriptor's integer block with the Python dtype's signedness (tensordesc<tensor<2x16xsi32>>).
TEST(Type, SignedAndUnsignedIntegersAreTypesOfTheirOwn) {
  Type si32 = Type::scalar(ScalarKind::I32, Signedness::Signed);
  Type ui8 = Type::scalar(ScalarKind::I8, Signedness::Unsigned);
  EXPECT_EQ(si32.str(), "si32");
  EXPECT_EQ(ui8.str(), "ui8");
  EXPECT_NE(si32, Type::i32());
  EXPECT_EQ(si32, Type::scalar(ScalarKind::I32, Signedness::Signed));
  EXPECT_EQ(si32.scalarKind(), ScalarKind::I32);
  EXPECT_EQ(si32.bitWidth(), 32);
  EXPECT_TRUE(ui8.isInteger());
  EXPECT_EQ(si32.signless(), Type::i32());
  EXPECT_EQ(Type::i32().signless(), Type::i32());
  Type block = Type::tensor({2, 16}, ui8);
  EXPECT_EQ(block.signedness(), Signedness::Unsigned);
  EXPECT_EQ(block.signless(), Type::tensor({2, 16}, Type::i8()));
  EXPECT_EQ(Type::tensorDesc(block).str(), "!tt.tensordesc<tensor<2x16xui8>>");
  EXPECT_NE(Type::tensorDesc(block), Type::tensorDesc(Type::tensor({2, 16}, Type::i8())));
}

TEST(Type, BlockPointerQueries) {
  Type bp = Type::pointer(Type::tensor({16, 16}, Type::f32()));
  EXPECT_TRUE(bp.isBlockPointer());
  EXPECT_FALSE(Type::pointer(Type::f32()).isBlockPointer());
}

}  // namespace
}  // namespace tilesim

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

TEST(Type, BlockPointerQueries) {
  Type bp = Type::pointer(Type::tensor({16, 16}, Type::f32()));
  EXPECT_TRUE(bp.isBlockPointer());
  EXPECT_FALSE(Type::pointer(Type::f32()).isBlockPointer());
}

}  // namespace
}  // namespace tilesim

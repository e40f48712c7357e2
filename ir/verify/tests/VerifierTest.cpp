// Negative tests for the verifier, one (or a few) per invariant listed at the top of ir/verify/Verifier.cpp:
// counts, shapes, arith, ranges and shape ops, pointers and memory, tensor descriptors, dot (the ops with regions,
// terminators, calls, dominance and module level are in VerifierRegionsTest.cpp). Each builds a small kernel in
// code with exactly one defect and checks that exactly one diagnostic comes back, on the right op's line, naming
// the op and the problem.
#include <functional>
#include <string>

#include "ir/verify/tests/VerifierTestKit.h"

namespace tilesim::verifier_test {
namespace {

// The one test of every VectorAddDefect table, here and in VerifierRegionsTest.cpp.
TEST_P(VerifierDefect, GivesOneDiagnostic) {
  VectorAdd k;
  GetParam().append(k);
  k.finish();
  expectOne(k.b.module, GetParam().line, GetParam().message);
}

TEST(Verifier, VectorAddIsClean) {
  VectorAdd k;
  k.finish();
  expectClean(k.b.module);
}

// ---- S2: counts ----
const VectorAddDefect kCountsDefects[] = {
    {"WrongOperandCount", 8, "arith.addf: has 1 operands, expected 2",
     [](VectorAdd& k) { k.b.value(OpKind::ArithAddF, {k.x}, tensor({16}, kF32)); }},
    {"WrongResultCount", 8, "tt.store: has 1 results, expected 0",
     [](VectorAdd& k) { k.b.add(OpKind::TTStore, {k.pointers, k.x}, {kI32}); }},
    {"NullOperand", 8, "operand #0 is missing",
     [](VectorAdd& k) { k.b.value(OpKind::MathExp, {nullptr}, tensor({16}, kF32)); }},
};
INSTANTIATE_TEST_SUITE_P(Counts, VerifierDefect, ::testing::ValuesIn(kCountsDefects), defectName);

// ---- S6: shapes ----
const VectorAddDefect kShapesDefects[] = {
    {"NonPowerOfTwoShape", 8, "tt.splat: result tensor<3xf32> has a dimension that is not a power of two",
     [](VectorAdd& k) { k.b.value(OpKind::TTSplat, {k.b.arg(2)}, tensor({3}, kF32)); }},
    {"TooManyElements", 8, "more than 2^20",
     [](VectorAdd& k) { k.b.value(OpKind::TTSplat, {k.b.arg(2)}, tensor({2048, 1024}, kI32)); }},
    {"HugeDimensionsDoNotOverflow", 8, "more than 2^20",
     [](VectorAdd& k) { k.b.value(OpKind::TTSplat, {k.b.arg(2)}, tensor({int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40}, kI32)); }},
    {"ZeroDimTensor", 8, "0-d tensor",
     [](VectorAdd& k) { k.b.value(OpKind::TTSplat, {k.b.arg(2)}, Type::tensor(std::span<const int64_t>(), kI32)); }},
};
INSTANTIATE_TEST_SUITE_P(Shapes, VerifierDefect, ::testing::ValuesIn(kShapesDefects), defectName);

TEST(Verifier, BadBlockArgumentShape) {
  KernelBuilder b({tensor({6}, kF32)});
  b.ret();
  expectOne(b.module, 1, "tt.func: block argument #0 tensor<6xf32> has a dimension that is not a power of two");
}

// ---- A1-A5: arith ----
const VectorAddDefect kArithDefects[] = {
    {"BinaryOperandTypesDiffer", 9, "arith.addf: operand types (tensor<16xf32>, tensor<16xi32>) differ",
     [](VectorAdd& k) {
       k.b.value(OpKind::ArithSIToFP, {k.offsets}, tensor({16}, kF32));
       k.b.value(OpKind::ArithAddF, {k.x, k.offsets}, tensor({16}, kF32));  // line 9
     }},
    {"IntegerOpOnFloats", 8, "arith.addi: expects integer operands",
     [](VectorAdd& k) { k.b.value(OpKind::ArithAddI, {k.x, k.x}, tensor({16}, kF32)); }},
    {"ResultTypeDiffers", 8, "result type tensor<32xf32> differs",
     [](VectorAdd& k) { k.b.value(OpKind::ArithMulF, {k.x, k.x}, tensor({32}, kF32)); }},
    {"CompareResultMustBeI1", 8, "arith.cmpf: result has type tensor<16xi32>, expected tensor<16xi1>",
     [](VectorAdd& k) { k.b.value(OpKind::ArithCmpF, {k.x, k.x}, tensor({16}, kI32), {keyAttr("predicate", "olt")}); }},
    {"BadPredicate", 8, "arith.cmpi: unknown predicate 'olt'",
     [](VectorAdd& k) { k.b.value(OpKind::ArithCmpI, {k.offsets, k.offsets}, tensor({16}, kI1), {keyAttr("predicate", "olt")}); }},
    {"SelectConditionNotI1", 8, "arith.select: condition has type tensor<16xi32>",
     [](VectorAdd& k) { k.b.value(OpKind::ArithSelect, {k.offsets, k.x, k.x}, tensor({16}, kF32)); }},
    {"ConstantTypeMismatch", 8, "arith.constant: value of type i32 does not match the result type i64",
     [](VectorAdd& k) { k.b.value(OpKind::ArithConstant, {}, Type::i64(), {{"value", Attribute::integer(1, kI32)}}); }},
    {"CastWidthDirection", 8, "arith.extsi: must widen an integer",
     [](VectorAdd& k) { k.b.value(OpKind::ArithExtSI, {k.offsets}, tensor({16}, Type::i16())); }},
    {"TruncFMustNarrow", 8, "arith.truncf: must narrow a float",
     [](VectorAdd& k) { k.b.value(OpKind::ArithTruncF, {k.x}, tensor({16}, Type::f64())); }},
    {"CastKeepsShape", 8, "arith.sitofp: cannot change the shape",
     [](VectorAdd& k) { k.b.value(OpKind::ArithSIToFP, {k.offsets}, tensor({32}, kF32)); }},
    {"BitcastKeepsWidth", 8, "tt.bitcast: must keep the shape and bit width",
     [](VectorAdd& k) { k.b.value(OpKind::TTBitcast, {k.x}, tensor({16}, Type::i16())); }},
};
INSTANTIATE_TEST_SUITE_P(Arith, VerifierDefect, ::testing::ValuesIn(kArithDefects), defectName);

// ---- T1-T3: ranges and shape ops ----
// Kernels of no parameters, one op (line 2) and a return.
struct SingleOpDefect {
  const char* name;
  const char* message;
  std::function<void(KernelBuilder&)> append;
};
class VerifierSingleOp : public ::testing::TestWithParam<SingleOpDefect> {};
TEST_P(VerifierSingleOp, GivesOneDiagnostic) {
  KernelBuilder b({});
  GetParam().append(b);
  b.ret();
  expectOne(b.module, 2, GetParam().message);
}
const SingleOpDefect kRangeAndProgramIdDefects[] = {
    {"MakeRangeNotPowerOfTwo", "tt.make_range: end - start = 3 is not a power of two",
     [](KernelBuilder& b) {
       b.value(OpKind::TTMakeRange, {}, tensor({4}, kI32), {intAttr("start", 0), intAttr("end", 3)});
     }},
    {"MakeRangeEndBeforeStart", "must be greater than start",
     [](KernelBuilder& b) {
       b.value(OpKind::TTMakeRange, {}, tensor({4}, kI32), {intAttr("start", 8), intAttr("end", 4)});
     }},
    {"MakeRangeResultSize", "expected tensor<4xi32>",
     [](KernelBuilder& b) {
       b.value(OpKind::TTMakeRange, {}, tensor({8}, kI32), {intAttr("start", 0), intAttr("end", 4)});
     }},
    {"ProgramIdAxis", "tt.get_program_id: axis must be x, y or z",
     [](KernelBuilder& b) { b.value(OpKind::TTGetProgramId, {}, kI32, {keyAttr("axis", "w")}); }},
};
INSTANTIATE_TEST_SUITE_P(Ranges, VerifierSingleOp, ::testing::ValuesIn(kRangeAndProgramIdDefects),
                         [](const ::testing::TestParamInfo<SingleOpDefect>& info) {
                           return std::string(info.param.name);
                         });

const VectorAddDefect kRangesAndShapeOpsDefects[] = {
    {"SplatOfTensor", 8, "tt.splat: must turn a scalar into a tensor",
     [](VectorAdd& k) { k.b.value(OpKind::TTSplat, {k.x}, tensor({16}, kF32)); }},
    {"BroadcastBadDim", 9, "tt.broadcast: dimension 0",
     [](VectorAdd& k) {
       Value* column = k.b.value(OpKind::TTExpandDims, {k.x}, tensor({16, 1}, kF32), {intAttr("axis", 1)});
       k.b.value(OpKind::TTBroadcast, {column}, tensor({32, 4}, kF32));  // line 9
     }},
    {"ExpandDimsAxisOutOfRange", 8, "tt.expand_dims: axis 2 is out of range [0, 2)",
     [](VectorAdd& k) { k.b.value(OpKind::TTExpandDims, {k.x}, tensor({16, 1}, kF32), {intAttr("axis", 2)}); }},
    {"ReshapeElementCount", 8, "tt.reshape: changes the number of elements",
     [](VectorAdd& k) { k.b.value(OpKind::TTReshape, {k.x}, tensor({4, 8}, kF32)); }},
    {"TransOrder", 9, "tt.trans: order is not a permutation",
     [](VectorAdd& k) {
       Value* grid = k.b.value(OpKind::TTReshape, {k.x}, tensor({4, 4}, kF32));
       k.b.value(OpKind::TTTrans, {grid}, tensor({4, 4}, kF32), {{"order", Attribute::denseArray(kI32, {1, 1})}});
     }},
};
INSTANTIATE_TEST_SUITE_P(RangesAndShapeOps, VerifierDefect, ::testing::ValuesIn(kRangesAndShapeOpsDefects), defectName);

TEST(Verifier, JoinSplitCat) {
  VectorAdd k;
  Value* joined = k.b.value(OpKind::TTJoin, {k.x, k.x}, tensor({16, 2}, kF32));  // 8 ok
  k.b.add(OpKind::TTSplit, {joined}, {tensor({16}, kF32), tensor({8}, kF32)});    // 9 bad
  k.finish();
  expectOne(k.b.module, 9, "tt.split: result #1 has type tensor<8xf32>, expected tensor<16xf32>");
  // A 1-D split: Triton's parser rejects `tt.split %p : tensor<2xf32> -> f32` (the CPU Triton campaign found
  // tilesim's builder writing it; docs/findings.md, F3). triton.language splits tensor<1x2xi32> instead.
  VectorAdd one;
  Value* pair = one.b.range(0, 2);                                                    // 8 ok: tensor<2xi32>
  one.b.add(OpKind::TTSplit, {pair}, {kI32, kI32});                                  // 9 bad
  one.finish();
  expectOne(one.b.module, 9, "tt.split: operand tensor<2xi32> is 1-D: tt.split has tensor results");
  VectorAdd c;
  c.b.value(OpKind::TTCat, {c.x, c.x}, tensor({16}, kF32));
  c.finish();
  expectOne(c.b.module, 8, "tt.cat: result tensor<16xf32> does not hold both operands");
}

// ---- T4-T5: pointers and memory ----
const VectorAddDefect kPointersAndMemoryDefects[] = {
    {"AddPtrShapes", 9, "tt.addptr: offset tensor<32xi32> must be integers of the pointer's shape",
     [](VectorAdd& k) {
       Value* wide = k.b.range(0, 32);
       k.b.value(OpKind::TTAddPtr, {k.pointers, wide}, tensor({16}, ptr(kF32)));  // line 9
     }},
    {"LoadMaskNotI1", 8, "tt.load: mask has type tensor<16xi32>, expected tensor<16xi1>",
     [](VectorAdd& k) { k.b.value(OpKind::TTLoad, {k.pointers, k.offsets}, tensor({16}, kF32)); }},
    {"LoadOtherType", 8, "tt.load: other has type tensor<16xi32>",
     [](VectorAdd& k) { k.b.value(OpKind::TTLoad, {k.pointers, k.mask, k.offsets}, tensor({16}, kF32)); }},
    {"StoreValueType", 8, "tt.store: value has type tensor<16xi32>, expected tensor<16xf32>",
     [](VectorAdd& k) { k.b.add(OpKind::TTStore, {k.pointers, k.offsets}, {}); }},
    {"AtomicValueType", 8, "tt.atomic_rmw: operand #1 has type tensor<16xi32>",
     [](VectorAdd& k) {
       k.b.value(OpKind::TTAtomicRMW, {k.pointers, k.offsets, k.mask}, tensor({16}, kF32),
                 {keyAttr("atomic_rmw_op", "fadd"), keyAttr("sem", "acq_rel"), keyAttr("scope", "gpu")});
     }},
};
INSTANTIATE_TEST_SUITE_P(PointersAndMemory, VerifierDefect, ::testing::ValuesIn(kPointersAndMemoryDefects), defectName);

TEST(Verifier, BlockPointerWithMask) {
  KernelBuilder b({ptr(kF32)});
  Value* c64 = b.constant(16, Type::i64());
  Value* c0 = b.constant(0);
  Type block = ptr(tensor({16}, kF32));
  Value* bp = b.value(OpKind::TTMakeTensorPtr, {b.arg(0), c64, c64, c0}, block, {{"order", Attribute::denseArray(kI32, {0})}});
  Value* mask = b.value(OpKind::TTSplat, {b.constant(1, kI1)}, tensor({16}, kI1));  // 5 const, 6 splat
  b.value(OpKind::TTLoad, {bp, mask}, tensor({16}, kF32));  // line 7
  b.ret();
  expectOne(b.module, 7, "tt.load: a block pointer takes no mask");
}

// ---- T9: tensor descriptors ----
// A [16, 32] f32 descriptor over arg 0 (lines: func 1, shape 2, stride 3, one 4, make 5).
struct Descriptor {
  KernelBuilder b{{ptr(kF32), tensor({8}, kI32), tensor({16, 16}, kF32)}};
  Value *shape, *stride, *index, *desc;
  explicit Descriptor(std::initializer_list<int64_t> block = {16, 32}) {
    shape = b.constant(64);
    stride = b.constant(64, Type::i64());
    Value* one = b.constant(1, Type::i64());
    desc = b.value(OpKind::TTMakeTensorDescriptor, {b.arg(0), shape, shape, stride, one},
                   Type::tensorDesc(tensor(block, kF32)));
    index = shape;
  }
};

TEST(Verifier, DescriptorBaseType) {
  KernelBuilder b({ptr(Type::f16())});
  Value* shape = b.constant(64);
  Value* stride = b.constant(64, Type::i64());
  b.value(OpKind::TTMakeTensorDescriptor, {b.arg(0), shape, stride}, Type::tensorDesc(tensor({16}, kF32)));  // 4
  b.ret();
  expectOne(b.module, 4, "tt.make_tensor_descriptor: base !tt.ptr<f16> must be a pointer to the block's element type f32");
}

TEST(Verifier, DescriptorStrideType) {
  KernelBuilder b({ptr(kF32)});
  Value* shape = b.constant(64);
  b.value(OpKind::TTMakeTensorDescriptor, {b.arg(0), shape, shape}, Type::tensorDesc(tensor({16}, kF32)));  // 3
  b.ret();
  expectOne(b.module, 3, "tt.make_tensor_descriptor: stride operand 0 has type i32, expected i64");
}

TEST(Verifier, DescriptorLoadIsClean) {
  Descriptor k;
  k.b.value(OpKind::TTDescriptorLoad, {k.desc, k.index, k.index}, tensor({16, 32}, kF32));
  k.b.ret();
  expectClean(k.b.module);
}

TEST(Verifier, DescriptorLoadIndexCount) {
  Descriptor k;
  k.b.value(OpKind::TTDescriptorLoad, {k.desc, k.index}, tensor({16, 32}, kF32));  // line 6
  k.b.ret();
  expectOne(k.b.module, 6, "tt.descriptor_load: takes 2 indices");
}

TEST(Verifier, DescriptorStoreValueShape) {
  Descriptor k;
  k.b.add(OpKind::TTDescriptorStore, {k.desc, k.index, k.index, k.b.arg(2)}, {});  // line 6
  k.b.ret();
  expectOne(k.b.module, 6, "tt.descriptor_store: value tensor<16x16xf32> does not match the descriptor's block");
}

TEST(Verifier, DescriptorGatherNeedsRowBlock) {
  Descriptor k;  // a [16, 32] block: gather needs [1, W]
  k.b.value(OpKind::TTDescriptorGather, {k.desc, k.b.arg(1), k.index}, tensor({8, 32}, kF32));  // line 6
  k.b.ret();
  expectOne(k.b.module, 6, "tt.descriptor_gather: gather and scatter need a descriptor of a [1, W] block");
}

TEST(Verifier, DescriptorGatherResultShape) {
  Descriptor k({1, 32});
  k.b.value(OpKind::TTDescriptorGather, {k.desc, k.b.arg(1), k.index}, tensor({16, 32}, kF32));  // line 6
  k.b.ret();
  expectOne(k.b.module, 6, "tt.descriptor_gather: result tensor<16x32xf32> must be tensor<8x32xf32>");
}

// ---- T6: dot ----
TEST(Verifier, DotShapeMismatch) {
  KernelBuilder b({tensor({16, 32}, Type::f16()), tensor({16, 32}, Type::f16()), tensor({16, 32}, kF32)});
  b.value(OpKind::TTDot, {b.arg(0), b.arg(1), b.arg(2)}, tensor({16, 32}, kF32));
  b.ret();
  expectOne(b.module, 2, "tt.dot: shapes do not form [M,K] x [K,N] + [M,N]");
}

TEST(Verifier, DotIsClean) {
  KernelBuilder b({tensor({16, 32}, Type::f16()), tensor({32, 64}, Type::f16()), tensor({16, 64}, kF32)});
  b.value(OpKind::TTDot, {b.arg(0), b.arg(1), b.arg(2)}, tensor({16, 64}, kF32));
  b.ret();
  expectClean(b.module);
}

}  // namespace
}  // namespace tilesim::verifier_test

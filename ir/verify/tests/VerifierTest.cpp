// Negative tests for the verifier, one (or a few) per invariant listed at the top of ir/verify/Verifier.cpp.
// Each builds a small kernel in code with exactly one defect and checks that exactly one diagnostic comes back,
// on the right op's line, naming the op and the problem.
#include <gtest/gtest.h>

#include "ir/verify/Verifier.h"
#include "ir/verify/tests/KernelBuilder.h"

namespace tilesim {
namespace {

using testing::intAttr;
using testing::KernelBuilder;
using testing::keyAttr;

const Type kF32 = Type::f32();
const Type kI32 = Type::i32();
const Type kI1 = Type::i1();
Type tensor(std::initializer_list<int64_t> shape, Type element) { return Type::tensor(shape, element); }
Type ptr(Type pointee) { return Type::pointer(pointee); }

// Exactly one diagnostic, at `line`, containing `text`.
void expectOne(const Module& module, int line, const std::string& text) {
  Diagnostics diagnostics = verifyModule(module);
  ASSERT_EQ(diagnostics.size(), 1u) << (diagnostics.empty() ? std::string("none") : diagnostics[0].str() + " ... " + diagnostics.back().str());
  EXPECT_EQ(diagnostics[0].pos.line, line) << diagnostics[0].str();
  EXPECT_NE(diagnostics[0].message.find(text), std::string::npos) << diagnostics[0].str();
}

void expectClean(const Module& module) {
  Diagnostics diagnostics = verifyModule(module);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics[0].str();
}

// The vector-add kernel of SEMANTICS.md section 4.2, built in code. Lines: func 1, then one per op.
struct VectorAdd {
  KernelBuilder b{{ptr(kF32), ptr(kF32), kI32}};
  Value *offsets, *mask, *x, *pointers;
  VectorAdd() {
    offsets = b.range(0, 16);                                                        // line 2
    Value* n = b.value(OpKind::TTSplat, {b.arg(2)}, tensor({16}, kI32));             // 3
    mask = b.value(OpKind::ArithCmpI, {offsets, n}, tensor({16}, kI1), {keyAttr("predicate", "slt")});  // 4
    Value* base = b.value(OpKind::TTSplat, {b.arg(0)}, tensor({16}, ptr(kF32)));     // 5
    pointers = b.value(OpKind::TTAddPtr, {base, offsets}, tensor({16}, ptr(kF32)));  // 6
    x = b.value(OpKind::TTLoad, {pointers, mask}, tensor({16}, kF32));              // 7
  }
  void finish() {
    Value* sum = b.value(OpKind::ArithAddF, {x, x}, tensor({16}, kF32));
    b.add(OpKind::TTStore, {pointers, sum, mask}, {});
    b.ret();
  }
};

TEST(Verifier, VectorAddIsClean) {
  VectorAdd k;
  k.finish();
  expectClean(k.b.module);
}

// ---- S2: counts ----
TEST(Verifier, WrongOperandCount) {
  VectorAdd k;
  k.b.value(OpKind::ArithAddF, {k.x}, tensor({16}, kF32));  // line 8
  k.finish();
  expectOne(k.b.module, 8, "arith.addf: has 1 operands, expected 2");
}

TEST(Verifier, WrongResultCount) {
  VectorAdd k;
  k.b.add(OpKind::TTStore, {k.pointers, k.x}, {kI32});  // line 8
  k.finish();
  expectOne(k.b.module, 8, "tt.store: has 1 results, expected 0");
}

TEST(Verifier, NullOperand) {
  VectorAdd k;
  k.b.value(OpKind::MathExp, {nullptr}, tensor({16}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "operand #0 is missing");
}

// ---- S6: shapes ----
TEST(Verifier, NonPowerOfTwoShape) {
  VectorAdd k;
  k.b.value(OpKind::TTSplat, {k.b.arg(2)}, tensor({3}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "tt.splat: result tensor<3xf32> has a dimension that is not a power of two");
}

TEST(Verifier, TooManyElements) {
  VectorAdd k;
  k.b.value(OpKind::TTSplat, {k.b.arg(2)}, tensor({2048, 1024}, kI32));
  k.finish();
  expectOne(k.b.module, 8, "more than 2^20");
}

TEST(Verifier, HugeDimensionsDoNotOverflow) {
  VectorAdd k;
  k.b.value(OpKind::TTSplat, {k.b.arg(2)}, tensor({int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40}, kI32));
  k.finish();
  expectOne(k.b.module, 8, "more than 2^20");
}

TEST(Verifier, ZeroDimTensor) {
  VectorAdd k;
  k.b.value(OpKind::TTSplat, {k.b.arg(2)}, Type::tensor(std::span<const int64_t>(), kI32));
  k.finish();
  expectOne(k.b.module, 8, "0-d tensor");
}

TEST(Verifier, BadBlockArgumentShape) {
  KernelBuilder b({tensor({6}, kF32)});
  b.ret();
  expectOne(b.module, 1, "tt.func: block argument #0 tensor<6xf32> has a dimension that is not a power of two");
}

// ---- A1-A5: arith ----
TEST(Verifier, BinaryOperandTypesDiffer) {
  VectorAdd k;
  Value* y = k.b.value(OpKind::ArithSIToFP, {k.offsets}, tensor({16}, kF32));
  k.b.value(OpKind::ArithAddF, {k.x, k.offsets}, tensor({16}, kF32));  // line 9
  (void)y;
  k.finish();
  expectOne(k.b.module, 9, "arith.addf: operand types (tensor<16xf32>, tensor<16xi32>) differ");
}

TEST(Verifier, IntegerOpOnFloats) {
  VectorAdd k;
  k.b.value(OpKind::ArithAddI, {k.x, k.x}, tensor({16}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "arith.addi: expects integer operands");
}

TEST(Verifier, ResultTypeDiffers) {
  VectorAdd k;
  k.b.value(OpKind::ArithMulF, {k.x, k.x}, tensor({32}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "result type tensor<32xf32> differs");
}

TEST(Verifier, CompareResultMustBeI1) {
  VectorAdd k;
  k.b.value(OpKind::ArithCmpF, {k.x, k.x}, tensor({16}, kI32), {keyAttr("predicate", "olt")});
  k.finish();
  expectOne(k.b.module, 8, "arith.cmpf: result has type tensor<16xi32>, expected tensor<16xi1>");
}

TEST(Verifier, BadPredicate) {
  VectorAdd k;
  k.b.value(OpKind::ArithCmpI, {k.offsets, k.offsets}, tensor({16}, kI1), {keyAttr("predicate", "olt")});
  k.finish();
  expectOne(k.b.module, 8, "arith.cmpi: unknown predicate 'olt'");
}

TEST(Verifier, SelectConditionNotI1) {
  VectorAdd k;
  k.b.value(OpKind::ArithSelect, {k.offsets, k.x, k.x}, tensor({16}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "arith.select: condition has type tensor<16xi32>");
}

TEST(Verifier, ConstantTypeMismatch) {
  VectorAdd k;
  k.b.value(OpKind::ArithConstant, {}, Type::i64(), {{"value", Attribute::integer(1, kI32)}});
  k.finish();
  expectOne(k.b.module, 8, "arith.constant: value of type i32 does not match the result type i64");
}

TEST(Verifier, CastWidthDirection) {
  VectorAdd k;
  k.b.value(OpKind::ArithExtSI, {k.offsets}, tensor({16}, Type::i16()));
  k.finish();
  expectOne(k.b.module, 8, "arith.extsi: must widen an integer");
}

TEST(Verifier, TruncFMustNarrow) {
  VectorAdd k;
  k.b.value(OpKind::ArithTruncF, {k.x}, tensor({16}, Type::f64()));
  k.finish();
  expectOne(k.b.module, 8, "arith.truncf: must narrow a float");
}

TEST(Verifier, CastKeepsShape) {
  VectorAdd k;
  k.b.value(OpKind::ArithSIToFP, {k.offsets}, tensor({32}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "arith.sitofp: cannot change the shape");
}

TEST(Verifier, BitcastKeepsWidth) {
  VectorAdd k;
  k.b.value(OpKind::TTBitcast, {k.x}, tensor({16}, Type::i16()));
  k.finish();
  expectOne(k.b.module, 8, "tt.bitcast: must keep the shape and bit width");
}

// ---- T1-T3: ranges and shape ops ----
TEST(Verifier, MakeRangeNotPowerOfTwo) {
  KernelBuilder b({});
  b.value(OpKind::TTMakeRange, {}, tensor({4}, kI32), {intAttr("start", 0), intAttr("end", 3)});
  b.ret();
  expectOne(b.module, 2, "tt.make_range: end - start = 3 is not a power of two");
}

TEST(Verifier, MakeRangeEndBeforeStart) {
  KernelBuilder b({});
  b.value(OpKind::TTMakeRange, {}, tensor({4}, kI32), {intAttr("start", 8), intAttr("end", 4)});
  b.ret();
  expectOne(b.module, 2, "must be greater than start");
}

TEST(Verifier, MakeRangeResultSize) {
  KernelBuilder b({});
  b.value(OpKind::TTMakeRange, {}, tensor({8}, kI32), {intAttr("start", 0), intAttr("end", 4)});
  b.ret();
  expectOne(b.module, 2, "expected tensor<4xi32>");
}

TEST(Verifier, ProgramIdAxis) {
  KernelBuilder b({});
  b.value(OpKind::TTGetProgramId, {}, kI32, {keyAttr("axis", "w")});
  b.ret();
  expectOne(b.module, 2, "tt.get_program_id: axis must be x, y or z");
}

TEST(Verifier, SplatOfTensor) {
  VectorAdd k;
  k.b.value(OpKind::TTSplat, {k.x}, tensor({16}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "tt.splat: must turn a scalar into a tensor");
}

TEST(Verifier, BroadcastBadDim) {
  VectorAdd k;
  Value* column = k.b.value(OpKind::TTExpandDims, {k.x}, tensor({16, 1}, kF32), {intAttr("axis", 1)});
  k.b.value(OpKind::TTBroadcast, {column}, tensor({32, 4}, kF32));  // line 9
  k.finish();
  expectOne(k.b.module, 9, "tt.broadcast: dimension 0");
}

TEST(Verifier, ExpandDimsAxisOutOfRange) {
  VectorAdd k;
  k.b.value(OpKind::TTExpandDims, {k.x}, tensor({16, 1}, kF32), {intAttr("axis", 2)});
  k.finish();
  expectOne(k.b.module, 8, "tt.expand_dims: axis 2 is out of range [0, 2)");
}

TEST(Verifier, ReshapeElementCount) {
  VectorAdd k;
  k.b.value(OpKind::TTReshape, {k.x}, tensor({4, 8}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "tt.reshape: changes the number of elements");
}

TEST(Verifier, TransOrder) {
  VectorAdd k;
  Value* grid = k.b.value(OpKind::TTReshape, {k.x}, tensor({4, 4}, kF32));
  k.b.value(OpKind::TTTrans, {grid}, tensor({4, 4}, kF32), {{"order", Attribute::denseArray(kI32, {1, 1})}});
  k.finish();
  expectOne(k.b.module, 9, "tt.trans: order is not a permutation");
}

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
TEST(Verifier, AddPtrShapes) {
  VectorAdd k;
  Value* wide = k.b.range(0, 32);
  k.b.value(OpKind::TTAddPtr, {k.pointers, wide}, tensor({16}, ptr(kF32)));  // line 9
  k.finish();
  expectOne(k.b.module, 9, "tt.addptr: offset tensor<32xi32> must be integers of the pointer's shape");
}

TEST(Verifier, LoadMaskNotI1) {
  VectorAdd k;
  k.b.value(OpKind::TTLoad, {k.pointers, k.offsets}, tensor({16}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "tt.load: mask has type tensor<16xi32>, expected tensor<16xi1>");
}

TEST(Verifier, LoadOtherType) {
  VectorAdd k;
  k.b.value(OpKind::TTLoad, {k.pointers, k.mask, k.offsets}, tensor({16}, kF32));
  k.finish();
  expectOne(k.b.module, 8, "tt.load: other has type tensor<16xi32>");
}

TEST(Verifier, StoreValueType) {
  VectorAdd k;
  k.b.add(OpKind::TTStore, {k.pointers, k.offsets}, {});
  k.finish();
  expectOne(k.b.module, 8, "tt.store: value has type tensor<16xi32>, expected tensor<16xf32>");
}

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

TEST(Verifier, AtomicValueType) {
  VectorAdd k;
  k.b.value(OpKind::TTAtomicRMW, {k.pointers, k.offsets, k.mask}, tensor({16}, kF32),
            {keyAttr("atomic_rmw_op", "fadd"), keyAttr("sem", "acq_rel"), keyAttr("scope", "gpu")});
  k.finish();
  expectOne(k.b.module, 8, "tt.atomic_rmw: operand #1 has type tensor<16xi32>");
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

// ---- T7: reduce / scan ----
Operation* addReduce(KernelBuilder& b, Value* input, Type result, std::vector<Type> regionArgs, int64_t axis = 0) {
  Operation* reduce = b.add(OpKind::TTReduce, {input}, {result}, {intAttr("axis", axis)});
  Block& combine = reduce->addRegion().addBlock();
  for (Type type : regionArgs) combine.addArgument(type);
  if (regionArgs.size() >= 2) {
    Value* sum = b.value(OpKind::ArithAddF, {combine.argument(0), combine.argument(1)}, regionArgs[0], {}, &combine);
    b.add(OpKind::TTReduceReturn, {sum}, {}, {}, &combine);
  }
  return reduce;
}

TEST(Verifier, ReduceIsClean) {
  VectorAdd k;
  addReduce(k.b, k.x, kF32, {kF32, kF32});
  k.finish();
  expectClean(k.b.module);
}

TEST(Verifier, ReduceRegionArity) {
  VectorAdd k;
  addReduce(k.b, k.x, kF32, {kF32, kF32, kF32});
  k.finish();
  expectOne(k.b.module, 8, "tt.reduce: combine region takes (f32, f32, f32), expected (f32, f32)");
}

TEST(Verifier, ReduceAxisAndResult) {
  VectorAdd k;
  addReduce(k.b, k.x, kF32, {kF32, kF32}, 1);
  k.finish();
  expectOne(k.b.module, 8, "tt.reduce: axis 1 is out of range [0, 1)");
  VectorAdd r;
  addReduce(r.b, r.x, tensor({16}, kF32), {kF32, kF32});
  r.finish();
  expectOne(r.b.module, 8, "tt.reduce: result #0 has type tensor<16xf32>, expected f32");
}

TEST(Verifier, ReduceReturnType) {
  VectorAdd k;
  Operation* reduce = k.b.add(OpKind::TTReduce, {k.x}, {kF32}, {intAttr("axis", 0)});
  Block& combine = reduce->addRegion().addBlock();
  combine.addArgument(kF32);
  combine.addArgument(kF32);
  Value* wrong = k.b.constant(0, kI32, &combine);
  k.b.add(OpKind::TTReduceReturn, {wrong}, {}, {}, &combine);  // line 10
  k.finish();
  expectOne(k.b.module, 10, "tt.reduce.return: yields (i32) but the combine region of tt.reduce expects (f32)");
}

// ---- S4: terminators ----
TEST(Verifier, MissingTerminator) {
  VectorAdd k;
  expectOne(k.b.module, 1, "tt.func: region #0 does not end with tt.return");
}

TEST(Verifier, TerminatorNotLast) {
  VectorAdd k;
  k.b.ret();  // line 8
  k.finish();
  expectOne(k.b.module, 8, "tt.return: is a terminator but is not the last op");
}

TEST(Verifier, WrongTerminatorKind) {
  VectorAdd k;
  k.b.add(OpKind::SCFYield, {}, {});
  expectOne(k.b.module, 8, "scf.yield: cannot end a region of tt.func (expected tt.return)");
}

TEST(Verifier, ReturnTypes) {
  KernelBuilder b({kI32}, {kF32});
  b.ret({b.arg(0)});
  expectOne(b.module, 2, "tt.return: yields (i32) but the function type of tt.func expects (f32)");
}

// ---- C2-C5: calls and control flow ----
TEST(Verifier, CallUndefinedAndMismatched) {
  KernelBuilder b({kI32});
  b.add(OpKind::TTCall, {b.arg(0)}, {kI32}, {{"callee", Attribute::symbolRef("helper")}});
  b.ret();
  expectOne(b.module, 2, "tt.call: calls @helper, which is not defined");
  Operation* helper = b.addFunction("helper", {kF32}, {kF32});  // line 4
  b.ret({helper->region(0).front().argument(0)}, &helper->region(0).front());
  expectOne(b.module, 2, "tt.call: types (i32) -> (i32) do not match @helper");
}

Operation* addFor(KernelBuilder& b, Value* init, Type iterType) {
  Value* zero = b.constant(0);
  Value* one = b.constant(1);
  Operation* loop = b.add(OpKind::SCFFor, {zero, zero, one, init}, {init->type});
  Block& body = loop->addRegion().addBlock();
  body.addArgument(kI32);
  body.addArgument(iterType);
  return loop;
}

TEST(Verifier, ForYieldTypes) {
  VectorAdd k;
  Operation* loop = addFor(k.b, k.x, tensor({16}, kF32));  // lines 8, 9, 10
  Block& body = loop->region(0).front();
  k.b.add(OpKind::SCFYield, {body.argument(0)}, {}, {}, &body);  // line 11
  k.finish();
  expectOne(k.b.module, 11, "scf.yield: yields (i32) but the body of scf.for expects (tensor<16xf32>)");
}

TEST(Verifier, ForIterArgTypes) {
  VectorAdd k;
  Operation* loop = addFor(k.b, k.x, kF32);
  Block& body = loop->region(0).front();
  k.b.add(OpKind::SCFYield, {k.x}, {}, {}, &body);
  k.finish();
  expectOne(k.b.module, 10, "scf.for: body takes (i32, f32), expected (i32, tensor<16xf32>)");
}

TEST(Verifier, IfConditionMustBeI1) {
  KernelBuilder b({kI32});
  Operation* branch = b.add(OpKind::SCFIf, {b.arg(0)}, {});
  Block& then = branch->addRegion().addBlock();
  b.add(OpKind::SCFYield, {}, {}, {}, &then);
  b.ret();
  expectOne(b.module, 2, "scf.if: condition has type i32, expected i1");
}

TEST(Verifier, IfResultsNeedElse) {
  KernelBuilder b({kI1});
  Operation* branch = b.add(OpKind::SCFIf, {b.arg(0)}, {kI32});
  Block& then = branch->addRegion().addBlock();
  b.add(OpKind::SCFYield, {b.constant(1, kI32, &then)}, {}, {}, &then);
  b.ret();
  expectOne(b.module, 2, "scf.if: returns (i32) but has no else region");
}

TEST(Verifier, WhileConditionAndYield) {
  KernelBuilder b({kI32});
  Operation* loop = b.add(OpKind::SCFWhile, {b.arg(0)}, {kI32});                 // 2
  Block& before = loop->addRegion().addBlock();
  Value* k0 = before.addArgument(kI32);
  b.add(OpKind::SCFCondition, {k0, k0}, {}, {}, &before);                          // 3: condition not i1
  Block& after = loop->addRegion().addBlock();
  Value* k1 = after.addArgument(kI32);
  b.add(OpKind::SCFYield, {k1}, {}, {}, &after);                                   // 4
  b.ret();
  expectOne(b.module, 3, "scf.condition: condition has type i32, expected i1");
}

// ---- S5: dominance ----
TEST(Verifier, UseBeforeDefinition) {
  VectorAdd k;
  Operation* first = k.b.add(OpKind::MathExp, {nullptr}, {tensor({16}, kF32)});  // line 8
  Value* later = k.b.value(OpKind::MathExp, {k.x}, tensor({16}, kF32));         // line 9
  first->operands[0] = later;
  k.finish();
  expectOne(k.b.module, 8, "math.exp: operand #0 (%v");
  Diagnostics d = verifyModule(k.b.module);
  EXPECT_NE(d[0].message.find("is used before it is defined"), std::string::npos) << d[0].str();
}

TEST(Verifier, OwnResult) {
  VectorAdd k;
  Operation* op = k.b.add(OpKind::MathExp, {nullptr}, {tensor({16}, kF32)});
  op->operands[0] = op->result();
  k.finish();
  expectOne(k.b.module, 8, "is the op's own result");
}

TEST(Verifier, SiblingRegionValue) {
  KernelBuilder b({kI1});
  Operation* branch = b.add(OpKind::SCFIf, {b.arg(0)}, {});  // 2
  Block& then = branch->addRegion().addBlock();
  Value* inner = b.constant(7, kI32, &then);                 // 3
  b.add(OpKind::SCFYield, {}, {}, {}, &then);                // 4
  Block& otherwise = branch->addRegion().addBlock();
  b.value(OpKind::ArithAddI, {inner, inner}, kI32, {}, &otherwise);  // 5
  b.add(OpKind::SCFYield, {}, {}, {}, &otherwise);
  b.ret();
  expectOne(b.module, 5, "arith.addi: operand #0 (%v0) is defined in a region that does not enclose this use");
}

TEST(Verifier, ValueFromAnotherFunction) {
  KernelBuilder b({kI32});
  b.ret();
  Operation* other = b.addFunction("other", {}, {});
  b.value(OpKind::ArithAddI, {b.arg(0), b.arg(0)}, kI32, {}, &other->region(0).front());  // line 4
  b.ret({}, &other->region(0).front());
  expectOne(b.module, 4, "is defined outside this function");
}

// ---- S1: module level ----
TEST(Verifier, DuplicateFunction) {
  KernelBuilder b({});
  b.ret();
  Operation* again = b.addFunction("kernel", {}, {});
  b.ret({}, &again->region(0).front());
  expectOne(b.module, 3, "function @kernel is defined more than once");
}

TEST(Verifier, NestedFunction) {
  KernelBuilder b({});
  b.add(OpKind::TTFunc, {}, {});
  b.ret();
  expectOne(b.module, 2, "tt.func: is nested inside tt.func");
}

// ---- reporting ----
TEST(Verifier, ReportsEveryIndependentFailureOnce) {
  VectorAdd k;
  k.b.value(OpKind::ArithAddI, {k.x, k.x}, tensor({16}, kF32));           // 8
  k.b.value(OpKind::TTSplat, {k.b.arg(2)}, tensor({5}, kI32));            // 9
  k.b.value(OpKind::ArithExtSI, {k.offsets}, tensor({16}, Type::i8()));   // 10
  k.finish();
  Diagnostics d = verifyModule(k.b.module);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].pos.line, 8);
  EXPECT_EQ(d[1].pos.line, 9);
  EXPECT_EQ(d[2].pos.line, 10);
  EXPECT_EQ(d[0].str().rfind("test.ttir:8:5: error: arith.addi: ", 0), 0u) << d[0].str();
}

TEST(Verifier, UnknownPositionSaysSo) {
  VectorAdd k;
  Operation* op = k.b.add(OpKind::ArithAddI, {k.x, k.x}, {tensor({16}, kF32)});
  op->textPos = SourcePos{};
  k.finish();
  Diagnostics d = verifyModule(k.b.module);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].pos.known());
  EXPECT_EQ(d[0].str(), "test.ttir: error: arith.addi (no source position): expects integer operands, got tensor<16xf32>");
}

}  // namespace
}  // namespace tilesim

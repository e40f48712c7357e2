// Negative tests for the verifier's invariants of ops with regions (reduce, scan, scf, cf), terminators, calls,
// dominance and the module level, and how diagnostics are reported (ir/verify/Verifier.cpp lists them). As in
// VerifierTest.cpp: one defect per kernel, exactly one diagnostic on the right line.
#include "ir/verify/tests/VerifierTestKit.h"

namespace tilesim::verifier_test {
namespace {

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

const VectorAddDefect kReduceScanDefects[] = {
    {"ReduceRegionArity", 8, "tt.reduce: combine region takes (f32, f32, f32), expected (f32, f32)",
     [](VectorAdd& k) { addReduce(k.b, k.x, kF32, {kF32, kF32, kF32}); }},
    {"ReduceReturnType", 10, "tt.reduce.return: yields (i32) but the combine region of tt.reduce expects (f32)",
     [](VectorAdd& k) {
       Operation* reduce = k.b.add(OpKind::TTReduce, {k.x}, {kF32}, {intAttr("axis", 0)});
       Block& combine = reduce->addRegion().addBlock();
       combine.addArgument(kF32);
       combine.addArgument(kF32);
       Value* wrong = k.b.constant(0, kI32, &combine);
       k.b.add(OpKind::TTReduceReturn, {wrong}, {}, {}, &combine);  // line 10
     }},
};
INSTANTIATE_TEST_SUITE_P(ReduceScan, VerifierDefect, ::testing::ValuesIn(kReduceScanDefects), defectName);

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

// ---- S4: terminators ----
TEST(Verifier, MissingTerminator) {
  VectorAdd k;
  expectOne(k.b.module, 1, "tt.func: region #0 does not end with tt.return");
}

const VectorAddDefect kTerminatorsDefects[] = {
    {"TerminatorNotLast", 8, "tt.return: is a terminator but is not the last op",
     [](VectorAdd& k) { k.b.ret(); }},
};
INSTANTIATE_TEST_SUITE_P(Terminators, VerifierDefect, ::testing::ValuesIn(kTerminatorsDefects), defectName);

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

const VectorAddDefect kCallsAndControlFlowDefects[] = {
    {"ForYieldTypes", 11, "scf.yield: yields (i32) but the body of scf.for expects (tensor<16xf32>)",
     [](VectorAdd& k) {
       Operation* loop = addFor(k.b, k.x, tensor({16}, kF32));  // lines 8, 9, 10
       Block& body = loop->region(0).front();
       k.b.add(OpKind::SCFYield, {body.argument(0)}, {}, {}, &body);  // line 11
     }},
    {"ForIterArgTypes", 10, "scf.for: body takes (i32, f32), expected (i32, tensor<16xf32>)",
     [](VectorAdd& k) {
       Operation* loop = addFor(k.b, k.x, kF32);
       Block& body = loop->region(0).front();
       k.b.add(OpKind::SCFYield, {k.x}, {}, {}, &body);
     }},
};
INSTANTIATE_TEST_SUITE_P(CallsAndControlFlow, VerifierDefect, ::testing::ValuesIn(kCallsAndControlFlowDefects), defectName);

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

const VectorAddDefect kDominanceDefects[] = {
    {"OwnResult", 8, "is the op's own result",
     [](VectorAdd& k) {
       Operation* op = k.b.add(OpKind::MathExp, {nullptr}, {tensor({16}, kF32)});
       op->operands[0] = op->result();
     }},
};
INSTANTIATE_TEST_SUITE_P(Dominance, VerifierDefect, ::testing::ValuesIn(kDominanceDefects), defectName);

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
}  // namespace tilesim::verifier_test

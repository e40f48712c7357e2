// Focused parser/printer tests for syntax the real kernels exercise rarely: the generic form, result groups,
// names reused in sibling regions, forward #loc references, hex and decimal floats, block pointers, and every
// custom op format. Each case checks the built IR and the round trip (parse, print, parse, equal, idempotent).
#include <gtest/gtest.h>

#include "ir/text/Equality.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"

namespace tilesim {
namespace {

std::unique_ptr<Module> parseOrFail(const std::string& text) {
  ParseResult result = parseModule(text, "test.ttir");
  if (!result.module) ADD_FAILURE() << result.diagnostics.at(0).str() << "\n" << text;
  return std::move(result.module);
}

// Parses, prints, re-parses; returns the printed text.
std::string expectRoundTrip(const Module& module) {
  std::string printed = printModule(module);
  ParseResult again = parseModule(printed, "printed.ttir");
  if (!again.module) {
    ADD_FAILURE() << again.diagnostics.at(0).str() << "\n" << printed;
    return printed;
  }
  std::string difference;
  EXPECT_TRUE(modulesEqual(module, *again.module, &difference)) << difference << "\n" << printed;
  EXPECT_EQ(printModule(*again.module), printed);
  return printed;
}

std::vector<const Operation*> allOps(const Module& module) {
  std::vector<const Operation*> ops;
  for (const auto& f : module.functions) walk(*f, [&](const Operation& op) { ops.push_back(&op); });
  return ops;
}

const Operation* firstOp(const Module& module, OpKind kind) {
  for (const Operation* op : allOps(module))
    if (op->kind == kind) return op;
  return nullptr;
}

TEST(Syntax, GenericReduceWithGroupsAndForwardAliases) {
  auto module = parseOrFail(R"TTIR(#loc = loc("k.py":1:0)
module {
  tt.func public @k(%x: tensor<4x8xf32> loc("x"(#loc)), %i: tensor<4x8xi32>) attributes {noinline = false} {
    %am:2 = "tt.reduce"(%x, %i) <{axis = 1 : i32}> ({
    ^bb0(%a: f32 loc(#loc2), %b: i32 loc(unknown), %c: f32, %d: i32):
      %gt = arith.cmpf ogt, %a, %c : f32 loc(#loc3)
      %v = arith.select %gt, %a, %c : f32
      %w = arith.select %gt, %b, %d : i32
      tt.reduce.return %v, %w : f32, i32 loc(callsite(#loc2 at #loc3))
    }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4xf32>, tensor<4xi32>) loc(#loc3)
    %s = arith.addf %am#0, %am#0 : tensor<4xf32> loc(fused[#loc2, "f.py":3:4])
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("k.py":2:3)
#loc3 = loc("am"(#loc2))
)TTIR");
  ASSERT_TRUE(module);
  const Operation* reduce = firstOp(*module, OpKind::TTReduce);
  ASSERT_TRUE(reduce);
  ASSERT_EQ(reduce->numResults(), 2u);
  EXPECT_EQ(reduce->result(1)->name, "am");
  EXPECT_EQ(reduce->result(1)->groupIndex, 1);
  EXPECT_EQ(reduce->result(1)->type.str(), "tensor<4xi32>");
  EXPECT_EQ(reduce->intAttr("axis"), 1);
  EXPECT_EQ(reduce->region(0).front().arguments.size(), 4u);
  EXPECT_EQ(module->locations.describe(reduce->loc), "k.py:2:3");
  EXPECT_EQ(module->locations.variableName(reduce->loc), "am");
  EXPECT_EQ(reduce->textPos.line, 4);
  EXPECT_EQ(reduce->textPos.column, 5);
  const Operation* add = firstOp(*module, OpKind::ArithAddF);
  EXPECT_EQ(add->operand(0), reduce->result(0));
  EXPECT_EQ(add->parentOp(), module->functions[0].get());
  std::string printed = expectRoundTrip(*module);
  EXPECT_NE(printed.find("%am:2 = \"tt.reduce\"(%x, %i) <{axis = 1 : i32}> ({"), std::string::npos) << printed;
  EXPECT_NE(printed.find("#loc3 = loc(\"am\"(#loc2))"), std::string::npos) << printed;
}

TEST(Syntax, SiblingRegionsReuseNamesAndImplicitYield) {
  auto module = parseOrFail(R"TTIR(module {
  tt.func @f(%c: i1, %n: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %r = scf.if %c -> (i32) {
      %x = arith.addi %n, %n : i32
      scf.yield %x : i32
    } else {
      %x = arith.subi %n, %n : i32
      scf.yield %x : i32
    }
    scf.if %c {
      %y = arith.muli %r, %r : i32
    }
    scf.for %i = %c0 to %n step %n : i32 {
      %y = arith.addi %i, %i : i32
    }
    %w:2 = scf.while (%a = %r, %b = %n) : (i32, i32) -> (i32, i32) {
      %t = arith.cmpi slt, %a, %b : i32
      scf.condition(%t) %a, %b : i32, i32
    } do {
    ^bb0(%a: i32, %b: i32):
      scf.yield %b, %a : i32, i32
    }
    tt.return %w#1 : i32
  }
})TTIR");
  ASSERT_TRUE(module);
  const Operation* ifOp = firstOp(*module, OpKind::SCFIf);
  ASSERT_EQ(ifOp->regions.size(), 2u);
  const Operation* emptyIf = nullptr;
  for (const Operation* op : allOps(*module))
    if (op->kind == OpKind::SCFIf && op->numResults() == 0) emptyIf = op;
  ASSERT_TRUE(emptyIf);
  EXPECT_EQ(emptyIf->region(0).front().terminator()->kind, OpKind::SCFYield);
  EXPECT_TRUE(emptyIf->region(1).empty());
  const Operation* loop = firstOp(*module, OpKind::SCFFor);
  EXPECT_EQ(loop->region(0).front().terminator()->kind, OpKind::SCFYield);
  EXPECT_EQ(loop->region(0).front().argument(0)->type, Type::i32());
  EXPECT_TRUE(module->functions[0]->attr("sym_visibility") == nullptr);
  EXPECT_EQ(Function(module->functions[0].get()).type().str(), "(i1, i32) -> i32");
  std::string printed = expectRoundTrip(*module);
  EXPECT_EQ(printed.find("scf.yield\n"), std::string::npos) << "empty yields stay implicit:\n" << printed;
}

TEST(Syntax, FloatsAndDenseAttributes) {
  auto module = parseOrFail(R"TTIR(module {
  tt.func public @f() {
    %a = arith.constant 0xFF800000 : f32
    %b = arith.constant dense<4.6566126E-10> : tensor<4xf32>
    %c = arith.constant dense<[1.000000e+00, -0.000000e+00, 0x7FC00000, 2.500000e-01]> : tensor<4xf32>
    %d = arith.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
    %e = arith.constant 1.000000e-01 : f64
    %f = arith.constant dense<"0x0000803F0000803F"> : tensor<2xf32>
    %g = arith.constant true
    %h = arith.constant 3.140630e+00 : bf16
    %i = arith.constant dense<0x7E> : tensor<2xf8E4M3FN>
    %j = arith.constant -766435501 : i32
    %k = arith.constant 4294967295 : i32
    tt.return
  }
})TTIR");
  ASSERT_TRUE(module);
  auto ops = allOps(*module);
  EXPECT_EQ(ops[1]->attr("value")->bits(), 0xFF800000u);
  EXPECT_EQ(ops[2]->attr("value")->denseBits()[0], 0x2FFFFFFFu);  // 4.6566126E-10 in f32 (2^-31 less one ulp)
  EXPECT_EQ(ops[3]->attr("value")->denseBits()[1], 0x80000000u);
  EXPECT_EQ(ops[3]->attr("value")->denseBits()[2], 0x7FC00000u);
  EXPECT_EQ(ops[4]->attr("value")->denseBits()[1], 0xFEu);
  EXPECT_EQ(ops[6]->attr("value")->denseBits()[1], 0x3F800000u);
  EXPECT_EQ(ops[7]->result()->type, Type::i1());
  EXPECT_EQ(ops[10]->attr("value")->intValue(), -766435501);
  EXPECT_EQ(ops[11]->attr("value")->intValue(), -1);
  std::string printed = expectRoundTrip(*module);
  EXPECT_NE(printed.find("0xFF800000 : f32"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dense<4.6566126E-10>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dense<[1.000000e+00, -0.000000e+00, 0x7FC00000, 2.500000e-01]>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("1.000000e-01 : f64"), std::string::npos) << printed;
}

TEST(Syntax, BlockPointersAndMemoryOps) {
  auto module = parseOrFail(R"TTIR(module {
  tt.func public @f(%A: !tt.ptr<f32>, %M: i64, %s: i64, %o: i32, %p: tensor<16x!tt.ptr<f32>>, %m: tensor<16xi1>, %v: tensor<16xf32>, %q: !tt.ptr<i32>) {
    %bp = tt.make_tensor_ptr %A, [%M, %M], [%s, %s], [%o, %o] {order = array<i32: 1, 0>} : <tensor<32x32xf32>>
    %x = tt.load %bp {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<32x32xf32>>
    %bp2 = tt.advance %bp, [%o, %o] : <tensor<32x32xf32>>
    tt.store %bp2, %x {boundaryCheck = array<i32: 0, 1>} : !tt.ptr<tensor<32x32xf32>>
    %y = tt.load %p, %m, %v cacheModifier = cg evictionPolicy = evict_last {isVolatile = true} : tensor<16x!tt.ptr<f32>>
    tt.store %p, %y, %m cacheModifier = wt : tensor<16x!tt.ptr<f32>>
    %old = tt.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
    %c0 = arith.constant 0 : i32
    %c = tt.atomic_cas acq_rel, gpu, %q, %c0, %c0 : (!tt.ptr<i32>, i32, i32) -> i32
    %z = tt.load %q : !tt.ptr<i32>
    tt.return
  }
})TTIR");
  ASSERT_TRUE(module);
  const Operation* make = firstOp(*module, OpKind::TTMakeTensorPtr);
  EXPECT_EQ(make->numOperands(), 7u);
  EXPECT_TRUE(make->result()->type.isBlockPointer());
  const Operation* load = firstOp(*module, OpKind::TTLoad);
  EXPECT_EQ(load->result()->type.str(), "tensor<32x32xf32>");
  auto ops = allOps(*module);
  EXPECT_EQ(ops[5]->keywordAttr("cache"), "cg");
  EXPECT_EQ(ops[5]->keywordAttr("evict"), "evict_last");
  EXPECT_EQ(ops[5]->result()->type.str(), "tensor<16xf32>");
  EXPECT_EQ(ops[7]->keywordAttr("atomic_rmw_op"), "fadd");
  EXPECT_EQ(ops[7]->keywordAttr("sem"), "acq_rel");
  EXPECT_EQ(ops[7]->keywordAttr("scope"), "gpu");
  EXPECT_EQ(ops[10]->result()->type, Type::i32());
  std::string printed = expectRoundTrip(*module);
  EXPECT_NE(printed.find("tt.advance %bp, [%o, %o] : <tensor<32x32xf32>>"), std::string::npos) << printed;
}

TEST(Syntax, EveryCustomOpFormat) {
  auto module = parseOrFail(R"TTIR(module {
  tt.func private @helper(%a: f32) -> f32 attributes {noinline = true} {
    tt.return %a : f32
  }
  tt.func public @f(%x: tensor<16xf32>, %i: tensor<16xi32>, %s: f32, %c: tensor<16xi1>) {
    %pid = tt.get_program_id y : i32
    %np = tt.get_num_programs z : i32
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %rs = tt.reshape %x allow_reorder : tensor<16xf32> -> tensor<4x4xf32>
    %d = tt.dot %rs, %rs, %rs, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<4x4xf32> * tensor<4x4xf32> -> tensor<4x4xf32>
    %e = tt.fp_to_fp %x, rounding = rtz : tensor<16xf32> -> tensor<16xbf16>
    %cl = tt.clampf %x, %x, %x, propagateNan = none : tensor<16xf32>
    %pw = tt.extern_elementwise %x, %x {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %ia = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %i : tensor<16xi32> -> tensor<16xi32>
    tt.print " x: " {hex = false, isSigned = array<i32: 0>} : %x : tensor<16xf32>
    tt.print " hi" {hex = false, isSigned = array<i32>}
    tt.assert %c, "msg \"quoted\"\n" : tensor<16xi1>
    %g = tt.gather %x[%i] {axis = 0 : i32} : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
    %h = tt.histogram %i, %c : tensor<16xi32> -> tensor<8xi32>
    %k = tt.call @helper(%s) : (f32) -> f32
    %q = tt.call @"__main__.h(1,)"(%s) : (f32) -> f32
    %l, %rr = tt.split %d : tensor<4x4xf32> -> tensor<4x2xf32>
    %sc = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%arg2: f32, %arg3: f32):
      %0 = arith.addf %arg2, %arg3 : f32
      tt.scan.return %0 : f32
    }) : (tensor<16xf32>) -> tensor<16xf32>
    %p = ub.poison : tensor<16xf32>
    %cmp = arith.cmpf une, %x, %x : tensor<16xf32>
    %sel = arith.select %cmp, %x, %x : tensor<16xi1>, tensor<16xf32>
    %ext = arith.extf %x : tensor<16xf32> to tensor<16xf64>
    %fma = math.fma %x, %x, %x : tensor<16xf32>
    %mul = arith.muli %i, %i {tt.divisibility = dense<16> : tensor<1xi32>} : tensor<16xi32>
    tt.return
  } loc("f")
} loc(unknown)
)TTIR");
  ASSERT_TRUE(module);
  auto ops = allOps(*module);
  const Operation* dot = firstOp(*module, OpKind::TTDot);
  EXPECT_EQ(dot->keywordAttr("inputPrecision"), "tf32");
  EXPECT_EQ(dot->intAttr("maxNumImpreciseAcc", -1), 0);
  EXPECT_EQ(firstOp(*module, OpKind::TTGetProgramId)->keywordAttr("axis"), "y");
  EXPECT_EQ(firstOp(*module, OpKind::TTFpToFp)->keywordAttr("rounding"), "rtz");
  EXPECT_EQ(firstOp(*module, OpKind::TTClampF)->keywordAttr("propagateNan"), "none");
  EXPECT_EQ(firstOp(*module, OpKind::TTAssert)->keywordAttr("message"), "msg \"quoted\"\n");
  EXPECT_EQ(firstOp(*module, OpKind::TTCall)->attr("callee")->text(), "helper");
  EXPECT_EQ(firstOp(*module, OpKind::ArithCmpF)->keywordAttr("predicate"), "une");
  EXPECT_EQ(firstOp(*module, OpKind::ArithCmpF)->result()->type.str(), "tensor<16xi1>");
  EXPECT_TRUE(firstOp(*module, OpKind::TTReshape)->hasAttr("allow_reorder"));
  EXPECT_EQ(firstOp(*module, OpKind::TTSplit)->result(1)->name, "rr");
  EXPECT_EQ(Function(module->functions[0].get()).isPublic(), false);
  std::string printed = expectRoundTrip(*module);
  EXPECT_NE(printed.find("tt.call @\"__main__.h(1,)\"(%s) : (f32) -> f32"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%l, %rr = tt.split"), std::string::npos) << printed;
}

// tt.unsplat as Triton 3.6 prints it: `: tensor<1xT>` and no result type (it is T). tilesim used to want and print
// `-> T`, so it could not read Triton's 1-D tl.split and Triton could not read tilesim's (docs/findings.md, F4).
TEST(Syntax, UnsplatAsTritonPrintsIt) {
  auto module = parseOrFail(R"TTIR(module {
  tt.func public @k(%x: tensor<1x2xi32>, %old: tensor<1xf32>) {
    %outLHS, %outRHS = tt.split %x : tensor<1x2xi32> -> tensor<1xi32>
    %1 = tt.unsplat %outLHS : tensor<1xi32>
    %2 = tt.unsplat %old : tensor<1xf32> -> f32
    tt.return
  }
}
)TTIR");
  ASSERT_TRUE(module);
  const Operation* unsplat = firstOp(*module, OpKind::TTUnsplat);
  EXPECT_EQ(unsplat->result()->type.str(), "i32");
  std::string printed = expectRoundTrip(*module);
  EXPECT_NE(printed.find("%0 = tt.unsplat %outLHS : tensor<1xi32>\n"), std::string::npos) << printed;  // renumbered
  EXPECT_NE(printed.find("%1 = tt.unsplat %old : tensor<1xf32>\n"), std::string::npos) << printed;
}

TEST(Syntax, BuilderModuleGetsFreshNames) {
  // A module built by code: no names, no locations. The printer numbers values like MLIR.
  Module module;
  auto func = std::make_unique<Operation>(OpKind::TTFunc);
  func->setAttr("sym_name", Attribute::string("g"));
  func->setAttr("sym_visibility", Attribute::string("public"));
  func->setAttr("function_type", Attribute::typeAttr(Type::function(std::vector<Type>{Type::i32()}, {})));
  Block& body = func->addRegion().addBlock();
  Value* arg = body.addArgument(Type::i32());
  auto add = std::make_unique<Operation>(OpKind::ArithAddI);
  add->operands = {arg, arg};
  add->addResult(Type::i32(), "1");  // a name that looks like a number must not collide
  Operation* first = body.append(std::move(add));
  auto add2 = std::make_unique<Operation>(OpKind::ArithAddI);
  add2->operands = {first->result(), arg};
  add2->addResult(Type::i32());
  body.append(std::move(add2));
  body.append(std::make_unique<Operation>(OpKind::TTReturn));
  module.functions.push_back(std::move(func));
  std::string printed = printModule(module);
  EXPECT_NE(printed.find("%0 = arith.addi %1, %arg0 : i32"), std::string::npos) << printed;
  EXPECT_EQ(printValueName(*module.functions[0]->region(0).front().argument(0)), "%arg0");
  ParseResult again = parseModule(printed, "builder.ttir");
  ASSERT_TRUE(again.module) << again.diagnostics[0].str();
}

}  // namespace
}  // namespace tilesim

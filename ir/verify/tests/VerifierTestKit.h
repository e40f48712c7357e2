// What the verifier's negative tests (VerifierTest.cpp, VerifierRegionsTest.cpp) share: the vector-add kernel
// built in code, expectOne / expectClean, and VectorAddDefect, one row of the tables of "append this to the
// vector-add kernel, expect exactly this one diagnostic" cases that each section of those files lists.
#pragma once

#include <gtest/gtest.h>

#include "ir/verify/Verifier.h"
#include "ir/verify/tests/KernelBuilder.h"

namespace tilesim::verifier_test {

using testing::intAttr;
using testing::KernelBuilder;
using testing::keyAttr;

inline const Type kF32 = Type::f32();
inline const Type kI32 = Type::i32();
inline const Type kI1 = Type::i1();
inline Type tensor(std::initializer_list<int64_t> shape, Type element) { return Type::tensor(shape, element); }
inline Type ptr(Type pointee) { return Type::pointer(pointee); }

// Exactly one diagnostic, at `line`, containing `text`.
inline void expectOne(const Module& module, int line, const std::string& text) {
  Diagnostics diagnostics = verifyModule(module);
  ASSERT_EQ(diagnostics.size(), 1u) << (diagnostics.empty() ? std::string("none") : diagnostics[0].str() + " ... " + diagnostics.back().str());
  EXPECT_EQ(diagnostics[0].pos.line, line) << diagnostics[0].str();
  EXPECT_NE(diagnostics[0].message.find(text), std::string::npos) << diagnostics[0].str();
}

inline void expectClean(const Module& module) {
  Diagnostics diagnostics = verifyModule(module);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics[0].str();
}

// The vector-add kernel (Triton's tutorial 01), built in code. Lines: func 1, then one per op.
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

// A defect appended to the vector-add kernel (line 8 onwards, before its store): exactly one diagnostic, at
// `line`, naming the op and the problem (`message`). Each section of the test files lists its cases in a table.
struct VectorAddDefect {
  const char* name;
  int line;
  const char* message;
  void (*append)(VectorAdd& k);
};

class VerifierDefect : public ::testing::TestWithParam<VectorAddDefect> {};

inline std::string defectName(const ::testing::TestParamInfo<VectorAddDefect>& info) { return info.param.name; }

}  // namespace tilesim::verifier_test

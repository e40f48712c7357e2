// UseLists and Rewriter: uses are found in nested regions, replaceAllUsesWith moves every use, erase refuses
// while results are used, inserted ops are tracked.
#include <gtest/gtest.h>

#include "ir/analysis/Rewriter.h"
#include "ir/analysis/UseLists.h"
#include "ir/analysis/tests/AnalysisTestSupport.h"
#include "ir/text/Printer.h"

namespace tilesim::analysis {
namespace {

using analysistest::definingOp;
using analysistest::findValue;
using analysistest::parseVerified;

constexpr const char* kKernel = R"(module {
  tt.func public @k(%x: i32, %y: i32) {
    %a = arith.addi %x, %y : i32
    %b = arith.muli %a, %a : i32
    %c = arith.cmpi slt, %a, %b : i32
    %r = scf.if %c -> (i32) {
      %d = arith.subi %a, %x : i32
      scf.yield %d : i32
    } else {
      scf.yield %b : i32
    }
    %unused = arith.addi %r, %r : i32
    tt.return
  }
}
)";

TEST(UseLists, FindsEveryOperandSlotIncludingNestedRegions) {
  auto module = parseVerified(kKernel);
  Function kernel = *module->kernel();
  UseLists uses(*kernel.op());
  Value* a = findValue(*module, "a");
  ASSERT_EQ(uses.numUses(a), 4u);  // muli twice, cmpi, subi inside the then region
  EXPECT_EQ(uses.uses(a)[0].user, definingOp(*module, "b"));
  EXPECT_EQ(uses.uses(a)[1].operandIndex, 1u);
  EXPECT_EQ(uses.uses(a)[3].user, definingOp(*module, "d"));
  EXPECT_EQ(uses.numUses(findValue(*module, "b")), 2u);  // cmpi and the else yield
  EXPECT_FALSE(uses.hasUses(findValue(*module, "unused")));
}

// The kernel parsed, its use lists and a rewriter over them; after each test the module must still verify.
class RewriterOnKernel : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_TRUE(verifyModule(*module).empty()); }
  std::unique_ptr<Module> module = parseVerified(kKernel);
  UseLists uses{*module->kernel()->op()};
  Rewriter rewriter{uses};
};

TEST_F(RewriterOnKernel, ReplaceAllUsesMovesEveryUse) {
  Value *a = findValue(*module, "a"), *x = findValue(*module, "x");
  EXPECT_EQ(rewriter.replaceAllUsesWith(a, x), 4u);
  EXPECT_FALSE(uses.hasUses(a));
  EXPECT_EQ(uses.numUses(x), 6u);  // its own two uses and the four moved
  EXPECT_EQ(definingOp(*module, "d")->operand(0), x);
}

TEST_F(RewriterOnKernel, EraseRefusesWhileUsedAndSucceedsAfterwards) {
  Operation* add = definingOp(*module, "a");
  EXPECT_FALSE(rewriter.eraseOp(*add));
  EXPECT_EQ(add->parentBlock->operations.size(), 6u);  // nothing changed
  Operation* ifOp = definingOp(*module, "r");
  EXPECT_FALSE(rewriter.eraseOp(*ifOp));  // %r is used by %unused
  ASSERT_TRUE(rewriter.eraseOp(*definingOp(*module, "unused")));
  size_t usesOfA = uses.numUses(findValue(*module, "a"));
  ASSERT_TRUE(rewriter.eraseOp(*ifOp));  // its nested subi used %a: that use goes too
  EXPECT_EQ(uses.numUses(findValue(*module, "a")), usesOfA - 1);
}

TEST_F(RewriterOnKernel, InsertedOpsAreTrackedAndPrinted) {
  Value* x = findValue(*module, "x");
  auto twice = std::make_unique<Operation>(OpKind::ArithAddI);
  twice->operands = {x, x};
  twice->addResult(Type::i32(), "twice");
  Operation* add = definingOp(*module, "a");
  Operation* inserted = rewriter.insertBefore(*add, std::move(twice));
  EXPECT_EQ(add->parentBlock->operations.front().get(), inserted);
  EXPECT_EQ(uses.numUses(x), 4u);  // addi %x, %y; subi; and the two new operands
  rewriter.setOperand(*add, 0, inserted->result());
  EXPECT_EQ(uses.numUses(x), 3u);
  EXPECT_EQ(uses.numUses(inserted->result()), 1u);
  std::string text = printModule(*module);
  EXPECT_NE(text.find("%twice = arith.addi %x, %x : i32"), std::string::npos) << text;
  EXPECT_NE(text.find("%a = arith.addi %twice, %y : i32"), std::string::npos) << text;
}

}  // namespace
}  // namespace tilesim::analysis

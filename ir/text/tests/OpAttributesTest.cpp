// Enumerated attributes (ir/OpAttributes.h): both spellings parse to one canonical Keyword, the printer writes
// Triton's keyword syntax, and the typed views read the enum.
#include <gtest/gtest.h>

#include "ir/OpAttributes.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"

namespace tilesim {
namespace {

TEST(OpAttributes, IntegerAndKeywordPredicatesAreOneCanonicalKeyword) {
  ParseResult parsed = parseModule(R"(module {
  tt.func public @k(%a: i32, %b: i32, %x: f32, %y: f32) {
    %0 = "arith.cmpi"(%a, %b) <{predicate = 2 : i64}> : (i32, i32) -> i1
    %1 = "arith.cmpf"(%x, %y) <{predicate = 13 : i64}> : (f32, f32) -> i1
    %2 = arith.cmpi uge, %a, %b : i32
    tt.return
  }
}
)", "generic.ttir");
  ASSERT_TRUE(parsed.diagnostics.empty()) << parsed.diagnostics[0].str();
  const Block& body = parsed.module->functions[0]->region(0).front();
  const Attribute* predicate = body.operations[0]->attr("predicate");
  ASSERT_NE(predicate, nullptr);
  EXPECT_EQ(predicate->kind(), Attribute::Kind::Keyword);
  EXPECT_EQ(CmpIView{*body.operations[0]}.predicate(), IntPredicate::Slt);
  EXPECT_EQ(CmpFView{*body.operations[1]}.predicate(), FloatPredicate::Une);
  EXPECT_EQ(CmpIView{*body.operations[2]}.predicate(), IntPredicate::Uge);
  std::string text = printModule(*parsed.module);
  EXPECT_NE(text.find("arith.cmpi slt, %a, %b : i32"), std::string::npos) << text;
  EXPECT_NE(text.find("arith.cmpf une, %x, %y : f32"), std::string::npos) << text;
}

TEST(OpAttributes, KeywordTablesRoundTrip) {
  EXPECT_EQ(keywordName(IntPredicate::Sge), "sge");
  EXPECT_EQ(parseKeyword<FloatPredicate>("ord"), FloatPredicate::Ord);
  EXPECT_EQ(parseKeyword<AtomicRmwKind>("exch"), AtomicRmwKind::Exch);
  EXPECT_EQ(parseKeyword<InputPrecision>("bf16x6"), InputPrecision::BF16x6);
  EXPECT_EQ(parseKeyword<EvictionPolicy>("evict_last"), EvictionPolicy::Last);
  EXPECT_FALSE(parseKeyword<MemoryScope>("device").has_value());
  EXPECT_EQ(keywordList<RoundingMode>(), "rtz rtne");
  Attribute rounding = Attribute::integer(0, Type::i32());
  EXPECT_EQ(roundingModeFrom(&rounding), RoundingMode::Rtz);
  Attribute nan = Attribute::integer(0xFFFF, Type::i32());
  EXPECT_EQ(propagateNanFrom(&nan), PropagateNan::All);
  Attribute outOfRange = Attribute::integer(10, Type::i64());
  EXPECT_FALSE(intPredicateFrom(&outOfRange).has_value());
}

}  // namespace
}  // namespace tilesim

// Malformed TTIR: each input gives exactly one diagnostic, at the line:column of the offending token, and
// never a crash or a hang. Also: deep nesting is capped, and every prefix of a real kernel fails cleanly.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/text/Parser.h"
#include "ir/text/tests/ReadFile.h"

namespace tilesim {
namespace {

struct BadInput {
  const char* name;
  std::string text;
  int line;
  int column;
  const char* messagePart;
};

const std::string kHead = "module {\n  tt.func public @f(%a: i32, %p: !tt.ptr<f32>) {\n";
const std::string kTail = "    tt.return\n  }\n}\n";

std::vector<BadInput> badInputs() {
  return {
      {"unknown op", kHead + "    %x = arith.frobnicate %a, %a : i32\n" + kTail, 3, 10, "unknown op 'arith.frobnicate'"},
      {"undefined value", kHead + "    %x = arith.addi %a, %foo : i32\n" + kTail, 3, 25, "use of undefined value %foo"},
      {"type mismatch", kHead + "    %x = arith.addf %a, %a : f32\n" + kTail, 3, 21, "expects type f32 but it has type i32"},
      {"unknown type", kHead + "    %x = arith.addi %a, %a : i37\n" + kTail, 3, 30, "unknown type 'i37'"},
      {"duplicate definition", kHead + "    %x = arith.addi %a, %a : i32\n    %x = arith.addi %a, %a : i32\n" + kTail, 4, 5,
       "redefinition of value %x"},
      {"unterminated string", kHead + "    tt.assert %a, \"oops : i32\n" + kTail, 3, 19, "unterminated string"},
      {"garbage byte", kHead + "    %x = arith.addi %a, %a : i32 \x01\n" + kTail, 3, 34, "unexpected byte 0x01"},
      {"missing closing brace", "module {\n  tt.func public @f(%a: i32) {\n    tt.return\n", 4, 1, "expected '}'"},
      {"wrong operand count", kHead + "    %x = \"arith.addi\"(%a) : (i32) -> i32\n" + kTail, 3, 10, "takes 2 operands, got 1"},
      {"too many result names", kHead + "    %x, %y = arith.addi %a, %a : i32\n" + kTail, 3, 5, "produces 1 result(s) but 2"},
      {"bad attribute", kHead + "    %r = tt.make_range {end = , start = 0 : i32} : tensor<4xi32>\n" + kTail, 3, 31,
       "expected an attribute value"},
      {"integer out of range", kHead + "    %c = arith.constant 300 : i8\n" + kTail, 3, 25, "does not fit i8"},
      {"dense count mismatch", kHead + "    %c = arith.constant dense<[1, 2, 3]> : tensor<4xi32>\n" + kTail, 3, 44,
       "has 3 elements but tensor<4xi32> has 4"},
      {"undefined loc alias", kHead + "    %x = arith.addi %a, %a : i32 loc(#loc9)\n" + kTail, 3, 38, "undefined location alias #loc9"},
      {"duplicate loc alias", "#loc = loc(unknown)\n#loc = loc(unknown)\nmodule {\n}\n", 2, 1, "redefinition of location alias #loc"},
      {"result group out of range", kHead + "    %x:2 = tt.split %a : i32 -> i32\n    %y = arith.addi %x#2, %a : i32\n" + kTail, 4,
       21, "result #2 of %x does not exist"},
      {"tensor of tensor", kHead + "    %x = ub.poison : tensor<4xtensor<4xi32>>\n" + kTail, 3, 31, "element type must be a scalar or a pointer"},
      {"load of non-pointer", kHead + "    %x = tt.load %a : i32\n" + kTail, 3, 23, "needs a pointer"},
      {"truncated file", "module {\n  tt.func public @f(%a: i32", 2, 28, "expected ')'"},
      // TTGIR layouts are read (docs/ttgir.md); one that no `#blocked = ...` line defined is an error at the alias.
      {"undefined encoding alias", kHead + "    %x = ub.poison : tensor<4xi32, #blocked>\n" + kTail, 3, 36,
       "undefined encoding alias #blocked"},
      {"generic op on a custom-only mnemonic", kHead + "    %x = tt.reduce %a : i32\n" + kTail, 3, 10,
       "must be written in generic form"},
      {"missing type", kHead + "    %x = arith.addi %a, %a\n" + kTail, 4, 5, "expected ':'"},
      {"value used in sibling region", kHead +
       "    %c = arith.cmpi eq, %a, %a : i32\n    scf.if %c {\n      %y = arith.addi %a, %a : i32\n    } else {\n"
       "      %z = arith.addi %y, %a : i32\n    }\n" + kTail, 7, 23, "use of undefined value %y"},
  };
}

TEST(ParseErrors, EachGivesOneDiagnosticAtTheToken) {
  int checked = 0;
  for (const BadInput& bad : badInputs()) {
    ParseResult result = parseModule(bad.text, "bad.ttir");
    EXPECT_FALSE(result.module) << bad.name;
    ASSERT_EQ(result.diagnostics.size(), 1u) << bad.name;
    const Diagnostic& d = result.diagnostics[0];
    EXPECT_EQ(d.pos.file, "bad.ttir") << bad.name;
    EXPECT_EQ(d.pos.line, bad.line) << bad.name << ": " << d.str();
    EXPECT_EQ(d.pos.column, bad.column) << bad.name << ": " << d.str();
    EXPECT_NE(d.message.find(bad.messagePart), std::string::npos) << bad.name << ": " << d.str();
    EXPECT_EQ(d.message.find('\n'), std::string::npos) << bad.name;
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

TEST(ParseErrors, DeepNestingIsCappedNotACrash) {
  std::string text = kHead + "    %c = arith.cmpi eq, %a, %a : i32\n";
  for (int i = 0; i < 5000; ++i) text += "scf.if %c {\n";
  ParseResult result = parseModule(text, "deep.ttir");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_NE(result.diagnostics[0].message.find("nesting deeper"), std::string::npos) << result.diagnostics[0].str();

  std::string types = kHead + "    %x = ub.poison : " + std::string(5000, '<') + "f32\n";
  result = parseModule(types, "deep-type.ttir");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_NE(result.diagnostics[0].message.find("nesting deeper"), std::string::npos) << result.diagnostics[0].str();
}

TEST(ParseErrors, EveryPrefixOfARealKernelFailsCleanly) {
  std::string text =
      readFile(std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance" / "golden" / "scalar_control_i32" / "kernel.ttir");
  ASSERT_FALSE(text.empty());
  ASSERT_TRUE(parseModule(text, "full").module);
  int failures = 0;
  for (size_t cut = 0; cut < text.size(); cut += 7) {
    std::string prefix = text.substr(0, cut);
    // A cut right after the module's `}` (before the trailing aliases) can still be a valid module.
    ParseResult result = parseModule(prefix, "prefix");
    if (!result.module) {
      EXPECT_EQ(result.diagnostics.size(), 1u);
      ++failures;
    }
  }
  EXPECT_GT(failures, 0);
}

TEST(ParseErrors, MissingFileIsADiagnostic) {
  ParseResult result = parseModuleFile("/nonexistent/kernel.ttir");
  EXPECT_FALSE(result.module);
  ASSERT_EQ(result.diagnostics.size(), 1u);
}

}  // namespace
}  // namespace tilesim

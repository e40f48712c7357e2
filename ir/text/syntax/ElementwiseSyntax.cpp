// Custom syntax of the elementwise ops that are not table-driven: tt.clampf (FloatArith), tt.fp_to_fp (Cast),
// tt.extern_elementwise and tt.elementwise_inline_asm (External). Each spells one attribute in the text.
#include "ir/text/Lexer.h"
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

// tt.clampf %x, %lo, %hi, propagateNan = none : T
std::vector<Type> ClampFSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  parser.expect(TokenKind::Comma, "before 'propagateNan'");
  parser.expectKeyword("propagateNan", "after the clamp operands");
  parser.expect(TokenKind::Equal, "after 'propagateNan'");
  parseKeywordAttribute(parser, op, "propagateNan", "none or all");
  Type type = typeAfterColon(parser, op);
  parser.resolveAllSame(op, refs, type);
  return {type};
}

void ClampFSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.out += ", propagateNan = " + attributeText(op, "propagateNan");
  printer.printAttributeDict(op.attributes, {"propagateNan"});
  printer.out += " : " + firstResultType(op).str();
}

// tt.fp_to_fp %x {attrs}, rounding = rtne : T -> U (the rounding clause only on narrowing conversions)
std::vector<Type> FpToFpSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef source = parser.parseOperandRef();
  parser.parseOptionalAttributeDict(op.attributes);
  if (parser.consumeIf(TokenKind::Comma)) {
    parser.expectKeyword("rounding", "after ','");
    parser.expect(TokenKind::Equal, "after 'rounding'");
    parseKeywordAttribute(parser, op, "rounding", "a rounding mode (rtz, rtne)");
  }
  return finishConversion(parser, op, source, "between the conversion types");
}

void FpToFpSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes, {"rounding"});
  if (op.hasAttr("rounding")) printer.out += ", rounding = " + attributeText(op, "rounding");
  printer.out += " : " + operandTypeText(op, 0) + " -> " + firstResultType(op).str();
}

// tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (T, T) -> T
std::vector<Type> ExternElementwiseSyntax::parse(ParserImpl& parser, Operation& op) {
  return parseOperandsOfFunctionType(parser, op);
}

void ExternElementwiseSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + functionTypeOf(op.operands, op);
}

// tt.elementwise_inline_asm "asm" {constraints = "..", packed_element = 1 : i32, pure = true} %a, %b : T, U -> V, W
std::vector<Type> InlineAsmSyntax::parse(ParserImpl& parser, Operation& op) {
  op.setAttr("asm_string", Attribute::string(parser.parseStringLiteral()));
  parser.parseOptionalAttributeDict(op.attributes);
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  if (!refs.empty()) {
    parser.expect(TokenKind::Colon, "before the argument types");
    parser.resolveInto(op, refs, parser.parseTypeList());
  }
  parser.expect(TokenKind::Arrow, "before the result types");
  return parser.parseTypeList();
}

void InlineAsmSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " " + quoteString(attributeText(op, "asm_string"));
  printer.printAttributeDict(op.attributes, {"asm_string"});
  printOperandsAndTypes(printer, op, 0);
  printer.out += " -> " + resultTypesText(op);
}

}  // namespace tilesim::text::syntax

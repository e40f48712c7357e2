// Custom syntax of the Debug family: tt.print, tt.assert, llvm.intr.assume and gpu.barrier.
#include "ir/text/Lexer.h"
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

// tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %a, %b : T, U (no operands: nothing after the dictionary)
std::vector<Type> PrintSyntax::parse(ParserImpl& parser, Operation& op) {
  op.setAttr("prefix", Attribute::string(parser.parseStringLiteral()));
  parser.parseOptionalAttributeDict(op.attributes);
  if (parser.consumeIf(TokenKind::Colon)) {
    std::vector<OperandRef> refs = parser.parseOperandRefList();
    parser.expect(TokenKind::Colon, "before the printed types");
    parser.resolveInto(op, refs, parser.parseTypeList());
  }
  return {};
}

void PrintSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " " + quoteString(attributeText(op, "prefix"));
  printer.printAttributeDict(op.attributes, {"prefix"});
  if (op.operands.empty()) return;
  printer.out += " :";
  printOperandsAndTypes(printer, op, 0);
}

// tt.assert %cond, "message" : T
std::vector<Type> AssertSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef condition = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the assert message");
  op.setAttr("message", Attribute::string(parser.parseStringLiteral()));
  Type type = typeAfterColon(parser, op);
  op.operands.push_back(parser.resolve(condition, type));
  return {};
}

void AssertSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.out += ", " + quoteString(attributeText(op, "message"));
  printer.printAttributeDict(op.attributes, {"message"});
  printer.out += " : " + operandTypeText(op, 0);
}

// llvm.intr.assume %cond : i1 (Triton emits no operand bundles)
std::vector<Type> AssumeSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef condition = parser.parseOperandRef();
  parser.parseOptionalAttributeDict(op.attributes);
  op.operands.push_back(parser.resolve(condition, typeAfterColon(parser, op)));
  return {};
}

void AssumeSyntax::print(PrinterImpl& printer, const Operation& op, int) { printOperandsThenFirstType(printer, op); }

// gpu.barrier {attrs}
std::vector<Type> BarrierSyntax::parse(ParserImpl& parser, Operation& op) {
  parser.parseOptionalAttributeDict(op.attributes);
  return {};
}

void BarrierSyntax::print(PrinterImpl& printer, const Operation& op, int) { printer.printAttributeDict(op.attributes); }

}  // namespace tilesim::text::syntax

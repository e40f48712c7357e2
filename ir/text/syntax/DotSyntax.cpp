// Custom syntax of the Dot family: tt.dot with its optional `inputPrecision = ..` and `maxNumImpreciseAcc = ..`
// clauses, and the operand types written `A * B -> C`.
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

// tt.dot %a, %b, %c, inputPrecision = tf32, maxNumImpreciseAcc = 0 : tensor<..> * tensor<..> -> tensor<..>
std::vector<Type> DotSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  while (parser.consumeIf(TokenKind::Comma)) {
    if (parser.consumeKeywordIf("inputPrecision")) {
      parser.expect(TokenKind::Equal, "after 'inputPrecision'");
      parseKeywordAttribute(parser, op, "inputPrecision", "an input precision (tf32, ieee, ...)");
    } else if (parser.consumeKeywordIf("maxNumImpreciseAcc")) {
      parser.expect(TokenKind::Equal, "after 'maxNumImpreciseAcc'");
      Attribute value = parser.parseAttribute();
      if (value.kind() != Attribute::Kind::Integer) parser.fail("maxNumImpreciseAcc must be an integer");
      op.setAttr("maxNumImpreciseAcc", Attribute::integer(value.intValue(), Type::i32()));
    } else {
      parser.fail("expected 'inputPrecision' or 'maxNumImpreciseAcc'");
    }
  }
  Type a = typeAfterColon(parser, op);
  parser.expect(TokenKind::Star, "between the dot operand types");
  Type b = parser.parseType();
  parser.expect(TokenKind::Arrow, "before the dot result type");
  Type d = parser.parseType();
  parser.resolveInto(op, refs, std::vector<Type>{a, b, d});
  return {d};
}

// maxNumImpreciseAcc stays in the attribute dictionary, as Triton prints it.
void DotSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  if (op.hasAttr("inputPrecision")) printer.out += ", inputPrecision = " + attributeText(op, "inputPrecision");
  printer.printAttributeDict(op.attributes, {"inputPrecision"});
  printer.out += " : " + operandTypeText(op, 0) + " * " + operandTypeText(op, 1) + " -> " + firstResultType(op).str();
}

}  // namespace tilesim::text::syntax

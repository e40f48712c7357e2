// Custom syntax of the Shape family's ops that are not table-driven: tt.unsplat, tt.reshape and tt.gather.
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

// tt.unsplat %a : tensor<1xT>, as Triton 3.6 prints it (the result is T); `-> T` is read too
std::vector<Type> UnsplatSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef ref = parser.parseOperandRef();
  parser.parseOptionalAttributeDict(op.attributes);
  Type from = typeAfterColon(parser, op);
  Type to = from.isTensor() ? from.element() : from;
  if (parser.consumeIf(TokenKind::Arrow)) to = parser.parseType();
  op.operands.push_back(parser.resolve(ref, from));
  return {to};
}

void UnsplatSyntax::print(PrinterImpl& printer, const Operation& op, int) { printOperandsThenFirstType(printer, op); }

// tt.reshape %a allow_reorder efficient_layout : T -> U (both words optional, Unit attributes)
std::vector<Type> ReshapeSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef ref = parser.parseOperandRef();
  if (parser.consumeKeywordIf("allow_reorder")) op.setAttr("allow_reorder", Attribute::unit());
  if (parser.consumeKeywordIf("efficient_layout")) op.setAttr("efficient_layout", Attribute::unit());
  return finishConversion(parser, op, ref, "between the reshape types");
}

void ReshapeSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  if (op.hasAttr("allow_reorder")) printer.out += " allow_reorder";
  if (op.hasAttr("efficient_layout")) printer.out += " efficient_layout";
  printer.printAttributeDict(op.attributes, {"allow_reorder", "efficient_layout"});
  printer.out += " : " + operandTypeText(op, 0) + " -> " + firstResultType(op).str();
}

// tt.gather %src[%indices] {axis = 0 : i32} : (T, I) -> U
std::vector<Type> GatherSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef source = parser.parseOperandRef();
  parser.expect(TokenKind::LSquare, "before the gather indices");
  OperandRef indices = parser.parseOperandRef();
  parser.expect(TokenKind::RSquare, "after the gather indices");
  Type type = functionTypeAfterColon(parser, op);
  parser.resolveInto(op, {source, indices}, inputsOf(type));
  return resultsOf(type);
}

void GatherSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printIndexedOperand(printer, op, 2);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + functionTypeOf(op.operands, op);
}

}  // namespace tilesim::text::syntax

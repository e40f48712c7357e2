// Custom syntax of the Constant and Program families (tt.make_range, ub.poison, tt.get_program_id,
// tt.get_num_programs): values that read no operand, so the text is attributes and a result type.
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

// tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
std::vector<Type> MakeRangeSyntax::parse(ParserImpl& parser, Operation& op) { return {typeAfterColon(parser, op)}; }

void MakeRangeSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + firstResultType(op).str();
}

// ub.poison : T (MLIR's `ub.poison <value> : T` form is refused)
std::vector<Type> PoisonSyntax::parse(ParserImpl& parser, Operation& op) {
  parser.parseOptionalAttributeDict(op.attributes);
  if (parser.at(TokenKind::Less)) parser.fail("ub.poison with a value is not supported");
  parser.expect(TokenKind::Colon, "before the type");
  return {parser.parseType()};
}

void PoisonSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + firstResultType(op).str();
}

// tt.get_program_id x : i32 (the axis word is the Keyword attribute `axis`)
std::vector<Type> ProgramAxisSyntax::parse(ParserImpl& parser, Operation& op) {
  parseKeywordAttribute(parser, op, "axis", "an axis (x, y or z)");
  return {typeAfterColon(parser, op)};
}

void ProgramAxisSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " " + attributeText(op, "axis");
  printer.printAttributeDict(op.attributes, {"axis"});
  printer.out += " : " + firstResultType(op).str();
}

}  // namespace tilesim::text::syntax

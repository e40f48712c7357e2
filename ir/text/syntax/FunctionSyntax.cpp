// Custom syntax of the Function and Terminator families: tt.call, the value-yielding terminators (tt.return,
// tt.reduce.return, tt.scan.return, scf.yield), scf.condition and the branches cf.br / cf.cond_br. tt.func has a
// pair only to complete the table: functions are read and written at module level (Parser.cpp, Printer.cpp).
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

std::vector<Type> FuncSyntax::parse(ParserImpl& parser, Operation&) { parser.fail("tt.func is only allowed at module level"); }

void FuncSyntax::print(PrinterImpl&, const Operation&, int) {}  // printFunction writes it

// tt.call @callee(%a, %b) : (T, U) -> V (a symbol that is no bare identifier is quoted: @"name")
std::vector<Type> CallSyntax::parse(ParserImpl& parser, Operation& op) {
  op.setAttr("callee", Attribute::symbolRef(parser.parseSymbolName()));
  parser.expect(TokenKind::LParen, "to open the call arguments");
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  parser.expect(TokenKind::RParen, "to close the call arguments");
  Type type = functionTypeAfterColon(parser, op);
  parser.resolveInto(op, refs, inputsOf(type));
  return resultsOf(type);
}

void CallSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printSymbol(printer.out, attributeText(op, "callee"));
  printer.out += "(";
  printer.printUses(op.operands);
  printer.out += ")";
  printer.printAttributeDict(op.attributes, {"callee"});
  printer.out += " : " + functionTypeOf(op.operands, op);
}

// scf.yield {attrs} %a, %b : T, U (or bare `scf.yield`; tt.return and the combine regions' returns alike)
std::vector<Type> YieldSyntax::parse(ParserImpl& parser, Operation& op) {
  parser.parseOptionalAttributeDict(op.attributes);
  parseOperandsThenTypes(parser, op);
  return {};
}

void YieldSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.printAttributeDict(op.attributes);
  printOperandsAndTypes(printer, op, 0);
}

// scf.condition(%cond) %a, %b : T, U (the values forwarded to the after region)
std::vector<Type> ConditionSyntax::parse(ParserImpl& parser, Operation& op) {
  parser.expect(TokenKind::LParen, "before the condition");
  OperandRef condition = parser.parseOperandRef();
  parser.expect(TokenKind::RParen, "after the condition");
  op.operands.push_back(parser.resolve(condition));
  parser.parseOptionalAttributeDict(op.attributes);
  parseOperandsThenTypes(parser, op);
  return {};
}

void ConditionSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += "(";
  printer.printUses(op.operands, 0, 1);
  printer.out += ")";
  printer.printAttributeDict(op.attributes);
  printOperandsAndTypes(printer, op, 1);
}

// cf.br ^bb1(%a : T)
std::vector<Type> BranchSyntax::parse(ParserImpl& parser, Operation& op) {
  parser.parseSuccessor(op);
  parser.parseOptionalAttributeDict(op.attributes);
  return {};
}

void BranchSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.printSuccessor(op, 0);
  printer.printAttributeDict(op.attributes);
}

// cf.cond_br %cond, ^bb1(%a : T), ^bb2
std::vector<Type> CondBranchSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef condition = parser.parseOperandRef();
  op.operands.push_back(parser.resolve(condition, Type::i1()));
  parser.expect(TokenKind::Comma, "after the branch condition");
  parser.parseSuccessor(op);
  parser.expect(TokenKind::Comma, "between the two successors");
  parser.parseSuccessor(op);
  parser.parseOptionalAttributeDict(op.attributes);
  return {};
}

void CondBranchSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands, 0, 1);
  printer.out += ",";
  printer.printSuccessor(op, 0);
  printer.out += ",";
  printer.printSuccessor(op, 1);
  printer.printAttributeDict(op.attributes);
}

}  // namespace tilesim::text::syntax

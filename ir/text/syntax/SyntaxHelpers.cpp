// The shared pieces of the custom-syntax pairs (ir/text/syntax/SyntaxHelpers.h).
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

Type typeAfterColon(ParserImpl& parser, Operation& op) {
  parser.parseOptionalAttributeDict(op.attributes);
  parser.expect(TokenKind::Colon, "before the type");
  return parser.parseType();
}

Type functionTypeAfterColon(ParserImpl& parser, Operation& op) {
  parser.parseOptionalAttributeDict(op.attributes);
  parser.expect(TokenKind::Colon, "before the function type");
  return parser.parseFunctionType();
}

std::vector<Type> finishConversion(ParserImpl& parser, Operation& op, const OperandRef& source, const char* betweenTypes) {
  Type from = typeAfterColon(parser, op);
  parser.expect(TokenKind::Arrow, betweenTypes);
  Type to = parser.parseType();
  op.operands.push_back(parser.resolve(source, from));
  return {to};
}

std::vector<Type> parseOperandsOfFunctionType(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  Type type = functionTypeAfterColon(parser, op);
  parser.resolveInto(op, refs, inputsOf(type));
  return resultsOf(type);
}

OperandsFunctionType resolveOperandsByFunctionType(ParserImpl& parser, Operation& op,
                                                   const std::vector<OperandRef>& operands, const char* colonContext,
                                                   const char* opName, const char* what) {
  parser.expect(TokenKind::Colon, colonContext);
  OperandsFunctionType result;
  result.offset = parser.token().offset;
  result.type = parser.parseFunctionType();
  if (result.type.inputs().size() != operands.size())
    parser.failAt(result.offset, std::string(opName) + " has " + std::to_string(operands.size()) + " " + what +
                                     " but its type lists " + std::to_string(result.type.inputs().size()));
  parser.resolveInto(op, operands, inputsOf(result.type));
  return result;
}

void parseOptionalAttributesKeyword(ParserImpl& parser, Operation& op) {
  if (!parser.consumeKeywordIf("attributes")) return;
  if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' after 'attributes'");
  parser.parseAttributeDict(op.attributes);
}

std::pair<OperandRef, OperandRef> parseSourceAndDestination(ParserImpl& parser) {
  OperandRef source = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the destination");
  return {source, parser.parseOperandRef()};
}

void parseKeywordAttribute(ParserImpl& parser, Operation& op, const char* name, const char* what) {
  op.setAttr(name, Attribute::keyword(parser.parseKeywordWord(what)));
}

void parseMemoryOptions(ParserImpl& parser, Operation& op) {
  for (;;) {
    if (parser.consumeKeywordIf("cacheModifier")) {
      parser.expect(TokenKind::Equal, "after 'cacheModifier'");
      parseKeywordAttribute(parser, op, "cache", "a cache modifier");
    } else if (parser.consumeKeywordIf("evictionPolicy")) {
      parser.expect(TokenKind::Equal, "after 'evictionPolicy'");
      parseKeywordAttribute(parser, op, "evict", "an eviction policy");
    } else {
      return;
    }
  }
}

void parseOperandsThenTypes(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  parser.parseOptionalAttributeDict(op.attributes);
  if (refs.empty()) return;
  parser.expect(TokenKind::Colon, "before the operand types");
  parser.resolveInto(op, refs, parser.parseTypeList());
}

std::vector<Type> inputsOf(Type function) { return std::vector<Type>(function.inputs().begin(), function.inputs().end()); }

std::vector<Type> resultsOf(Type function) {
  return std::vector<Type>(function.results().begin(), function.results().end());
}

std::string attributeText(const Operation& op, std::string_view name) {
  const Attribute* attribute = op.attr(name);
  return attribute ? attribute->text() : "";
}

std::string functionTypeOf(const std::vector<Value*>& inputs, const Operation& op) {
  std::vector<Type> in, out;
  for (const Value* v : inputs) in.push_back(v->type);
  for (const auto& r : op.results) out.push_back(r->type);
  return Type::function(in, out).str();
}

Type firstResultType(const Operation& op) { return op.results.empty() ? Type() : op.results[0]->type; }

std::string operandTypeText(const Operation& op, size_t index) {
  return index < op.operands.size() ? op.operands[index]->type.str() : std::string("?");
}

std::string resultTypesText(const Operation& op) {
  std::string text;
  for (size_t i = 0; i < op.results.size(); ++i) text += (i ? ", " : "") + op.results[i]->type.str();
  return text;
}

void printOperandsAndTypes(PrinterImpl& printer, const Operation& op, size_t begin) {
  if (begin >= op.operands.size()) return;
  printer.out += " ";
  printer.printUses(op.operands, begin);
  printer.out += " : ";
  printer.printTypes(op.operands, begin);
}

void printOperandsThenFirstType(PrinterImpl& printer, const Operation& op) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + operandTypeText(op, 0);
}

void printIndexedOperand(PrinterImpl& printer, const Operation& op, size_t indicesEnd) {
  printer.out += " ";
  printer.printUses(op.operands, 0, 1);
  printer.out += "[";
  printer.printUses(op.operands, 1, indicesEnd);
  printer.out += "]";
}

void printOptionalOperand(PrinterImpl& printer, const Operation& op, size_t index, std::string_view before) {
  if (op.operands.size() <= index) return;
  printer.out += before;
  printer.printUses(op.operands, index, index + 1);
}

void printMemoryOptions(PrinterImpl& printer, const Operation& op) {
  if (op.hasAttr("cache")) printer.out += " cacheModifier = " + attributeText(op, "cache");
  if (op.hasAttr("evict")) printer.out += " evictionPolicy = " + attributeText(op, "evict");
}

}  // namespace tilesim::text::syntax

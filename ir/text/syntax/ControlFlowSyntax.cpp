// Custom syntax of the ControlFlow family: scf.for, scf.if and scf.while. Their regions' entry arguments are
// named in the op's own text (`%iv = ..`, `iter_args(%a = ..)`, `(%a = ..)`), so the parse half collects them as
// PendingArguments before the region opens, and the print half writes the region without its entry block header.
// An scf.yield with nothing to yield is left implicit in for and if bodies, as MLIR does.
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

namespace {

const std::vector<PendingArgument> kNoArguments;

// `%name = %init, ...` up to the closing parenthesis (already past the opening one): the block argument names
// and the initial values. `afterName` is the error's context when a name has no `=`.
void parseArgumentInits(ParserImpl& parser, std::vector<PendingArgument>& arguments, std::vector<OperandRef>& inits,
                        const char* afterName) {
  do {
    OperandRef name = parser.parseOperandRef();
    arguments.push_back(PendingArgument{name.name, name.offset, Type(), kNoLoc});
    parser.expect(TokenKind::Equal, afterName);
    inits.push_back(parser.parseOperandRef());
  } while (parser.consumeIf(TokenKind::Comma));
}

// `%a = %x, %b = %y`: entry block argument `firstArgument + i` named against operand `firstOperand + i`.
void printArgumentInits(PrinterImpl& printer, const Operation& op, const Block* block, size_t firstOperand,
                        size_t firstArgument) {
  for (size_t i = firstOperand; i < op.operands.size(); ++i) {
    if (i > firstOperand) printer.out += ", ";
    const size_t argument = i - firstOperand + firstArgument;
    printer.out += (block && argument < block->arguments.size() ? printer.use(block->argument(argument))
                                                                : std::string("%<<arg>>")) +
                   " = " + printer.use(op.operands[i]);
  }
}

const Block* entryBlock(const Operation& op) {
  return op.regions.empty() || op.regions[0]->empty() ? nullptr : &op.regions[0]->front();
}

}  // namespace

// scf.for unsigned %iv = %lb to %ub step %step iter_args(%a = %init) -> (T) : i32 { body }
std::vector<Type> ForSyntax::parse(ParserImpl& parser, Operation& op) {
  if (parser.consumeKeywordIf("unsigned")) op.setAttr("unsignedCmp", Attribute::unit());
  OperandRef inductionName = parser.parseOperandRef();
  parser.expect(TokenKind::Equal, "after the induction variable");
  OperandRef lower = parser.parseOperandRef();
  parser.expectKeyword("to", "after the lower bound");
  OperandRef upper = parser.parseOperandRef();
  parser.expectKeyword("step", "after the upper bound");
  OperandRef step = parser.parseOperandRef();
  std::vector<PendingArgument> arguments;
  arguments.push_back(PendingArgument{inductionName.name, inductionName.offset, Type(), kNoLoc});
  std::vector<OperandRef> inits;
  std::vector<Type> types;
  if (parser.consumeKeywordIf("iter_args")) {
    parser.expect(TokenKind::LParen, "after 'iter_args'");
    parseArgumentInits(parser, arguments, inits, "after the iter_arg name");
    parser.expect(TokenKind::RParen, "to close iter_args");
    parser.expect(TokenKind::Arrow, "before the loop result types");
    size_t typeOffset = parser.token().offset;
    types = parser.parseResultTypeList();
    if (types.size() != inits.size())
      parser.failAt(typeOffset, "scf.for has " + std::to_string(inits.size()) + " iter_args but " +
                                    std::to_string(types.size()) + " result types");
  }
  Type inductionType;
  if (parser.consumeIf(TokenKind::Colon)) inductionType = parser.parseType();
  op.operands.push_back(parser.resolve(lower, inductionType));
  if (!inductionType.isValid()) inductionType = op.operands[0]->type;
  op.operands.push_back(parser.resolve(upper, inductionType));
  op.operands.push_back(parser.resolve(step, inductionType));
  parser.resolveInto(op, inits, types);
  arguments[0].type = inductionType;
  for (size_t i = 0; i < types.size(); ++i) arguments[i + 1].type = types[i];
  if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' to open the loop body");
  size_t closeOffset = parser.token().offset;
  Region& body = op.addRegion();
  parser.parseRegion(op, body, &arguments);
  parser.addImplicitYield(body, closeOffset);
  parser.parseOptionalAttributeDict(op.attributes);
  return types;
}

void ForSyntax::print(PrinterImpl& printer, const Operation& op, int indent) {
  const Block* body = entryBlock(op);
  printer.out += " ";
  if (op.hasAttr("unsignedCmp")) printer.out += "unsigned ";
  printer.out += (body && !body->arguments.empty() ? printer.use(body->argument(0)) : std::string("%<<iv>>")) + " = ";
  printer.printUses(op.operands, 0, 1);
  printer.out += " to ";
  printer.printUses(op.operands, 1, 2);
  printer.out += " step ";
  printer.printUses(op.operands, 2, 3);
  if (op.operands.size() > 3) {
    printer.out += " iter_args(";
    printArgumentInits(printer, op, body, 3, 1);
    printer.out += ") -> (" + resultTypesText(op) + ")";
  }
  printer.out += "  : " + operandTypeText(op, 0) + " ";
  if (!op.regions.empty()) printer.printRegion(*op.regions[0], indent, false, op.results.empty(), op.loc);
  printer.printAttributeDict(op.attributes, {"unsignedCmp"});
}

// scf.if %cond -> (T) { then } else { else } (the else region may be omitted; an empty one is not printed)
std::vector<Type> IfSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef condition = parser.parseOperandRef();
  op.operands.push_back(parser.resolve(condition));
  std::vector<Type> types;
  if (parser.consumeIf(TokenKind::Arrow)) types = parser.parseResultTypeList();
  if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' to open the then region");
  size_t closeOffset = parser.token().offset;
  Region& thenRegion = op.addRegion();
  parser.parseRegion(op, thenRegion, &kNoArguments);
  parser.addImplicitYield(thenRegion, closeOffset);
  Region& elseRegion = op.addRegion();
  if (parser.consumeKeywordIf("else")) {
    if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' to open the else region");
    closeOffset = parser.token().offset;
    parser.parseRegion(op, elseRegion, &kNoArguments);
    parser.addImplicitYield(elseRegion, closeOffset);
  }
  parser.parseOptionalAttributeDict(op.attributes);
  return types;
}

void IfSyntax::print(PrinterImpl& printer, const Operation& op, int indent) {
  printer.out += " ";
  printer.printUses(op.operands);
  if (!op.results.empty()) printer.out += " -> (" + resultTypesText(op) + ")";
  printer.out += " ";
  if (!op.regions.empty()) printer.printRegion(*op.regions[0], indent, false, op.results.empty(), op.loc);
  if (op.regions.size() > 1 && !op.regions[1]->empty()) {
    printer.out += " else ";
    printer.printRegion(*op.regions[1], indent, false, op.results.empty(), op.loc);
  }
  printer.printAttributeDict(op.attributes);
}

// scf.while (%a = %init) : (T) -> (U) { before } do { ^bb0(%b: U): after } attributes {..}
std::vector<Type> WhileSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<PendingArgument> arguments;
  std::vector<OperandRef> inits;
  if (parser.consumeIf(TokenKind::LParen)) {
    if (!parser.consumeIf(TokenKind::RParen)) {
      parseArgumentInits(parser, arguments, inits, "after the loop-carried value's name");
      parser.expect(TokenKind::RParen, "to close the while initializers");
    }
  }
  const auto [type, typeOffset] = resolveOperandsByFunctionType(parser, op, inits, "before the while's function type",
                                                                "scf.while", "initial values");
  for (size_t i = 0; i < arguments.size(); ++i) arguments[i].type = type.inputs()[i];
  if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' to open the before region");
  parser.parseRegion(op, op.addRegion(), &arguments);
  parser.expectKeyword("do", "between the while regions");
  if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' to open the after region");
  parser.parseRegion(op, op.addRegion(), nullptr);
  parseOptionalAttributesKeyword(parser, op);
  return resultsOf(type);
}

void WhileSyntax::print(PrinterImpl& printer, const Operation& op, int indent) {
  if (!op.operands.empty()) {
    printer.out += " (";
    printArgumentInits(printer, op, entryBlock(op), 0, 0);
    printer.out += ")";
  }
  printer.out += " : " + functionTypeOf(op.operands, op) + " ";
  if (!op.regions.empty()) printer.printRegion(*op.regions[0], indent, false, false, kNoLoc);
  printer.out += " do ";
  if (op.regions.size() > 1) printer.printRegion(*op.regions[1], indent, true, false, kNoLoc);
  if (!op.attributes.empty()) {
    printer.out += " attributes {";
    printer.printAttributeDictEntries(op.attributes, {});
    printer.out += "}";
  }
}

}  // namespace tilesim::text::syntax

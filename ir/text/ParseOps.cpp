// Op syntax: the table-driven forms (Binary, Unary, Cast, Arrow, Compare, Select, Constant; ir/OpKind.h) and the
// generic form every op accepts; each Custom op's Triton assembly format is its pair in ir/text/syntax/. Each
// returns the op's result types, derived where the text leaves them implicit (cmpi -> i1 of the operand shape).
#include "ir/text/ParserImpl.h"
#include "ir/text/syntax/CustomSyntax.h"

namespace tilesim::text {

std::vector<Type> ParserImpl::parseOpBody(Operation& op) {
  const OpInfo& info = opInfo(op.kind);
  // `%a, %b {attrs} : T`, the start every table-driven syntax but Compare and Constant shares: the operands and
  // the first type (the operands' type; a cast's source, a select's condition).
  auto operandsAndFirstType = [&](const char* typeContext) {
    std::vector<OperandRef> refs = parseOperandRefList();
    parseOptionalAttributeDict(op.attributes);
    expect(TokenKind::Colon, typeContext);
    return std::pair<std::vector<OperandRef>, Type>{std::move(refs), parseType()};
  };
  switch (info.syntax) {
    case Syntax::Binary:
    case Syntax::Unary:
    case Syntax::Ternary: {
      auto [refs, type] = operandsAndFirstType("before the type");
      resolveAllSame(op, refs, type);
      return {type};
    }
    case Syntax::Cast: {
      auto [refs, from] = operandsAndFirstType("before the source type");
      expectKeyword("to", "between the cast types");
      Type to = parseType();
      resolveAllSame(op, refs, from);
      return {to};
    }
    case Syntax::Arrow: {
      auto [refs, from] = operandsAndFirstType("before the operand type");
      expect(TokenKind::Arrow, "between the operand and result types");
      Type to = parseType();
      for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(resolve(refs[i], i == 0 ? from : Type()));
      return std::vector<Type>(static_cast<size_t>(std::max(info.numResults, 1)), to);
    }
    case Syntax::Compare: {
      op.setAttr("predicate", Attribute::keyword(parseKeywordWord("a comparison predicate")));
      expect(TokenKind::Comma, "after the predicate");
      std::vector<OperandRef> refs = parseOperandRefList();
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the type");
      size_t typeOffset = token_.offset;
      Type type = parseType();
      if (type.isFunction() || type.element().isTensor()) failAt(typeOffset, "comparison of " + type.str());
      resolveAllSame(op, refs, type);
      return {type.withElement(Type::i1())};
    }
    case Syntax::Select: {
      auto [refs, condition] = operandsAndFirstType("before the type");
      Type type = condition;
      if (consumeIf(TokenKind::Comma)) {
        type = parseType();
      } else {
        condition = Type::i1();
      }
      for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(resolve(refs[i], i == 0 ? condition : type));
      return {type};
    }
    case Syntax::Constant: {
      parseOptionalAttributeDict(op.attributes);
      size_t valueOffset = token_.offset;
      Attribute value = parseAttribute();
      Type type;
      switch (value.kind()) {
        case Attribute::Kind::Bool: type = Type::i1(); break;
        case Attribute::Kind::Integer:
        case Attribute::Kind::Float:
        case Attribute::Kind::Dense: type = value.type(); break;
        default: break;
      }
      if (!type.isValid()) failAt(valueOffset, "constant value needs a type (`1 : i32`, `dense<0> : tensor<4xi32>`)");
      op.attributes.insert(op.attributes.begin(), NamedAttribute{"value", std::move(value)});
      return {type};
    }
    case Syntax::Generic: fail(std::string(info.mnemonic) + " must be written in generic form (\"" + std::string(info.mnemonic) + "\"(...))");
    case Syntax::Custom: return parseCustomBody(op);
  }
  fail("unhandled op syntax");
}

std::vector<Type> ParserImpl::parseGenericBody(Operation& op, size_t nameOffset) {
  expect(TokenKind::LParen, "to open the operand list");
  std::vector<OperandRef> refs = parseOperandRefList();
  expect(TokenKind::RParen, "to close the operand list");
  if (at(TokenKind::LSquare)) fail("successor blocks are not supported");
  if (consumeIf(TokenKind::Less)) {
    if (!at(TokenKind::LBrace)) fail("expected '{' after '<' (properties)");
    parseAttributeDict(op.attributes);
    expect(TokenKind::Greater, "to close the properties");
  }
  if (consumeIf(TokenKind::LParen)) {
    do parseRegion(op, op.addRegion(), nullptr);
    while (consumeIf(TokenKind::Comma));
    expect(TokenKind::RParen, "to close the region list");
  }
  parseOptionalAttributeDict(op.attributes);
  expect(TokenKind::Colon, "before the op's function type");
  size_t typeOffset = token_.offset;
  Type type = parseFunctionType();
  if (type.inputs().size() != refs.size())
    failAt(typeOffset, "generic op has " + std::to_string(refs.size()) + " operands but its type lists " +
                           std::to_string(type.inputs().size()));
  (void)nameOffset;
  resolveInto(op, refs, std::vector<Type>(type.inputs().begin(), type.inputs().end()));
  return std::vector<Type>(type.results().begin(), type.results().end());
}

std::vector<Type> ParserImpl::parseCustomBody(Operation& op) { return customSyntax(customSyntaxOp(op.kind)).parse(*this, op); }

}  // namespace tilesim::text

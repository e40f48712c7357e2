// Custom syntax of the Pointer family: tt.addptr, block pointers (tt.make_tensor_ptr, tt.advance) and
// tt.make_tensor_descriptor. Block pointer and descriptor types are printed in their short form `<T>`, as Triton
// prints them (strippedPointerType).
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

namespace {

// `, [%a, %b], [%c, %d]`: `count` bracketed operand lists after the first operand.
std::vector<std::vector<OperandRef>> parseBracketedLists(ParserImpl& parser, int count) {
  std::vector<std::vector<OperandRef>> lists;
  for (int list = 0; list < count; ++list) {
    parser.expect(TokenKind::Comma, "before a bracketed operand list");
    parser.expect(TokenKind::LSquare, "to open an operand list");
    lists.push_back(parser.parseOperandRefList());
    parser.expect(TokenKind::RSquare, "to close the operand list");
  }
  return lists;
}

// ` %base, [..], [..]`: the first operand, then the rest as `count` lists of equal length.
void printBracketedLists(PrinterImpl& printer, const Operation& op, size_t count) {
  const size_t rank = op.operands.empty() ? 0 : (op.operands.size() - 1) / count;
  printer.out += " ";
  printer.printUses(op.operands, 0, 1);
  for (size_t list = 0; list < count; ++list) {
    printer.out += ", [";
    printer.printUses(op.operands, 1 + list * rank, 1 + (list + 1) * rank);
    printer.out += "]";
  }
}

}  // namespace

// tt.addptr %p, %o : P, O (the result has the pointer operand's type)
std::vector<Type> AddPtrSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef pointer = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "between pointer and offset");
  OperandRef offset = parser.parseOperandRef();
  Type result = typeAfterColon(parser, op);
  parser.expect(TokenKind::Comma, "between the pointer and offset types");
  Type offsetType = parser.parseType();
  parser.resolveInto(op, {pointer, offset}, {result, offsetType});
  return {result};
}

void AddPtrSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + firstResultType(op).str() + ", " + operandTypeText(op, 1);
}

// tt.make_tensor_ptr %base, [%shape...], [%strides...], [%offsets...] {order = array<i32: 1, 0>} : <tensor<..>>
std::vector<Type> MakeTensorPtrSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef base = parser.parseOperandRef();
  std::vector<std::vector<OperandRef>> lists = parseBracketedLists(parser, 3);
  if (lists[0].size() != lists[1].size() || lists[0].size() != lists[2].size())
    parser.fail("tt.make_tensor_ptr needs as many strides and offsets as shape dimensions");
  Type result = typeAfterColon(parser, op);
  op.operands.push_back(parser.resolve(base));
  for (const auto& list : lists) parser.resolveUntyped(op, list);
  return {result};
}

void MakeTensorPtrSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printBracketedLists(printer, op, 3);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + strippedPointerType(firstResultType(op));
}

// tt.advance %ptr, [%offsets...] : <tensor<..>>
std::vector<Type> AdvanceSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef pointer = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the offsets");
  parser.expect(TokenKind::LSquare, "to open the offsets");
  std::vector<OperandRef> offsets = parser.parseOperandRefList();
  parser.expect(TokenKind::RSquare, "to close the offsets");
  Type result = typeAfterColon(parser, op);
  op.operands.push_back(parser.resolve(pointer, result));
  parser.resolveUntyped(op, offsets);
  return {result};
}

void AdvanceSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands, 0, 1);
  printer.out += ", [";
  printer.printUses(op.operands, 1);
  printer.out += "]";
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + strippedPointerType(firstResultType(op));
}

// tt.make_tensor_descriptor %base, [%shape...], [%strides...] {padding = 2 : i32} : <f32>, <tensor<16x32xf32>>
// (the descriptor type may also be written in full, !tt.tensordesc<tensor<16x32xf32>>)
std::vector<Type> MakeTensorDescriptorSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef base = parser.parseOperandRef();
  std::vector<std::vector<OperandRef>> lists = parseBracketedLists(parser, 2);
  if (lists[0].size() != lists[1].size()) parser.fail("tt.make_tensor_descriptor needs as many strides as shape dimensions");
  Type baseType = typeAfterColon(parser, op);
  parser.expect(TokenKind::Comma, "between the base and descriptor types");
  Type result;
  if (parser.at(TokenKind::ExclaimId)) {
    size_t offset = parser.token().offset;
    result = parser.parseType();
    if (!result.isTensorDesc()) parser.failAt(offset, "expected a tensor descriptor type, got " + result.str());
  } else {
    parser.expect(TokenKind::Less, "to open the descriptor type <tensor<...>>");
    result = parser.finishTensorDescType();
  }
  op.operands.push_back(parser.resolve(base, baseType));
  for (const auto& list : lists) parser.resolveUntyped(op, list);
  return {result};
}

void MakeTensorDescriptorSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  const Type resultType = firstResultType(op);
  printBracketedLists(printer, op, 2);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + strippedPointerType(op.operands[0]->type) + ", <" +
                 (resultType.isTensorDesc() ? resultType.descBlock().str() : resultType.str()) + ">";
}

}  // namespace tilesim::text::syntax

// Custom syntax of the SharedMemory family (TTGIR's ttg ops), as Triton 3.6 prints it: local_alloc / dealloc /
// load / store, the memory descriptor views memdesc_index and memdesc_trans, the async copy with its commit
// group and wait, and global_scratch_alloc. ttg.convert_layout is table-driven (Arrow syntax).
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

namespace {

// `: M -> U` after the operands and attributes: {M, U}.
std::pair<Type, Type> arrowTypes(ParserImpl& parser, Operation& op) {
  Type from = typeAfterColon(parser, op);
  parser.expect(TokenKind::Arrow, "before the result type");
  return {from, parser.parseType()};
}

void printArrowTypes(PrinterImpl& printer, const Operation& op, size_t operand) {
  printer.out += " : " + operandTypeText(op, operand) + " -> " + firstResultType(op).str();
}

}  // namespace

// ttg.local_alloc %src {attrs} : (T) -> M, or ttg.local_alloc : () -> M
std::vector<Type> LocalAllocSyntax::parse(ParserImpl& parser, Operation& op) {
  return parseOperandsOfFunctionType(parser, op);
}

void LocalAllocSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  if (!op.operands.empty()) printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + functionTypeOf(op.operands, op);
}

// ttg.local_dealloc %m : M (ttng.inval_barrier and ttng.tensormap_fenceproxy_acquire alike)
std::vector<Type> SingleOperandSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef ref = parser.parseOperandRef();
  op.operands.push_back(parser.resolve(ref, typeAfterColon(parser, op)));
  return {};
}

void SingleOperandSyntax::print(PrinterImpl& printer, const Operation& op, int) { printOperandsThenFirstType(printer, op); }

// ttg.local_load %m token %t {attrs} : M -> T
std::vector<Type> LocalLoadSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef source = parser.parseOperandRef();
  std::optional<OperandRef> token;
  if (parser.consumeKeywordIf("token")) token = parser.parseOperandRef();
  auto [from, to] = arrowTypes(parser, op);
  op.operands.push_back(parser.resolve(source, from));
  if (token) op.operands.push_back(parser.resolve(*token, Type::asyncToken()));
  return {to};
}

void LocalLoadSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands, 0, 1);
  printOptionalOperand(printer, op, 1, " token ");
  printer.printAttributeDict(op.attributes);
  printArrowTypes(printer, op, 0);
}

// ttg.local_store %value, %m {attrs} : T -> M
std::vector<Type> LocalStoreSyntax::parse(ParserImpl& parser, Operation& op) {
  auto [value, destination] = parseSourceAndDestination(parser);
  auto [from, to] = arrowTypes(parser, op);
  op.operands.push_back(parser.resolve(value, from));
  op.operands.push_back(parser.resolve(destination, to));
  return {};
}

void LocalStoreSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + operandTypeText(op, 0) + " -> " + operandTypeText(op, 1);
}

// ttg.memdesc_index %m[%i] {attrs} : M -> M'  (the index is an i32)
std::vector<Type> MemDescIndexSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef source = parser.parseOperandRef();
  parser.expect(TokenKind::LSquare, "to open the index");
  OperandRef index = parser.parseOperandRef();
  parser.expect(TokenKind::RSquare, "to close the index");
  auto [from, to] = arrowTypes(parser, op);
  op.operands.push_back(parser.resolve(source, from));
  op.operands.push_back(parser.resolve(index, Type::i32()));
  return {to};
}

void MemDescIndexSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printIndexedOperand(printer, op, 2);
  printer.printAttributeDict(op.attributes);
  printArrowTypes(printer, op, 0);
}

// ttg.memdesc_trans %m {order = array<i32: 1, 0>} : M -> M'
std::vector<Type> MemDescTransSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef source = parser.parseOperandRef();
  auto [from, to] = arrowTypes(parser, op);
  op.operands.push_back(parser.resolve(source, from));
  return {to};
}

void MemDescTransSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printArrowTypes(printer, op, 0);
}

// ttg.async_copy_global_to_local %ptrs, %dst mask %m other %o cacheModifier = cg {attrs} : P -> <memdesc body>
// The result is an !ttg.async.token; mask and other take their types from the pointers.
std::vector<Type> AsyncCopySyntax::parse(ParserImpl& parser, Operation& op) {
  auto [source, destination] = parseSourceAndDestination(parser);
  std::optional<OperandRef> mask, other;
  if (parser.consumeKeywordIf("mask")) mask = parser.parseOperandRef();
  if (parser.consumeKeywordIf("other")) {
    if (!mask) parser.fail("'other' needs a 'mask' before it");
    other = parser.parseOperandRef();
  }
  parseMemoryOptions(parser, op);
  Type pointers = typeAfterColon(parser, op);
  parser.expect(TokenKind::Arrow, "before the destination type");
  if (!parser.at(TokenKind::Less)) parser.fail("expected '<' opening the destination's memory descriptor type");
  Type memory = parser.finishMemDescType(parser.token().offset + 1);
  if (!pointers.isTensor() || !pointers.element().isPointer() || !pointers.element().pointee().isScalar())
    parser.fail("ttg.async_copy_global_to_local copies from a tensor of pointers, got " + pointers.str());
  op.operands.push_back(parser.resolve(source, pointers));
  op.operands.push_back(parser.resolve(destination, memory));
  if (mask) op.operands.push_back(parser.resolve(*mask, pointers.withElement(Type::i1())));
  if (other) op.operands.push_back(parser.resolve(*other, pointers.withElement(pointers.element().pointee())));
  return {Type::asyncToken()};
}

void AsyncCopySyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands, 0, 2);
  printOptionalOperand(printer, op, 2, " mask ");
  printOptionalOperand(printer, op, 3, " other ");
  printMemoryOptions(printer, op);
  printer.printAttributeDict(op.attributes, {"cache", "evict"});
  std::string memory = operandTypeText(op, 1);
  const std::string prefix = "!ttg.memdesc";
  if (memory.rfind(prefix, 0) == 0) memory = memory.substr(prefix.size());
  printer.out += " : " + operandTypeText(op, 0) + " -> " + memory;
}

// ttg.async_commit_group tokens %a, %b {attrs}   and   ttg.async_wait %a, %b {num = 2 : i32}
std::vector<Type> AsyncGroupSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs;
  if (op.kind == OpKind::TTGAsyncWait || parser.consumeKeywordIf("tokens")) refs = parser.parseOperandRefList();
  if (op.kind == OpKind::TTGAsyncCommitGroup && refs.empty() && parser.at(TokenKind::PercentId))
    parser.fail("expected 'tokens' before the commit group's tokens");
  parser.resolveAllSame(op, refs, Type::asyncToken());
  parser.parseOptionalAttributeDict(op.attributes);
  return {Type::asyncToken()};
}

void AsyncGroupSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  if (!op.operands.empty()) {
    printer.out += op.kind == OpKind::TTGAsyncCommitGroup ? " tokens " : " ";
    printer.printUses(op.operands);
  }
  printer.printAttributeDict(op.attributes);
}

// ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
std::vector<Type> GlobalScratchSyntax::parse(ParserImpl& parser, Operation& op) { return {typeAfterColon(parser, op)}; }

void GlobalScratchSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + firstResultType(op).str();
}

}  // namespace tilesim::text::syntax

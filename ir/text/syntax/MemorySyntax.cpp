// Custom syntax of the Memory and Atomic families: tt.load / tt.store, the four tensor descriptor accesses and
// the two atomics. The memory hints are written `cacheModifier = cg evictionPolicy = evict_last` and stored as the
// Keyword attributes `cache` and `evict`.
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

namespace {

// tt.load's result: the pointee for a scalar or block pointer, the pointee element per lane for a pointer tensor.
Type loadedType(Type pointer) {
  if (pointer.isPointer()) return pointer.pointee();
  if (pointer.isTensor() && pointer.element().isPointer() && !pointer.element().pointee().isTensor())
    return pointer.withElement(pointer.element().pointee());
  return Type();
}

// What every descriptor access writes before its types: `%desc[%i, ...]`, `, %value` when it stores, the hints.
struct DescriptorAccess {
  OperandRef descriptor;
  std::vector<OperandRef> indices;
  OperandRef value;  // stores only
};

DescriptorAccess parseDescriptorAccess(ParserImpl& parser, Operation& op, bool stores, bool gathers) {
  DescriptorAccess access;
  access.descriptor = parser.parseOperandRef();
  parser.expect(TokenKind::LSquare, "to open the descriptor indices");
  access.indices = parser.parseOperandRefList();
  parser.expect(TokenKind::RSquare, "to close the descriptor indices");
  if (gathers && access.indices.size() != 2)
    parser.fail(std::string(mnemonic(op.kind)) + " takes two offsets: x offsets and a y offset");
  if (stores) {
    parser.expect(TokenKind::Comma, "before the stored value");
    access.value = parser.parseOperandRef();
  }
  parseMemoryOptions(parser, op);
  return access;
}

// `{attrs} : D, ...`: the type list of a descriptor load, store or scatter, the descriptor's type first and
// `count` types in all (else the error `countMessage`).
std::vector<Type> parseDescriptorTypes(ParserImpl& parser, Operation& op, size_t count, const char* countMessage) {
  parser.parseOptionalAttributeDict(op.attributes);
  parser.expect(TokenKind::Colon, "before the descriptor type");
  const size_t typeOffset = parser.token().offset;
  std::vector<Type> types = parser.parseTypeList();
  if (types.empty() || !types[0].isTensorDesc())
    parser.failAt(typeOffset, std::string(mnemonic(op.kind)) + " needs a tensor descriptor type first");
  if (types.size() != count) parser.failAt(typeOffset, countMessage);
  return types;
}

// A load's or store's first operands: the descriptor (of type `descriptorType`), then its indices.
void resolveDescriptorAndIndices(ParserImpl& parser, Operation& op, const DescriptorAccess& access, Type descriptorType) {
  op.operands.push_back(parser.resolve(access.descriptor, descriptorType));
  parser.resolveUntyped(op, access.indices);
}

void printDescriptorAccess(PrinterImpl& printer, const Operation& op, bool stores) {
  const size_t end = stores ? op.operands.size() - 1 : op.operands.size();
  printIndexedOperand(printer, op, end);
  if (stores) {
    printer.out += ", ";
    printer.printUses(op.operands, end, end + 1);
  }
  printMemoryOptions(printer, op);
  printer.printAttributeDict(op.attributes, {"cache", "evict"});
}

// The atomics' shared tail: `sem, scope, %operands... : (T...) -> U` (tt.atomic_rmw has its operation before).
std::vector<Type> parseAtomicTail(ParserImpl& parser, Operation& op) {
  parseKeywordAttribute(parser, op, "sem", "a memory semantic (relaxed, acquire, release, acq_rel)");
  parser.expect(TokenKind::Comma, "after the memory semantic");
  parseKeywordAttribute(parser, op, "scope", "a memory scope (gpu, cta, sys)");
  parser.expect(TokenKind::Comma, "after the memory scope");
  return parseOperandsOfFunctionType(parser, op);
}

void printAtomicTail(PrinterImpl& printer, const Operation& op) {
  printer.out += attributeText(op, "sem") + ", " + attributeText(op, "scope") + ", ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes, {"atomic_rmw_op", "sem", "scope"});
  printer.out += " : " + functionTypeOf(op.operands, op);
}

}  // namespace

// tt.load %ptr, %mask, %other cacheModifier = cg : P  and  tt.store %ptr, %value, %mask : P (only the pointer is typed)
std::vector<Type> LoadStoreSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  if (refs.empty()) parser.fail("expected a pointer operand");
  parseMemoryOptions(parser, op);
  parser.parseOptionalAttributeDict(op.attributes);
  parser.expect(TokenKind::Colon, "before the pointer type");
  const size_t typeOffset = parser.token().offset;
  Type pointer = parser.parseType();
  for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(parser.resolve(refs[i], i == 0 ? pointer : Type()));
  if (op.kind == OpKind::TTStore) return {};
  Type loaded = loadedType(pointer);
  if (!loaded.isValid()) parser.failAt(typeOffset, "tt.load needs a pointer or a tensor of pointers, got " + pointer.str());
  return {loaded};
}

void LoadStoreSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printMemoryOptions(printer, op);
  printer.printAttributeDict(op.attributes, {"cache", "evict"});
  printer.out += " : " + operandTypeText(op, 0);
}

// tt.descriptor_load %desc[%i, %j] cacheModifier = cg : !tt.tensordesc<tensor<..>> -> tensor<..>
std::vector<Type> DescriptorLoadSyntax::parse(ParserImpl& parser, Operation& op) {
  DescriptorAccess access = parseDescriptorAccess(parser, op, false, false);
  std::vector<Type> types = parseDescriptorTypes(parser, op, 1, "tt.descriptor_load lists one type before '->'");
  resolveDescriptorAndIndices(parser, op, access, types[0]);
  parser.expect(TokenKind::Arrow, "before the loaded type");
  return {parser.parseType()};
}

void DescriptorLoadSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printDescriptorAccess(printer, op, false);
  printer.out += " : " + operandTypeText(op, 0) + " -> " + firstResultType(op).str();
}

// tt.descriptor_store %desc[%i, %j], %value : !tt.tensordesc<tensor<..>>, tensor<..>
std::vector<Type> DescriptorStoreSyntax::parse(ParserImpl& parser, Operation& op) {
  DescriptorAccess access = parseDescriptorAccess(parser, op, true, false);
  std::vector<Type> types = parseDescriptorTypes(parser, op, 2, "tt.descriptor_store lists two types: descriptor, value");
  resolveDescriptorAndIndices(parser, op, access, types[0]);
  op.operands.push_back(parser.resolve(access.value, types[1]));
  return {};
}

void DescriptorStoreSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printDescriptorAccess(printer, op, true);
  printer.out += " : " + operandTypeText(op, 0) + ", " + operandTypeText(op, op.operands.size() - 1);
}

// tt.descriptor_gather %desc[%x_offsets, %y] : (!tt.tensordesc<..>, tensor<Nxi32>, i32) -> tensor<..>
std::vector<Type> DescriptorGatherSyntax::parse(ParserImpl& parser, Operation& op) {
  DescriptorAccess access = parseDescriptorAccess(parser, op, false, true);
  Type type = functionTypeAfterColon(parser, op);
  parser.resolveInto(op, {access.descriptor, access.indices[0], access.indices[1]}, inputsOf(type));
  return resultsOf(type);
}

void DescriptorGatherSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printDescriptorAccess(printer, op, false);
  printer.out += " : " + functionTypeOf(op.operands, op);
}

// tt.descriptor_scatter %desc[%x_offsets, %y], %value : !tt.tensordesc<..>, tensor<Nxi32>, i32, tensor<..>
std::vector<Type> DescriptorScatterSyntax::parse(ParserImpl& parser, Operation& op) {
  DescriptorAccess access = parseDescriptorAccess(parser, op, true, true);
  std::vector<Type> types =
      parseDescriptorTypes(parser, op, 4, "tt.descriptor_scatter lists four types: descriptor, x offsets, y offset, value");
  parser.resolveInto(op, {access.descriptor, access.indices[0], access.indices[1], access.value}, types);
  return {};
}

void DescriptorScatterSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printDescriptorAccess(printer, op, true);
  printer.out += " : " + operandTypeText(op, 0) + ", " + operandTypeText(op, 1) + ", " + operandTypeText(op, 2) + ", " +
                 operandTypeText(op, 3);
}

// tt.atomic_rmw fadd, acq_rel, gpu, %ptr, %value, %mask : (P, T, M) -> T
std::vector<Type> AtomicRmwSyntax::parse(ParserImpl& parser, Operation& op) {
  parseKeywordAttribute(parser, op, "atomic_rmw_op", "an atomic operation (add, fadd, max, ...)");
  parser.expect(TokenKind::Comma, "after the atomic operation");
  return parseAtomicTail(parser, op);
}

void AtomicRmwSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " " + attributeText(op, "atomic_rmw_op") + ", ";
  printAtomicTail(printer, op);
}

// tt.atomic_cas acq_rel, gpu, %ptr, %compare, %value : (P, T, T) -> T
std::vector<Type> AtomicCasSyntax::parse(ParserImpl& parser, Operation& op) { return parseAtomicTail(parser, op); }

void AtomicCasSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printAtomicTail(printer, op);
}

}  // namespace tilesim::text::syntax

// Custom syntax of the Hopper family (TTGIR's ttng ops), as Triton 3.6 prints it: the mbarrier ops, the TMA
// copies and their store wait, tensor maps, the async-proxy fence and warp_group_dot with its wait.
// ttng.reinterpret_tensor_descriptor is table-driven (Cast syntax); ttng.inval_barrier and
// ttng.tensormap_fenceproxy_acquire share SingleOperandSyntax (SharedMemorySyntax.cpp).
#include <charconv>

#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

namespace {

// A bare integer written in op syntax (`ttng.init_barrier %b, 1`), stored as an i32 attribute `name`.
void parseBareInteger(ParserImpl& parser, Operation& op, const char* name) {
  Token t = parser.expect(TokenKind::Integer, ("(the " + std::string(name) + ")").c_str());
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), value);
  if (ec != std::errc() || ptr != t.text.data() + t.text.size() || value > INT32_MAX) parser.failAt(t.offset, std::string("bad ") + name);
  op.setAttr(name, Attribute::integer(value, Type::i32()));
}

std::string bareInteger(const Operation& op, std::string_view name) {
  const Attribute* a = op.attr(name);
  return a && a->kind() == Attribute::Kind::Integer ? std::to_string(a->intValue()) : "?";
}

// `%desc[%i, %j]`: the descriptor and its coordinates (i32 scalars).
std::pair<OperandRef, std::vector<OperandRef>> parseDescriptorAndCoordinates(ParserImpl& parser) {
  OperandRef descriptor = parser.parseOperandRef();
  parser.expect(TokenKind::LSquare, "to open the coordinates");
  std::vector<OperandRef> coordinates = parser.parseOperandRefList();
  parser.expect(TokenKind::RSquare, "to close the coordinates");
  return {descriptor, coordinates};
}

// ` %desc[%i, %j] %a, %b`: the descriptor, its coordinates, then the last `trailing` operands.
void printDescriptorCoordinatesThen(PrinterImpl& printer, const Operation& op, size_t trailing) {
  const size_t n = op.operands.size();
  printIndexedOperand(printer, op, n - trailing);
  printer.out += " ";
  printer.printUses(op.operands, n - trailing, n);
}

}  // namespace

// ttng.init_barrier %b, 1 : M   and   ttng.arrive_barrier %b, 1, %pred : M
std::vector<Type> BarrierCountSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef barrier = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the arrival count");
  parseBareInteger(parser, op, "count");
  std::optional<OperandRef> predicate;
  if (op.kind == OpKind::TTNGArriveBarrier && parser.consumeIf(TokenKind::Comma)) predicate = parser.parseOperandRef();
  op.operands.push_back(parser.resolve(barrier, typeAfterColon(parser, op)));
  if (predicate) op.operands.push_back(parser.resolve(*predicate, Type::i1()));
  return {};
}

void BarrierCountSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands, 0, 1);
  printer.out += ", " + bareInteger(op, "count");
  printOptionalOperand(printer, op, 1, ", ");
  printer.printAttributeDict(op.attributes, {"count"});
  printer.out += " : " + operandTypeText(op, 0);
}

// ttng.barrier_expect %b, 6144 {attrs}, %pred : M
std::vector<Type> BarrierExpectSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef barrier = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the transaction bytes");
  parseBareInteger(parser, op, "size");
  parser.parseOptionalAttributeDict(op.attributes);
  parser.expect(TokenKind::Comma, "before the predicate");
  OperandRef predicate = parser.parseOperandRef();
  parser.expect(TokenKind::Colon, "before the barrier type");
  op.operands.push_back(parser.resolve(barrier, parser.parseType()));
  op.operands.push_back(parser.resolve(predicate, Type::i1()));
  return {};
}

void BarrierExpectSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands, 0, 1);
  printer.out += ", " + bareInteger(op, "size");
  printer.printAttributeDict(op.attributes, {"size"});
  printer.out += ", ";
  printer.printUses(op.operands, 1, 2);
  printer.out += " : " + operandTypeText(op, 0);
}

// ttng.wait_barrier %b, %phase, %pred {attrs} : M   (phase i32, optional pred i1; `deps` are not supported yet)
std::vector<Type> WaitBarrierSyntax::parse(ParserImpl& parser, Operation& op) {
  OperandRef barrier = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the phase");
  OperandRef phase = parser.parseOperandRef();
  std::optional<OperandRef> predicate;
  if (parser.consumeIf(TokenKind::Comma)) predicate = parser.parseOperandRef();
  if (parser.atKeyword("deps")) parser.fail("ttng.wait_barrier with deps is not supported yet");
  op.operands.push_back(parser.resolve(barrier, typeAfterColon(parser, op)));
  op.operands.push_back(parser.resolve(phase, Type::i32()));
  if (predicate) op.operands.push_back(parser.resolve(*predicate, Type::i1()));
  return {};
}

void WaitBarrierSyntax::print(PrinterImpl& printer, const Operation& op, int) { printOperandsThenFirstType(printer, op); }

// ttng.async_tma_copy_global_to_local %desc[%i, %j] %dst, %barrier, %pred {attrs} : D, B -> M
std::vector<Type> TmaLoadSyntax::parse(ParserImpl& parser, Operation& op) {
  auto [descriptor, coordinates] = parseDescriptorAndCoordinates(parser);
  OperandRef destination = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the barrier");
  OperandRef barrier = parser.parseOperandRef();
  parser.expect(TokenKind::Comma, "before the predicate");
  OperandRef predicate = parser.parseOperandRef();
  parseMemoryOptions(parser, op);
  Type descriptorType = typeAfterColon(parser, op);
  parser.expect(TokenKind::Comma, "before the barrier type");
  Type barrierType = parser.parseType();
  parser.expect(TokenKind::Arrow, "before the destination type");
  Type destinationType = parser.parseType();
  op.operands.push_back(parser.resolve(descriptor, descriptorType));
  parser.resolveAllSame(op, coordinates, Type::i32());
  op.operands.push_back(parser.resolve(destination, destinationType));
  op.operands.push_back(parser.resolve(barrier, barrierType));
  op.operands.push_back(parser.resolve(predicate, Type::i1()));
  return {};
}

void TmaLoadSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  const size_t n = op.operands.size();
  printDescriptorCoordinatesThen(printer, op, 3);
  printMemoryOptions(printer, op);
  printer.printAttributeDict(op.attributes, {"cache", "evict"});
  printer.out += " : " + operandTypeText(op, 0) + ", " + operandTypeText(op, n - 2) + " -> " + operandTypeText(op, n - 3);
}

// ttng.async_tma_copy_local_to_global %desc[%i, %j] %src {attrs} : D, M
std::vector<Type> TmaStoreSyntax::parse(ParserImpl& parser, Operation& op) {
  auto [descriptor, coordinates] = parseDescriptorAndCoordinates(parser);
  OperandRef source = parser.parseOperandRef();
  Type descriptorType = typeAfterColon(parser, op);
  parser.expect(TokenKind::Comma, "before the source type");
  Type sourceType = parser.parseType();
  op.operands.push_back(parser.resolve(descriptor, descriptorType));
  parser.resolveAllSame(op, coordinates, Type::i32());
  op.operands.push_back(parser.resolve(source, sourceType));
  return {};
}

void TmaStoreSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printDescriptorCoordinatesThen(printer, op, 1);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + operandTypeText(op, 0) + ", " + operandTypeText(op, op.operands.size() - 1);
}

// ttng.async_tma_store_wait {pendings = 0 : i32}   and   ttng.fence_async_shared {bCluster = false}
std::vector<Type> AttributesOnlySyntax::parse(ParserImpl& parser, Operation& op) {
  parser.parseOptionalAttributeDict(op.attributes);
  return {};
}

void AttributesOnlySyntax::print(PrinterImpl& printer, const Operation& op, int) { printer.printAttributeDict(op.attributes); }

// ttng.tensormap_create %desc, %base, [%box...], [%dims...], [%strides...], [%elementStrides...] {attrs} : (T...) -> ()
std::vector<Type> TensormapCreateSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs;
  refs.push_back(parser.parseOperandRef());
  parser.expect(TokenKind::Comma, "after the descriptor pointer");
  refs.push_back(parser.parseOperandRef());
  size_t groupSizes[4] = {0, 0, 0, 0};
  for (size_t& size : groupSizes) {
    parser.expect(TokenKind::Comma, "before an operand group");
    parser.expect(TokenKind::LSquare, "to open an operand group");
    std::vector<OperandRef> group = parser.parseOperandRefList();
    parser.expect(TokenKind::RSquare, "to close an operand group");
    size = group.size();
    refs.insert(refs.end(), group.begin(), group.end());
  }
  const size_t rank = groupSizes[0];
  if (rank == 0 || groupSizes[1] != rank || groupSizes[2] + 1 != rank || groupSizes[3] != rank)
    parser.fail("ttng.tensormap_create takes [box], [global dims], [global strides], [element strides] of rank, rank, rank - 1 and rank operands");
  Type function = functionTypeAfterColon(parser, op);
  parser.resolveInto(op, refs, inputsOf(function));
  if (!function.results().empty()) parser.fail("ttng.tensormap_create has no results");
  return {};
}

void TensormapCreateSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  const size_t rank = (op.operands.size() - 1) / 4;
  const size_t bounds[5] = {2, 2 + rank, 2 + 2 * rank, 1 + 3 * rank, 1 + 4 * rank};
  printer.out += " ";
  printer.printUses(op.operands, 0, 2);
  for (size_t g = 0; g < 4; ++g) {
    printer.out += ", [";
    printer.printUses(op.operands, bounds[g], bounds[g + 1]);
    printer.out += "]";
  }
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + functionTypeOf(op.operands, op);
}

// ttng.warp_group_dot %a, %b, %c, %useC {attrs} : A * B -> C
std::vector<Type> WarpGroupDotSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  if (refs.size() != 3 && refs.size() != 4) parser.fail("ttng.warp_group_dot takes a, b, c and an optional useC");
  Type a = typeAfterColon(parser, op);
  parser.expect(TokenKind::Star, "between the dot operand types");
  Type b = parser.parseType();
  parser.expect(TokenKind::Arrow, "before the dot result type");
  Type d = parser.parseType();
  std::vector<Type> types{a, b, d};
  if (refs.size() == 4) types.push_back(Type::i1());
  parser.resolveInto(op, refs, types);
  return {d};
}

void WarpGroupDotSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printer.out += " : " + operandTypeText(op, 0) + " * " + operandTypeText(op, 1) + " -> " + firstResultType(op).str();
}

// ttng.warp_group_dot_wait %d, %a, %b {pendings = 0 : i32} : D, A, B   (the results repeat the operand types)
std::vector<Type> WarpGroupDotWaitSyntax::parse(ParserImpl& parser, Operation& op) {
  std::vector<OperandRef> refs = parser.parseOperandRefList();
  parser.parseOptionalAttributeDict(op.attributes);
  parser.expect(TokenKind::Colon, "before the operand types");
  std::vector<Type> types = parser.parseTypeList();
  parser.resolveInto(op, refs, types);
  return types;
}

void WarpGroupDotWaitSyntax::print(PrinterImpl& printer, const Operation& op, int) {
  printer.out += " ";
  printer.printUses(op.operands);
  printer.printAttributeDict(op.attributes);
  printer.out += " :";
  for (size_t i = 0; i < op.operands.size(); ++i) printer.out += (i ? ", " : " ") + operandTypeText(op, i);
}

}  // namespace tilesim::text::syntax

// Custom syntax of ttg.warp_specialize, as Triton 3.6 prints it (WarpSpecializeOp::print):
//   %r = ttg.warp_specialize(%a, %b) attributes {requestedRegisters = array<i32: 24>}
//   default {
//     ...
//     ttg.warp_yield %x : T
//   }
//   partition0(%arg7: A loc(unknown), %arg8: B loc(unknown)) num_warps(1) {
//     ...
//     ttg.warp_return
//   } : (A, B) -> T
// The default region has no arguments (it sees the enclosing values); each partition names its own, one per
// operand, and is isolated from above. Each partition's `num_warps(N)` is kept as the dense array attribute
// `partitionNumWarps` (one entry per partition), so the attribute dictionary prints only the other attributes.
#include <charconv>

#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text::syntax {

namespace {

constexpr std::string_view kPartitionWarps = "partitionNumWarps";

// `(%name: T loc(..), ...)` after `partitionN`: the region's entry arguments.
std::vector<PendingArgument> parsePartitionArguments(ParserImpl& parser) {
  std::vector<PendingArgument> arguments;
  parser.expect(TokenKind::LParen, "to open the partition's arguments");
  if (parser.consumeIf(TokenKind::RParen)) return arguments;
  do {
    OperandRef name = parser.parseOperandRef();
    if (name.number != 0) parser.failAt(name.offset, "a partition argument name cannot have '#'");
    PendingArgument argument{name.name, name.offset, Type(), kNoLoc};
    parser.expect(TokenKind::Colon, "after the partition argument's name");
    argument.type = parser.parseType();
    argument.loc = parser.parseOptionalLocation();
    arguments.push_back(argument);
  } while (parser.consumeIf(TokenKind::Comma));
  parser.expect(TokenKind::RParen, "to close the partition's arguments");
  return arguments;
}

int64_t parseNumWarps(ParserImpl& parser) {
  parser.expectKeyword("num_warps", "after the partition's arguments");
  parser.expect(TokenKind::LParen, "after 'num_warps'");
  Token t = parser.expect(TokenKind::Integer, "(the partition's warp count)");
  int64_t value = 0;
  auto [end, error] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), value);
  if (error != std::errc() || end != t.text.data() + t.text.size() || value < 1 || value > 1024)
    parser.failAt(t.offset, "a partition's num_warps must be an integer from 1 to 1024");
  parser.expect(TokenKind::RParen, "to close num_warps");
  return value;
}

}  // namespace

std::vector<Type> WarpSpecializeSyntax::parse(ParserImpl& parser, Operation& op) {
  parser.expect(TokenKind::LParen, "to open warp_specialize's operands");
  std::vector<OperandRef> operands = parser.parseOperandRefList();
  parser.expect(TokenKind::RParen, "to close warp_specialize's operands");
  parseOptionalAttributesKeyword(parser, op);
  parser.expectKeyword("default", "to open warp_specialize's default region");
  if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' to open the default region");
  parser.parseRegion(op, op.addRegion(), nullptr);
  std::vector<int64_t> warps;
  while (parser.at(TokenKind::BareId) && parser.token().text == "partition" + std::to_string(warps.size())) {
    parser.advance();
    std::vector<PendingArgument> arguments = parsePartitionArguments(parser);
    if (arguments.size() != operands.size())
      parser.fail("partition" + std::to_string(warps.size()) + " has " + std::to_string(arguments.size()) +
                  " arguments but warp_specialize has " + std::to_string(operands.size()) + " operands");
    warps.push_back(parseNumWarps(parser));
    if (!parser.at(TokenKind::LBrace)) parser.fail("expected '{' to open the partition's region");
    parser.parseRegion(op, op.addRegion(), &arguments);
  }
  if (parser.at(TokenKind::BareId) && parser.token().text.starts_with("partition"))
    parser.fail("expected partition" + std::to_string(warps.size()) + " (partitions are numbered in order from 0)");
  op.setAttr(std::string(kPartitionWarps), Attribute::denseArray(Type::i32(), warps));
  const auto [type, typeOffset] = resolveOperandsByFunctionType(
      parser, op, operands, "before warp_specialize's function type", "warp_specialize", "operands");
  for (size_t r = 1; r < op.regions.size(); ++r) {  // each partition's arguments have the operands' types
    const Block& entry = op.regions[r]->front();
    for (size_t i = 0; i < entry.arguments.size(); ++i)
      if (entry.arguments[i]->type != op.operands[i]->type)
        parser.failAt(typeOffset, "partition" + std::to_string(r - 1) + "'s argument " + std::to_string(i) + " has type " +
                                      entry.arguments[i]->type.str() + " but operand " + std::to_string(i) + " is " +
                                      op.operands[i]->type.str());
  }
  return resultsOf(type);
}

void WarpSpecializeSyntax::print(PrinterImpl& printer, const Operation& op, int indent) {
  printer.out += "(";
  printer.printUses(op.operands);
  printer.out += ")";
  bool others = false;
  for (const NamedAttribute& entry : op.attributes) others = others || entry.name != kPartitionWarps;
  if (others) {
    printer.out += " attributes {";
    printer.printAttributeDictEntries(op.attributes, {kPartitionWarps});
    printer.out += "}";
  }
  const Attribute* warps = op.attr(kPartitionWarps);
  const std::string margin(static_cast<size_t>(indent), ' ');
  for (size_t r = 0; r < op.regions.size(); ++r) {
    printer.out += "\n" + margin;
    if (r == 0) {
      printer.out += "default ";
    } else {
      printer.out += "partition" + std::to_string(r - 1) + "(";
      const Block* entry = op.regions[r]->empty() ? nullptr : &op.regions[r]->front();
      for (size_t i = 0; entry && i < entry->arguments.size(); ++i) {
        const Value* argument = entry->arguments[i].get();
        printer.out += (i ? ", " : "") + printer.use(argument) + ": " + argument->type.str();
        printer.printLocation(argument->loc);
      }
      const bool known = warps && warps->kind() == Attribute::Kind::DenseArray && r - 1 < warps->arrayValues().size();
      printer.out += ") num_warps(" + (known ? std::to_string(warps->arrayValues()[r - 1]) : std::string("?")) + ") ";
    }
    printer.printRegion(*op.regions[r], indent, false, false, kNoLoc);
  }
  printer.out += " : " + functionTypeOf(op.operands, op);
}

}  // namespace tilesim::text::syntax

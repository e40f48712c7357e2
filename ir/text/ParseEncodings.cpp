// TTGIR text: encoding aliases before the module (`#blocked = #ttg.blocked<{...}>`), encodings written in place
// (`#ttg.slice<{dim = 1, parent = #blocked}>`), the encoding slot of `tensor<4xf32, #blocked>`, memory descriptor
// types (`!ttg.memdesc<2x64xf16, #shared, #smem, mutable>`, and its short form `<...>` after `->` in
// ttg.async_copy_global_to_local) and `!ttg.async.token`. An encoding's parameters are checked here
// (checkEncodingParameters, ir/Encoding.h): a bad one is a diagnostic at its text, never an encoding the engines see.
#include <charconv>

#include "ir/text/ParserImpl.h"

namespace tilesim::text {

namespace {

constexpr int64_t kMaxDimension = int64_t{1} << 31;
constexpr int64_t kMaxListLength = 64;

}  // namespace

std::vector<int64_t> ParserImpl::scanShape(size_t& pos) {
  std::string_view input = lexer_.input();
  std::vector<int64_t> shape;
  while (pos < input.size() && input[pos] >= '0' && input[pos] <= '9') {
    size_t start = pos;
    while (pos < input.size() && input[pos] >= '0' && input[pos] <= '9') ++pos;
    int64_t dim = 0;
    auto [ptr, ec] = std::from_chars(input.data() + start, input.data() + pos, dim);
    if (ec != std::errc() || dim > kMaxDimension) failAt(start, "dimension too large");
    if (pos >= input.size() || input[pos] != 'x') failAt(pos, "expected 'x' after a dimension");
    ++pos;
    shape.push_back(dim);
    if (static_cast<int>(shape.size()) > kMaxTensorRank) failAt(start, "rank above " + std::to_string(kMaxTensorRank));
  }
  if (pos < input.size() && input[pos] == '?') failAt(pos, "dynamic dimensions are not supported");
  return shape;
}

// An encoding parameter's value: an integer, true / false, a list of these, or an encoding.
static Attribute parseEncodingValue(ParserImpl& parser, int depth) {
  if (depth > 4) parser.fail("encoding parameter nested too deeply");
  if (parser.at(TokenKind::HashId)) return Attribute::encodingAttr(parser.parseEncoding());
  if (parser.consumeKeywordIf("true")) return Attribute::boolean(true);
  if (parser.consumeKeywordIf("false")) return Attribute::boolean(false);
  if (parser.consumeIf(TokenKind::LSquare)) {
    std::vector<Attribute> elements;
    if (!parser.consumeIf(TokenKind::RSquare)) {
      do {
        if (static_cast<int64_t>(elements.size()) >= kMaxListLength) parser.fail("encoding list longer than 64");
        elements.push_back(parseEncodingValue(parser, depth + 1));
      } while (parser.consumeIf(TokenKind::Comma));
      parser.expect(TokenKind::RSquare, "to close the list");
    }
    return Attribute::array(std::move(elements));
  }
  const bool negative = parser.consumeIf(TokenKind::Minus);
  Token number = parser.expect(TokenKind::Integer, "(an encoding parameter: integer, true, false, [list] or #encoding)");
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(number.text.data(), number.text.data() + number.text.size(), value);
  if (ec != std::errc() || ptr != number.text.data() + number.text.size()) parser.failAt(number.offset, "bad integer");
  return Attribute::integer(negative ? -value : value, Type());
}

Encoding ParserImpl::parseEncoding() {
  DepthGuard guard(*this);
  if (!at(TokenKind::HashId)) fail("expected an encoding (#name or #ttg.kind<...>)");
  const size_t offset = token_.offset;
  std::string_view text = token_.text.substr(1);
  std::optional<EncodingKind> kind = encodingKindByMnemonic(text);
  if (!kind) {
    auto it = encodingAliases_.find(std::string(text));
    if (it == encodingAliases_.end()) {
      if (text.rfind("ttg.", 0) == 0 || text.rfind("ttng.", 0) == 0)
        fail("unsupported encoding #" + std::string(text) + " (supported: blocked, slice, nvidia_mma, dot_op, linear, swizzled_shared, nvmma_shared, shared_memory)");
      fail("undefined encoding alias #" + std::string(text));
    }
    advance();
    return it->second;
  }
  advance();
  std::vector<NamedAttribute> params;
  if (*kind != EncodingKind::SharedMemory) {
    expect(TokenKind::Less, "after the encoding name");
    expect(TokenKind::LBrace, "to open the encoding parameters");
    if (!consumeIf(TokenKind::RBrace)) {
      do {
        if (!at(TokenKind::BareId)) fail("expected an encoding parameter name");
        std::string name(token_.text);
        advance();
        expect(TokenKind::Equal, "after the encoding parameter name");
        params.push_back(NamedAttribute{name, parseEncodingValue(*this, 0)});
      } while (consumeIf(TokenKind::Comma));
      expect(TokenKind::RBrace, "to close the encoding parameters");
    }
    expect(TokenKind::Greater, "to close the encoding");
  }
  if (std::string problem = checkEncodingParameters(*kind, params); !problem.empty()) failAt(offset, problem);
  return Encoding::get(*kind, std::move(params));
}

void ParserImpl::parseEncodingAliasDefinition(const std::string& name, size_t nameOffset, bool beforeModule) {
  if (!beforeModule) failAt(nameOffset, "encoding alias #" + name + " after the module (Triton prints them before it)");
  if (encodingAliases_.count(name) || aliases_.count(name)) failAt(nameOffset, "redefinition of alias #" + name);
  Encoding encoding = parseEncoding();
  size_t locationsBefore = 0;
  for (const LocationAlias& alias : module_->locations.aliases()) locationsBefore += alias.beforeModule ? 1 : 0;
  encodingAliases_.emplace(name, encoding);
  module_->encodingAliases.push_back(EncodingAlias{name, encoding, locationsBefore});
}

Type ParserImpl::finishMemDescType(size_t pos) {
  std::vector<int64_t> shape = scanShape(pos);
  lexer_.setPosition(pos);
  advance();
  size_t elementOffset = token_.offset;
  Type element = parseType();
  if (!element.isScalar()) failAt(elementOffset, "a memory descriptor's element type must be a scalar");
  expect(TokenKind::Comma, "before the memory descriptor's encoding");
  size_t encodingOffset = token_.offset;
  Encoding encoding = parseEncoding();
  if (!encoding.isShared()) failAt(encodingOffset, "a memory descriptor's encoding must be a shared encoding, got " + encoding.str());
  expect(TokenKind::Comma, "before the memory descriptor's memory space");
  size_t spaceOffset = token_.offset;
  Encoding space = parseEncoding();
  if (space.kind() != EncodingKind::SharedMemory) failAt(spaceOffset, "a memory descriptor's memory space must be #ttg.shared_memory");
  bool mutableMemory = false;
  if (consumeIf(TokenKind::Comma)) {
    if (!consumeKeywordIf("mutable"))
      fail("expected 'mutable' (an allocation shape after it is not supported yet)");
    mutableMemory = true;
    if (at(TokenKind::Comma)) fail("a memory descriptor's allocation shape is not supported yet");
  }
  expect(TokenKind::Greater, "to close the memory descriptor type");
  if (shape.empty()) failAt(elementOffset, "a memory descriptor needs at least one dimension");
  return Type::memDesc(shape, element, encoding, space, mutableMemory);
}

}  // namespace tilesim::text

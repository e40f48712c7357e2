// Attributes of TTIR text: integer/float/bool/string/symbol values, `array<i32: ...>`, `dense<...> : tensor<...>`
// (splat, nested lists flattened row-major, or one hex blob "0x..."), type attributes, arrays and dictionaries.
// A literal that does not fit its type (`300 : i8`, `1.0e+400 : f32`) or a dense list whose count differs from the
// tensor's is a diagnostic, never a wrapped or rounded value.
#include <charconv>
#include <unordered_set>

#include "ir/text/FloatText.h"
#include "ir/text/ParserImpl.h"

namespace tilesim::text {

namespace {

// Parses the magnitude of an integer literal (decimal or hex); false on overflow of 64 bits.
bool integerMagnitude(std::string_view text, uint64_t& value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && text[1] == 'x') {
    text.remove_prefix(2);
    base = 16;
  }
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// Integer value of `literal` (with sign) checked against `width` bits: accepts the signed and unsigned ranges,
// returns the value sign-extended from `width` bits (i1 stays 0 / 1).
std::optional<int64_t> integerForWidth(std::string_view literal, bool negative, int width) {
  uint64_t magnitude = 0;
  if (!integerMagnitude(literal, magnitude)) return std::nullopt;
  if (negative) {
    if (width == 1 ? magnitude > 1 : magnitude > (uint64_t{1} << (width - 1))) return std::nullopt;
    uint64_t bits = (~magnitude + 1);
    if (width == 1) return magnitude ? 1 : 0;
    if (width == 64) return static_cast<int64_t>(bits);
    bits &= (uint64_t{1} << width) - 1;
    int64_t value = static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
    return value;
  }
  if (width < 64 && magnitude >> width) return std::nullopt;
  if (width == 1) return static_cast<int64_t>(magnitude);
  if (width == 64) return static_cast<int64_t>(magnitude);
  return static_cast<int64_t>(magnitude << (64 - width)) >> (64 - width);
}

// A number token as written: its kind (Integer or Float), text, sign and where it starts.
struct NumberLiteral {
  TokenKind kind;
  std::string_view text;
  bool negative = false;
  size_t offset = 0;
};

// The bits of a float literal of float type `type`: a hex pattern (`0x7FC00000`) as is, a decimal rounded to
// nearest even; a finite literal that rounds to infinity (1.0e+400 : f32) is an error.
uint64_t floatLiteralBits(ParserImpl& parser, const NumberLiteral& literal, Type type) {
  const ScalarKind kind = type.scalarKind();
  if (literal.kind == TokenKind::Integer && literal.text.size() > 2 && literal.text[1] == 'x') {
    std::optional<uint64_t> bits = parseHexBits(literal.text, bitWidth(kind));
    if (!bits || literal.negative) parser.failAt(literal.offset, "hex float literal does not fit " + type.str());
    return *bits;
  }
  std::optional<uint64_t> bits = parseDecimalFloat(literal.text, literal.negative, kind);
  if (!bits) parser.failAt(literal.offset, "bad float literal");
  if (!isFiniteFloatBits(*bits, kind))
    parser.failAt(literal.offset, "float literal " + std::string(literal.text) + " is out of range for " + type.str());
  return *bits;
}

// The elements of `dense<...>` up to its `>`, nested lists flattened; `list` says whether they were bracketed
// (a single unbracketed literal is a splat). An element is a number, true / false or a string (the hex blob).
std::vector<NumberLiteral> parseDenseLiterals(ParserImpl& parser, bool& list) {
  std::vector<NumberLiteral> literals;
  list = parser.at(TokenKind::LSquare);
  auto literal = [&] {
    const Token& token = parser.token();
    NumberLiteral lit{token.kind, token.text, false, token.offset};
    if (parser.consumeIf(TokenKind::Minus)) {
      lit = NumberLiteral{parser.token().kind, parser.token().text, true, lit.offset};
      if (!parser.at(TokenKind::Integer) && !parser.at(TokenKind::Float)) parser.fail("expected a number after '-'");
    } else if (!parser.at(TokenKind::Integer) && !parser.at(TokenKind::Float) && !parser.atKeyword("true") &&
               !parser.atKeyword("false") && !parser.at(TokenKind::String)) {
      parser.fail("expected a dense element literal");
    }
    parser.advance();
    literals.push_back(lit);
  };
  if (parser.at(TokenKind::Greater)) return literals;
  int nesting = 0;
  for (;;) {
    if (parser.at(TokenKind::LSquare)) {
      if (++nesting > kMaxTensorRank) parser.fail("dense list nested too deeply");
      parser.advance();
      if (!parser.at(TokenKind::RSquare)) continue;
      parser.advance();
      --nesting;
    } else {
      literal();
    }
    while (nesting > 0 && parser.consumeIf(TokenKind::RSquare)) --nesting;
    if (nesting == 0) break;
    parser.expect(TokenKind::Comma, "between dense elements");
  }
  return literals;
}

// dense<"0xAABBCCDD"> : the little-endian bytes of one element (a splat) or of every element.
Attribute denseFromHexBlob(ParserImpl& parser, const NumberLiteral& blobLiteral, Type type) {
  const ScalarKind kind = type.element().scalarKind();
  std::string blob;
  if (!decodeStringLiteral(blobLiteral.text, blob) || blob.size() < 2 || blob.substr(0, 2) != "0x" || blob.size() % 2)
    parser.failAt(blobLiteral.offset, "expected a hex string \"0x...\" in dense<...>");
  std::vector<uint8_t> bytes;
  for (size_t i = 2; i < blob.size(); i += 2) {
    unsigned byte = 0;
    auto [ptr, ec] = std::from_chars(blob.data() + i, blob.data() + i + 2, byte, 16);
    if (ec != std::errc() || ptr != blob.data() + i + 2) parser.failAt(blobLiteral.offset, "bad hex digit in dense<\"0x...\">");
    bytes.push_back(static_cast<uint8_t>(byte));
  }
  const int64_t count = type.numElements();
  const size_t elementBytes = static_cast<size_t>(storageBytes(kind));
  const size_t n = bytes.size() / elementBytes;
  if (bytes.size() % elementBytes || (n != 1 && static_cast<int64_t>(n) != count))
    parser.failAt(blobLiteral.offset, "hex dense data has " + std::to_string(bytes.size()) + " bytes, expected " +
                                          std::to_string(count * static_cast<int64_t>(elementBytes)));
  std::vector<uint64_t> bits;
  for (size_t e = 0; e < n; ++e) {
    uint64_t value = 0;
    for (size_t b = 0; b < elementBytes; ++b) value |= uint64_t{bytes[e * elementBytes + b]} << (8 * b);
    bits.push_back(bitWidth(kind) == 1 ? (value & 1) : value);
  }
  return Attribute::dense(type, std::move(bits));
}

// One dense element's bits for element type `element`.
uint64_t denseElementBits(ParserImpl& parser, const NumberLiteral& lit, Type element) {
  const ScalarKind kind = element.scalarKind();
  const int width = bitWidth(kind);
  if (lit.kind == TokenKind::BareId) {
    if (kind != ScalarKind::I1) parser.failAt(lit.offset, "true/false in a non-i1 dense attribute");
    return lit.text == "true" ? 1 : 0;
  }
  if (lit.kind == TokenKind::String) parser.failAt(lit.offset, "a hex string must be the only dense element");
  if (!isIntegerKind(kind)) return floatLiteralBits(parser, lit, element);
  if (lit.kind == TokenKind::Float) parser.failAt(lit.offset, "float literal in an integer dense attribute");
  std::optional<int64_t> value = integerForWidth(lit.text, lit.negative, width);
  if (!value) parser.failAt(lit.offset, "integer " + std::string(lit.text) + " does not fit " + element.str());
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  return static_cast<uint64_t>(*value) & mask;
}

// dense<...> : tensor<...> (the current token is `dense`)
Attribute parseDenseAttribute(ParserImpl& parser) {
  parser.advance();
  parser.expect(TokenKind::Less, "after 'dense'");
  bool list = false;
  std::vector<NumberLiteral> literals = parseDenseLiterals(parser, list);
  parser.expect(TokenKind::Greater, "to close dense<...>");
  parser.expect(TokenKind::Colon, "after dense<...>");
  const size_t typeOffset = parser.token().offset;
  Type type = parser.parseType();
  if (!type.isTensor()) parser.failAt(typeOffset, "dense attribute needs a tensor type");
  if (!type.element().isScalar()) parser.failAt(typeOffset, "dense attribute of pointers");
  if (literals.size() == 1 && literals[0].kind == TokenKind::String) return denseFromHexBlob(parser, literals[0], type);
  const int64_t count = type.numElements();
  if (!(literals.size() == 1 && !list) && static_cast<int64_t>(literals.size()) != count)
    parser.failAt(typeOffset, "dense attribute has " + std::to_string(literals.size()) + " elements but " + type.str() +
                                  " has " + std::to_string(count));
  std::vector<uint64_t> bits;
  for (const NumberLiteral& lit : literals) bits.push_back(denseElementBits(parser, lit, type.element()));
  return Attribute::dense(type, std::move(bits));
}

// array<i32: 1, -2> or array<i1: true, false> (the current token is `array`)
Attribute parseDenseArrayAttribute(ParserImpl& parser) {
  parser.advance();
  parser.expect(TokenKind::Less, "after 'array'");
  const size_t typeOffset = parser.token().offset;
  Type element = parser.parseType();
  if (!element.isScalar() || !element.isInteger()) parser.failAt(typeOffset, "array<...> supports integer elements only");
  std::vector<int64_t> values;
  if (parser.consumeIf(TokenKind::Colon)) {
    do {
      if (parser.consumeKeywordIf("true")) {
        values.push_back(1);
        continue;
      }
      if (parser.consumeKeywordIf("false")) {
        values.push_back(0);
        continue;
      }
      bool negative = parser.consumeIf(TokenKind::Minus);
      Token t = parser.expect(TokenKind::Integer, "in array<...>");
      std::optional<int64_t> value = integerForWidth(t.text, negative, element.bitWidth());
      if (!value) parser.failAt(t.offset, "integer does not fit " + element.str());
      values.push_back(*value);
    } while (parser.consumeIf(TokenKind::Comma));
  }
  parser.expect(TokenKind::Greater, "to close array<...>");
  return Attribute::denseArray(element, std::move(values));
}

// `-3`, `7 : i32`, `1.5 : f16`, `0x7FC00000 : f32`; an untyped integer keeps no type, an untyped float is f64.
Attribute parseNumberAttribute(ParserImpl& parser) {
  const bool negative = parser.consumeIf(TokenKind::Minus);
  const Token number = parser.token();
  if (!parser.at(TokenKind::Integer) && !parser.at(TokenKind::Float)) parser.fail("expected a number after '-'");
  parser.advance();
  Type type;
  if (parser.consumeIf(TokenKind::Colon)) {
    const size_t typeOffset = parser.token().offset;
    type = parser.parseType();
    if (!type.isScalar()) parser.failAt(typeOffset, "a number attribute needs a scalar type, got " + type.str());
  } else if (number.kind == TokenKind::Float) {
    type = Type::f64();
  }
  if (!type.isValid()) {
    uint64_t magnitude = 0;
    if (!integerMagnitude(number.text, magnitude) || magnitude > (uint64_t{1} << 63) || (!negative && magnitude >> 63))
      parser.failAt(number.offset, "integer literal out of range");
    return Attribute::integer(negative ? static_cast<int64_t>(~magnitude + 1) : static_cast<int64_t>(magnitude), Type());
  }
  if (type.isInteger()) {
    if (number.kind == TokenKind::Float) parser.failAt(number.offset, "float literal with integer type " + type.str());
    std::optional<int64_t> value = integerForWidth(number.text, negative, type.bitWidth());
    if (!value) parser.failAt(number.offset, "integer " + std::string(number.text) + " does not fit " + type.str());
    return Attribute::integer(*value, type);
  }
  return Attribute::floating(floatLiteralBits(parser, NumberLiteral{number.kind, number.text, negative, number.offset}, type),
                             type);
}

// A bare word: true / false / unit, dense<...>, array<...>, a type, else a Keyword attribute.
Attribute parseWordAttribute(ParserImpl& parser) {
  if (parser.consumeKeywordIf("true")) return Attribute::boolean(true);
  if (parser.consumeKeywordIf("false")) return Attribute::boolean(false);
  if (parser.consumeKeywordIf("unit")) return Attribute::unit();
  if (parser.atKeyword("dense")) return parseDenseAttribute(parser);
  if (parser.atKeyword("array")) return parseDenseArrayAttribute(parser);
  if (parser.atType()) return Attribute::typeAttr(parser.parseType());
  std::string word(parser.token().text);
  parser.advance();
  return Attribute::keyword(std::move(word));
}

}  // namespace

Attribute ParserImpl::parseAttribute() {
  DepthGuard guard(*this);
  switch (token_.kind) {
    case TokenKind::BareId: return parseWordAttribute(*this);
    case TokenKind::Minus:
    case TokenKind::Integer:
    case TokenKind::Float: return parseNumberAttribute(*this);
    case TokenKind::String: return Attribute::string(parseStringLiteral());
    case TokenKind::AtId: return Attribute::symbolRef(parseSymbolName());
    case TokenKind::LSquare: {
      advance();
      std::vector<Attribute> elements;
      if (!consumeIf(TokenKind::RSquare)) {
        do elements.push_back(parseAttribute());
        while (consumeIf(TokenKind::Comma));
        expect(TokenKind::RSquare, "to close the array attribute");
      }
      return Attribute::array(std::move(elements));
    }
    case TokenKind::LBrace: {
      std::vector<NamedAttribute> entries;
      parseAttributeDict(entries);
      return Attribute::dictionary(std::move(entries));
    }
    case TokenKind::ExclaimId:
    case TokenKind::LParen: return Attribute::typeAttr(parseType());
    case TokenKind::HashId: return Attribute::encodingAttr(parseEncoding());  // TTGIR layouts; anything else is an error there
    default: break;
  }
  fail(at(TokenKind::Eof) ? "expected an attribute value, found end of input"
                          : "expected an attribute value, found '" + std::string(token_.text) + "'");
}

void ParserImpl::parseAttributeDict(std::vector<NamedAttribute>& into) {
  DepthGuard guard(*this);
  expect(TokenKind::LBrace, "to open an attribute dictionary");
  if (consumeIf(TokenKind::RBrace)) return;
  std::unordered_set<std::string> seen;
  for (const NamedAttribute& existing : into) seen.insert(existing.name);
  do {
    std::string name;
    size_t nameOffset = token_.offset;
    if (at(TokenKind::BareId)) {
      name = std::string(token_.text);
      advance();
    } else if (at(TokenKind::String)) {
      name = parseStringLiteral();
    } else {
      fail("expected an attribute name");
    }
    if (!seen.insert(name).second) failAt(nameOffset, "duplicate attribute '" + name + "'");  // n log n, not n^2
    Attribute value = consumeIf(TokenKind::Equal) ? parseAttribute() : Attribute::unit();
    into.push_back(NamedAttribute{std::move(name), std::move(value)});
  } while (consumeIf(TokenKind::Comma));
  expect(TokenKind::RBrace, "to close the attribute dictionary");
}

void ParserImpl::parseOptionalAttributeDict(std::vector<NamedAttribute>& into) {
  if (at(TokenKind::LBrace)) parseAttributeDict(into);
}

}  // namespace tilesim::text

// Types and attributes of TTIR text: scalars, `tensor<4x8xf32>` (shape rescanned from the raw text),
// `!tt.ptr<T[, addrspace]>` and its short form `<T>`, function types; integer/float/bool/string/symbol
// attributes, `array<i32: ...>`, `dense<...> : tensor<...>` (splat, nested lists, hex blob), arrays and
// dictionaries. Everything that would trip an assertion in ir/ (tensor of tensors, huge shapes) is a diagnostic.
#include <charconv>
#include <unordered_set>

#include "ir/text/FloatText.h"
#include "ir/text/ParserImpl.h"

namespace tilesim::text {

namespace {

std::optional<ScalarKind> scalarKindByName(std::string_view name) {
  static const std::pair<std::string_view, ScalarKind> kinds[] = {
      {"i1", ScalarKind::I1},       {"i8", ScalarKind::I8},         {"i16", ScalarKind::I16},
      {"i32", ScalarKind::I32},     {"i64", ScalarKind::I64},       {"f8E4M3FN", ScalarKind::F8E4M3FN},
      {"f8E5M2", ScalarKind::F8E5M2}, {"f16", ScalarKind::F16},     {"bf16", ScalarKind::BF16},
      {"f32", ScalarKind::F32},     {"f64", ScalarKind::F64}};
  for (const auto& [text, kind] : kinds)
    if (text == name) return kind;
  return std::nullopt;
}

// `i32`, and the signed / unsigned integers Triton prints in tensor descriptor blocks: `si32`, `ui8`.
std::optional<Type> scalarTypeByName(std::string_view name) {
  if (std::optional<ScalarKind> kind = scalarKindByName(name)) return Type::scalar(*kind);
  if (name.size() < 3 || (name[0] != 's' && name[0] != 'u') || name[1] != 'i') return std::nullopt;
  std::optional<ScalarKind> kind = scalarKindByName(name.substr(1));
  if (!kind || !isIntegerKind(*kind)) return std::nullopt;
  return Type::scalar(*kind, name[0] == 's' ? Signedness::Signed : Signedness::Unsigned);
}

constexpr int64_t kMaxDimension = int64_t{1} << 31;
constexpr int64_t kMaxElements = int64_t{1} << 40;
constexpr int kMaxRank = 16;

// A literal inside dense<...>, converted once the tensor type is known.
struct DenseLiteral {
  TokenKind kind;
  std::string_view text;
  bool negative = false;
  size_t offset = 0;
};

}  // namespace

bool ParserImpl::atType() const {
  switch (token_.kind) {
    case TokenKind::BareId: return token_.text == "tensor" || scalarTypeByName(token_.text).has_value();
    case TokenKind::ExclaimId:
    case TokenKind::LParen: return true;
    default: return false;
  }
}

Type ParserImpl::parseType() {
  DepthGuard guard(*this);
  if (at(TokenKind::BareId)) {
    if (std::optional<Type> scalar = scalarTypeByName(token_.text)) {
      advance();
      return *scalar;
    }
    if (token_.text != "tensor") fail("unknown type '" + std::string(token_.text) + "'");
    // The shape is not tokenizable (`16x32xf32`); rescan it from the raw text right after `tensor`.
    std::string_view input = lexer_.input();
    size_t pos = token_.offset + token_.text.size();
    if (pos >= input.size() || input[pos] != '<') failAt(pos, "expected '<' after 'tensor'");
    ++pos;
    std::vector<int64_t> shape;
    int64_t elements = 1;
    while (pos < input.size() && input[pos] >= '0' && input[pos] <= '9') {
      size_t start = pos;
      while (pos < input.size() && input[pos] >= '0' && input[pos] <= '9') ++pos;
      int64_t dim = 0;
      auto [ptr, ec] = std::from_chars(input.data() + start, input.data() + pos, dim);
      if (ec != std::errc() || dim > kMaxDimension) failAt(start, "tensor dimension too large");
      if (pos >= input.size() || input[pos] != 'x') failAt(pos, "expected 'x' after a tensor dimension");
      ++pos;
      elements *= dim == 0 ? 1 : dim;
      if (elements > kMaxElements) failAt(start, "tensor has too many elements");
      shape.push_back(dim);
      if (static_cast<int>(shape.size()) > kMaxRank) failAt(start, "tensor rank above " + std::to_string(kMaxRank));
    }
    if (pos < input.size() && input[pos] == '?') failAt(pos, "dynamic tensor dimensions are not supported");
    lexer_.setPosition(pos);
    advance();
    size_t elementOffset = token_.offset;
    Type element = parseType();
    if (!element.isScalar() && !element.isPointer()) failAt(elementOffset, "tensor element type must be a scalar or a pointer");
    if (at(TokenKind::Comma)) fail("tensor encodings (layouts) are not supported in TTIR");
    expect(TokenKind::Greater, "to close tensor<...>");
    return Type::tensor(shape, element);
  }
  if (at(TokenKind::ExclaimId) && token_.text == "!tt.tensordesc") {
    advance();
    expect(TokenKind::Less, "after '!tt.tensordesc'");
    return finishTensorDescType();
  }
  if (at(TokenKind::ExclaimId)) {
    if (token_.text != "!tt.ptr") fail("unknown type '" + std::string(token_.text) + "'");
    advance();
    expect(TokenKind::Less, "after '!tt.ptr'");
  } else if (at(TokenKind::Less)) {
    advance();  // `<tensor<...>>`: the pointer type as tt.make_tensor_ptr / tt.advance print it
  } else if (at(TokenKind::LParen)) {
    return parseFunctionType();
  } else {
    fail(at(TokenKind::Eof) ? "expected a type, found end of input" : "expected a type, found '" + std::string(token_.text) + "'");
  }
  Type pointee = parseType();
  if (pointee.isFunction()) fail("pointer to a function type");
  int addressSpace = 1;
  if (consumeIf(TokenKind::Comma)) {
    Token t = expect(TokenKind::Integer, "(address space)");
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), addressSpace);
    if (ec != std::errc() || ptr != t.text.data() + t.text.size() || addressSpace > 65535) failAt(t.offset, "bad address space");
  }
  expect(TokenKind::Greater, "to close the pointer type");
  return Type::pointer(pointee, addressSpace);
}

// The rest of `!tt.tensordesc<tensor<...>>` (or of its short form `<tensor<...>>`) after the `<`.
Type ParserImpl::finishTensorDescType() {
  size_t blockOffset = token_.offset;
  Type block = parseType();
  if (!block.isTensor() || !block.element().isScalar())
    failAt(blockOffset, "a tensor descriptor's block must be a tensor of scalars, got " + block.str());
  expect(TokenKind::Greater, "to close the tensor descriptor type");
  return Type::tensorDesc(block);
}

std::vector<Type> ParserImpl::parseTypeList() {
  std::vector<Type> types;
  do types.push_back(parseType());
  while (consumeIf(TokenKind::Comma));
  return types;
}

std::vector<Type> ParserImpl::parseResultTypeList() {
  if (!at(TokenKind::LParen)) return {parseType()};
  advance();
  if (consumeIf(TokenKind::RParen)) return {};
  std::vector<Type> types = parseTypeList();
  expect(TokenKind::RParen, "to close the type list");
  return types;
}

Type ParserImpl::parseFunctionType() {
  DepthGuard guard(*this);
  expect(TokenKind::LParen, "to open a function type");
  std::vector<Type> inputs;
  if (!consumeIf(TokenKind::RParen)) {
    inputs = parseTypeList();
    expect(TokenKind::RParen, "to close the function inputs");
  }
  expect(TokenKind::Arrow, "in a function type");
  std::vector<Type> results = parseResultTypeList();
  return Type::function(inputs, results);
}

std::string ParserImpl::parseStringLiteral() {
  Token t = expect(TokenKind::String, "(a string)");
  std::string value;
  if (!decodeStringLiteral(t.text, value)) failAt(t.offset, "bad escape in string");
  return value;
}

std::string ParserImpl::parseSymbolName() {
  Token t = expect(TokenKind::AtId, "(a symbol)");
  std::string_view body = t.text.substr(1);
  if (!body.empty() && body[0] == '"') {
    std::string value;
    if (!decodeStringLiteral(body, value)) failAt(t.offset, "bad escape in symbol name");
    return value;
  }
  return std::string(body);
}

std::string ParserImpl::parseKeywordWord(std::string_view context) {
  if (!at(TokenKind::BareId)) fail("expected " + std::string(context));
  std::string word(token_.text);
  advance();
  return word;
}

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

}  // namespace

// Integer value of `literal` (with sign) checked against `width` bits: accepts the signed and unsigned ranges,
// returns the value sign-extended from `width` bits (i1 stays 0 / 1).
static std::optional<int64_t> integerForWidth(std::string_view literal, bool negative, int width) {
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

Attribute ParserImpl::parseAttribute() {
  DepthGuard guard(*this);
  switch (token_.kind) {
    case TokenKind::BareId: {
      if (consumeKeywordIf("true")) return Attribute::boolean(true);
      if (consumeKeywordIf("false")) return Attribute::boolean(false);
      if (consumeKeywordIf("unit")) return Attribute::unit();
      if (atKeyword("dense")) {
        advance();
        expect(TokenKind::Less, "after 'dense'");
        std::vector<DenseLiteral> literals;
        bool list = at(TokenKind::LSquare);
        int nesting = 0;
        auto literal = [&] {
          DenseLiteral lit{token_.kind, token_.text, false, token_.offset};
          if (consumeIf(TokenKind::Minus)) {
            lit = DenseLiteral{token_.kind, token_.text, true, lit.offset};
            if (!at(TokenKind::Integer) && !at(TokenKind::Float)) fail("expected a number after '-'");
          } else if (!at(TokenKind::Integer) && !at(TokenKind::Float) && !atKeyword("true") && !atKeyword("false") &&
                     !at(TokenKind::String)) {
            fail("expected a dense element literal");
          }
          advance();
          literals.push_back(lit);
        };
        // Nested lists are flattened in row-major order; the count is checked against the type.
        std::vector<bool> open;
        if (!at(TokenKind::Greater)) {
          for (;;) {
            if (at(TokenKind::LSquare)) {
              if (++nesting > kMaxRank) fail("dense list nested too deeply");
              advance();
              if (at(TokenKind::RSquare)) {
                advance();
                --nesting;
              } else {
                continue;
              }
            } else {
              literal();
            }
            while (nesting > 0 && consumeIf(TokenKind::RSquare)) --nesting;
            if (nesting == 0) break;
            expect(TokenKind::Comma, "between dense elements");
          }
        }
        expect(TokenKind::Greater, "to close dense<...>");
        expect(TokenKind::Colon, "after dense<...>");
        size_t typeOffset = token_.offset;
        Type type = parseType();
        if (!type.isTensor()) failAt(typeOffset, "dense attribute needs a tensor type");
        Type element = type.element();
        if (!element.isScalar()) failAt(typeOffset, "dense attribute of pointers");
        ScalarKind kind = element.scalarKind();
        int width = bitWidth(kind);
        int64_t count = type.numElements();
        std::vector<uint64_t> bits;
        if (literals.size() == 1 && literals[0].kind == TokenKind::String) {
          std::string blob;
          if (!decodeStringLiteral(literals[0].text, blob) || blob.size() < 2 || blob.substr(0, 2) != "0x" || blob.size() % 2)
            failAt(literals[0].offset, "expected a hex string \"0x...\" in dense<...>");
          std::vector<uint8_t> bytes;
          for (size_t i = 2; i < blob.size(); i += 2) {
            unsigned byte = 0;
            auto [ptr, ec] = std::from_chars(blob.data() + i, blob.data() + i + 2, byte, 16);
            if (ec != std::errc() || ptr != blob.data() + i + 2) failAt(literals[0].offset, "bad hex digit in dense<\"0x...\">");
            bytes.push_back(static_cast<uint8_t>(byte));
          }
          size_t elementBytes = static_cast<size_t>(storageBytes(kind));
          size_t n = bytes.size() / elementBytes;
          if (bytes.size() % elementBytes || (n != 1 && static_cast<int64_t>(n) != count))
            failAt(literals[0].offset, "hex dense data has " + std::to_string(bytes.size()) + " bytes, expected " +
                                           std::to_string(count * static_cast<int64_t>(elementBytes)));
          for (size_t e = 0; e < n; ++e) {
            uint64_t value = 0;
            for (size_t b = 0; b < elementBytes; ++b) value |= uint64_t{bytes[e * elementBytes + b]} << (8 * b);
            bits.push_back(width == 1 ? (value & 1) : value);
          }
          return Attribute::dense(type, std::move(bits));
        }
        if (!(literals.size() == 1 && !list) && static_cast<int64_t>(literals.size()) != count)
          failAt(typeOffset, "dense attribute has " + std::to_string(literals.size()) + " elements but " + type.str() +
                                 " has " + std::to_string(count));
        uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
        for (const DenseLiteral& lit : literals) {
          if (lit.kind == TokenKind::BareId) {
            if (kind != ScalarKind::I1) failAt(lit.offset, "true/false in a non-i1 dense attribute");
            bits.push_back(lit.text == "true" ? 1 : 0);
          } else if (lit.kind == TokenKind::String) {
            failAt(lit.offset, "a hex string must be the only dense element");
          } else if (isIntegerKind(kind)) {
            if (lit.kind == TokenKind::Float) failAt(lit.offset, "float literal in an integer dense attribute");
            std::optional<int64_t> value = integerForWidth(lit.text, lit.negative, width);
            if (!value) failAt(lit.offset, "integer " + std::string(lit.text) + " does not fit " + element.str());
            bits.push_back(static_cast<uint64_t>(*value) & mask);
          } else if (lit.kind == TokenKind::Integer && lit.text.size() > 2 && lit.text[1] == 'x') {
            std::optional<uint64_t> value = parseHexBits(lit.text, width);
            if (!value || lit.negative) failAt(lit.offset, "hex float literal does not fit " + element.str());
            bits.push_back(*value);
          } else {
            std::optional<uint64_t> value = parseDecimalFloat(lit.text, lit.negative, kind);
            if (!value) failAt(lit.offset, "bad float literal");
            if (!isFiniteFloatBits(*value, kind))
              failAt(lit.offset, "float literal " + std::string(lit.text) + " is out of range for " + element.str());
            bits.push_back(*value);
          }
        }
        return Attribute::dense(type, std::move(bits));
      }
      if (atKeyword("array")) {
        advance();
        expect(TokenKind::Less, "after 'array'");
        size_t typeOffset = token_.offset;
        Type element = parseType();
        if (!element.isScalar() || !element.isInteger()) failAt(typeOffset, "array<...> supports integer elements only");
        std::vector<int64_t> values;
        if (consumeIf(TokenKind::Colon)) {
          do {
            if (consumeKeywordIf("true")) {
              values.push_back(1);
              continue;
            }
            if (consumeKeywordIf("false")) {
              values.push_back(0);
              continue;
            }
            bool negative = consumeIf(TokenKind::Minus);
            Token t = expect(TokenKind::Integer, "in array<...>");
            std::optional<int64_t> value = integerForWidth(t.text, negative, element.bitWidth());
            if (!value) failAt(t.offset, "integer does not fit " + element.str());
            values.push_back(*value);
          } while (consumeIf(TokenKind::Comma));
        }
        expect(TokenKind::Greater, "to close array<...>");
        return Attribute::denseArray(element, std::move(values));
      }
      if (atType()) return Attribute::typeAttr(parseType());
      std::string word(token_.text);
      advance();
      return Attribute::keyword(std::move(word));
    }
    case TokenKind::Minus:
    case TokenKind::Integer:
    case TokenKind::Float: {
      bool negative = consumeIf(TokenKind::Minus);
      Token number = token_;
      if (!at(TokenKind::Integer) && !at(TokenKind::Float)) fail("expected a number after '-'");
      advance();
      Type type;
      if (consumeIf(TokenKind::Colon)) {
        size_t typeOffset = token_.offset;
        type = parseType();
        if (!type.isScalar()) failAt(typeOffset, "a number attribute needs a scalar type, got " + type.str());
      } else if (number.kind == TokenKind::Float) {
        type = Type::f64();
      }
      if (!type.isValid()) {
        uint64_t magnitude = 0;
        if (!integerMagnitude(number.text, magnitude) || magnitude > (uint64_t{1} << 63) || (!negative && magnitude >> 63))
          failAt(number.offset, "integer literal out of range");
        return Attribute::integer(negative ? static_cast<int64_t>(~magnitude + 1) : static_cast<int64_t>(magnitude), Type());
      }
      if (type.isInteger()) {
        if (number.kind == TokenKind::Float) failAt(number.offset, "float literal with integer type " + type.str());
        std::optional<int64_t> value = integerForWidth(number.text, negative, type.bitWidth());
        if (!value) failAt(number.offset, "integer " + std::string(number.text) + " does not fit " + type.str());
        return Attribute::integer(*value, type);
      }
      ScalarKind kind = type.scalarKind();
      if (number.kind == TokenKind::Integer && number.text.size() > 2 && number.text[1] == 'x') {
        std::optional<uint64_t> bits = parseHexBits(number.text, bitWidth(kind));
        if (!bits || negative) failAt(number.offset, "hex float literal does not fit " + type.str());
        return Attribute::floating(*bits, type);
      }
      std::optional<uint64_t> bits = parseDecimalFloat(number.text, negative, kind);
      if (!bits) failAt(number.offset, "bad float literal");
      if (!isFiniteFloatBits(*bits, kind))  // a finite literal that rounds to infinity (1.0e+400 : f32)
        failAt(number.offset, "float literal " + std::string(number.text) + " is out of range for " + type.str());
      return Attribute::floating(*bits, type);
    }
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
    case TokenKind::HashId: fail("attribute aliases and dialect attributes (#...) are not supported");
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

// Types of TTIR text: scalars, `tensor<4x8xf32>` (shape rescanned from the raw text), `!tt.ptr<T[, addrspace]>`
// and its short form `<T>`, `!tt.tensordesc<tensor<...>>`, function types; and the words, strings and symbol names
// op syntax reads. Everything that would trip an assertion in ir/ (tensor of tensors, huge shapes) is a
// diagnostic. Attributes are in ParseAttributes.cpp.
#include <charconv>

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

constexpr int64_t kMaxElements = int64_t{1} << 40;

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
    const size_t shapeOffset = pos;
    std::vector<int64_t> shape = scanShape(pos);
    int64_t elements = 1;
    for (int64_t dim : shape) {
      elements *= dim == 0 ? 1 : dim;
      if (elements > kMaxElements) failAt(shapeOffset, "tensor has too many elements");
    }
    lexer_.setPosition(pos);
    advance();
    size_t elementOffset = token_.offset;
    Type element = parseType();
    if (!element.isScalar() && !element.isPointer()) failAt(elementOffset, "tensor element type must be a scalar or a pointer");
    Encoding encoding;
    if (consumeIf(TokenKind::Comma)) {
      size_t encodingOffset = token_.offset;
      encoding = parseEncoding();
      if (encoding.kind() == EncodingKind::SharedMemory) failAt(encodingOffset, "#ttg.shared_memory is a memory space, not a tensor encoding");
    }
    expect(TokenKind::Greater, "to close tensor<...>");
    return Type::tensor(shape, element, encoding);
  }
  if (at(TokenKind::ExclaimId) && token_.text == "!tt.tensordesc") {
    advance();
    expect(TokenKind::Less, "after '!tt.tensordesc'");
    return finishTensorDescType();
  }
  if (at(TokenKind::ExclaimId) && token_.text == "!ttg.async.token") {
    advance();
    return Type::asyncToken();
  }
  if (at(TokenKind::ExclaimId) && token_.text == "!ttg.memdesc") {
    size_t pos = token_.offset + token_.text.size();
    if (pos >= lexer_.input().size() || lexer_.input()[pos] != '<') failAt(pos, "expected '<' after '!ttg.memdesc'");
    return finishMemDescType(pos + 1);
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

}  // namespace tilesim::text

// Tokenizer for TTIR text. Produces tokens that point into the input (no copies): bare identifiers
// (`arith.addi`, `f32`, `x`), prefixed identifiers (`%offs_2`, `%acc#1`, `#loc12`, `^bb0`, `@kernel`, `!tt.ptr`),
// string, integer and float literals, and punctuation. Tensor shapes (`16x32xf32`) are not tokenized here: the
// parser rescans them from the raw text with scanDimension(). Never throws; a bad byte becomes an Error token.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilesim::text {

enum class TokenKind : uint8_t {
  Eof,
  Error,        // text = the offending character(s); message in Lexer::errorMessage()
  BareId,       // arith.addi, f32, tensor, x
  PercentId,    // %name or %name#3 (text includes '%')
  HashId,       // #loc12
  CaretId,      // ^bb0
  AtId,         // @name or @"quoted" (text includes '@' and quotes)
  ExclaimId,    // !tt.ptr
  String,       // "..." (text includes the quotes, escapes undecoded)
  Integer,      // 42, 0x7FC00000 (no sign)
  Float,        // 1.5, 1.000000e+00, 4.6566126E-10 (no sign)
  LParen, RParen, LBrace, RBrace, LSquare, RSquare, Less, Greater,
  Comma, Colon, Equal, Star, Question, Plus, Minus, Arrow,
};

const char* tokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string_view text;
  size_t offset = 0;
  bool is(TokenKind k) const { return kind == k; }
  bool isKeyword(std::string_view word) const { return kind == TokenKind::BareId && text == word; }
};

class Lexer {
 public:
  explicit Lexer(std::string_view input) : input_(input) {}
  Token next();
  size_t position() const { return pos_; }
  void setPosition(size_t pos) { pos_ = pos; }
  std::string_view input() const { return input_; }
  const std::string& errorMessage() const { return error_; }

 private:
  Token make(TokenKind kind, size_t start) { return Token{kind, input_.substr(start, pos_ - start), start}; }
  Token error(size_t start, std::string message);
  Token lexNumber(size_t start);
  Token lexString(size_t start);
  Token lexPrefixed(size_t start, TokenKind kind);

  std::string_view input_;
  size_t pos_ = 0;
  std::string error_;
};

// Maps byte offsets to 1-based line:column.
class LineTable {
 public:
  explicit LineTable(std::string_view input);
  void lineColumn(size_t offset, int& line, int& column) const;

 private:
  std::vector<size_t> lineStarts_;
};

// Decodes an MLIR string literal token (with quotes): \" \\ \n \t and \XX hex escapes. Returns false on a bad escape.
bool decodeStringLiteral(std::string_view token, std::string& out);
// Writes `text` as an MLIR string literal with quotes and escapes.
std::string quoteString(std::string_view text);
// True when `text` can be written without quotes as a symbol / attribute name ([A-Za-z_][A-Za-z0-9_$.]*).
bool isBareIdentifier(std::string_view text);

}  // namespace tilesim::text

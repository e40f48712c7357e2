// Tokenizer for TTIR text; see Lexer.h. MLIR's identifier rules: bare ids are [A-Za-z_][A-Za-z0-9_$.]*,
// suffix ids after % # ^ ! are [A-Za-z0-9_$.-]+ (so `%c-766435501_i32` is one token).
#include "ir/text/Lexer.h"

#include <algorithm>

namespace tilesim::text {

namespace {

bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isBareChar(char c) { return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.'; }
bool isSuffixChar(char c) { return isBareChar(c) || c == '-'; }
int hexValue(char c) { return isDigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10; }

}  // namespace

const char* tokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::Eof: return "end of input";
    case TokenKind::Error: return "invalid token";
    case TokenKind::BareId: return "identifier";
    case TokenKind::PercentId: return "SSA value";
    case TokenKind::HashId: return "'#' alias";
    case TokenKind::CaretId: return "block label";
    case TokenKind::AtId: return "symbol";
    case TokenKind::ExclaimId: return "dialect type";
    case TokenKind::String: return "string";
    case TokenKind::Integer: return "integer";
    case TokenKind::Float: return "float";
    case TokenKind::LParen: return "'('";
    case TokenKind::RParen: return "')'";
    case TokenKind::LBrace: return "'{'";
    case TokenKind::RBrace: return "'}'";
    case TokenKind::LSquare: return "'['";
    case TokenKind::RSquare: return "']'";
    case TokenKind::Less: return "'<'";
    case TokenKind::Greater: return "'>'";
    case TokenKind::Comma: return "','";
    case TokenKind::Colon: return "':'";
    case TokenKind::Equal: return "'='";
    case TokenKind::Star: return "'*'";
    case TokenKind::Question: return "'?'";
    case TokenKind::Plus: return "'+'";
    case TokenKind::Minus: return "'-'";
    case TokenKind::Arrow: return "'->'";
  }
  return "token";
}

Token Lexer::error(size_t start, std::string message) {
  error_ = std::move(message);
  if (pos_ <= start) pos_ = start + 1;
  pos_ = std::min(pos_, input_.size());
  return make(TokenKind::Error, start);
}

Token Lexer::next() {
  const size_t n = input_.size();
  for (;;) {
    while (pos_ < n && (input_[pos_] == ' ' || input_[pos_] == '\n' || input_[pos_] == '\t' || input_[pos_] == '\r'))
      ++pos_;
    if (pos_ + 1 < n && input_[pos_] == '/' && input_[pos_ + 1] == '/') {
      while (pos_ < n && input_[pos_] != '\n') ++pos_;
      continue;
    }
    break;
  }
  size_t start = pos_;
  if (pos_ >= n) return Token{TokenKind::Eof, input_.substr(n, 0), n};
  char c = input_[pos_++];
  switch (c) {
    case '(': return make(TokenKind::LParen, start);
    case ')': return make(TokenKind::RParen, start);
    case '{': return make(TokenKind::LBrace, start);
    case '}': return make(TokenKind::RBrace, start);
    case '[': return make(TokenKind::LSquare, start);
    case ']': return make(TokenKind::RSquare, start);
    case '<': return make(TokenKind::Less, start);
    case '>': return make(TokenKind::Greater, start);
    case ',': return make(TokenKind::Comma, start);
    case ':': return make(TokenKind::Colon, start);
    case '=': return make(TokenKind::Equal, start);
    case '*': return make(TokenKind::Star, start);
    case '?': return make(TokenKind::Question, start);
    case '+': return make(TokenKind::Plus, start);
    case '-':
      if (pos_ < n && input_[pos_] == '>') {
        ++pos_;
        return make(TokenKind::Arrow, start);
      }
      return make(TokenKind::Minus, start);
    case '"': return lexString(start);
    case '%': return lexPrefixed(start, TokenKind::PercentId);
    case '#': return lexPrefixed(start, TokenKind::HashId);
    case '^': return lexPrefixed(start, TokenKind::CaretId);
    case '!': return lexPrefixed(start, TokenKind::ExclaimId);
    case '@':
      if (pos_ < n && input_[pos_] == '"') {
        ++pos_;
        Token s = lexString(start);
        if (s.kind == TokenKind::Error) return s;
        return make(TokenKind::AtId, start);
      }
      return lexPrefixed(start, TokenKind::AtId);
    default: break;
  }
  if (isDigit(c)) return lexNumber(start);
  if (isLetter(c) || c == '_') {
    while (pos_ < n && isBareChar(input_[pos_])) ++pos_;
    return make(TokenKind::BareId, start);
  }
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F)
    return error(start, "unexpected byte 0x" + std::string(1, "0123456789ABCDEF"[(c >> 4) & 15]) +
                            std::string(1, "0123456789ABCDEF"[c & 15]) + " in input");
  return error(start, std::string("unexpected character '") + c + "'");
}

Token Lexer::lexPrefixed(size_t start, TokenKind kind) {
  const size_t n = input_.size();
  size_t first = pos_;
  while (pos_ < n && isSuffixChar(input_[pos_])) ++pos_;
  if (pos_ == first) return error(start, std::string("expected an identifier after '") + input_[start] + "'");
  // `%acc#2`: a use of result 2 of the group `%acc:N`.
  if (kind == TokenKind::PercentId && pos_ + 1 < n && input_[pos_] == '#' && isDigit(input_[pos_ + 1])) {
    ++pos_;
    while (pos_ < n && isDigit(input_[pos_])) ++pos_;
  }
  return make(kind, start);
}

Token Lexer::lexNumber(size_t start) {
  const size_t n = input_.size();
  if (input_[start] == '0' && pos_ < n && input_[pos_] == 'x' && pos_ + 1 < n && isHexDigit(input_[pos_ + 1])) {
    ++pos_;
    while (pos_ < n && isHexDigit(input_[pos_])) ++pos_;
    return make(TokenKind::Integer, start);
  }
  while (pos_ < n && isDigit(input_[pos_])) ++pos_;
  if (pos_ < n && input_[pos_] == '.') {
    ++pos_;
    while (pos_ < n && isDigit(input_[pos_])) ++pos_;
    if (pos_ < n && (input_[pos_] == 'e' || input_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < n && (input_[pos_] == '+' || input_[pos_] == '-')) ++pos_;
      if (pos_ < n && isDigit(input_[pos_])) {
        while (pos_ < n && isDigit(input_[pos_])) ++pos_;
      } else {
        pos_ = save;
      }
    }
    return make(TokenKind::Float, start);
  }
  return make(TokenKind::Integer, start);
}

Token Lexer::lexString(size_t start) {
  const size_t n = input_.size();
  while (pos_ < n) {
    char c = input_[pos_++];
    if (c == '"') return make(TokenKind::String, start);
    if (c == '\\') {
      if (pos_ < n) ++pos_;
      continue;
    }
    if (c == '\n') break;
  }
  pos_ = std::min(pos_, n);
  size_t end = pos_;
  Token t = error(start, "unterminated string");
  pos_ = end;
  return t;
}

LineTable::LineTable(std::string_view input) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < input.size(); ++i)
    if (input[i] == '\n') lineStarts_.push_back(i + 1);
}

void LineTable::lineColumn(size_t offset, int& line, int& column) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  size_t index = static_cast<size_t>(it - lineStarts_.begin()) - 1;
  line = static_cast<int>(index + 1);
  column = static_cast<int>(offset - lineStarts_[index] + 1);
}

bool decodeStringLiteral(std::string_view token, std::string& out) {
  out.clear();
  if (token.size() < 2) return false;
  std::string_view body = token.substr(1, token.size() - 2);
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= body.size()) return false;
    char e = body[i];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      default:
        if (i + 1 < body.size() && isHexDigit(e) && isHexDigit(body[i + 1])) {
          out += static_cast<char>(hexValue(e) * 16 + hexValue(body[i + 1]));
          ++i;
        } else {
          return false;
        }
    }
  }
  return true;
}

std::string quoteString(std::string_view text) {
  static const char* hex = "0123456789ABCDEF";
  std::string s = "\"";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (c == '\n') {
      s += "\\n";
    } else if (c == '\t') {
      s += "\\t";
    } else if (u < 0x20 || u >= 0x7F) {
      s += '\\';
      s += hex[u >> 4];
      s += hex[u & 15];
    } else {
      s += c;
    }
  }
  return s + "\"";
}

bool isBareIdentifier(std::string_view text) {
  if (text.empty() || !(isLetter(text[0]) || text[0] == '_')) return false;
  for (char c : text)
    if (!isBareChar(c)) return false;
  return true;
}

}  // namespace tilesim::text

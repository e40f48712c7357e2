// TTGIR reduce layouts (conformance/runner/TtgirLayouts.h): a character scanner over the TTGIR text that reads
// the `#name = #ttg.blocked<{...}>` definitions and the header and operand type of every "tt.reduce".
#include "conformance/runner/TtgirLayouts.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "ir/Diagnostic.h"
#include "ir/analysis/ReducePatterns.h"

namespace tilesim {
namespace {

constexpr int64_t kMaxLayoutEntry = int64_t{1} << 20;  // sizePerThread, threadsPerWarp, warpsPerCTA entries
constexpr int64_t kMaxExtent = int64_t{1} << 40;       // a tensor dimension

struct Blocked {
  std::vector<int64_t> sizePerThread, threadsPerWarp, warpsPerCTA;
};

// Thrown at the first malformed construct; caught in parseTtgirReduces.
struct TtgirError {
  std::string message;
};

// A position in the text with line and column, and the primitives of the scanner.
class Cursor {
 public:
  Cursor(const std::string& text, const std::string& fileName) : text_(text), fileName_(fileName) {}

  bool atEnd() const { return at_ >= text_.size(); }
  char peek(size_t ahead = 0) const { return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0'; }
  bool startsWith(std::string_view word) const { return std::string_view(text_).substr(at_).starts_with(word); }
  bool atLineStart() const { return at_ == 0 || text_[at_ - 1] == '\n'; }

  void advance() {
    if (atEnd()) return;
    if (text_[at_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++at_;
  }
  void advance(size_t count) {
    for (size_t i = 0; i < count; ++i) advance();
  }
  void skipSpaces() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\r' || peek() == '\n')) advance();
  }
  void skipLine() {
    while (!atEnd() && peek() != '\n') advance();
  }
  // Skips a "..." literal (with backslash escapes); the cursor is on its opening quote.
  void skipString() {
    advance();
    while (!atEnd() && peek() != '"') advance(peek() == '\\' ? 2 : 1);
    if (atEnd()) fail("unterminated string literal");
    advance();
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw TtgirError{Diagnostic{SourcePos{fileName_, line_, column_}, message}.str()};
  }
  void expect(std::string_view word, const std::string& what) {
    skipSpaces();
    if (!startsWith(word)) fail("expected '" + std::string(word) + "' " + what);
    advance(word.size());
  }
  bool accept(std::string_view word) {
    skipSpaces();
    if (!startsWith(word)) return false;
    advance(word.size());
    return true;
  }
  // A name: letters, digits, '_', '.', '$', '-' (MLIR's suffix-id characters).
  std::string name() {
    std::string result;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '.' ||
                        peek() == '$' || peek() == '-')) {
      result += peek();
      advance();
    }
    return result;
  }
  // A decimal integer in [lo, hi] (an optional '-'); `what` names it in the message.
  int64_t integer(int64_t lo, int64_t hi, const std::string& what) {
    skipSpaces();
    const size_t begin = at_;
    size_t end = begin + (peek() == '-' ? 1 : 0);
    while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
    int64_t value = 0;
    auto [stop, error] = std::from_chars(text_.data() + begin, text_.data() + end, value);
    if (end == begin || stop != text_.data() + end) fail("expected an integer for " + what);
    if (error == std::errc::result_out_of_range || value < lo || value > hi)
      fail(what + " " + text_.substr(begin, std::min<size_t>(end - begin, 40)) + " is out of range (" +
           std::to_string(lo) + ".." + std::to_string(hi) + ")");
    advance(end - begin);
    return value;
  }

 private:
  const std::string& text_;
  const std::string& fileName_;
  size_t at_ = 0;
  int line_ = 1, column_ = 1;
};

// `[a, b, ...]` of integers in [lo, hi].
std::vector<int64_t> integerList(Cursor& cursor, int64_t lo, int64_t hi, const std::string& what) {
  std::vector<int64_t> values;
  cursor.expect("[", "to open " + what + "'s list");
  if (cursor.accept("]")) return values;
  do {
    if (values.size() >= 16) cursor.fail(what + " has more than 16 entries");
    values.push_back(cursor.integer(lo, hi, what + " entry"));
  } while (cursor.accept(","));
  cursor.expect("]", "to close " + what + "'s list");
  return values;
}

// Skips an attribute value up to the next top-level ',' or '}' (nested brackets and strings balanced).
void skipValue(Cursor& cursor) {
  int depth = 0;
  while (!cursor.atEnd()) {
    const char c = cursor.peek();
    if (c == '"') {
      cursor.skipString();
      continue;
    }
    if (depth == 0 && (c == ',' || c == '}')) return;
    if (c == '[' || c == '{' || c == '(' || c == '<') ++depth;
    if (c == ']' || c == '}' || c == ')' || c == '>') --depth;
    if (depth < 0) cursor.fail("unbalanced brackets in an attribute value");
    cursor.advance();
  }
  cursor.fail("unterminated attribute dictionary");
}

// The body of `#ttg.blocked<{...}>`, after the '{'; up to and including '}>'.
Blocked blockedBody(Cursor& cursor) {
  Blocked layout;
  bool seen[3] = {false, false, false};
  if (!cursor.accept("}")) {
    do {
      cursor.skipSpaces();
      const std::string key = cursor.name();
      cursor.expect("=", "after the key '" + key + "'");
      std::vector<int64_t>* list = key == "sizePerThread"    ? &layout.sizePerThread
                                   : key == "threadsPerWarp" ? &layout.threadsPerWarp
                                   : key == "warpsPerCTA"    ? &layout.warpsPerCTA
                                                             : nullptr;
      if (!list) {
        cursor.skipSpaces();
        skipValue(cursor);
        continue;
      }
      const size_t index = key == "sizePerThread" ? 0 : key == "threadsPerWarp" ? 1 : 2;
      if (seen[index]) cursor.fail("'" + key + "' given twice");
      seen[index] = true;
      *list = integerList(cursor, 1, kMaxLayoutEntry, key);
    } while (cursor.accept(","));
    cursor.expect("}", "to close the blocked layout's attributes");
  }
  cursor.expect(">", "to close #ttg.blocked");
  if (!seen[0] || !seen[1] || !seen[2]) cursor.fail("#ttg.blocked needs sizePerThread, threadsPerWarp and warpsPerCTA");
  if (layout.sizePerThread.empty() || layout.threadsPerWarp.size() != layout.sizePerThread.size() ||
      layout.warpsPerCTA.size() != layout.sizePerThread.size())
    cursor.fail("#ttg.blocked's sizePerThread, threadsPerWarp and warpsPerCTA must have one non-zero length");
  return layout;
}

// `#name = ...` at the start of a line; a #ttg.blocked definition is read, any other is skipped to the line end.
void definition(Cursor& cursor, std::map<std::string, Blocked>& blocked) {
  cursor.advance();  // '#'
  const std::string name = cursor.name();
  cursor.skipSpaces();
  if (name.empty() || !cursor.accept("=")) return cursor.skipLine();
  cursor.skipSpaces();
  if (!cursor.startsWith("#ttg.blocked<")) return cursor.skipLine();
  cursor.advance(std::string_view("#ttg.blocked<").size());
  cursor.expect("{", "after #ttg.blocked<");
  blocked[name] = blockedBody(cursor);
}

// Skips a balanced group opened by the current character ( '(' or '{' ), strings included.
void skipGroup(Cursor& cursor) {
  std::vector<char> closers;
  do {
    const char c = cursor.peek();
    if (cursor.atEnd()) cursor.fail("unterminated region or operand list of a tt.reduce");
    if (c == '"') {
      cursor.skipString();
      continue;
    }
    if (c == '(') closers.push_back(')');
    if (c == '{') closers.push_back('}');
    if (c == ')' || c == '}') {
      if (closers.empty() || closers.back() != c) cursor.fail(std::string("unbalanced '") + c + "' in a tt.reduce");
      closers.pop_back();
    }
    cursor.advance();
  } while (!closers.empty());
}

// `tensor<AxBxT, LAYOUT>` of a reduce's first operand, after the '(': fills shape and layout.
void operandType(Cursor& cursor, TtgirReduce& reduce, const std::map<std::string, Blocked>& blocked) {
  if (!cursor.accept("tensor<")) return;  // a scalar operand: no layout to model
  while (true) {
    cursor.skipSpaces();
    if (!std::isdigit(static_cast<unsigned char>(cursor.peek()))) break;
    reduce.shape.push_back(cursor.integer(1, kMaxExtent, "tensor dimension"));
    if (reduce.shape.size() > 16) cursor.fail("a tensor of more than 16 dimensions");
    cursor.expect("x", "after a tensor dimension");
  }
  cursor.name();  // the element type
  if (!cursor.accept(",")) return;  // no encoding
  cursor.skipSpaces();
  std::string parent;
  int64_t sliceDim = -1;
  if (cursor.accept("#ttg.slice<")) {
    cursor.expect("{", "after #ttg.slice<");
    cursor.expect("dim", "in #ttg.slice");
    cursor.expect("=", "after dim");
    sliceDim = cursor.integer(0, 16, "#ttg.slice dim");
    cursor.expect(",", "after the slice dim");
    cursor.expect("parent", "in #ttg.slice");
    cursor.expect("=", "after parent");
    cursor.skipSpaces();
    if (!cursor.accept("#")) return;
    parent = cursor.name();
  } else if (cursor.accept("#")) {
    parent = cursor.name();
  }
  auto found = blocked.find(parent);
  if (found == blocked.end() || reduce.axis < 0 || reduce.axis >= static_cast<int>(reduce.shape.size())) return;
  // A slice drops parent dim `dim`: operand dims below it are the parent's, the rest shift by one.
  size_t dim = static_cast<size_t>(reduce.axis);
  if (sliceDim >= 0 && dim >= static_cast<size_t>(sliceDim)) ++dim;
  if (dim >= found->second.sizePerThread.size()) return;
  const Blocked& layout = found->second;
  const int64_t extent = reduce.shape[static_cast<size_t>(reduce.axis)];
  // The extent along the axis limits the layout, so that it never holds one element in two lanes (broadcast).
  reduce.blocked = true;
  reduce.layout.sizePerThread = std::min(layout.sizePerThread[dim], extent);
  reduce.layout.threadsPerWarp = std::min(layout.threadsPerWarp[dim], std::max<int64_t>(1, extent / reduce.layout.sizePerThread));
  reduce.layout.warpsPerCTA = std::min(
      layout.warpsPerCTA[dim], std::max<int64_t>(1, extent / (reduce.layout.sizePerThread * reduce.layout.threadsPerWarp)));
}

// `"tt.reduce"(OPERANDS) <{... axis = N ...}> ({REGION}) : (TYPE, ...)`, from the opening quote.
TtgirReduce reduceOp(Cursor& cursor, const std::map<std::string, Blocked>& blocked) {
  TtgirReduce reduce;
  cursor.advance(std::string_view("\"tt.reduce\"").size());
  cursor.skipSpaces();
  if (cursor.peek() != '(') cursor.fail("expected '(' and the operands after \"tt.reduce\"");
  skipGroup(cursor);
  cursor.expect("<{", "before tt.reduce's properties");
  bool haveAxis = false;
  if (!cursor.accept("}")) {
    do {
      cursor.skipSpaces();
      const std::string key = cursor.name();
      cursor.expect("=", "after the key '" + key + "'");
      if (key == "axis") {
        reduce.axis = static_cast<int>(cursor.integer(0, 16, "tt.reduce axis"));
        haveAxis = true;
        if (cursor.accept(":")) {
          cursor.skipSpaces();
          cursor.name();  // the integer type
        }
      } else {
        cursor.skipSpaces();
        skipValue(cursor);
      }
    } while (cursor.accept(","));
    cursor.expect("}", "to close tt.reduce's properties");
  }
  cursor.expect(">", "to close tt.reduce's properties");
  if (!haveAxis) cursor.fail("tt.reduce without an axis");
  cursor.skipSpaces();
  if (cursor.peek() != '(') cursor.fail("expected '({' and tt.reduce's combine region");
  skipGroup(cursor);
  cursor.expect(":", "before tt.reduce's type");
  cursor.expect("(", "to open tt.reduce's operand types");
  operandType(cursor, reduce, blocked);
  return reduce;
}

}  // namespace

TtgirLayouts parseTtgirReduces(const std::string& text, const std::string& fileName) {
  TtgirLayouts result;
  std::map<std::string, Blocked> blocked;
  Cursor cursor(text, fileName);
  try {
    while (!cursor.atEnd()) {
      const char c = cursor.peek();
      if (c == '#' && cursor.atLineStart()) {
        definition(cursor, blocked);
      } else if (c == '"' && cursor.startsWith("\"tt.reduce\"")) {
        result.reduces.push_back(reduceOp(cursor, blocked));
      } else if (c == '"') {
        cursor.skipString();
      } else {
        cursor.advance();
      }
    }
  } catch (const TtgirError& error) {
    result.reduces.clear();
    result.error = error.message;
  }
  return result;
}

ReduceLayoutMatch matchReduceLayouts(const TtgirLayouts& ttgir, const Function& kernel) {
  ReduceLayoutMatch match;
  std::vector<const Operation*> reduces;
  walk(*kernel.op(), [&](const Operation& op) {
    if (op.kind == OpKind::TTReduce) reduces.push_back(&op);
  });
  if (reduces.size() != ttgir.reduces.size()) {
    match.unmatched = static_cast<int>(reduces.size());
    return match;
  }
  for (size_t i = 0; i < reduces.size(); ++i) {
    const TtgirReduce& layout = ttgir.reduces[i];
    const Operation& op = *reduces[i];
    std::span<const int64_t> shape = op.operand(0)->type.shape();
    bool same = layout.blocked && op.intAttr("axis") == layout.axis &&
                std::equal(shape.begin(), shape.end(), layout.shape.begin(), layout.shape.end());
    if (same) {
      match.layouts[&op] = layout.layout;
      match.layouts[&op].fusedMultiply = analysis::reduceFusesMultiply(op, kernel);
    }
    else ++match.unmatched;
  }
  return match;
}

}  // namespace tilesim

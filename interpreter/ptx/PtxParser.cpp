// parsePtx (interpreter/ptx/PtxSubset.h): the statements inline asm holds, read into a PtxProgram. Comments are
// stripped, `{ }` scopes at statement starts ignored, `.reg` declarations give names to registers after the
// placeholders, and each instruction is split into guard, opcode, dot modifiers and operands (registers,
// immediates in PTX's spellings, vectors `{a, b}`). Which opcodes exist is the machine's business (PtxOpcodes.h).
#include <bit>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "interpreter/ptx/PtxOpcodes.h"
#include "interpreter/ptx/PtxSubset.h"
#include "ir/SplitText.h"

namespace tilesim::ptx {
namespace {

std::string stripComments(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, 2) == "//") {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (text.substr(i, 2) == "/*") {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// Splits `text` at top-level commas (not inside `{ }`).
std::vector<std::string> splitOperands(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '{') ++depth;
    if (c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty()) parts.push_back(trim(current));
  return parts;
}

class Parser {
 public:
  Parser(int placeholders, PtxProgram& program) : program_(program) {
    program_.numPlaceholders = placeholders;
    program_.numRegisters = placeholders;
  }

  std::string statement(const std::string& text) {
    if (text.empty()) return "";
    if (text.rfind(".reg", 0) == 0) return declare(text);
    PtxInstruction instruction;
    instruction.text = text;
    std::string rest = text;
    if (rest[0] == '@') {
      size_t space = rest.find_first_of(" \t");
      if (space == std::string::npos) return "'" + text + "': a guard without an instruction";
      std::string guard = rest.substr(1, space - 1);
      instruction.guardNegated = !guard.empty() && guard[0] == '!';
      if (instruction.guardNegated) guard.erase(0, 1);
      std::optional<int> reg = lookup(guard);
      if (!reg) return "'" + text + "': undeclared predicate '" + guard + "'";
      instruction.guard = *reg;
      rest = trim(rest.substr(space));
    }
    size_t space = rest.find_first_of(" \t\n");
    std::vector<std::string> words = splitAt(rest.substr(0, space), '.');
    instruction.opcode = words[0];
    instruction.modifiers.assign(words.begin() + 1, words.end());
    if (space != std::string::npos)
      for (const std::string& operandText : splitOperands(rest.substr(space))) {
        std::optional<PtxOperand> operand = parseOperand(operandText);
        if (!operand) return "'" + text + "': cannot read operand '" + operandText + "'";
        instruction.operands.push_back(*operand);
      }
    if (const PtxOpcode* opcode = findPtxOpcode(instruction.opcode); opcode && opcode->approximate)
      program_.hasApproximation = true;
    if (program_.instructions.size() >= kMaxPtxInstructions)
      return "the asm has more than " + std::to_string(kMaxPtxInstructions) + " instructions (tilesim's bound)";
    program_.instructions.push_back(std::move(instruction));
    return "";
  }

 private:
  // `.reg .b32 r<4>;` declares r0..r3; `.reg .pred p, q;` declares p and q.
  std::string declare(const std::string& text) {
    std::string rest = trim(text.substr(4));
    size_t space = rest.find_first_of(" \t");
    if (rest.empty() || rest[0] != '.' || space == std::string::npos) return "'" + text + "': expected .reg .TYPE NAMES";
    for (const std::string& name : splitOperands(rest.substr(space))) {
      size_t angle = name.find('<');
      if (angle == std::string::npos) {
        if (program_.numRegisters >= kMaxPtxRegisters) return tooManyRegisters();
        registers_[name] = program_.numRegisters++;
        continue;
      }
      int count = 0;
      if (name.back() != '>') return "'" + text + "': bad register count";
      std::string digits = name.substr(angle + 1, name.size() - angle - 2);
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
      if (error != std::errc() || end != digits.data() + digits.size() || count <= 0 || count > 4096)
        return "'" + text + "': bad register count";
      if (count > kMaxPtxRegisters - program_.numRegisters) return tooManyRegisters();
      for (int i = 0; i < count; ++i) registers_[name.substr(0, angle) + std::to_string(i)] = program_.numRegisters++;
    }
    return "";
  }

  static std::string tooManyRegisters() {
    return "the asm declares more than " + std::to_string(kMaxPtxRegisters) + " registers (tilesim's bound)";
  }

  std::optional<int> lookup(const std::string& name) const {
    if (name.size() > 1 && name[0] == '$') {
      int index = -1;
      auto [end, error] = std::from_chars(name.data() + 1, name.data() + name.size(), index);
      if (error != std::errc() || end != name.data() + name.size() || index < 0 || index >= program_.numPlaceholders)
        return std::nullopt;
      return index;
    }
    auto it = registers_.find(name);
    if (it == registers_.end()) return std::nullopt;
    return it->second;
  }

  std::optional<PtxOperand> parseOperand(const std::string& text) {
    PtxOperand operand;
    if (text.empty()) return std::nullopt;
    if (text[0] == '{') {
      if (text.back() != '}') return std::nullopt;
      operand.kind = PtxOperand::Kind::Vector;
      for (const std::string& part : splitOperands(text.substr(1, text.size() - 2))) {
        std::optional<int> reg = lookup(part);
        if (!reg) return std::nullopt;
        operand.vector.push_back(*reg);
      }
      if (operand.vector.empty() || operand.vector.size() > kMaxPtxVectorRegisters) return std::nullopt;  // {} or {a, ... 9 more}
      return operand;
    }
    if (std::optional<int> reg = lookup(text)) {
      operand.reg = *reg;
      return operand;
    }
    operand.kind = PtxOperand::Kind::Immediate;
    std::string_view digits = text;
    bool negative = digits[0] == '-';
    if (negative) digits.remove_prefix(1);
    auto hex = [&](std::string_view body) {
      uint64_t value = 0;
      auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value, 16);
      return error == std::errc() && end == body.data() + body.size() ? std::optional<uint64_t>(value) : std::nullopt;
    };
    std::optional<uint64_t> bits;
    if (digits.size() == 10 && (digits.starts_with("0f") || digits.starts_with("0F"))) {
      bits = hex(digits.substr(2));
      operand.immediateIsFloat = true;
    } else if (digits.size() == 18 && (digits.starts_with("0d") || digits.starts_with("0D"))) {
      bits = hex(digits.substr(2));
      operand.immediateIsFloat = true;
    } else if (digits.starts_with("0x") || digits.starts_with("0X")) {
      bits = hex(digits.substr(2));
    } else if (digits.find_first_of(".eE") != std::string_view::npos) {
      double value = 0;
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
      operand.immediateIsFloat = true;
      operand.floatImmediate = negative ? -value : value;
      operand.immediate = std::bit_cast<uint64_t>(operand.floatImmediate);
      return operand;
    } else {
      uint64_t value = 0;
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 10);
      if (error == std::errc() && end == digits.data() + digits.size()) bits = value;
    }
    if (!bits) return std::nullopt;
    if (negative && operand.immediateIsFloat) *bits ^= digits.size() == 10 ? 0x80000000u : 0x8000000000000000u;
    else if (negative) *bits = 0 - *bits;
    operand.immediate = *bits;
    return operand;
  }

  PtxProgram& program_;
  std::map<std::string, int> registers_;
};

}  // namespace

std::string parsePtx(std::string_view asmText, int placeholders, PtxProgram& program) {
  program = PtxProgram{};
  if (asmText.size() > kMaxPtxTextBytes)
    return "the asm string has " + std::to_string(asmText.size()) + " bytes, more than tilesim's bound of " +
           std::to_string(kMaxPtxTextBytes);
  if (placeholders < 0 || placeholders > kMaxPtxRegisters) return "too many asm operands";
  Parser parser(placeholders, program);
  std::string text = stripComments(asmText), current;
  bool atStart = true;
  for (char c : text) {
    if (atStart && (c == '{' || c == '}')) continue;  // a scope, not a vector operand
    if (atStart && std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == ';') {
      if (std::string error = parser.statement(trim(current)); !error.empty()) return error;
      current.clear();
      atStart = true;
      continue;
    }
    atStart = false;
    current += c;
  }
  const std::string unterminated = trim(current);
  if (unterminated.empty()) return "";
  std::string error = "'";  // appended, not `"'" + ...`, which trips GCC 12's -Wrestrict false positive
  error += unterminated;
  error += "': missing ';'";
  return error;
}

}  // namespace tilesim::ptx

// The PTX subset: a parser for the statements inline asm holds, and a register machine that executes them
// exactly. Each instruction family names the PTX ISA 8.5 section it follows.
#include "interpreter/ptx/PtxSubset.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "interpreter/MeasuredBounds.h"
#include "ir/FloatBits.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::ptx {
namespace {

// ---------------------------------------------------------------- parsing

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

std::vector<std::string> splitDots(std::string_view word) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= word.size(); ++i)
    if (i == word.size() || word[i] == '.') {
      parts.emplace_back(word.substr(start, i - start));
      start = i + 1;
    }
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
    std::vector<std::string> words = splitDots(rest.substr(0, space));
    instruction.opcode = words[0];
    instruction.modifiers.assign(words.begin() + 1, words.end());
    if (space != std::string::npos)
      for (const std::string& operandText : splitOperands(rest.substr(space))) {
        std::optional<PtxOperand> operand = parseOperand(operandText);
        if (!operand) return "'" + text + "': cannot read operand '" + operandText + "'";
        instruction.operands.push_back(*operand);
      }
    if ((instruction.opcode == "ex2" || instruction.opcode == "tanh")) program_.hasApproximation = true;
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

// ---------------------------------------------------------------- value helpers

enum class Class : uint8_t { Bits, Unsigned, Signed, Float, BFloat, Half2, BFloat2, Pred, Fp8x2E4M3, Fp8x2E5M2 };

struct TypeInfo {
  Class cls = Class::Bits;
  int width = 32;
};

std::optional<TypeInfo> typeNamed(std::string_view name) {
  static const std::map<std::string_view, TypeInfo, std::less<>> kTypes = {
      {"b8", {Class::Bits, 8}},       {"b16", {Class::Bits, 16}},     {"b32", {Class::Bits, 32}},
      {"b64", {Class::Bits, 64}},     {"u8", {Class::Unsigned, 8}},   {"u16", {Class::Unsigned, 16}},
      {"u32", {Class::Unsigned, 32}}, {"u64", {Class::Unsigned, 64}}, {"s8", {Class::Signed, 8}},
      {"s16", {Class::Signed, 16}},   {"s32", {Class::Signed, 32}},   {"s64", {Class::Signed, 64}},
      {"f16", {Class::Float, 16}},    {"f32", {Class::Float, 32}},    {"f64", {Class::Float, 64}},
      {"bf16", {Class::BFloat, 16}},  {"f16x2", {Class::Half2, 32}},  {"bf16x2", {Class::BFloat2, 32}},
      {"pred", {Class::Pred, 1}},     {"e4m3x2", {Class::Fp8x2E4M3, 16}}, {"e5m2x2", {Class::Fp8x2E5M2, 16}},
  };
  auto it = kTypes.find(name);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

uint64_t mask(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }
int64_t signExtend(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>(((bits & mask(width)) ^ sign) - sign);
}

ScalarKind floatKind(Class cls, int width) {
  if (cls == Class::BFloat || cls == Class::BFloat2) return ScalarKind::BF16;
  if (cls == Class::Fp8x2E4M3) return ScalarKind::F8E4M3FN;
  if (cls == Class::Fp8x2E5M2) return ScalarKind::F8E5M2;
  return width == 16 || cls == Class::Half2 ? ScalarKind::F16 : width == 64 ? ScalarKind::F64 : ScalarKind::F32;
}

double toDouble(uint64_t bits, ScalarKind kind) { return doubleFromFloatBits(bits, kind); }
// Rounds to `kind` (nearest even unless `rounding` says otherwise); NaN becomes NVIDIA's canonical NaN.
uint64_t fromDouble(double value, ScalarKind kind, Rounding rounding = Rounding::NearestEven, bool saturate = false) {
  if (std::isnan(value)) return canonicalNaNBits(kind);
  return floatBitsFromDouble(value, kind, rounding, saturate);
}

double flushSubnormal(double value, bool ftz) {
  return ftz && value != 0 && std::fabs(value) < 0x1p-126 ? std::copysign(0.0, value) : value;
}

bool has(const PtxInstruction& instruction, std::string_view modifier) {
  for (const std::string& m : instruction.modifiers)
    if (m == modifier) return true;
  return false;
}

// The last type modifier (the operation's type), and for cvt the destination (first) and source (second) types.
std::vector<TypeInfo> typesOf(const PtxInstruction& instruction) {
  std::vector<TypeInfo> types;
  for (const std::string& m : instruction.modifiers)
    if (std::optional<TypeInfo> type = typeNamed(m)) types.push_back(*type);
  return types;
}

// cvt's rounding modifier: .rn/.rz/.rm/.rp (to a float) or .rni/.rzi/.rmi/.rpi (to an integer value).
enum class Round : uint8_t { Nearest, Zero, Down, Up };
std::optional<Round> roundingOf(const PtxInstruction& instruction) {
  for (const std::string& m : instruction.modifiers) {
    if (m == "rn" || m == "rni") return Round::Nearest;
    if (m == "rz" || m == "rzi") return Round::Zero;
    if (m == "rm" || m == "rmi") return Round::Down;
    if (m == "rp" || m == "rpi") return Round::Up;
  }
  return std::nullopt;
}

double roundToIntegral(double v, Round round) {
  switch (round) {
    case Round::Nearest: return std::nearbyint(v);
    case Round::Zero: return std::trunc(v);
    case Round::Down: return std::floor(v);
    case Round::Up: return std::ceil(v);
  }
  return v;
}

// Applies a binary float operation lane by lane to packed or scalar floats of class `type`.
template <typename Op>
uint64_t floatLanes(uint64_t a, uint64_t b, uint64_t c, TypeInfo type, bool ftz, Op op) {
  const bool packed = type.cls == Class::Half2 || type.cls == Class::BFloat2;
  const ScalarKind kind = floatKind(type.cls, type.width);
  const int laneWidth = packed ? 16 : type.width;
  uint64_t result = 0;
  for (int lane = 0; lane < (packed ? 2 : 1); ++lane) {
    const int shift = lane * laneWidth;
    auto get = [&](uint64_t bits) {
      return flushSubnormal(toDouble((bits >> shift) & mask(laneWidth), kind), ftz && kind == ScalarKind::F32);
    };
    double value = op(get(a), get(b), get(c));
    value = flushSubnormal(value, ftz && kind == ScalarKind::F32);
    uint64_t bits = fromDouble(value, kind);
    if (ftz && kind == ScalarKind::F32) bits = fromDouble(flushSubnormal(toDouble(bits, kind), true), kind);
    result |= (bits & mask(laneWidth)) << shift;
  }
  return result;
}

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
  if (!trim(current).empty()) return "'" + trim(current) + "': missing ';'";
  return "";
}

double PtxMachine::approximation(int placeholder) const {
  return static_cast<size_t>(placeholder) < approximation_.size() ? approximation_[static_cast<size_t>(placeholder)] : 0.0;
}

uint64_t PtxMachine::value(const PtxOperand& operand) const {
  switch (operand.kind) {
    case PtxOperand::Kind::Register: return registers_[static_cast<size_t>(operand.reg)];
    case PtxOperand::Kind::Immediate: return operand.immediate;
    case PtxOperand::Kind::Vector: return 0;
  }
  return 0;
}

void PtxMachine::write(const PtxOperand& operand, uint64_t bits, int width) {
  if (operand.kind != PtxOperand::Kind::Register) return;
  registers_[static_cast<size_t>(operand.reg)] = bits & mask(width);
  written_[static_cast<size_t>(operand.reg)] = true;
}

bool PtxMachine::run(std::string* error) {
  approximation_.assign(registers_.size(), 0.0);
  written_.assign(registers_.size(), false);
  for (const PtxInstruction& instruction : program_.instructions) {
    if (instruction.guard >= 0) {
      bool predicate = registers_[static_cast<size_t>(instruction.guard)] & 1;
      if (predicate == instruction.guardNegated) continue;
    }
    if (!execute(instruction, error)) return false;
  }
  return true;
}

bool PtxMachine::runUnguarded(std::string* error) {
  approximation_.assign(registers_.size(), 0.0);
  written_.assign(registers_.size(), false);
  for (const PtxInstruction& instruction : program_.instructions)
    if (!execute(instruction, error)) return false;
  return true;
}

std::string validatePtx(const PtxProgram& program) {
  PtxMachine scratch(program);
  std::string error;
  return scratch.runUnguarded(&error) ? "" : error;
}

bool PtxMachine::execute(const PtxInstruction& in, std::string* error) {
  auto unsupported = [&](const std::string& why) {
    *error = "inline asm: '" + in.text + "' " + why + " (outside tilesim's PTX subset: docs/semantics.md)";
    return false;
  };
  const std::string& op = in.opcode;
  const std::vector<TypeInfo> types = typesOf(in);
  const size_t n = in.operands.size();
  auto operandIs = [&](size_t i, PtxOperand::Kind kind) { return i < n && in.operands[i].kind == kind; };
  auto src = [&](size_t i) { return i < n ? value(in.operands[i]) : 0; };

  // §9.7.18 griddepcontrol: programmatic dependent launch ordering, no data effect.
  if (op == "griddepcontrol") return true;
  if (types.empty()) return unsupported("has no type the subset knows");
  const TypeInfo type = types.back();
  const int width = type.width;
  if (n == 0) return unsupported("has no operands");

  // §9.7.9.10 mov, including the pack/unpack forms {a, b}.
  if (op == "mov") {
    for (size_t i = 0; i < n; ++i)
      if (in.operands[i].kind == PtxOperand::Kind::Vector &&
          (width % static_cast<int>(in.operands[i].vector.size()) != 0 || (i == 0 && n > 1 && operandIs(1, PtxOperand::Kind::Vector))))
        return unsupported("packs a vector whose registers do not split the " + std::to_string(width) + "-bit width");
    if (operandIs(1, PtxOperand::Kind::Vector)) {  // pack: lowest element first
      const std::vector<int>& parts = in.operands[1].vector;
      const int part = width / static_cast<int>(parts.size());
      uint64_t bits = 0;
      for (size_t i = 0; i < parts.size(); ++i)
        bits |= (registers_[static_cast<size_t>(parts[i])] & mask(part)) << (i * static_cast<size_t>(part));
      write(in.operands[0], bits, width);
      return true;
    }
    if (operandIs(0, PtxOperand::Kind::Vector)) {  // unpack
      const std::vector<int>& parts = in.operands[0].vector;
      const int part = width / static_cast<int>(parts.size());
      const uint64_t bits = src(1);
      for (size_t i = 0; i < parts.size(); ++i) {
        registers_[static_cast<size_t>(parts[i])] = (bits >> (i * static_cast<size_t>(part))) & mask(part);
        written_[static_cast<size_t>(parts[i])] = true;
      }
      return true;
    }
    write(in.operands[0], src(1), width);
    return true;
  }

  for (const PtxOperand& operand : in.operands)
    if (operand.kind == PtxOperand::Kind::Vector) return unsupported("has a vector operand (only mov packs and unpacks)");
  if (in.operands[0].kind != PtxOperand::Kind::Register) return unsupported("has a destination that is not a register");

  const bool isFloat = type.cls == Class::Float || type.cls == Class::BFloat || type.cls == Class::Half2 ||
                       type.cls == Class::BFloat2;
  const bool ftz = has(in, "ftz");
  const uint64_t a = src(1), b = src(2), c = src(3);

  // §9.7.3 / §9.7.4 half and float arithmetic (exact: one rounding to nearest even, canonical NaN).
  if (isFloat && (op == "add" || op == "sub" || op == "mul" || op == "fma" || op == "min" || op == "max" ||
                  op == "neg" || op == "abs" || op == "div" || op == "rcp" || op == "sqrt")) {
    if ((op == "div" || op == "rcp" || op == "sqrt") && !has(in, "rn"))
      return unsupported("is approximate; only the .rn form is in the subset");
    uint64_t r = floatLanes(a, b, c, type, ftz, [&](double x, double y, double z) -> double {
      if (op == "add") return x + y;
      if (op == "sub") return x - y;
      if (op == "mul") return x * y;
      // One rounding: + - * / sqrt of f16/bf16/f32 values computed in double and rounded once more are exact
      // (53 >= 2p + 2); so is fma for f16/bf16 (a near-tie needs the small addend near half an ulp, where its
      // low bit is far above double's). f32 fma is not, so it is computed in f32.
      if (op == "fma")
        return type.cls == Class::Float && width == 32
                   ? static_cast<double>(std::fmaf(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)))
                   : std::fma(x, y, z);
      if (op == "div") return x / y;
      if (op == "rcp") return 1.0 / x;
      if (op == "sqrt") return std::sqrt(x);
      if (op == "neg") return -x;
      if (op == "abs") return std::fabs(x);
      if (std::isnan(x)) return y;  // min/max: the other operand when one is NaN
      if (std::isnan(y)) return x;
      if (x == y) return op == "min" ? (std::signbit(x) ? x : y) : (std::signbit(x) ? y : x);
      return op == "min" ? std::min(x, y) : std::max(x, y);
    });
    if (op == "neg" || op == "abs") {  // sign-bit operations: NaN payloads kept
      const bool packed = type.cls == Class::Half2 || type.cls == Class::BFloat2;
      const int laneWidth = packed ? 16 : width;
      r = 0;
      for (int lane = 0; lane < (packed ? 2 : 1); ++lane) {
        uint64_t bits = (a >> (lane * laneWidth)) & mask(laneWidth);
        const uint64_t sign = uint64_t{1} << (laneWidth - 1);
        bits = op == "neg" ? bits ^ sign : bits & ~sign;
        r |= bits << (lane * laneWidth);
      }
    }
    write(in.operands[0], r, width);
    return true;
  }

  // §9.7.3.21 ex2.approx, §9.7.3.25 tanh.approx: correctly rounded here, with the hardware's error recorded.
  if ((op == "ex2" || op == "tanh") && type.cls == Class::Float && width == 32) {
    const double x = flushSubnormal(toDouble(a, ScalarKind::F32), true);
    double result = scalar::evalMath(op == "ex2" ? scalar::MathFunction::Exp2 : scalar::MathFunction::Tanh, x);
    uint64_t bits = fromDouble(flushSubnormal(result, ftz || op == "tanh"), ScalarKind::F32);
    write(in.operands[0], bits, 32);
    if (in.operands[0].kind == PtxOperand::Kind::Register) {
      // Measured on the H200 when conformance/triton/measured_bounds.tsv has the instruction (m ulps of the
      // exact value, so at most (m + 1/2) 2^-23 relative to ours), else the PTX ISA's documented maximum.
      const std::string name = "ptx:" + op + ".approx" + (ftz ? ".ftz" : "") + ".f32";
      const MeasuredBound* row = findMeasuredFunction(name, ScalarKind::F32).at(x);
      const double documented = op == "ex2" ? 0x1p-22 : 0x1p-11;
      approximation_[static_cast<size_t>(in.operands[0].reg)] = row ? (row->maxUlp + 0.5) * 0x1p-23 : documented;
    }
    return true;
  }

  // §9.7.1 integer arithmetic, §9.7.7 logic and shift (wrap-around; shifts clamp at the width).
  if (!isFloat) {
    const bool isSigned = type.cls == Class::Signed;
    auto as = [&](uint64_t bits) { return isSigned ? static_cast<uint64_t>(signExtend(bits, width)) : bits & mask(width); };
    if (op == "add") return write(in.operands[0], as(a) + as(b), width), true;
    if (op == "sub") return write(in.operands[0], as(a) - as(b), width), true;
    if (op == "and") return write(in.operands[0], a & b, width), true;
    if (op == "or") return write(in.operands[0], a | b, width), true;
    if (op == "xor") return write(in.operands[0], a ^ b, width), true;
    if (op == "not") return write(in.operands[0], ~a, width), true;
    if (op == "neg") return write(in.operands[0], 0 - as(a), width), true;
    if (op == "abs") {  // in two's complement: the most negative value is its own absolute value
      const int64_t x = signExtend(a, width);
      return write(in.operands[0], x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x), width), true;
    }
    if (op == "min" || op == "max") {
      const bool less = isSigned ? signExtend(a, width) < signExtend(b, width) : (a & mask(width)) < (b & mask(width));
      return write(in.operands[0], (op == "min") == less ? a : b, width), true;
    }
    if (op == "shl" || op == "shr") {
      const uint64_t amount = b & 0xFFFFFFFFu;
      uint64_t r;
      if (op == "shl") r = amount >= static_cast<uint64_t>(width) ? 0 : a << amount;
      else if (isSigned) r = static_cast<uint64_t>(signExtend(a, width) >> std::min<uint64_t>(amount, static_cast<uint64_t>(width - 1)));
      else r = amount >= static_cast<uint64_t>(width) ? 0 : (a & mask(width)) >> amount;
      return write(in.operands[0], r, width), true;
    }
    if (op == "mul" || op == "mad") {
      const bool hi = has(in, "hi"), wide = has(in, "wide");
      const __int128 x = isSigned ? static_cast<__int128>(signExtend(a, width)) : static_cast<__int128>(a & mask(width));
      const __int128 y = isSigned ? static_cast<__int128>(signExtend(b, width)) : static_cast<__int128>(b & mask(width));
      const unsigned __int128 product = static_cast<unsigned __int128>(x * y);
      uint64_t r = hi ? static_cast<uint64_t>(product >> width) : static_cast<uint64_t>(product);
      int resultWidth = wide ? 2 * width : width;
      if (op == "mad") r += wide ? c : as(c);
      return write(in.operands[0], r, resultWidth), true;
    }
    if (op == "selp") return write(in.operands[0], (c & 1) ? a : b, width), true;
    if (op == "lop3") {  // §9.7.7.6: bit i of d = immLut[(a_i << 2) | (b_i << 1) | c_i]
      const uint64_t lut = src(4);
      uint64_t r = 0;
      for (int bit = 0; bit < 32; ++bit) {
        const unsigned index = static_cast<unsigned>(((a >> bit) & 1) << 2 | ((b >> bit) & 1) << 1 | ((c >> bit) & 1));
        r |= ((lut >> index) & 1) << bit;
      }
      return write(in.operands[0], r, 32), true;
    }
    if (op == "prmt") {  // §9.7.9.7, default mode: selector nibbles pick bytes of {b, a}; bit 3 replicates the sign
      if (in.modifiers.size() > 1) return unsupported("uses a prmt mode other than the default");
      const uint64_t bytes = (b & 0xFFFFFFFFu) << 32 | (a & 0xFFFFFFFFu);
      uint64_t r = 0;
      for (int i = 0; i < 4; ++i) {
        const unsigned selector = static_cast<unsigned>((c >> (4 * i)) & 0xF);
        uint64_t byte = (bytes >> (8 * (selector & 7))) & 0xFF;
        if (selector & 8) byte = (byte & 0x80) ? 0xFF : 0x00;
        r |= byte << (8 * i);
      }
      return write(in.operands[0], r, 32), true;
    }
    if (op == "shf") {  // §9.7.7.7 funnel shift of {b:a} (b high)
      const bool left = has(in, "l"), clamp = has(in, "clamp");
      uint64_t amount = c & 0xFFFFFFFFu;
      amount = clamp ? std::min<uint64_t>(amount, 32) : amount & 31;
      const uint64_t funnel = (b & 0xFFFFFFFFu) << 32 | (a & 0xFFFFFFFFu);
      const uint64_t r = left ? (funnel << amount) >> 32 : funnel >> amount;
      return write(in.operands[0], r, 32), true;
    }
    if (op == "setp") {  // §9.7.1... setp.CMP.TYPE p, a, b
      const std::string& cmp = in.modifiers.empty() ? "" : in.modifiers[0];
      const int64_t sx = signExtend(a, width), sy = signExtend(b, width);
      const uint64_t ux = a & mask(width), uy = b & mask(width);
      bool r;
      if (cmp == "eq") r = ux == uy;
      else if (cmp == "ne") r = ux != uy;
      else if (cmp == "lt") r = isSigned ? sx < sy : ux < uy;
      else if (cmp == "le") r = isSigned ? sx <= sy : ux <= uy;
      else if (cmp == "gt") r = isSigned ? sx > sy : ux > uy;
      else if (cmp == "ge") r = isSigned ? sx >= sy : ux >= uy;
      else if (cmp == "lo") r = ux < uy;
      else if (cmp == "ls") r = ux <= uy;
      else if (cmp == "hi") r = ux > uy;
      else if (cmp == "hs") r = ux >= uy;
      else return unsupported("uses a comparison the subset does not know");
      return write(in.operands[0], r ? 1 : 0, 1), true;
    }
  }

  if (op == "setp" && isFloat && type.cls == Class::Float) {  // §9.7.3.x float compares (ordered unless 'u')
    const std::string& cmp = in.modifiers.empty() ? "" : in.modifiers[0];
    const double x = toDouble(a, floatKind(type.cls, width)), y = toDouble(b, floatKind(type.cls, width));
    const bool unordered = std::isnan(x) || std::isnan(y);
    std::string base = cmp;
    const bool orUnordered = base.size() == 3 && base[0] == 'u';
    if (orUnordered) base.erase(0, 1);
    bool r;
    if (base == "eq") r = x == y;
    else if (base == "ne") r = !unordered && x != y;
    else if (base == "lt") r = x < y;
    else if (base == "le") r = x <= y;
    else if (base == "gt") r = x > y;
    else if (base == "ge") r = x >= y;
    else if (cmp == "num") r = !unordered;
    else if (cmp == "nan") r = unordered;
    else return unsupported("uses a comparison the subset does not know");
    if (orUnordered) r = r || unordered;
    return write(in.operands[0], r ? 1 : 0, 1), true;
  }
  if (op == "selp") return write(in.operands[0], (c & 1) ? a : b, width), true;

  // §9.7.9.21 cvt: cvt.ROUND?.ftz?.sat?.DTYPE.STYPE d, a [, b] (packed forms take two sources).
  if (op == "cvt" && types.size() >= 2) {
    const TypeInfo to = types[types.size() - 2], from = types.back();
    const Round round = roundingOf(in).value_or(Round::Nearest);
    const bool integralRounding = has(in, "rni") || has(in, "rzi") || has(in, "rmi") || has(in, "rpi");
    if (!integralRounding && (round == Round::Down || round == Round::Up) && (to.cls == Class::Float || to.cls == Class::BFloat))
      return unsupported("rounds toward an infinity (.rm/.rp), which the subset does not implement");
    const Rounding rounding = round == Round::Zero ? Rounding::TowardZero : Rounding::NearestEven;
    const bool saturate = has(in, "satfinite");
    const bool toFloat = to.cls == Class::Float || to.cls == Class::BFloat;
    const bool fromFloat = from.cls == Class::Float || from.cls == Class::BFloat;
    // Packed destinations from two f32 sources: d = {a -> high half, b -> low half}.
    if ((to.cls == Class::Half2 || to.cls == Class::BFloat2 || to.cls == Class::Fp8x2E4M3 || to.cls == Class::Fp8x2E5M2) &&
        from.cls == Class::Float && from.width == 32) {
      const ScalarKind kind = floatKind(to.cls, 16);
      const int laneWidth = to.width / 2;
      auto one = [&](uint64_t bits) {
        double v = toDouble(bits, ScalarKind::F32);
        if (has(in, "relu") && !std::isnan(v) && v < 0) v = 0;
        return fromDouble(v, kind, rounding, saturate || to.cls == Class::Fp8x2E4M3 || to.cls == Class::Fp8x2E5M2) & mask(laneWidth);
      };
      write(in.operands[0], one(a) << laneWidth | one(b), to.width);
      return true;
    }
    // Packed fp8x2 -> f16x2 (§9.7.9.21: cvt.rn.f16x2.e4m3x2 d, a): each byte widened exactly.
    if (to.cls == Class::Half2 && (from.cls == Class::Fp8x2E4M3 || from.cls == Class::Fp8x2E5M2)) {
      const ScalarKind kind = floatKind(from.cls, 8);
      uint64_t r = 0;
      for (int lane = 0; lane < 2; ++lane)
        r |= fromDouble(toDouble((a >> (8 * lane)) & 0xFF, kind), ScalarKind::F16) << (16 * lane);
      write(in.operands[0], r, 32);
      return true;
    }
    if (toFloat && fromFloat) {
      double v = flushSubnormal(toDouble(a, floatKind(from.cls, from.width)), ftz);
      const ScalarKind kind = floatKind(to.cls, to.width);
      if (integralRounding) v = roundToIntegral(v, round);
      if (has(in, "sat") && !std::isnan(v)) v = std::clamp(v, 0.0, 1.0);
      write(in.operands[0], fromDouble(v, kind, rounding, saturate), to.width);
      return true;
    }
    if (toFloat && !fromFloat) {  // integer -> float
      const bool isSigned = from.cls == Class::Signed;
      const double v = isSigned ? static_cast<double>(signExtend(a, from.width)) : static_cast<double>(a & mask(from.width));
      if (from.width == 64) return unsupported("converts a 64-bit integer (needs a single rounding the subset lacks)");
      write(in.operands[0], fromDouble(v, floatKind(to.cls, to.width), rounding), to.width);
      return true;
    }
    if (!toFloat && fromFloat) {  // float -> integer: round as asked, saturate to the range, NaN -> 0 (§9.7.9.21)
      double v = toDouble(a, floatKind(from.cls, from.width));
      v = roundToIntegral(v, round);
      const bool isSigned = to.cls == Class::Signed;
      const double lo = isSigned ? -std::ldexp(1.0, to.width - 1) : 0.0;
      const double hi = isSigned ? std::ldexp(1.0, to.width - 1) - 1 : std::ldexp(1.0, to.width) - 1;
      uint64_t bits;
      if (std::isnan(v)) bits = 0;
      else if (v <= lo) bits = static_cast<uint64_t>(static_cast<int64_t>(lo));
      else if (v >= hi) bits = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(hi)) : mask(to.width);
      else bits = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
      write(in.operands[0], bits, to.width);
      return true;
    }
    // integer -> integer: sign or zero extend from the source, then truncate (no .sat in the subset).
    if (has(in, "sat")) return unsupported("saturates an integer conversion");
    const uint64_t v = from.cls == Class::Signed ? static_cast<uint64_t>(signExtend(a, from.width)) : a & mask(from.width);
    write(in.operands[0], v, to.width);
    return true;
  }
  return unsupported("is not in the subset");
}

}  // namespace tilesim::ptx

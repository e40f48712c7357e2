// Float literal parsing and MLIR-compatible formatting; see FloatText.h.
#include "ir/text/FloatText.h"

#include <charconv>
#include <cstdio>
#include <cstring>

#include "ir/FloatBits.h"

namespace tilesim::text {

namespace {

uint64_t widthMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

int significandBits(ScalarKind kind) {
  FloatFormat format = floatFormat(kind);
  return format.mantissaBits + 1;
}

bool isFiniteBits(uint64_t bits, ScalarKind kind) {
  FloatFormat format = floatFormat(kind);
  uint64_t exponent = (bits >> format.mantissaBits) & widthMask(format.exponentBits);
  uint64_t mantissa = bits & widthMask(format.mantissaBits);
  if (!format.hasInfinity) return !(exponent == widthMask(format.exponentBits) && mantissa == widthMask(format.mantissaBits));
  return exponent != widthMask(format.exponentBits);
}

bool roundTrips(const std::string& text, uint64_t bits, ScalarKind kind) {
  bool negative = !text.empty() && text[0] == '-';
  std::optional<uint64_t> back = parseDecimalFloat(std::string_view(text).substr(negative ? 1 : 0), negative, kind);
  return back && *back == bits;
}

// Splits printf's `%.Ne` output into the significant digits (no trailing zeros) and the decimal exponent of the
// first digit.
void splitScientific(const char* buffer, std::string& digits, int& exponent, bool& negative) {
  const char* p = buffer;
  negative = *p == '-';
  if (negative) ++p;
  digits.clear();
  for (; *p && *p != 'e'; ++p)
    if (*p >= '0' && *p <= '9') digits += *p;
  exponent = *p == 'e' ? std::atoi(p + 1) : 0;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

// APFloat::toString(FormatPrecision = 0, FormatMaxPadding = 3, TruncateZero = true).
std::string apfloatDefault(double value, ScalarKind kind) {
  int precision = 2 + significandBits(kind) * 59 / 196;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", precision - 1, value);
  std::string digits;
  int firstExponent = 0;
  bool negative = false;
  splitScientific(buffer, digits, firstExponent, negative);
  std::string out = negative ? "-" : "";
  int numDigits = static_cast<int>(digits.size());
  int exp = firstExponent - (numDigits - 1);  // value = digits * 10^exp
  bool scientific;
  if (exp >= 0) {
    scientific = exp > 3 || numDigits + exp > precision;
  } else {
    int msd = exp + numDigits - 1;
    scientific = msd < 0 && -msd > 3;
  }
  if (scientific) {
    out += digits[0];
    out += '.';
    out += numDigits == 1 ? std::string("0") : digits.substr(1);
    out += 'E';
    out += firstExponent >= 0 ? '+' : '-';
    out += std::to_string(firstExponent >= 0 ? firstExponent : -firstExponent);
    return out;
  }
  if (exp >= 0) return out + digits + std::string(static_cast<size_t>(exp), '0');
  int integerDigits = numDigits + exp;
  if (integerDigits > 0) return out + digits.substr(0, integerDigits) + "." + digits.substr(integerDigits);
  return out + "0." + std::string(static_cast<size_t>(-integerDigits), '0') + digits;
}

std::string hexBits(uint64_t bits, ScalarKind kind) {
  static const char* hex = "0123456789ABCDEF";
  int width = bitWidth(kind);
  std::string s = "0x";
  for (int shift = ((width + 3) / 4 - 1) * 4; shift >= 0; shift -= 4) s += hex[(bits >> shift) & 15];
  return s;
}

}  // namespace

std::optional<uint64_t> parseDecimalFloat(std::string_view literal, bool negative, ScalarKind kind) {
  if (!isFloatKind(kind)) return std::nullopt;
  const char* first = literal.data();
  const char* last = literal.data() + literal.size();
  uint64_t bits;
  if (kind == ScalarKind::F32) {
    float value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
    if (ptr != last || (ec != std::errc() && ec != std::errc::result_out_of_range)) return std::nullopt;
    if (ec == std::errc::result_out_of_range) {  // from_chars leaves `value` unset: strtod gives inf or 0
      value = static_cast<float>(std::strtod(std::string(literal).c_str(), nullptr));
    }
    uint32_t raw;
    std::memcpy(&raw, &value, 4);
    bits = raw;
  } else {
    double value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
    if (ptr != last || (ec != std::errc() && ec != std::errc::result_out_of_range)) return std::nullopt;
    if (ec == std::errc::result_out_of_range) value = std::strtod(std::string(literal).c_str(), nullptr);
    if (kind == ScalarKind::F64) {
      std::memcpy(&bits, &value, 8);
    } else {
      bits = floatBitsFromDouble(value, kind);
    }
  }
  if (negative) bits ^= uint64_t{1} << (bitWidth(kind) - 1);
  return bits;
}

bool isFiniteFloatBits(uint64_t bits, ScalarKind kind) { return isFiniteBits(bits, kind); }

std::optional<uint64_t> parseHexBits(std::string_view literal, int bitWidth) {
  if (literal.size() < 3 || literal[0] != '0' || literal[1] != 'x') return std::nullopt;
  std::string_view digits = literal.substr(2);
  while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
  if (digits.size() > 16) return std::nullopt;
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  if (bitWidth < 64 && (value >> bitWidth) != 0) return std::nullopt;
  return value;
}

std::string formatFloat(uint64_t bits, ScalarKind kind) {
  bits &= widthMask(bitWidth(kind));
  if (!isFiniteBits(bits, kind)) return hexBits(bits, kind);
  double value = doubleFromFloatBits(bits, kind);
  // MLIR first tries 6 significant digits written with 7 (`1.234570e+00`).
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.5e", value);
  std::string text = buffer;
  size_t e = text.find('e');
  if (e != std::string::npos) text.insert(e, "0");
  if (roundTrips(text, bits, kind)) return text;
  text = apfloatDefault(value, kind);
  if (text.find('.') != std::string::npos && roundTrips(text, bits, kind)) return text;
  return hexBits(bits, kind);
}

}  // namespace tilesim::text

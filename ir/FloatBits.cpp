// Generic minifloat encoding: scale by a power of two so the value's quantum becomes 1, round the integer
// (exact in double for every format narrower than f64), then rebuild the fields.
#include "ir/FloatBits.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "ir/Assert.h"

namespace tilesim {

FloatFormat floatFormat(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F8E4M3FN: return {4, 3, 7, false};
    case ScalarKind::F8E5M2: return {5, 2, 15, true};
    case ScalarKind::F16: return {5, 10, 15, true};
    case ScalarKind::BF16: return {8, 7, 127, true};
    case ScalarKind::F32: return {8, 23, 127, true};
    case ScalarKind::F64: return {11, 52, 1023, true};
    case ScalarKind::I1:
    case ScalarKind::I8:
    case ScalarKind::I16:
    case ScalarKind::I32:
    case ScalarKind::I64: break;
  }
  TILESIM_UNREACHABLE(std::string("floatFormat of integer kind ") + scalarKindName(kind));
}

uint64_t canonicalNaNBits(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F8E4M3FN: return 0x7F;
    case ScalarKind::F8E5M2: return 0x7F;
    case ScalarKind::F16: return 0x7FFF;
    case ScalarKind::BF16: return 0x7FFF;
    case ScalarKind::F32: return 0x7FFFFFFF;
    case ScalarKind::F64: return 0x7FFFFFFFFFFFFFFFull;
    default: break;
  }
  TILESIM_UNREACHABLE("canonicalNaNBits of integer kind");
}

double largestFinite(ScalarKind kind) {
  FloatFormat f = floatFormat(kind);
  int maxExponent = (1 << f.exponentBits) - 1 - f.bias - (f.hasInfinity ? 1 : 0);
  // FN formats reserve the all-ones mantissa at the top exponent for NaN.
  double mantissa = f.hasInfinity ? 2.0 - std::ldexp(1.0, -f.mantissaBits) : 2.0 - std::ldexp(2.0, -f.mantissaBits);
  return std::ldexp(mantissa, maxExponent);
}

bool isNaNBits(uint64_t bits, ScalarKind kind) { return std::isnan(doubleFromFloatBits(bits, kind)); }

uint64_t floatBitsFromDouble(double value, ScalarKind kind, Rounding rounding, bool saturate) {
  if (kind == ScalarKind::F64) {
    if (std::isnan(value)) return canonicalNaNBits(kind);
    return std::bit_cast<uint64_t>(value);
  }
  if (kind == ScalarKind::F32 && rounding == Rounding::NearestEven && !saturate) {
    if (std::isnan(value)) return canonicalNaNBits(kind);
    return std::bit_cast<uint32_t>(static_cast<float>(value));
  }
  FloatFormat f = floatFormat(kind);
  const int totalBits = 1 + f.exponentBits + f.mantissaBits;
  const uint64_t signBit = uint64_t{1} << (totalBits - 1);
  if (std::isnan(value)) return canonicalNaNBits(kind);
  uint64_t sign = std::signbit(value) ? signBit : 0;
  double magnitude = std::fabs(value);
  const double maxFinite = largestFinite(kind);
  auto encodeMax = [&]() -> uint64_t {
    uint64_t topExponent = (uint64_t{1} << f.exponentBits) - 1 - (f.hasInfinity ? 1 : 0);
    uint64_t mantissa = (uint64_t{1} << f.mantissaBits) - 1 - (f.hasInfinity ? 0 : 1);
    return sign | (topExponent << f.mantissaBits) | mantissa;
  };
  auto encodeOverflow = [&]() -> uint64_t {
    if (saturate) return encodeMax();
    if (!f.hasInfinity) return sign | canonicalNaNBits(kind);
    if (rounding == Rounding::TowardZero && !std::isinf(value)) return encodeMax();
    return sign | ((uint64_t{1} << f.exponentBits) - 1) << f.mantissaBits;
  };
  if (std::isinf(magnitude)) return encodeOverflow();
  if (magnitude == 0.0) return sign;
  const int minNormalExponent = 1 - f.bias;
  int exponent = std::ilogb(magnitude);  // magnitude = 1.x * 2^exponent
  int quantumExponent = (exponent < minNormalExponent ? minNormalExponent : exponent) - f.mantissaBits;
  double scaled = std::ldexp(magnitude, -quantumExponent);
  double rounded = rounding == Rounding::TowardZero ? std::trunc(scaled) : std::nearbyint(scaled);
  double result = std::ldexp(rounded, quantumExponent);
  if (result > maxFinite) return encodeOverflow();
  if (result == 0.0) return sign;
  int resultExponent = std::ilogb(result);
  if (resultExponent < minNormalExponent) {  // subnormal: exponent field 0, mantissa = multiples of the quantum
    return sign | static_cast<uint64_t>(std::ldexp(result, f.bias - 1 + f.mantissaBits));
  }
  uint64_t exponentField = static_cast<uint64_t>(resultExponent + f.bias);
  uint64_t mantissa = static_cast<uint64_t>(std::ldexp(result, f.mantissaBits - resultExponent)) -
                      (uint64_t{1} << f.mantissaBits);
  return sign | (exponentField << f.mantissaBits) | mantissa;
}

double doubleFromFloatBits(uint64_t bits, ScalarKind kind) {
  if (kind == ScalarKind::F64) return std::bit_cast<double>(bits);
  if (kind == ScalarKind::F32) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  FloatFormat f = floatFormat(kind);
  const int totalBits = 1 + f.exponentBits + f.mantissaBits;
  bool negative = (bits >> (totalBits - 1)) & 1;
  uint64_t exponentField = (bits >> f.mantissaBits) & ((uint64_t{1} << f.exponentBits) - 1);
  uint64_t mantissa = bits & ((uint64_t{1} << f.mantissaBits) - 1);
  const uint64_t topExponent = (uint64_t{1} << f.exponentBits) - 1;
  double magnitude;
  if (exponentField == topExponent && f.hasInfinity) {
    magnitude = mantissa ? std::nan("") : INFINITY;
  } else if (exponentField == topExponent && mantissa == (uint64_t{1} << f.mantissaBits) - 1) {
    magnitude = std::nan("");  // FN formats: S.1111.111 is NaN
  } else if (exponentField == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissaBits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissaBits)),
                           static_cast<int>(exponentField) - f.bias - f.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace tilesim

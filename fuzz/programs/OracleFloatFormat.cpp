// The oracle's float formats (OracleScalar.h): decoding any format's bits to double and one generic rounding
// routine, "round sign x magnitude x 2^exponent into a format of E exponent bits and M mantissa bits with this
// bias, inf/NaN convention, rounding mode and saturation", written from the IEEE 754 definitions and the OCP fp8
// specification (f8E4M3FN: no infinity, NaN only S.1111.111, largest finite 448; f8E5M2: IEEE-like, largest 57344).
// It shares no code with ir/FloatBits.cpp or ir/eval: the reference's expected values must not inherit their bugs.
#include <bit>
#include <cmath>

#include "fuzz/programs/OracleScalar.h"

namespace tilesim::fuzz::oracle {
namespace {

struct Format {
  int exponentBits;
  int mantissaBits;
  int bias;
  bool hasInfinity;  // false: the all-ones exponent holds finite values except the all-ones mantissa (NaN)
};

Format formatOf(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F64: return {11, 52, 1023, true};
    case ScalarKind::F32: return {8, 23, 127, true};
    case ScalarKind::F16: return {5, 10, 15, true};
    case ScalarKind::BF16: return {8, 7, 127, true};
    case ScalarKind::F8E5M2: return {5, 2, 15, true};
    case ScalarKind::F8E4M3FN: return {4, 3, 7, false};
    case ScalarKind::I1:
    case ScalarKind::I8:
    case ScalarKind::I16:
    case ScalarKind::I32:
    case ScalarKind::I64: break;
  }
  return {8, 23, 127, true};  // not a float kind: callers only pass float kinds
}

uint64_t lowMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

uint64_t largestFiniteBits(const Format& format) {
  const uint64_t allOnesExponent = lowMask(format.exponentBits);
  const uint64_t mantissaMask = lowMask(format.mantissaBits);
  if (format.hasInfinity) return ((allOnesExponent - 1) << format.mantissaBits) | mantissaMask;
  return (allOnesExponent << format.mantissaBits) | (mantissaMask - 1);
}

uint64_t infinityOrNaNBits(const Format& format, ScalarKind kind) {
  return format.hasInfinity ? lowMask(format.exponentBits) << format.mantissaBits : canonicalNaN(kind);
}

// The unsigned bits of magnitude x 2^exponent (magnitude > 0) rounded into `format`.
uint64_t roundMagnitude(uint64_t magnitude, int exponent, const Format& format, ScalarKind kind, Round round,
                        bool saturate) {
  const int mantissaBits = format.mantissaBits;
  const int leadingExponent = 63 - std::countl_zero(magnitude) + exponent;
  const int minNormalExponent = 1 - format.bias;
  // The weight of the last bit the result keeps: fixed below the normal range (subnormals), else M below the lead.
  int quantum = (leadingExponent < minNormalExponent ? minNormalExponent : leadingExponent) - mantissaBits;
  const int dropped = quantum - exponent;
  unsigned __int128 kept = magnitude;
  if (dropped > 0) {
    if (dropped >= 100) {
      kept = 0;  // the whole magnitude is below half of the smallest step: rounds to zero either way
    } else {
      const unsigned __int128 wide = magnitude;
      kept = wide >> dropped;
      const unsigned __int128 rest = wide & ((static_cast<unsigned __int128>(1) << dropped) - 1);
      const unsigned __int128 half = static_cast<unsigned __int128>(1) << (dropped - 1);
      if (round == Round::NearestEven && (rest > half || (rest == half && (kept & 1)))) ++kept;
    }
  } else {
    kept <<= -dropped;
  }
  if (kept == 0) return 0;
  if (kept >> (mantissaBits + 1)) {  // rounding carried into a new leading bit
    kept >>= 1;
    ++quantum;
  }
  const bool normal = (kept >> mantissaBits) != 0;
  const int64_t biasedExponent = normal ? int64_t{quantum} + mantissaBits + format.bias : 0;
  const uint64_t mantissa = static_cast<uint64_t>(kept) & lowMask(mantissaBits);
  const int64_t allOnesExponent = static_cast<int64_t>(lowMask(format.exponentBits));
  const bool overflow = format.hasInfinity ? biasedExponent >= allOnesExponent
                                           : (biasedExponent > allOnesExponent ||
                                              (biasedExponent == allOnesExponent && mantissa == lowMask(mantissaBits)));
  if (overflow)
    return saturate || round == Round::TowardZero ? largestFiniteBits(format) : infinityOrNaNBits(format, kind);
  return (static_cast<uint64_t>(biasedExponent) << mantissaBits) | mantissa;
}

}  // namespace

uint64_t canonicalNaN(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F64: return 0x7FFFFFFFFFFFFFFFull;
    case ScalarKind::F32: return 0x7FFFFFFFu;
    case ScalarKind::F16:
    case ScalarKind::BF16: return 0x7FFFu;
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2: return 0x7Fu;
    case ScalarKind::I1:
    case ScalarKind::I8:
    case ScalarKind::I16:
    case ScalarKind::I32:
    case ScalarKind::I64: break;
  }
  return 0;
}

bool isNaNBits(uint64_t bits, ScalarKind kind) {
  const Format format = formatOf(kind);
  const uint64_t exponentField = (bits >> format.mantissaBits) & lowMask(format.exponentBits);
  const uint64_t mantissa = bits & lowMask(format.mantissaBits);
  if (exponentField != lowMask(format.exponentBits)) return false;
  return format.hasInfinity ? mantissa != 0 : mantissa == lowMask(format.mantissaBits);
}

double decodeFloat(uint64_t bits, ScalarKind kind) {
  // f64 and f32 are the host's own formats: their bits are the value (the hot path of the reference).
  if (kind == ScalarKind::F64) return std::bit_cast<double>(bits);
  if (kind == ScalarKind::F32) return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  const Format format = formatOf(kind);
  const int signPosition = format.exponentBits + format.mantissaBits;
  const bool negative = (bits >> signPosition) & 1;
  const uint64_t exponentField = (bits >> format.mantissaBits) & lowMask(format.exponentBits);
  const uint64_t mantissa = bits & lowMask(format.mantissaBits);
  double magnitude;
  if (isNaNBits(bits, kind)) {
    magnitude = std::nan("");
  } else if (format.hasInfinity && exponentField == lowMask(format.exponentBits)) {
    magnitude = HUGE_VAL;
  } else if (exponentField == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - format.bias - format.mantissaBits);
  } else {
    const uint64_t significand = mantissa | (uint64_t{1} << format.mantissaBits);
    magnitude = std::ldexp(static_cast<double>(significand),
                           static_cast<int>(exponentField) - format.bias - format.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

uint64_t encodeFloat(double value, ScalarKind kind, Round round, bool saturate) {
  if (value != value) return canonicalNaN(kind);
  // f64 is exact; f32 under nearest-even without saturation is the FPU's own conversion (OracleSelfCheck checks
  // the generic routine below against it).
  if (kind == ScalarKind::F64) return std::bit_cast<uint64_t>(value);
  if (kind == ScalarKind::F32 && round == Round::NearestEven && !saturate)
    return std::bit_cast<uint32_t>(static_cast<float>(value));
  const Format format = formatOf(kind);
  const uint64_t sign = std::signbit(value) ? uint64_t{1} << (format.exponentBits + format.mantissaBits) : 0;
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return sign;
  if (std::isinf(magnitude)) {
    if (saturate) return sign | largestFiniteBits(format);
    return sign | infinityOrNaNBits(format, kind);
  }
  int exponent = 0;
  const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent, fraction in [0.5, 1)
  const uint64_t significand = static_cast<uint64_t>(std::ldexp(fraction, 53));  // exact: 53 bits
  return sign | roundMagnitude(significand, exponent - 53, format, kind, round, saturate);
}

uint64_t encodeInteger(bool negative, uint64_t magnitude, ScalarKind kind) {
  if (magnitude == 0) return 0;
  const Format format = formatOf(kind);
  const uint64_t sign = negative ? uint64_t{1} << (format.exponentBits + format.mantissaBits) : 0;
  return sign | roundMagnitude(magnitude, 0, format, kind, Round::NearestEven, false);
}

}  // namespace tilesim::fuzz::oracle

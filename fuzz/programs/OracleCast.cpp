// The oracle's conversions (OracleScalar.h), from docs/semantics.md "Casts" and "NaN bits": integer -> float is
// one nearest-even rounding of the exact integer (encodeInteger); float -> integer is PTX cvt.rzi, truncation and
// then saturation to the conversion width (16 bits for i8 and i1 targets, which then wrap), done on the exact
// truncated value in 128 bits; float -> float is one rounding of the exact value (encodeFloat), fp8 targets with
// satfinite, and the three NaN conversions that keep a payload on the GPU.
#include <cmath>

#include "fuzz/programs/OracleScalar.h"

namespace tilesim::fuzz::oracle {
namespace {

using Wide = __int128;

uint64_t lowBits(Wide value, int width) {
  const unsigned __int128 modulus = static_cast<unsigned __int128>(1) << width;
  return static_cast<uint64_t>(static_cast<unsigned __int128>(value) & (modulus - 1));
}

Wide lowestOf(int width, bool isUnsigned) { return isUnsigned ? 0 : -(static_cast<Wide>(1) << (width - 1)); }
Wide highestOf(int width, bool isUnsigned) {
  return isUnsigned ? (static_cast<Wide>(1) << width) - 1 : (static_cast<Wide>(1) << (width - 1)) - 1;
}

bool isFp8(ScalarKind kind) { return kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2; }

}  // namespace

uint64_t integerToFloat(uint64_t bits, int width, bool isUnsigned, ScalarKind to) {
  const unsigned __int128 modulus = static_cast<unsigned __int128>(1) << width;
  const unsigned __int128 value = static_cast<unsigned __int128>(bits) & (modulus - 1);
  const bool negative = !isUnsigned && ((value >> (width - 1)) & 1);
  const unsigned __int128 magnitude = negative ? modulus - value : value;  // |INT_MIN| = 2^(width-1) fits
  return encodeInteger(negative, static_cast<uint64_t>(magnitude), to);
}

uint64_t floatToInteger(uint64_t bits, ScalarKind from, int width, bool isUnsigned, bool* outOfRange) {
  const int conversionWidth = width < 16 ? 16 : width;
  const double value = decodeFloat(bits, from);
  if (value != value) {
    *outOfRange = true;
    // The probes: from f64, the conversion width's sign bit; from f32 and narrower, 0 except for 64-bit targets.
    const bool signBit = from == ScalarKind::F64 || conversionWidth == 64;
    return signBit ? lowBits(static_cast<Wide>(1) << (conversionWidth - 1), width) : 0;
  }
  const double truncated = std::trunc(value);
  // Beyond 2^100 every destination saturates; below it the double converts to __int128 exactly.
  constexpr double kFar = 0x1p100;
  const Wide exact = truncated >= kFar    ? static_cast<Wide>(1) << 100
                     : truncated <= -kFar ? -(static_cast<Wide>(1) << 100)
                                          : static_cast<Wide>(truncated);
  *outOfRange = exact < lowestOf(width, isUnsigned) || exact > highestOf(width, isUnsigned);
  const Wide low = lowestOf(conversionWidth, isUnsigned), high = highestOf(conversionWidth, isUnsigned);
  const Wide saturated = exact < low ? low : exact > high ? high : exact;
  return lowBits(saturated, width);
}

uint64_t floatToFloat(uint64_t bits, ScalarKind from, ScalarKind to, Round round) {
  if (isNaNBits(bits, from)) {
    if (from == ScalarKind::F64 && to == ScalarKind::F32) {
      // sign, quiet bit, then the 22 payload bits just below f64's quiet bit
      const uint64_t payload = (bits >> (51 - 22)) & 0x3FFFFFu;
      return ((bits >> 63) << 31) | 0x7FC00000u | payload;
    }
    if (from == ScalarKind::F32 && to == ScalarKind::F64) {
      const uint64_t payload = bits & 0x3FFFFFu;
      return ((bits >> 31 & 1) << 63) | 0x7FF8000000000000ull | (payload << (51 - 22));
    }
    if (from == ScalarKind::BF16 && to == ScalarKind::F32) return (bits & 0xFFFFu) << 16;  // SHF.L.U32 16
    return canonicalNaN(to);
  }
  return encodeFloat(decodeFloat(bits, from), to, round, /*saturate=*/isFp8(to));
}

}  // namespace tilesim::fuzz::oracle

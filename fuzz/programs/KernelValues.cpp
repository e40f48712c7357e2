// Random buffer contents for generated programs (randomBuffer, KernelGen.h): value diversity. Each buffer draws
// its elements from one of four mixes, picked per buffer (so a program sees both easy and hard data):
//   easy     small integers and half-integers, a few specials: exact results that catch arithmetic bugs;
//   bits     uniformly random bit patterns of the element's width (every NaN payload, subnormal, huge value);
//   ties     floats at and one ulp beside the rounding ties of the narrower formats a program converts to
//            (f16, bf16, fp8e4nv, fp8e5, integers), and integers beside the exactness limits of f16/bf16/f32/f64
//            (2^11+1, 2^24+1, ...): the inputs on which a conversion's rounding mode changes the result;
//   limits   type limits and their neighbours: INT_MIN, -1, max, ±max finite, smallest normal and subnormal,
//            ±0, ±inf, NaNs of both signs with payloads, powers of two up to the largest, the narrower types'
//            limits (65504, 448, 57344, 127, 32767, ...).
// Data never reaches an address unbounded (the generator masks every data-dependent index) and integer
// semantics are total (docs/semantics.md), so no mix makes a program undefined.
#include <cmath>
#include <cstring>
#include <iterator>

#include "fuzz/programs/KernelGen.h"
#include "ir/FloatBits.h"

namespace tilesim::fuzz {
namespace {

enum class ValueMix : uint8_t { Easy, Bits, Ties, Limits };
constexpr ScalarKind kNoTarget = ScalarKind::I1;  // randomBuffer's convertsTo = Int1: no conversion

uint64_t widthMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// A value at (or one ulp of `kind` beside) a rounding tie of a narrower float format: the midpoint between a
// random finite value of the narrow format and its successor, or a tie of integer rounding (n + 0.5).
uint64_t tieValue(ScalarKind kind, ScalarKind target, std::mt19937_64& rng) {
  static const ScalarKind kNarrow[] = {ScalarKind::F16, ScalarKind::BF16, ScalarKind::F8E4M3FN, ScalarKind::F8E5M2,
                                       ScalarKind::F32};
  const int width = bitWidth(kind);
  double tie = 0;
  uint64_t pick = rng() % 6;
  if (target != kNoTarget && rng() % 4 != 0) {  // mostly the conversion the program makes
    pick = 5;
    for (uint64_t p = 0; p < std::size(kNarrow); ++p)
      if (kNarrow[p] == target) pick = p;
  }
  if (pick == 5) {
    tie = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000) + 0.5;  // float -> int (and rint)
  } else {
    const ScalarKind narrow = kNarrow[pick];
    const int narrowWidth = bitWidth(narrow);
    if (narrowWidth >= width) return floatBitsFromDouble(static_cast<double>(rng() % 64) + 0.5, kind);
    // A finite narrow value (not the largest: its successor would be inf/NaN) and its successor in magnitude.
    const uint64_t magnitudeMask = widthMask(narrowWidth - 1);
    uint64_t bits = rng() & magnitudeMask;
    double low = doubleFromFloatBits(bits, narrow), high = doubleFromFloatBits(bits + 1, narrow);
    if (!std::isfinite(low) || !std::isfinite(high) || std::isnan(low) || std::isnan(high)) {
      bits = rng() % 64;
      low = doubleFromFloatBits(bits, narrow);
      high = doubleFromFloatBits(bits + 1, narrow);
    }
    tie = (low + high) / 2;  // exact in double: at most 8 significant bits more than the narrow format
    if (rng() % 2) tie = -tie;
  }
  uint64_t out = floatBitsFromDouble(tie, kind);
  const uint64_t step = rng() % 3;  // the tie itself, one ulp toward zero, one ulp away
  if (step == 1 && (out & widthMask(width - 1)) != 0) out -= 1;
  else if (step == 2) out += 1;
  return out & widthMask(width);
}

uint64_t floatLimit(ScalarKind kind, std::mt19937_64& rng) {
  const int width = bitWidth(kind);
  const FloatFormat format = floatFormat(kind);
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t exponentAllOnes = widthMask(format.exponentBits) << format.mantissaBits;
  const uint64_t mantissa = widthMask(format.mantissaBits);
  const uint64_t maxFinite = floatBitsFromDouble(largestFinite(kind), kind);
  static const double kNarrowLimits[] = {65504.0, 65520.0, 448.0, 464.0, 57344.0, 61440.0, 3.3895313892515355e38,
                                         6.103515625e-05, 5.960464477539063e-08, 1.1754943508222875e-38,
                                         2147483648.0, 4294967296.0, 16777217.0, 9007199254740993.0};
  uint64_t bits = 0;
  switch (rng() % 12) {
    case 0: bits = 0; break;                                        // +0 (the sign below gives -0)
    case 1: bits = exponentAllOnes; break;                          // inf (f8E4M3FN: NaN)
    case 2: bits = exponentAllOnes | (1 + rng() % mantissa); break; // NaN with a payload, quiet or signalling
    case 3: bits = maxFinite - rng() % 2; break;                    // the largest finite values
    case 4: bits = uint64_t{1} << format.mantissaBits; break;       // smallest normal
    case 5: bits = 1 + (rng() % 2) * (mantissa - 1); break;         // smallest / largest subnormal
    case 6: bits = (uint64_t{1} << format.mantissaBits) - 1 + rng() % 3; break;  // around the normal boundary
    case 7: bits = floatBitsFromDouble(std::ldexp(1.0, static_cast<int>(rng() % 2048) - 1074), kind); break;
    case 8: bits = floatBitsFromDouble(kNarrowLimits[rng() % std::size(kNarrowLimits)], kind); break;
    case 9: bits = floatBitsFromDouble(1.0, kind) + rng() % 3 - 1; break;  // 1 and its neighbours
    default: bits = (rng() & widthMask(width - 1)) | exponentAllOnes; break;  // inf/NaN of any payload
  }
  if (rng() % 2) bits |= sign;
  return bits & widthMask(width);
}

uint64_t intLimit(ScalarKind kind, std::mt19937_64& rng) {
  const int width = bitWidth(kind);
  static const int64_t kNarrowLimits[] = {127, 128, 255, 256, 32767, 32768, 65535, 65536, 2147483647,
                                          2147483648LL, 4294967295LL, 2049, 257, 16777217, 9007199254740993LL};
  const uint64_t top = uint64_t{1} << (width - 1);
  uint64_t bits = 0;
  switch (rng() % 5) {
    case 0: bits = top + rng() % 2; break;           // INT_MIN, INT_MIN + 1
    case 1: bits = top - 1 - rng() % 2; break;       // INT_MAX, INT_MAX - 1
    case 2: bits = ~uint64_t{0} - rng() % 2; break;  // -1, -2 (unsigned: max)
    case 3: bits = rng() % 2; break;                 // 0, 1
    default: {
      int64_t v = kNarrowLimits[rng() % std::size(kNarrowLimits)] + static_cast<int64_t>(rng() % 3) - 1;
      bits = static_cast<uint64_t>(rng() % 2 ? -v : v);
    }
  }
  return bits & widthMask(width);
}

uint64_t easyValue(ScalarKind kind, std::mt19937_64& rng) {
  uint64_t bits = rng();
  const int style = static_cast<int>(rng() % 10);
  if (isFloatKind(kind)) {
    static const double kSpecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-40, -1e-310, 65504.0, 3.0e38, 1.0};
    if (style < 6) bits = floatBitsFromDouble(static_cast<double>(static_cast<int64_t>(rng() % 33) - 16) / 2.0, kind);
    else if (style < 8) bits = floatBitsFromDouble(kSpecial[rng() % std::size(kSpecial)], kind);
  } else if (style < 5) {
    bits = static_cast<uint64_t>(static_cast<int64_t>(rng() % 21) - 10);
  } else if (style < 7) {
    const uint64_t kEdges[] = {0, ~uint64_t{0}, uint64_t{1} << (bitWidth(kind) - 1), (uint64_t{1} << (bitWidth(kind) - 1)) - 1};
    bits = kEdges[rng() % 4];
  }
  return bits;
}

// An integer beside an exactness limit of `target` (int -> float rounding ties: 2^(p+1) + 1 and neighbours).
uint64_t intTie(ScalarKind kind, ScalarKind target, std::mt19937_64& rng) {
  const int precision = floatFormat(target).mantissaBits + 1;
  const int shift = precision + static_cast<int>(rng() % 4);
  if (shift >= bitWidth(kind) - 1) return intLimit(kind, rng);
  const int64_t v = (int64_t{1} << shift) + static_cast<int64_t>(rng() % 5) - 2 + static_cast<int64_t>(rng() % 2) * (int64_t{1} << (shift - precision));
  return static_cast<uint64_t>(rng() % 2 ? -v : v) & widthMask(bitWidth(kind));
}

// One element of `mix`; the other mixes are sprinkled in (1 in 8) so no buffer is uniform.
uint64_t element(ScalarKind kind, ValueMix mix, ScalarKind target, std::mt19937_64& rng) {
  if (rng() % 8 == 0) mix = static_cast<ValueMix>(rng() % 4);
  switch (mix) {
    case ValueMix::Easy: return easyValue(kind, rng);
    case ValueMix::Bits: return rng();
    case ValueMix::Ties:
      if (isFloatKind(kind)) return tieValue(kind, target, rng);
      return isFloatKind(target) ? intTie(kind, target, rng) : intLimit(kind, rng);
    case ValueMix::Limits: return isFloatKind(kind) ? floatLimit(kind, rng) : intLimit(kind, rng);
  }
  return 0;
}

}  // namespace

std::vector<uint8_t> randomBuffer(builder::DType dtype, int64_t count, std::mt19937_64& rng, builder::DType convertsTo) {
  const ScalarKind kind = builder::scalarKindOf(dtype);
  const int bytes = storageBytes(kind);
  std::vector<uint8_t> data(static_cast<size_t>(count * bytes));
  // Easy values stay the most common mix (4 in 10): they give exact results that catch arithmetic bugs.
  static const ValueMix kMixes[] = {ValueMix::Easy, ValueMix::Easy, ValueMix::Easy, ValueMix::Easy, ValueMix::Bits,
                                    ValueMix::Bits, ValueMix::Ties, ValueMix::Ties, ValueMix::Limits, ValueMix::Limits};
  const ScalarKind target = builder::scalarKindOf(convertsTo);  // I1: the program converts nothing
  // A buffer the program converts gets rounding ties half the time.
  const ValueMix mix = target != kNoTarget && rng() % 2 ? ValueMix::Ties : kMixes[rng() % std::size(kMixes)];
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = kind == ScalarKind::I1 ? rng() & 1 : element(kind, mix, target, rng);
    std::memcpy(data.data() + i * bytes, &bits, static_cast<size_t>(bytes));
  }
  return data;
}

}  // namespace tilesim::fuzz

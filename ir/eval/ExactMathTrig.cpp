// sin and cos of the exact profile (algorithm: ExactMath.h): the Payne-Hanek reduction in 64-bit integer words
// (valid for every finite input), then the Taylor kernels on |r| <= pi/4 with the reduction's low word folded in.
#include "ir/eval/ExactMath.h"
#include "ir/eval/ExactMathSupport.h"

namespace tilesim::exactmath {
namespace {

using U128 = unsigned __int128;

template <typename T> struct ReducedAngle {
  int quadrant;      // x = (quadrant + 4n) pi/2 + r
  DoubleWord<T> r;   // |r| <= pi/4 (to a few ulps)
};

// Bits [first, first + 64) of the table (bit 0 = the top bit of word 0; bit i + 63 is bit i of 2/pi).
uint64_t tableBits(int first) {
  int word = first / 64, shift = first % 64;
  uint64_t high = kTwoOverPiWords[word];
  if (shift == 0) return high;
  return (high << shift) | (kTwoOverPiWords[word + 1] >> (64 - shift));
}

// |x| = significand 2^exponent with |x| > pi/4, finite.
template <typename T> ReducedAngle<T> payneHanek(uint64_t significand, int exponent) {
  using C = Constants<T>;
  // x 2/pi mod 4 only needs the bits b_i of 2/pi with i >= exponent - 1 (earlier ones give multiples of 4).
  // A 192-bit window B from there: x 2/pi = significand B 2^-190 (mod 4), so the low 192 bits of the product hold
  // 2 integer bits (the quadrant) and 190 fraction bits.
  int first = exponent - 1 + 63;  // table bit of b_(exponent-1); >= 8 because |x| > pi/4
  uint64_t window[3] = {tableBits(first), tableBits(first + 64), tableBits(first + 128)};  // most significant first
  U128 low = static_cast<U128>(significand) * window[2];
  U128 middle = static_cast<U128>(significand) * window[1];
  uint64_t top = significand * window[0];  // only its low 64 bits survive mod 2^192
  uint64_t p0 = static_cast<uint64_t>(low);
  U128 p1Sum = (low >> 64) + static_cast<uint64_t>(middle);
  uint64_t p1 = static_cast<uint64_t>(p1Sum);
  uint64_t p2 = top + static_cast<uint64_t>(middle >> 64) + static_cast<uint64_t>(p1Sum >> 64);
  int quadrant = static_cast<int>(p2 >> 62);
  // The 128 fraction bits after the quadrant, as a signed value in [-1/2, 1/2) (a fraction >= 1/2 counts as the
  // next quadrant minus the rest).
  U128 fraction = (static_cast<U128>((p2 << 2) | (p1 >> 62)) << 64) | ((p1 << 2) | (p0 >> 62));
  bool negative = (fraction >> 127) != 0;
  quadrant = (quadrant + (negative ? 1 : 0)) & 3;
  U128 magnitude = negative ? ~fraction + 1 : fraction;
  // Normalise and split into two T-sized integers: f = magnitude 2^-128.
  uint64_t magnitudeHigh = static_cast<uint64_t>(magnitude >> 64);
  int leading = magnitudeHigh ? __builtin_clzll(magnitudeHigh) : 64 + __builtin_clzll(static_cast<uint64_t>(magnitude) | 1);
  U128 normal = magnitude << leading;
  constexpr int p = Bits<T>::kMantissaBits + 1;
  uint64_t highBits = static_cast<uint64_t>(normal >> (128 - p));
  uint64_t lowBits = static_cast<uint64_t>(normal >> (128 - 2 * p)) & ((uint64_t{1} << p) - 1);
  T fHi = static_cast<T>(highBits) * powerOfTwo<T>(-p - leading);      // exact
  T fLo = static_cast<T>(lowBits) * powerOfTwo<T>(-2 * p - leading);   // exact
  // r = (fHi + fLo) pi/2 as a double-word.
  DoubleWord<T> product = twoProduct(fHi, C::kHalfPiHi);
  T error = fma(fHi, C::kHalfPiLo, product.lo);
  error = fma(fLo, C::kHalfPiHi, error);
  DoubleWord<T> r = fastTwoSum(product.hi, error);
  if (negative) r = {-r.hi, -r.lo};
  return {quadrant, r};
}

template <typename T> ReducedAngle<T> reduce(T absX) {
  if (absX <= T(0.78539816339744830962)) return {0, {absX, T(0)}};
  constexpr int kMantissa = Bits<T>::kMantissaBits;
  Word<T> bits = toBits(absX);
  uint64_t significand = (static_cast<uint64_t>(bits) & ((uint64_t{1} << kMantissa) - 1)) | (uint64_t{1} << kMantissa);
  int exponent = static_cast<int>(bits >> kMantissa) - Bits<T>::kBias - kMantissa;
  return payneHanek<T>(significand, exponent);
}

// sin(hi + lo) for |hi| <= pi/4: hi + (hi^3 S(hi^2) + lo (1 - hi^2/2)).
template <typename T> T sinKernel(DoubleWord<T> r) {
  using C = Constants<T>;
  T z = r.hi * r.hi;
  T s = horner(C::kSinTaylor, z);
  T loTerm = fma(T(-0.5) * z, r.lo, r.lo);
  return r.hi + fma(r.hi * z, s, loTerm);
}

// cos(hi + lo) for |hi| <= pi/4: w + (((1 - w) - h) - hError + (hi^4 C(hi^2) - hi lo)), w = 1 - h, h = hi^2/2.
template <typename T> T cosKernel(DoubleWord<T> r) {
  using C = Constants<T>;
  T z = r.hi * r.hi;
  T half = T(0.5) * z;
  T halfError = fma(T(0.5) * r.hi, r.hi, -half);
  T w = T(1) - half;
  T correction = ((T(1) - w) - half) - halfError;
  T tail = fma(z * z, horner(C::kCosTaylor, z), -(r.hi * r.lo));
  return w + (correction + tail);
}

template <typename T> T sinImpl(T x) {
  if (isNaN(x)) return x;
  if (x == infinity<T>() || x == -infinity<T>()) return quietNaN<T>();
  if (x == T(0)) return x;  // keeps the sign of zero
  T absX = x < 0 ? -x : x;
  ReducedAngle<T> reduced = reduce(absX);
  T value = (reduced.quadrant & 1) ? cosKernel(reduced.r) : sinKernel(reduced.r);
  if (reduced.quadrant & 2) value = -value;
  return x < 0 ? -value : value;
}

template <typename T> T cosImpl(T x) {
  if (isNaN(x)) return x;
  if (x == infinity<T>() || x == -infinity<T>()) return quietNaN<T>();
  T absX = x < 0 ? -x : x;
  ReducedAngle<T> reduced = reduce(absX);
  T value = (reduced.quadrant & 1) ? sinKernel(reduced.r) : cosKernel(reduced.r);
  return ((reduced.quadrant + 1) & 2) ? -value : value;
}

}  // namespace

TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(sin, sinImpl)
TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(cos, cosImpl)

}  // namespace tilesim::exactmath

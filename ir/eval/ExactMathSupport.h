// Private to ir/eval/ExactMath*.cpp: the few building blocks every exact-profile math function is written with —
// fma and rint on the element type, exact powers of two made from exponent bits, error-free products and sums
// (double-word arithmetic), Horner evaluation of a coefficient table, and the per-type bundle of constants from
// the generated ExactMathCoefficients.h. Each helper is a fixed sequence of IEEE operations, so a code generator
// mirrors it one instruction at a time (fma.rn, cvt.rni, mov.b32/b64 for the bit patterns).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>
#include <limits>

#include "ir/eval/ExactMathCoefficients.h"

namespace tilesim::exactmath {

template <typename T> struct Bits;
template <> struct Bits<float> {
  using Word = uint32_t;
  static constexpr int kMantissaBits = 23, kBias = 127;
};
template <> struct Bits<double> {
  using Word = uint64_t;
  static constexpr int kMantissaBits = 52, kBias = 1023;
};
template <typename T> using Word = typename Bits<T>::Word;
template <typename T> inline Word<T> toBits(T x) { return std::bit_cast<Word<T>>(x); }
template <typename T> inline T fromBits(Word<T> w) { return std::bit_cast<T>(w); }

// Each public function (exp, log, sin, ...) is compiled twice on x86-64: for CPUs with FMA, where fma and rint
// are single inlined instructions, and for the baseline, where they are libm calls; the loader picks one (a GNU
// ifunc). Both give the same bits: fma rounds once either way, rint is exact, and -ffp-contract=off
// (CMakeLists.txt) keeps every other operation as written. `flatten` inlines the whole algorithm into each clone.
// (ir/eval/tests/ExactMathClonesTest.cpp checks that bit for bit against a build of the same sources without
// clones, which defines TILESIM_EXACT_MATH_ENTRY empty first.)
#ifndef TILESIM_EXACT_MATH_ENTRY
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TILESIM_EXACT_MATH_ENTRY __attribute__((flatten, target_clones("fma", "default")))
#else
#define TILESIM_EXACT_MATH_ENTRY
#endif
#endif

// The float and the double entry point of one public function, both `return impl(x, extra...)` (impl a template
// on the type, instantiated once per type).
#define TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(name, impl, ...)                                          \
  TILESIM_EXACT_MATH_ENTRY float name(float x) { return impl(x __VA_OPT__(, ) __VA_ARGS__); }   \
  TILESIM_EXACT_MATH_ENTRY double name(double x) { return impl(x __VA_OPT__(, ) __VA_ARGS__); }

// The array entry points (expArray, ...): one loop over a whole tile, with an AVX-512 clone as well, where the
// loop is vectorised (16 lanes per instruction: every step of the algorithms is an IEEE operation, an integer
// operation or a select, rint included, as vrndscaleps). The same algorithm as the scalar entry point, operation
// for operation; ExactMathClonesTest holds each array entry to the scalar one, bit for bit.
#ifndef TILESIM_EXACT_MATH_ARRAY_ENTRY
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TILESIM_EXACT_MATH_ARRAY_ENTRY __attribute__((flatten, target_clones("avx512f", "fma", "default")))
#else
#define TILESIM_EXACT_MATH_ARRAY_ENTRY
#endif
#endif

// One rounding of a*b + c (fma.rn); round to the nearest integer, ties to even (cvt.rni).
template <typename T> inline T fma(T a, T b, T c) { return std::fma(a, b, c); }
template <typename T> inline T roundToInt(T x) { return std::nearbyint(x); }

// 2^e for an e in the normal range [1 - bias, bias], built from its exponent bits (exact).
template <typename T> inline T powerOfTwo(int e) {
  return fromBits<T>(static_cast<Word<T>>(static_cast<Word<T>>(e + Bits<T>::kBias) << Bits<T>::kMantissaBits));
}
// x * 2^e for e within twice the normal range: two exact-or-once-rounded multiplications (the first is exact
// because |e/2| keeps the product normal; only the second can round, so a subnormal result is rounded once).
template <typename T> inline T scaleByPowerOfTwo(T x, int e) {
  int first = e / 2;
  return (x * powerOfTwo<T>(first)) * powerOfTwo<T>(e - first);
}

template <typename T> inline T quietNaN() { return std::numeric_limits<T>::quiet_NaN(); }
template <typename T> inline T infinity() { return std::numeric_limits<T>::infinity(); }
template <typename T> inline bool isNaN(T x) { return x != x; }
// |x| and the sign bit moved from one value to another: bit operations, so -0 stays -0.
template <typename T> inline T magnitude(T x) {
  return fromBits<T>(toBits(x) & ~(Word<T>(1) << (sizeof(T) * 8 - 1)));
}
template <typename T> inline T withSignOf(T value, T signSource) {
  constexpr Word<T> kSign = Word<T>(1) << (sizeof(T) * 8 - 1);
  return fromBits<T>((toBits(value) & ~kSign) | (toBits(signSource) & kSign));
}

// An unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
template <typename T> struct DoubleWord {
  T hi, lo;
};
// a*b exactly as hi + lo (fma gives the rounding error of the product).
template <typename T> inline DoubleWord<T> twoProduct(T a, T b) {
  T hi = a * b;
  return {hi, fma(a, b, -hi)};
}
// a + b exactly as hi + lo for any a, b (Knuth's TwoSum, six operations).
template <typename T> inline DoubleWord<T> twoSum(T a, T b) {
  T hi = a + b;
  T bVirtual = hi - a;
  T aVirtual = hi - bVirtual;
  return {hi, (a - aVirtual) + (b - bVirtual)};
}
// a + b exactly when |a| >= |b| (or a = 0) (Dekker's FastTwoSum, three operations).
template <typename T> inline DoubleWord<T> fastTwoSum(T a, T b) {
  T hi = a + b;
  return {hi, b - (hi - a)};
}

// c[0] + c[1] x + ... + c[N-1] x^(N-1) by Horner's rule with fma, highest coefficient first. Unrolled at compile
// time (a fold over the coefficient indices): a loop left in the algorithm keeps a tile loop from vectorising.
template <typename T, size_t N, size_t... I> inline T hornerSteps(const T (&c)[N], T x, std::index_sequence<I...>) {
  T sum = c[N - 1];
  ((sum = fma(sum, x, c[N - 2 - I])), ...);
  return sum;
}
template <typename T, size_t N> inline T horner(const T (&c)[N], T x) {
  return hornerSteps(c, x, std::make_index_sequence<N - 1>{});
}

// The constants of ExactMathCoefficients.h for one element type.
template <typename T> struct Constants;
#define TILESIM_EXACT_MATH_CONSTANTS(T, S)                                                                    \
  template <> struct Constants<T> {                                                                           \
    static constexpr T kLn2Hi = kLn2Hi##S, kLn2Lo = kLn2Lo##S, kLn10Hi = kLn10Hi##S, kLn10Lo = kLn10Lo##S, kLog10Of2Hi = kLog10Of2Hi##S,                  \
                       kLog10Of2Lo = kLog10Of2Lo##S, kHalfPiHi = kHalfPiHi##S, kHalfPiLo = kHalfPiLo##S,       \
                       kInvLn2Hi = kInvLn2Hi##S, kInvLn2Lo = kInvLn2Lo##S, kInvLn10Hi = kInvLn10Hi##S,         \
                       kInvLn10Lo = kInvLn10Lo##S, kLog2E = kLog2E##S, kLog2Of10 = kLog2Of10##S,               \
                       kSqrt2 = kSqrt2##S, kErfOne = kErfOne##S, kErfOneAbove = kErfOneAbove##S;               \
    static constexpr const auto& kExpTaylor = kExpTaylor##S;                                                  \
    static constexpr const auto& kLogAtanh = kLogAtanh##S;                                                    \
    static constexpr const auto& kSinTaylor = kSinTaylor##S;                                                  \
    static constexpr const auto& kCosTaylor = kCosTaylor##S;                                                  \
    static constexpr const auto& kTanhSmall = kTanhSmall##S;                                                  \
    static constexpr const auto& kErfSmall = kErfSmall##S;                                                    \
    static constexpr const auto& kErfMiddle = kErfMiddle##S;                                                  \
  };
TILESIM_EXACT_MATH_CONSTANTS(float, F32)
TILESIM_EXACT_MATH_CONSTANTS(double, F64)
#undef TILESIM_EXACT_MATH_CONSTANTS

// exp(hi + lo) for |lo| <= ulp(hi), the core shared by exp, tanh and erf (ExactMathExp.cpp).
template <typename T> T expOfDoubleWord(T hi, T lo);

}  // namespace tilesim::exactmath

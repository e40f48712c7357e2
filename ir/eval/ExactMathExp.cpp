// exp, exp2 and exp10 of the exact profile (algorithms: ExactMath.h), and expOfDoubleWord, the exp core that
// tanh and erf reuse. Each reduces its argument to k and a double-word y = yHi + yLo with |y| <= ln2/2 (in
// natural-log units) and returns expKernel(y) 2^k.
#include "ir/eval/ExactMath.h"
#include "ir/eval/ExactMathSupport.h"

namespace tilesim::exactmath {
namespace {

template <typename T> struct ExpRange;
template <> struct ExpRange<float> {
  static constexpr float kExpLow = -104, kExpHigh = 89, kExp2Low = -152, kExp2High = 129, kExp10Low = -46,
                         kExp10High = 39;
};
template <> struct ExpRange<double> {
  static constexpr double kExpLow = -746, kExpHigh = 710, kExp2Low = -1076, kExp2High = 1025, kExp10Low = -330,
                          kExp10High = 310;
};

template <typename T> T clamp(T x, T low, T high) { return x < low ? low : (x > high ? high : x); }

// exp(y) 2^k: 1 + y + y^2 P(y) with 1 + yHi exact as a double-word, so only the last addition rounds at the
// result's scale; then two power-of-two multiplications (a subnormal result is rounded once).
template <typename T> T expKernel(DoubleWord<T> y, T k) {
  using C = Constants<T>;
  T p = horner(C::kExpTaylor, y.hi);
  T tail = fma(y.hi * y.hi, p, y.lo);
  DoubleWord<T> head = fastTwoSum(T(1), y.hi);
  return scaleByPowerOfTwo<T>(head.hi + (head.lo + tail), static_cast<int>(k));
}

// x - k Hi is exact (|result| < 1/2 and both terms lie on its ulp grid); the Lo product only adds a tiny error.
template <typename T> DoubleWord<T> reduceByConstant(T x, T k, T hi, T lo) {
  return twoSum(fma(-k, hi, x), -k * lo);
}

// The algorithms below on a non-NaN x (a NaN goes through as NaN, and the public functions return x itself):
// branch-free, so the array entry points' loops vectorise.
template <typename T> T expBody(T x) {
  using C = Constants<T>;
  x = clamp(x, ExpRange<T>::kExpLow, ExpRange<T>::kExpHigh);
  T k = roundToInt(x * C::kLog2E);
  return expKernel(reduceByConstant(x, k, C::kLn2Hi, C::kLn2Lo), k);
}
template <typename T> T expImpl(T x) { return isNaN(x) ? x : expBody(x); }

template <typename T> T exp2Body(T x) {
  using C = Constants<T>;
  x = clamp(x, ExpRange<T>::kExp2Low, ExpRange<T>::kExp2High);
  T k = roundToInt(x);
  T r = x - k;  // exact
  DoubleWord<T> y = twoProduct(r, C::kLn2Hi);
  y.lo = fma(r, C::kLn2Lo, y.lo);
  return expKernel(y, k);
}
template <typename T> T exp2Impl(T x) { return isNaN(x) ? x : exp2Body(x); }

// out[i] = impl(in[i]) for the whole array, impl(x) being `isNaN(x) ? x : body(x)`: the body runs on every lane
// and the NaN lanes are selected afterwards, so the loop has no branch (and in may be out).
template <float (*Body)(float)> void mapArray(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i], value = Body(x);
    out[i] = isNaN(x) ? x : value;
  }
}

template <typename T> T exp10Impl(T x) {
  using C = Constants<T>;
  if (isNaN(x)) return x;
  x = clamp(x, ExpRange<T>::kExp10Low, ExpRange<T>::kExp10High);
  T k = roundToInt(x * C::kLog2Of10);
  DoubleWord<T> r = reduceByConstant(x, k, C::kLog10Of2Hi, C::kLog10Of2Lo);  // x - k log10(2)
  DoubleWord<T> y = twoProduct(r.hi, C::kLn10Hi);                            // r ln 10
  y.lo = fma(r.hi, C::kLn10Lo, fma(r.lo, C::kLn10Hi, y.lo));
  return expKernel(y, k);
}

}  // namespace

template <typename T> T expOfDoubleWord(T hi, T lo) {
  using C = Constants<T>;
  if (isNaN(hi)) return hi;
  hi = clamp(hi, ExpRange<T>::kExpLow, ExpRange<T>::kExpHigh);
  T k = roundToInt(hi * C::kLog2E);
  DoubleWord<T> y = reduceByConstant(hi, k, C::kLn2Hi, C::kLn2Lo);
  y.lo += lo;
  return expKernel(y, k);
}
template float expOfDoubleWord<float>(float, float);
template double expOfDoubleWord<double>(double, double);

TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(exp, expImpl)
TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(exp2, exp2Impl)
TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(exp10, exp10Impl)

TILESIM_EXACT_MATH_ARRAY_ENTRY void expArray(const float* in, float* out, int64_t n) { mapArray<expBody<float>>(in, out, n); }
TILESIM_EXACT_MATH_ARRAY_ENTRY void exp2Array(const float* in, float* out, int64_t n) { mapArray<exp2Body<float>>(in, out, n); }

}  // namespace tilesim::exactmath

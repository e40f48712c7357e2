// rsqrt, tanh and erf of the exact profile (algorithms: ExactMath.h).
#include "ir/eval/ExactMath.h"
#include "ir/eval/ExactMathSupport.h"

namespace tilesim::exactmath {
namespace {

template <typename T> T rsqrtImpl(T x) {
  if (isNaN(x)) return x;
  if (x == T(0)) return T(1) / x;  // ±inf
  if (x < T(0)) return quietNaN<T>();
  if (x == infinity<T>()) return T(0);
  // Small x (subnormal, or whose residual x - root^2 would be) is scaled by an even power 2^(bias+1): exact, and
  // the result then scales back by the exact 2^(-(bias+1)/2).
  constexpr int kScale = Bits<T>::kBias + 1;
  T resultScale = T(1);
  if (x < powerOfTwo<T>(-kScale / 2)) {
    x = (x * powerOfTwo<T>(kScale / 2)) * powerOfTwo<T>(kScale / 2);
    resultScale = powerOfTwo<T>(kScale / 2);
  }
  T root = std::sqrt(x);
  T y = T(1) / root;
  T rootError = fma(-root, root, x);     // x - root^2, exact
  T quotientError = fma(-y, root, T(1));  // 1 - y root, exact
  T correction = fma((T(-0.5) * rootError) * y, y, quotientError);  // in this order nothing underflows
  return fma(y, correction, y) * resultScale;
}

// An odd function (tanh, erf) from its values on magnitudes: NaN passes through, and the result takes x's sign
// (so f(-0) = -0).
template <typename T, typename OfMagnitude> T oddFunction(T x, OfMagnitude ofMagnitude) {
  if (isNaN(x)) return x;
  return withSignOf(ofMagnitude(magnitude(x)), x);
}

template <typename T> T tanhOfMagnitude(T a) {
  if (a < T(1)) {
    DoubleWord<T> z = twoProduct(a, a);
    DoubleWord<T> cube = twoProduct(a, z.hi);  // a^3 = cube.hi + cube.lo + a z.lo
    T p = horner(Constants<T>::kTanhSmall, z.hi);
    return a + fma(cube.hi, p, fma(cube.lo, p, a * z.lo * p));
  }
  T e = exp(T(2) * a);  // +inf for large a gives exactly 1
  return T(1) - T(2) / (e + T(1));
}

template <typename T> T tanhImpl(T x) { return oddFunction(x, tanhOfMagnitude<T>); }

// exp(-x^2) G(x - centre) for the tail piece holding a (a >= 1.25).
template <typename T, size_t N> T erfcTail(T a, const T (&g)[N], T centre) {
  DoubleWord<T> square = twoProduct(a, a);
  T e = expOfDoubleWord(-square.hi, -square.lo);
  return e * horner(g, a - centre);  // a - centre is exact (same binade or Sterbenz)
}

template <typename T> T erfcAbove(T a);
template <> float erfcAbove<float>(float a) { return erfcTail(a, kErfTail0F32, kErfTailCenter0F32); }
template <> double erfcAbove<double>(double a) {
  if (a < kErfTailStart1F64) return erfcTail(a, kErfTail0F64, kErfTailCenter0F64);
  return erfcTail(a, kErfTail1F64, kErfTailCenter1F64);
}

template <typename T> T erfOfMagnitude(T a) {
  using C = Constants<T>;
  if (a < T(0.84375)) return fma(a, horner(C::kErfSmall, a * a), a);
  if (a < T(1.25)) return C::kErfOne + horner(C::kErfMiddle, a - T(1));  // a - 1 exact (Sterbenz)
  if (a < C::kErfOneAbove) return T(1) - erfcAbove(a);
  return T(1);
}

template <typename T> T erfImpl(T x) { return oddFunction(x, erfOfMagnitude<T>); }

}  // namespace

TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(rsqrt, rsqrtImpl)
TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(tanh, tanhImpl)
TILESIM_EXACT_MATH_FLOAT_AND_DOUBLE(erf, erfImpl)

}  // namespace tilesim::exactmath

// The MathFunction-keyed entry points of ExactMath.h: which functions have an algorithm of their own, their plain
// pointers for tile loops, and evalBits (one lane in its own format; f16/bf16/fp8 through float, rounded once).
#include "ir/eval/ExactMath.h"

#include <bit>

#include "ir/Assert.h"
#include "ir/FloatBits.h"

namespace tilesim::exactmath {

using scalar::MathFunction;

namespace {

// The overload of each function for element type T (one table for f32 and f64).
template <typename T>
auto functionFor(MathFunction function) -> T (*)(T) {
  using Pointer = T (*)(T);
  switch (function) {
    case MathFunction::Exp: return static_cast<Pointer>(&exp);
    case MathFunction::Exp2: return static_cast<Pointer>(&exp2);
    case MathFunction::Exp10: return static_cast<Pointer>(&exp10);
    case MathFunction::Log: return static_cast<Pointer>(&log);
    case MathFunction::Log2: return static_cast<Pointer>(&log2);
    case MathFunction::Log10: return static_cast<Pointer>(&log10);
    case MathFunction::Sin: return static_cast<Pointer>(&sin);
    case MathFunction::Cos: return static_cast<Pointer>(&cos);
    case MathFunction::Rsqrt: return static_cast<Pointer>(&rsqrt);
    case MathFunction::Tanh: return static_cast<Pointer>(&tanh);
    case MathFunction::Erf: return static_cast<Pointer>(&erf);
    default: return nullptr;
  }
}

}  // namespace

FloatFunction floatFunction(MathFunction function) { return functionFor<float>(function); }
DoubleFunction doubleFunction(MathFunction function) { return functionFor<double>(function); }

FloatArrayFunction floatArrayFunction(MathFunction function) {
  if (function == MathFunction::Exp) return &expArray;
  if (function == MathFunction::Exp2) return &exp2Array;
  return nullptr;
}

bool hasOwnAlgorithm(MathFunction function) { return floatFunction(function) != nullptr; }

uint64_t evalBits(MathFunction function, uint64_t bits, ScalarKind kind) {
  TILESIM_ASSERT(hasOwnAlgorithm(function), "exactmath::evalBits: no algorithm for this function");
  if (kind == ScalarKind::F64) {
    double value = doubleFunction(function)(std::bit_cast<double>(bits));
    return value != value ? 0x7FFFFFFFFFFFFFFFull : std::bit_cast<uint64_t>(value);
  }
  float input = kind == ScalarKind::F32 ? std::bit_cast<float>(static_cast<uint32_t>(bits))
                                        : static_cast<float>(doubleFromFloatBits(bits, kind));  // exact widening
  float value = floatFunction(function)(input);
  if (kind == ScalarKind::F32) return value != value ? 0x7FFFFFFFu : std::bit_cast<uint32_t>(value);
  return floatBitsFromDouble(value, kind);  // one RTNE rounding, canonical NaN
}

}  // namespace tilesim::exactmath

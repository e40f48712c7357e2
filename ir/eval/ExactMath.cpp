// The MathFunction-keyed entry points of ExactMath.h: which functions have an algorithm of their own, their plain
// pointers for tile loops, and evalBits (one lane in its own format; f16/bf16/fp8 through float, rounded once).
#include "ir/eval/ExactMath.h"

#include <bit>

#include "ir/Assert.h"
#include "ir/FloatBits.h"

namespace tilesim::exactmath {

using scalar::MathFunction;

FloatFunction floatFunction(MathFunction function) {
  switch (function) {
    case MathFunction::Exp: return &exp;
    case MathFunction::Exp2: return &exp2;
    case MathFunction::Exp10: return &exp10;
    case MathFunction::Log: return &log;
    case MathFunction::Log2: return &log2;
    case MathFunction::Log10: return &log10;
    case MathFunction::Sin: return &sin;
    case MathFunction::Cos: return &cos;
    case MathFunction::Rsqrt: return &rsqrt;
    case MathFunction::Tanh: return &tanh;
    case MathFunction::Erf: return &erf;
    default: return nullptr;
  }
}

DoubleFunction doubleFunction(MathFunction function) {
  switch (function) {
    case MathFunction::Exp: return &exp;
    case MathFunction::Exp2: return &exp2;
    case MathFunction::Exp10: return &exp10;
    case MathFunction::Log: return &log;
    case MathFunction::Log2: return &log2;
    case MathFunction::Log10: return &log10;
    case MathFunction::Sin: return &sin;
    case MathFunction::Cos: return &cos;
    case MathFunction::Rsqrt: return &rsqrt;
    case MathFunction::Tanh: return &tanh;
    case MathFunction::Erf: return &erf;
    default: return nullptr;
  }
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

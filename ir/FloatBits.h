// Bit-exact conversion between double and every float format TTIR knows (f8E4M3FN, f8E5M2, f16, bf16, f32,
// f64). Used by attributes, the interpreter's casts and the fuzzer's expected values, so all of tilesim rounds
// the same way. NaN results are the canonical NaN an NVIDIA GPU produces for the format (see canonicalNaNBits).
#pragma once

#include <cstdint>

#include "ir/Type.h"

namespace tilesim {

enum class Rounding : uint8_t { NearestEven, TowardZero };

struct FloatFormat {
  int exponentBits;
  int mantissaBits;
  int bias;
  bool hasInfinity;  // false for f8E4M3FN ("FN": finite, NaN only as S.1111.111)
};

FloatFormat floatFormat(ScalarKind kind);  // requires a float kind

// Rounds `value` to `kind` and returns its bit pattern (in the low bits). With `saturate`, a finite or
// infinite value beyond the largest finite number becomes that number (PTX `.satfinite`); NaN stays NaN.
uint64_t floatBitsFromDouble(double value, ScalarKind kind, Rounding rounding = Rounding::NearestEven,
                             bool saturate = false);
double doubleFromFloatBits(uint64_t bits, ScalarKind kind);

// The NaN an NVIDIA GPU writes for arithmetic on this format: f32 0x7FFFFFFF, f16 0x7FFF, bf16 0x7FFF,
// fp8 0x7F, f64 0x7FFFFFFFFFFFFFFF.
uint64_t canonicalNaNBits(ScalarKind kind);
bool isNaNBits(uint64_t bits, ScalarKind kind);
double largestFinite(ScalarKind kind);

}  // namespace tilesim

// The fuzzer's own scalar semantics: integer arithmetic and compares, float arithmetic and compares, and every
// conversion, written a second time from docs/semantics.md ("Integers", "Floats", "Casts") without including or
// calling ir/eval (ScalarEval, ExactMath) or the conversions of ir/FloatBits. The lane-by-lane reference
// (ReferenceLanes.cpp) computes its expected values here, so a bug in the interpreter's shared scalar code
// (ir/eval/ScalarEval) shows as a mismatch instead of being copied into the expected value; and
// OracleCrossCheckTest compares the two exhaustively for 8- and 16-bit operands and by sampling for wider ones.
//
// It is written differently on purpose: integers are evaluated as exact values in __int128 and reduced modulo
// 2^width (no per-width templates); floats are decoded to double and rounded by one generic routine that takes a
// format (exponent bits, mantissa bits, bias, inf/NaN convention), a rounding mode and saturation
// (OracleFloatFormat.cpp), instead of ScalarEval's bit-trick codecs; narrow fma rounds to odd with the FPU's
// round-toward-zero mode and inexact flag instead of TwoSum.
//
// Lanes are raw bits in the low bits of a uint64_t: integers of `width` bits (1..64), floats in their own format.
// What still comes from ir/eval, and why, is listed in ReferenceLanes.cpp's opening comment.
#pragma once

#include <cstdint>

#include "ir/OpAttributes.h"
#include "ir/OpKind.h"
#include "ir/Type.h"

namespace tilesim::fuzz::oracle {

// ---------------------------------------------------------------- float formats (OracleFloatFormat.cpp)

enum class Round : uint8_t { NearestEven, TowardZero };

// The value of `bits` as a double (exact for every format up to f64); NaN for every NaN encoding.
double decodeFloat(uint64_t bits, ScalarKind kind);
bool isNaNBits(uint64_t bits, ScalarKind kind);
// The NaN an NVIDIA GPU writes for arithmetic on the format: f64 0x7FFFFFFFFFFFFFFF, f32 0x7FFFFFFF,
// f16/bf16 0x7FFF, fp8 0x7F.
uint64_t canonicalNaN(ScalarKind kind);
// `value` rounded once into `kind`. Overflow: to inf under NearestEven, to the largest finite under TowardZero
// (an infinite input stays infinite); f8E4M3FN has no inf, so overflow is its NaN S.1111.111 with the sign kept
// (as LLVM's APFloat and ml_dtypes do). `saturate` (PTX .satfinite)
// turns every overflow and every infinity into the largest finite. NaN gives canonicalNaN(kind).
uint64_t encodeFloat(double value, ScalarKind kind, Round round = Round::NearestEven, bool saturate = false);
// An integer of up to 64 bits (its magnitude and sign) rounded once into `kind`.
uint64_t encodeInteger(bool negative, uint64_t magnitude, ScalarKind kind);

// ---------------------------------------------------------------- integers (OracleInteger.cpp)

// `op` on lanes of `width` bits (1, 8, 16, 32 or 64); `b` is ignored by math.absi. The result is masked to width.
uint64_t integerArith(IntArithOp op, int width, uint64_t a, uint64_t b);
bool integerCompare(IntPredicate predicate, int width, uint64_t a, uint64_t b);
// Whether the exact signed result of addi / subi / muli does not fit `width` bits (the `nsw` UB of the docs);
// false for every other op.
bool signedOverflow(IntArithOp op, int width, uint64_t a, uint64_t b);

// ---------------------------------------------------------------- float ops (OracleFloat.cpp)

// `op` on lanes of `kind` (f16, bf16, f32, f64). `c` is tt.clampf's upper bound; `clampPropagatesNan` its
// propagateNan = all.
uint64_t floatArith(FloatArithOp op, ScalarKind kind, uint64_t a, uint64_t b, uint64_t c, bool clampPropagatesNan);
bool floatCompare(FloatPredicate predicate, ScalarKind kind, uint64_t a, uint64_t b);
// The math ops with an exact definition: sqrt (correctly rounded), floor, ceil, absf, fma (one rounding).
enum class ExactMath : uint8_t { Sqrt, Floor, Ceil, Abs, Fma };
uint64_t floatExactMath(ExactMath function, ScalarKind kind, uint64_t a, uint64_t b = 0, uint64_t c = 0);

// ---------------------------------------------------------------- casts (OracleCast.cpp)

uint64_t integerToFloat(uint64_t bits, int width, bool isUnsigned, ScalarKind to);
// PTX cvt.rzi as docs/semantics.md "Casts" gives it; `outOfRange` is set for NaN and for a truncated value
// outside the destination type (LLVM's poison).
uint64_t floatToInteger(uint64_t bits, ScalarKind from, int width, bool isUnsigned, bool* outOfRange);
// arith.extf / arith.truncf / tt.fp_to_fp; fp8 targets saturate; NaN payload rules of "NaN bits".
uint64_t floatToFloat(uint64_t bits, ScalarKind from, ScalarKind to, Round round);

}  // namespace tilesim::fuzz::oracle

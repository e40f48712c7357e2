// tt.dot on tiles: result = a @ b + c for rank-2 ([M,K] x [K,N] + [M,N]) or batched rank-3 ([B,M,K] x [B,K,N]
// + [B,M,N]) row-major tiles. The values follow docs/semantics.md, "Dot":
//   - f32 `ieee` (also the default when `inputPrecision` is absent, as in the TritonOps verifier): for every
//     [m][n], a sequential fma over k = 0..K-1 starting from c[m][n], one rounding per step. The GPU's ieee dot
//     (`fma.rn.f32` loops) is bit-identical to this, so its error bound is 0.
//   - f32 `tf32`: both inputs truncated toward zero to tf32 (10 mantissa bits, exponent kept, NaN and inf kept),
//     which is what the H200's wgmma does with no rounding instruction; then the same sequential fma.
//   - f32 `tf32x3`, `bf16x3`, `bf16x6`: computed as `ieee` (treated as fp32 accuracy; the GPU's split-operand
//     products are not reproduced bit for bit and are covered by the error bound instead).
//   - f16, bf16, f8E4M3FN, f8E5M2 inputs (the two fp8 kinds may mix): converted exactly to f32, sequential fma
//     in f32. An f16 result (out_dtype=fp16) is accumulated in f32 and rounded to f16 (nearest even) once.
//   - i8 x i8 -> i32: exact products, wrapping int32 accumulation.  f64: sequential fma in double.
// Error bounds (Tile::errorBounds) exist only under FloatProfile::Triton and only for float dots whose
// tensor-core order differs from ours: bound[m][n] = bound(c) + (K+2)*u*(|c| + sum_k|a*b|) (+ an input-splitting
// term for tf32x3/bf16x3/bf16x6, + half an f16 ulp for f16 results) + sum_k(|a|*eb + |b|*ea + ea*eb). The bound
// does not depend on the order the GPU sums in: our K roundings happen at the accumulator's magnitude, which
// starts at |c|, so |c| is counted with the products (a tensor core adds a block of products to c at once; with
// |c| >> |a*b| the two orders differ by ulps of c: DotTest ErrorBoundCoversOtherSummationOrders).
// Undefined lanes propagate: result[m][n] is undefined when c[m][n], any a[m][k] or any b[k][n] is.
// Thread-safe: no shared mutable state (the engine calls it from one OpenMP thread per program).
#pragma once

#include <cstdint>
#include <string>

#include "interpreter/Elementwise.h"
#include "interpreter/Tile.h"
#include "ir/IR.h"

namespace tilesim {

// The attribute Triton prints as `inputPrecision = tf32`; its values are InputPrecision (ir/launch/Profiles.h).
inline constexpr const char* kInputPrecisionAttr = "inputPrecision";
inline constexpr const char* kMaxNumImpreciseAccAttr = "maxNumImpreciseAcc";

// Reads the op's `inputPrecision` (absent = IEEE). Returns false and sets `error` for an unknown keyword.
bool dotInputPrecision(const Operation& op, InputPrecision* precision, std::string* error);

// Evaluates the dot. The result type is the op's result type (or c's type when the op has no result).
// Returns null and sets `error` for operand types or shapes tt.dot does not allow.
MutableTileRef evalDot(const Operation& op, const Tile& a, const Tile& b, const Tile& c, FloatProfile profile,
                       std::string* error);

// The f32 multiply-accumulate core, exposed for tests and benchmarks: for each of `batches` batches,
// acc[m][n] = fma(a[m][k], b[k][n], acc[m][n]) for k = 0..K-1 in order. Row-major, dense, no aliasing.
// Uses AVX2+FMA or AVX-512 register-blocked kernels when the CPU has them, else a portable loop; all give
// the same bits.
void multiplyAccumulateF32(const float* a, const float* b, float* acc, int64_t batches, int64_t rows,
                           int64_t columns, int64_t depth);
// Which implementation multiplyAccumulateF32 uses on this CPU: "avx512", "avx2+fma" or "portable".
const char* multiplyAccumulateF32Variant();

}  // namespace tilesim

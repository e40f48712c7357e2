// tt.dot on tiles (see Dot.h for the semantics): type and shape checks, operand conversion to f32 (exact for
// f16/bf16/fp8; truncation to tf32 for `inputPrecision = tf32`), the accumulation itself (DotKernel.cpp for
// f32, plain loops for i8 and f64), the triton profile's error bounds and undefined-lane propagation.
#include "interpreter/Dot.h"

#include "ir/OpAttributes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "interpreter/Executor.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

struct DotShape {
  int64_t batches = 1, rows = 0, columns = 0, depth = 0;
};

bool isSmallFloat(ScalarKind kind) {
  return kind == ScalarKind::F16 || kind == ScalarKind::BF16 || kind == ScalarKind::F8E4M3FN ||
         kind == ScalarKind::F8E5M2;
}
bool isFp8(ScalarKind kind) { return kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2; }

bool fail(std::string* error, std::string message) {
  if (error) *error = "tt.dot: " + std::move(message);
  return false;
}

bool checkShapes(const Tile& a, const Tile& b, const Tile& c, Type resultType, DotShape* shape, std::string* error) {
  auto as = a.shape(), bs = b.shape(), cs = c.shape(), rs = resultType.shape();
  int rank = static_cast<int>(as.size());
  if (rank != 2 && rank != 3) return fail(error, "operands must have rank 2 or 3, got a: " + a.type().str());
  if (static_cast<int>(bs.size()) != rank || static_cast<int>(cs.size()) != rank || static_cast<int>(rs.size()) != rank)
    return fail(error, "operand ranks differ: " + a.type().str() + " * " + b.type().str() + " + " + c.type().str());
  int offset = rank - 2;
  if (rank == 3 && (bs[0] != as[0] || cs[0] != as[0])) return fail(error, "batch dimensions differ");
  shape->batches = rank == 3 ? as[0] : 1;
  shape->rows = as[offset];
  shape->depth = as[offset + 1];
  shape->columns = bs[offset + 1];
  if (bs[offset] != shape->depth)
    return fail(error, "K of a (" + std::to_string(shape->depth) + ") differs from K of b (" + std::to_string(bs[offset]) + ")");
  if (cs[offset] != shape->rows || cs[offset + 1] != shape->columns)
    return fail(error, "accumulator " + c.type().str() + " does not have shape MxN of a * b");
  if (!std::equal(cs.begin(), cs.end(), rs.begin(), rs.end()) || c.elementType() != resultType.element())
    return fail(error, "accumulator type " + c.type().str() + " differs from result type " + resultType.str());
  return true;
}

float floatFromBits(uint32_t bits) { float value; std::memcpy(&value, &bits, 4); return value; }
uint32_t bitsFromFloat(float value) { uint32_t bits; std::memcpy(&bits, &value, 4); return bits; }

float halfToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1Fu, mantissa = half & 0x3FFu;
  if (exponent == 0x1F) return floatFromBits(sign | 0x7F800000u | (mantissa << 13));  // inf, NaN payload kept
  if (exponent == 0) {
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;  // exact: at most 10 significant bits
    return sign ? -magnitude : magnitude;
  }
  return floatFromBits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// wgmma with tf32 operands reads only the top 19 bits of each f32: truncation toward zero. NaN and inf are kept
// (masking the low bits of a NaN whose payload sits there would make it an infinity).
float truncateToTf32(float value) {
  uint32_t bits = bitsFromFloat(value);
  if ((bits & 0x7F800000u) == 0x7F800000u) return value;
  return floatFromBits(bits & 0xFFFFE000u);
}

// The operand as dense f32. Returns `tile`'s own storage when it already is f32 and needs no truncation.
const float* floatOperand(const Tile& tile, bool truncateTf32, std::vector<float>* storage) {
  ScalarKind kind = tile.elementType().scalarKind();
  if (kind == ScalarKind::F32 && !truncateTf32) return tile.as<float>();
  storage->resize(static_cast<size_t>(tile.size()));
  float* out = storage->data();
  int64_t size = tile.size();
  switch (kind) {
    case ScalarKind::F32: {
      const float* in = tile.as<float>();
      for (int64_t i = 0; i < size; ++i) out[i] = truncateToTf32(in[i]);
      break;
    }
    case ScalarKind::F16: {
      const uint16_t* in = tile.as<uint16_t>();
      for (int64_t i = 0; i < size; ++i) out[i] = halfToFloat(in[i]);
      break;
    }
    case ScalarKind::BF16: {
      const uint16_t* in = tile.as<uint16_t>();
      for (int64_t i = 0; i < size; ++i) out[i] = floatFromBits(static_cast<uint32_t>(in[i]) << 16);
      break;
    }
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2: {
      std::array<float, 256> table;
      for (int code = 0; code < 256; ++code) table[code] = static_cast<float>(doubleFromFloatBits(code, kind));
      const uint8_t* in = tile.as<uint8_t>();
      for (int64_t i = 0; i < size; ++i) out[i] = table[in[i]];
      break;
    }
    default:
      TILESIM_UNREACHABLE("floatOperand on a non-float dot operand");
  }
  return out;
}

// The plain batched loop of the int8 and f64 dots: acc[batch][m][n] = multiplyAdd(a[batch][m][k], b[batch][k][n],
// acc[batch][m][n]) for k in order (one rounding or wrap per step, so the order is the contract's).
template <typename Operand, typename Accumulator, typename MultiplyAdd>
void batchedDot(const Tile& a, const Tile& b, Tile* result, const DotShape& shape, MultiplyAdd multiplyAdd) {
  const Operand* av = a.as<Operand>();
  const Operand* bv = b.as<Operand>();
  Accumulator* acc = result->as<Accumulator>();
  for (int64_t batch = 0; batch < shape.batches; ++batch)
    for (int64_t m = 0; m < shape.rows; ++m) {
      Accumulator* row = acc + (batch * shape.rows + m) * shape.columns;
      for (int64_t k = 0; k < shape.depth; ++k) {
        const Operand factor = av[(batch * shape.rows + m) * shape.depth + k];
        const Operand* bRow = bv + (batch * shape.depth + k) * shape.columns;
#pragma omp simd
        for (int64_t n = 0; n < shape.columns; ++n) row[n] = multiplyAdd(factor, bRow[n], row[n]);
      }
    }
}

void dotInt8(const Tile& a, const Tile& b, Tile* result, const DotShape& shape) {
  // uint32 arithmetic is the wrapping int32 accumulation, without signed-overflow UB.
  batchedDot<int8_t, uint32_t>(a, b, result, shape, [](int8_t x, int8_t y, uint32_t sum) {
    return sum + static_cast<uint32_t>(static_cast<int32_t>(x)) * static_cast<uint32_t>(static_cast<int32_t>(y));
  });
}

void dotF64(const Tile& a, const Tile& b, Tile* result, const DotShape& shape) {
  batchedDot<double, double>(a, b, result, shape, [](double x, double y, double sum) { return std::fma(x, y, sum); });
}

// Per product |a*b|, the relative error of the GPU's split-operand schemes compared with an exact product
// (estimates from the splitting: hi/lo parts of 8 or 11 bits and the dropped lo*lo terms; not measured).
double splittingError(InputPrecision precision) {
  switch (precision) {
    case InputPrecision::TF32x3: return 0x1p-20;
    case InputPrecision::BF16x3: return 0x1p-14;
    case InputPrecision::BF16x6: return 0x1p-21;
    case InputPrecision::TF32:
    case InputPrecision::IEEE: return 0.0;
  }
  return 0.0;
}

std::vector<float> absolute(const float* values, int64_t size) {
  std::vector<float> out(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) out[i] = std::fabs(values[i]);
  return out;
}

std::vector<float> boundsAsFloat(const double* bounds, int64_t size) {
  std::vector<float> out(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) out[i] = static_cast<float>(bounds[i]) * (1.0f + 0x1p-20f);  // round up-ish
  return out;
}

// Half an f16 ulp of `value` (the final rounding of an out_dtype=fp16 result).
double halfUlpF16(double value) {
  double magnitude = std::fabs(value);
  if (!std::isfinite(magnitude)) return 0.0;
  int exponent = magnitude > 0 ? std::ilogb(magnitude) : -15;
  return std::ldexp(1.0, std::max(exponent, -14) - 11);
}

struct BoundInputs {
  const float* a;  // f32 operand values as used (after conversion/truncation)
  const float* b;
  const Tile* aTile;
  const Tile* bTile;
  const Tile* cTile;
  double accumulationUnit;  // u of the GPU's accumulator order; 0 when it matches ours bit for bit
  double splitting;
  bool halfResult;
};

// Fills result->mutableErrorBounds() (only when some bound is non-zero). `values` are the final results.
void addErrorBounds(const BoundInputs& in, const DotShape& shape, const float* values, Tile* result) {
  int64_t total = shape.batches * shape.rows * shape.columns;
  int64_t aSize = shape.batches * shape.rows * shape.depth, bSize = shape.batches * shape.depth * shape.columns;
  const double* ea = in.aTile->errorBounds();
  const double* eb = in.bTile->errorBounds();
  const double* ec = in.cTile->errorBounds();
  // The K roundings of our order happen at the accumulator's magnitude, which starts at |c|: another order (a
  // tensor core adding a block of products at once) differs by up to about K u (|c| + sum|a*b|), not K u sum|a*b|.
  const double accumulationFactor = (shape.depth + 2) * in.accumulationUnit;
  double productFactor = accumulationFactor + in.splitting;
  if (productFactor == 0 && !ea && !eb && !ec && !in.halfResult) return;
  const ScalarKind cKind = in.cTile->elementType().scalarKind();
  auto cMagnitude = [&](int64_t i) -> double {
    if (accumulationFactor == 0) return 0.0;
    return std::fabs(cKind == ScalarKind::F16 ? halfToFloat(in.cTile->as<uint16_t>()[i]) : in.cTile->as<float>()[i]);
  };
  std::vector<float> magnitude(static_cast<size_t>(total), 0.0f), propagated(static_cast<size_t>(total), 0.0f);
  std::vector<float> absA = absolute(in.a, aSize), absB = absolute(in.b, bSize);
  if (productFactor > 0)
    multiplyAccumulateF32(absA.data(), absB.data(), magnitude.data(), shape.batches, shape.rows, shape.columns, shape.depth);
  if (ea || eb) {
    std::vector<float> boundB = eb ? boundsAsFloat(eb, bSize) : std::vector<float>(static_cast<size_t>(bSize), 0.0f);
    if (eb)
      multiplyAccumulateF32(absA.data(), boundB.data(), propagated.data(), shape.batches, shape.rows, shape.columns, shape.depth);
    if (ea) {
      std::vector<float> boundA = boundsAsFloat(ea, aSize);
      for (int64_t i = 0; i < bSize; ++i) absB[i] += boundB[i];  // ea * (|b| + eb)
      multiplyAccumulateF32(boundA.data(), absB.data(), propagated.data(), shape.batches, shape.rows, shape.columns, shape.depth);
    }
  }
  // The float sums above have relative error <= K*2^-24; the small factor keeps the bound on the safe side.
  double safety = 1.0 + shape.depth * 0x1p-23;
  double* bounds = result->mutableErrorBounds();
  for (int64_t i = 0; i < total; ++i) {
    double bound = safety * (productFactor * magnitude[i] + accumulationFactor * cMagnitude(i) + propagated[i]);
    if (ec) bound += ec[i];
    if (in.halfResult) bound += halfUlpF16(values[i]);
    bounds[i] = std::isnan(bound) ? std::numeric_limits<double>::infinity() : bound;
  }
}

// result[m][n] is undefined when c[m][n], any a[m][k] or any b[k][n] is.
void propagateUndefined(const Tile& a, const Tile& b, const Tile& c, const DotShape& shape, Tile* result) {
  const uint8_t* ua = a.undefinedMask();
  const uint8_t* ub = b.undefinedMask();
  const uint8_t* uc = c.undefinedMask();
  if (!ua && !ub && !uc) return;
  uint8_t* out = result->mutableUndefinedMask();
  for (int64_t batch = 0; batch < shape.batches; ++batch) {
    std::vector<uint8_t> rowBad(static_cast<size_t>(shape.rows), 0), columnBad(static_cast<size_t>(shape.columns), 0);
    for (int64_t m = 0; ua && m < shape.rows; ++m)
      for (int64_t k = 0; k < shape.depth; ++k) rowBad[m] |= ua[(batch * shape.rows + m) * shape.depth + k];
    for (int64_t k = 0; ub && k < shape.depth; ++k)
      for (int64_t n = 0; n < shape.columns; ++n) columnBad[n] |= ub[(batch * shape.depth + k) * shape.columns + n];
    for (int64_t m = 0; m < shape.rows; ++m)
      for (int64_t n = 0; n < shape.columns; ++n) {
        int64_t lane = (batch * shape.rows + m) * shape.columns + n;
        out[lane] = (rowBad[m] | columnBad[n] | (uc ? uc[lane] : 0)) ? 1 : 0;
      }
  }
}

MutableTileRef dotFloat(const Operation& op, const Tile& a, const Tile& b, const Tile& c, Type resultType,
                        const DotShape& shape, FloatProfile profile, std::string* error) {
  ScalarKind aKind = a.elementType().scalarKind(), bKind = b.elementType().scalarKind();
  ScalarKind resultKind = resultType.scalarKind();
  InputPrecision precision = InputPrecision::IEEE;
  if (!dotInputPrecision(op, &precision, error)) return nullptr;
  bool f32Inputs = aKind == ScalarKind::F32;
  if (f32Inputs ? resultKind != ScalarKind::F32 : (resultKind != ScalarKind::F32 && resultKind != ScalarKind::F16)) {
    fail(error, std::string("result element type ") + scalarKindName(resultKind) + " is not allowed for " +
                    scalarKindName(aKind) + " inputs");
    return nullptr;
  }
  bool truncate = f32Inputs && precision == InputPrecision::TF32;
  std::vector<float> aStorage, bStorage, accStorage;
  const float* av = floatOperand(a, truncate, &aStorage);
  const float* bv = floatOperand(b, truncate, &bStorage);

  MutableTileRef result = makeTile(resultType);
  int64_t total = result->size();
  bool halfResult = resultKind == ScalarKind::F16;
  float* acc;
  if (halfResult) {
    accStorage.resize(static_cast<size_t>(total));
    acc = accStorage.data();
    const uint16_t* cv = c.as<uint16_t>();
    for (int64_t i = 0; i < total; ++i) acc[i] = halfToFloat(cv[i]);
  } else {
    acc = result->as<float>();
    std::memcpy(acc, c.as<float>(), static_cast<size_t>(total) * sizeof(float));
  }
  multiplyAccumulateF32(av, bv, acc, shape.batches, shape.rows, shape.columns, shape.depth);
  // A NaN result is the canonical NaN (docs/semantics.md), not the payload std::fma carries over from a NaN input
  // (an f16 NaN widened to f32 reads 0x7FFFE000; the host's inf - inf gives 0xFFC00000).
  if (!halfResult) {
    uint32_t* bits = result->as<uint32_t>();
    const uint32_t canonical = static_cast<uint32_t>(canonicalNaNBits(ScalarKind::F32));
    for (int64_t i = 0; i < total; ++i)
      if (std::isnan(acc[i])) bits[i] = canonical;
  }
  if (halfResult) {
    uint16_t* out = result->as<uint16_t>();
    for (int64_t i = 0; i < total; ++i) out[i] = static_cast<uint16_t>(floatBitsFromDouble(acc[i], ScalarKind::F16));
  }

  if (profile == FloatProfile::Triton) {
    BoundInputs in{av, bv, &a, &b, &c, 0.0, 0.0, halfResult};
    if (halfResult) in.accumulationUnit = 0x1p-11;  // the GPU accumulates out_dtype=fp16 dots in f16
    else if (isFp8(aKind) || isFp8(bKind)) in.accumulationUnit = 0x1p-13;  // sm90 fp8 wgmma: ~14-bit accumulator
    else if (!f32Inputs || precision != InputPrecision::IEEE) in.accumulationUnit = 0x1p-24;
    if (f32Inputs) in.splitting = splittingError(precision);
    addErrorBounds(in, shape, acc, result.get());
  }
  return result;
}

}  // namespace

bool dotInputPrecision(const Operation& op, InputPrecision* precision, std::string* error) {
  if (op.kind == OpKind::TTNGWarpGroupDot) {  // Triton prints its enum number there (`inputPrecision = 0 : i32`)
    *precision = WarpGroupDotView{op}.inputPrecision();
    return true;
  }
  std::string word = op.keywordAttr(kInputPrecisionAttr, "ieee");
  if (std::optional<InputPrecision> parsed = parseInputPrecision(word)) {
    *precision = *parsed;
    return true;
  }
  return fail(error, "unknown inputPrecision '" + word + "' (expected tf32, tf32x3, ieee, bf16x3 or bf16x6)");
}

MutableTileRef evalDot(const Operation& op, const Tile& a, const Tile& b, const Tile& c, FloatProfile profile,
                       std::string* error) {
  Type resultType = op.numResults() > 0 ? op.result(0)->type : c.type();
  DotShape shape;
  if (!checkShapes(a, b, c, resultType, &shape, error)) return nullptr;
  if (!a.elementType().isScalar() || !b.elementType().isScalar()) {
    fail(error, "operands must be integer or float tensors");
    return nullptr;
  }
  ScalarKind aKind = a.elementType().scalarKind(), bKind = b.elementType().scalarKind();
  ScalarKind resultKind = resultType.scalarKind();
  bool sameKind = aKind == bKind || (isFp8(aKind) && isFp8(bKind));
  if (!sameKind) {
    fail(error, std::string("operand element types differ: ") + scalarKindName(aKind) + " and " + scalarKindName(bKind));
    return nullptr;
  }
  // The exact dots (i8 -> i32, f64) accumulate in place: the result starts as a copy of c, if it has `expected` kind.
  auto accumulatorFromC = [&](ScalarKind expected, const char* message) -> MutableTileRef {
    if (resultKind != expected) {
      fail(error, message);
      return nullptr;
    }
    MutableTileRef accumulator = makeTile(resultType);
    std::memcpy(accumulator->raw(), c.raw(), static_cast<size_t>(c.size() * storageBytes(expected)));
    return accumulator;
  };
  MutableTileRef result;
  if (aKind == ScalarKind::I8) {
    if (!(result = accumulatorFromC(ScalarKind::I32, "an i8 dot must produce i32"))) return nullptr;
    dotInt8(a, b, result.get(), shape);
  } else if (aKind == ScalarKind::F64) {
    if (!(result = accumulatorFromC(ScalarKind::F64, "an f64 dot must produce f64"))) return nullptr;
    dotF64(a, b, result.get(), shape);
    uint64_t* bits = result->as<uint64_t>();
    for (int64_t i = 0; i < result->size(); ++i)
      if (std::isnan(result->as<double>()[i])) bits[i] = canonicalNaNBits(ScalarKind::F64);
    if (profile == FloatProfile::Triton) {
      // The GPU's f64 mma sums in another order: (K+3)*2^-53*(|c| + sum|a*b|), plus c's bound (operand bounds too).
      const double *av = a.as<double>(), *bv = b.as<double>();
      const double *ea = a.errorBounds(), *eb = b.errorBounds(), *ec = c.errorBounds();
      double* bounds = result->mutableErrorBounds();
      for (int64_t batch = 0; batch < shape.batches; ++batch)
        for (int64_t m = 0; m < shape.rows; ++m)
          for (int64_t n = 0; n < shape.columns; ++n) {
            int64_t lane = (batch * shape.rows + m) * shape.columns + n;
            double sum = std::fabs(c.as<double>()[lane]), propagated = 0;
            for (int64_t k = 0; k < shape.depth; ++k) {
              int64_t ai = (batch * shape.rows + m) * shape.depth + k, bi = (batch * shape.depth + k) * shape.columns + n;
              sum += std::fabs(av[ai] * bv[bi]);
              double eaValue = ea ? ea[ai] : 0.0, ebValue = eb ? eb[bi] : 0.0;
              propagated += std::fabs(av[ai]) * ebValue + (std::fabs(bv[bi]) + ebValue) * eaValue;
            }
            double bound = (shape.depth + 3) * 0x1p-53 * sum + propagated + (ec ? ec[lane] : 0.0);
            bounds[lane] = std::isnan(bound) ? std::numeric_limits<double>::infinity() : bound;
          }
    }
  } else if (aKind == ScalarKind::F32 || isSmallFloat(aKind)) {
    result = dotFloat(op, a, b, c, resultType, shape, profile, error);
    if (!result) return nullptr;
  } else {
    fail(error, std::string("operand element type ") + scalarKindName(aKind) + " is not allowed (i8, f8, f16, bf16, f32, f64)");
    return nullptr;
  }
  propagateUndefined(a, b, c, shape, result.get());
  return result;
}

void executeDot(Executor& executor, const Operation& op, Executor::Frame& frame) {
  std::string error;
  MutableTileRef result = evalDot(op, *executor.get(frame, op.operand(0)), *executor.get(frame, op.operand(1)),
                                  *executor.get(frame, op.operand(2)), executor.context().options.profile, &error);
  if (!result) executor.trap(Report::Kind::Unsupported, op, error);
  executor.set(frame, op.result(), result);
}

}  // namespace tilesim

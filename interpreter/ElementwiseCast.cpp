// Casts over whole tiles (docs/semantics.md "Casts"): integer extension/truncation, int <-> float with one RTNE
// rounding, PTX-exact saturating float -> int (cvt.rzi, 8-bit targets through 16 bits), extf/truncf,
// tt.fp_to_fp (rtne/rtz, fp8 satfinite) and bitcasts. Common pairs get typed loops; the rest go lane by
// lane through ScalarEval.h, which is the definition either way.
#include <bit>
#include <cmath>
#include <cstring>

#include "interpreter/ElementwiseInternal.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim::elementwise {

using namespace scalar;

namespace {

void integerResize(const Tile& source, Tile& result, bool signExtend) {
  int width = result.elementType().bitWidth();
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  bool sourceIsBool = source.elementType().scalarKind() == ScalarKind::I1;
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    uint64_t value = signExtend ? static_cast<uint64_t>(source.signedAt(i))
                                : (sourceIsBool ? source.bitsAt(i) & 1 : source.bitsAt(i));
    if (signExtend && sourceIsBool) value = (source.bitsAt(i) & 1) ? ~uint64_t{0} : 0;
    result.setBits(i, value & mask);
  }
}

void integerToFloat(const Tile& source, Tile& result, bool isUnsigned) {
  int width = source.elementType().bitWidth();
  ScalarKind kind = result.elementType().scalarKind();
  for (int64_t i = 0, n = result.size(); i < n; ++i)
    result.setBits(i, floatBitsFromInteger(source.bitsAt(i), width, isUnsigned, kind));
}

void floatToInteger(const Tile& source, Tile& result, bool isUnsigned, std::vector<UBEvent>* events) {
  int width = result.elementType().bitWidth();
  ScalarKind sourceKind = source.elementType().scalarKind();
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    bool outOfRange = false;
    result.setBits(i, integerFromFloat(laneAsDouble(source, i), sourceKind, width, isUnsigned, &outOfRange));
    if (outOfRange && events) events->push_back({i, UBKind::FloatToIntOutOfRange});
  }
}

// Triton 3.6 converts fp8e5 to bf16 with integer PTX (move the fields into place, multiply by 2^112), so the
// e5m2 encodings of inf and NaN become the finite numbers their fields would mean with a wider exponent:
// 0x7C -> 65536 (0x4780), 0x7F -> 114688 (0x47E0). Recorded on the H200:
// conformance/golden-extra/cast_fp8_to_bf16. Every other pattern converts exactly, as a plain cast would.
uint16_t bfloatFromFp8e5AsTriton(uint8_t bits) {
  const uint32_t sign = bits & 0x80u, exponent = (bits >> 2) & 0x1Fu, mantissa = bits & 0x3u;
  double magnitude = exponent == 0 ? std::ldexp(static_cast<double>(mantissa), -16)
                                   : std::ldexp(1.0 + mantissa / 4.0, static_cast<int>(exponent) - 15);
  return static_cast<uint16_t>(floatBitsFromDouble(sign ? -magnitude : magnitude, ScalarKind::BF16));
}

// float -> float, typed on both kinds. Widening is exact; narrowing rounds once with `rounding`.
template <ScalarKind From, ScalarKind To>
void floatConvertLoop(const Tile& source, Tile& result, Rounding rounding) {
  using In = typename FloatCodec<From>::Storage;
  using Out = typename FloatCodec<To>::Storage;
  const In* in = source.as<In>();
  Out* out = result.as<Out>();
  int64_t n = result.size();
  if constexpr (From == ScalarKind::F8E5M2 && To == ScalarKind::BF16) {
    for (int64_t i = 0; i < n; ++i) out[i] = bfloatFromFp8e5AsTriton(in[i]);
    return;
  }
  if constexpr ((From == ScalarKind::F64 && To == ScalarKind::F32) || (From == ScalarKind::F32 && To == ScalarKind::F64) ||
                (From == ScalarKind::BF16 && To == ScalarKind::F32)) {
    // NaN keeps (part of) its payload through these conversions on the GPU (ScalarEval.h convertedNaNBits).
    using InBits = std::conditional_t<sizeof(In) == 8, uint64_t, std::conditional_t<sizeof(In) == 4, uint32_t, uint16_t>>;
    using OutBits = std::conditional_t<sizeof(Out) == 8, uint64_t, uint32_t>;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t bits = std::bit_cast<InBits>(in[i]);
      if (std::optional<uint64_t> nan = convertedNaNBits(bits, From, To)) {
        out[i] = std::bit_cast<Out>(static_cast<OutBits>(*nan));
      } else {
        out[i] = std::bit_cast<Out>(static_cast<OutBits>(convertFloat(loadAsDouble<From>(in[i]), To, rounding)));
      }
    }
    return;
  }
  constexpr bool fromFloat = From == ScalarKind::F32;
  constexpr bool fp8 = To == ScalarKind::F8E4M3FN || To == ScalarKind::F8E5M2;
  if (rounding == Rounding::NearestEven && !fp8) {
    if constexpr (To == ScalarKind::F16 && fromFloat) {
      for (int64_t i = 0; i < n; ++i) out[i] = halfFromFloat(in[i]);
      return;
    } else if constexpr (To == ScalarKind::BF16 && fromFloat) {
      for (int64_t i = 0; i < n; ++i) out[i] = bfloatFromFloat(in[i]);
      return;
    } else if constexpr (To == ScalarKind::F32 || To == ScalarKind::F64) {
      for (int64_t i = 0; i < n; ++i) out[i] = storeFromDouble<To>(loadAsDouble<From>(in[i]));
      return;
    }
  }
  // convertFloat returns the bit pattern: reinterpret it (a value cast would turn f32/f64 bits into a number).
  using OutBits = std::conditional_t<sizeof(Out) == 8, uint64_t, std::conditional_t<sizeof(Out) == 4, uint32_t,
                  std::conditional_t<sizeof(Out) == 2, uint16_t, uint8_t>>>;
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::bit_cast<Out>(static_cast<OutBits>(convertFloat(loadAsDouble<From>(in[i]), To, rounding)));
}

void floatConvert(const Tile& source, Tile& result, Rounding rounding) {
  dispatchFloatKind(source.elementType().scalarKind(), [&](auto from) {
    dispatchFloatKind(result.elementType().scalarKind(), [&](auto to) {
      floatConvertLoop<decltype(from)::value, decltype(to)::value>(source, result, rounding);
    });
  });
}

Rounding roundingOf(const Operation& op) {
  return TILESIM_MUTANT(interp_fp_to_fp_ignores_rtz, FpToFpView{op}.rounding() == RoundingMode::Rtz, false)
             ? Rounding::TowardZero
             : Rounding::NearestEven;
}

}  // namespace

MutableTileRef evalCastOp(const Operation& op, Operands operands, const ElementwiseContext& context) {
  MutableTileRef result = makeResult(op, operands);
  const Tile& source = *operands[0];
  switch (familyOp<CastOp>(op.kind)) {
    case CastOp::ArithExtSI: integerResize(source, *result, TILESIM_MUTANT(interp_extsi_zero_extends, true, false)); break;
    case CastOp::ArithExtUI:
    case CastOp::ArithTruncI: integerResize(source, *result, false); break;
    case CastOp::ArithSIToFP: integerToFloat(source, *result, false); break;
    case CastOp::ArithUIToFP: integerToFloat(source, *result, true); break;
    case CastOp::ArithFPToSI: floatToInteger(source, *result, false, context.ubEvents); break;
    case CastOp::ArithFPToUI: floatToInteger(source, *result, true, context.ubEvents); break;
    case CastOp::ArithExtF:
    case CastOp::ArithTruncF: floatConvert(source, *result, Rounding::NearestEven); break;
    case CastOp::TTFpToFp: floatConvert(source, *result, roundingOf(op)); break;
    case CastOp::ArithBitcast:
    case CastOp::TTBitcast:
      TILESIM_ASSERT(source.elementBytes() == result->elementBytes(), "bitcast between different widths");
      std::memcpy(result->raw(), source.raw(), static_cast<size_t>(result->size()) * result->elementBytes());
      break;
  }
  return result;
}

}  // namespace tilesim::elementwise

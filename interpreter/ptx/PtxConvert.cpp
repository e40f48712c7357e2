// The PTX subset's cvt (interpreter/ptx/PtxOpcodes.h), §9.7.9.21: cvt.ROUND?.ftz?.sat?.DTYPE.STYPE d, a [, b]
// between floats, integers and the packed pairs (f16x2, bf16x2, e4m3x2, e5m2x2; packed forms take two sources).
// Rounds as its modifier says; float to integer saturates to the range and gives 0 for NaN.
#include <algorithm>

#include "interpreter/ptx/PtxOpcodes.h"

namespace tilesim::ptx {

namespace {

// cvt's rounding modifier: .rn/.rz/.rm/.rp (to a float) or .rni/.rzi/.rmi/.rpi (to an integer value).
enum class Round : uint8_t { Nearest, Zero, Down, Up };

std::optional<Round> roundingOf(const PtxInstruction& instruction) {
  for (const std::string& m : instruction.modifiers) {
    if (m == "rn" || m == "rni") return Round::Nearest;
    if (m == "rz" || m == "rzi") return Round::Zero;
    if (m == "rm" || m == "rmi") return Round::Down;
    if (m == "rp" || m == "rpi") return Round::Up;
  }
  return std::nullopt;
}

double roundToIntegral(double v, Round round) {
  switch (round) {
    case Round::Nearest: return std::nearbyint(v);
    case Round::Zero: return std::trunc(v);
    case Round::Down: return std::floor(v);
    case Round::Up: return std::ceil(v);
  }
  return v;
}

bool isScalarFloat(TypeInfo type) { return type.cls == Class::Float || type.cls == Class::BFloat; }

// What every form reads from the modifiers.
struct Conversion {
  TypeInfo to, from;
  Round round = Round::Nearest;
  bool integralRounding = false;  // .rni/.rzi/.rmi/.rpi: round a float to an integer value
  Rounding rounding = Rounding::NearestEven;
  bool saturate = false;  // .satfinite
};

// Packed destinations from two f32 sources: d = {a -> high half, b -> low half}; fp8 targets always saturate.
bool packTwoFloats(PtxStep& step, const Conversion& cvt) {
  const ScalarKind kind = floatKind(cvt.to.cls, 16);
  const int laneWidth = cvt.to.width / 2;
  const bool fp8 = cvt.to.cls == Class::Fp8x2E4M3 || cvt.to.cls == Class::Fp8x2E5M2;
  auto one = [&](uint64_t bits) {
    double v = toDouble(bits, ScalarKind::F32);
    if (has(step.in, "relu") && !std::isnan(v) && v < 0) v = 0;
    return fromDouble(v, kind, cvt.rounding, cvt.saturate || fp8) & mask(laneWidth);
  };
  return step.result(one(step.a) << laneWidth | one(step.b), cvt.to.width);
}

// cvt.rn.f16x2.e4m3x2 d, a: each byte widened exactly.
bool widenFp8Pair(PtxStep& step, const Conversion& cvt) {
  const ScalarKind kind = floatKind(cvt.from.cls, 8);
  uint64_t r = 0;
  for (int lane = 0; lane < 2; ++lane) r |= fromDouble(toDouble((step.a >> (8 * lane)) & 0xFF, kind), ScalarKind::F16) << (16 * lane);
  return step.result(r, 32);
}

bool floatToFloat(PtxStep& step, const Conversion& cvt) {
  double v = flushSubnormal(toDouble(step.a, floatKind(cvt.from.cls, cvt.from.width)), step.ftz);
  if (cvt.integralRounding) v = roundToIntegral(v, cvt.round);
  if (has(step.in, "sat") && !std::isnan(v)) v = std::clamp(v, 0.0, 1.0);
  return step.result(fromDouble(v, floatKind(cvt.to.cls, cvt.to.width), cvt.rounding, cvt.saturate), cvt.to.width);
}

bool integerToFloat(PtxStep& step, const Conversion& cvt) {
  const TypeInfo from = cvt.from;
  const double v = from.cls == Class::Signed ? static_cast<double>(signExtend(step.a, from.width))
                                             : static_cast<double>(step.a & mask(from.width));
  if (from.width == 64) return step.unsupported("converts a 64-bit integer (needs a single rounding the subset lacks)");
  return step.result(fromDouble(v, floatKind(cvt.to.cls, cvt.to.width), cvt.rounding), cvt.to.width);
}

// Rounds as asked, saturates to the destination's range, NaN -> 0.
bool floatToInteger(PtxStep& step, const Conversion& cvt) {
  const TypeInfo to = cvt.to;
  double v = toDouble(step.a, floatKind(cvt.from.cls, cvt.from.width));
  v = roundToIntegral(v, cvt.round);
  const bool isSigned = to.cls == Class::Signed;
  const double lo = isSigned ? -std::ldexp(1.0, to.width - 1) : 0.0;
  const double hi = isSigned ? std::ldexp(1.0, to.width - 1) - 1 : std::ldexp(1.0, to.width) - 1;
  uint64_t bits;
  if (std::isnan(v)) bits = 0;
  else if (v <= lo) bits = static_cast<uint64_t>(static_cast<int64_t>(lo));
  else if (v >= hi) bits = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(hi)) : mask(to.width);
  else bits = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
  return step.result(bits, to.width);
}

// Sign or zero extend from the source, then truncate (no .sat in the subset).
bool integerToInteger(PtxStep& step, const Conversion& cvt) {
  if (has(step.in, "sat")) return step.unsupported("saturates an integer conversion");
  const TypeInfo from = cvt.from;
  const uint64_t v = from.cls == Class::Signed ? static_cast<uint64_t>(signExtend(step.a, from.width)) : step.a & mask(from.width);
  return step.result(v, cvt.to.width);
}

}  // namespace

bool convert(PtxStep& step) {
  if (step.types.size() < 2) return step.unsupported("is not in the subset");
  Conversion cvt;
  cvt.to = step.types[step.types.size() - 2];
  cvt.from = step.types.back();
  cvt.round = roundingOf(step.in).value_or(Round::Nearest);
  cvt.integralRounding = has(step.in, "rni") || has(step.in, "rzi") || has(step.in, "rmi") || has(step.in, "rpi");
  if (!cvt.integralRounding && (cvt.round == Round::Down || cvt.round == Round::Up) && isScalarFloat(cvt.to))
    return step.unsupported("rounds toward an infinity (.rm/.rp), which the subset does not implement");
  cvt.rounding = cvt.round == Round::Zero ? Rounding::TowardZero : Rounding::NearestEven;
  cvt.saturate = has(step.in, "satfinite");
  const Class to = cvt.to.cls, from = cvt.from.cls;
  if ((to == Class::Half2 || to == Class::BFloat2 || to == Class::Fp8x2E4M3 || to == Class::Fp8x2E5M2) &&
      from == Class::Float && cvt.from.width == 32)
    return packTwoFloats(step, cvt);
  if (to == Class::Half2 && (from == Class::Fp8x2E4M3 || from == Class::Fp8x2E5M2)) return widenFp8Pair(step, cvt);
  const bool toFloat = isScalarFloat(cvt.to), fromFloat = isScalarFloat(cvt.from);
  if (toFloat && fromFloat) return floatToFloat(step, cvt);
  if (toFloat) return integerToFloat(step, cvt);
  if (fromFloat) return floatToInteger(step, cvt);
  return integerToInteger(step, cvt);
}

}  // namespace tilesim::ptx

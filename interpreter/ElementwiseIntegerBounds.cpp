// The `triton` float profile's error bounds on integer-valued lanes (ElementwiseBounds.cpp has the float ones):
// integer ops, compares of integers, and the casts into and out of integers. An integer's bound b says: the GPU's
// bits, read modulo 2^w, are ours + d for some integer |d| <= b (wrapping arithmetic keeps that true through addi,
// subi, muli and trunci). A bound >= 1 on an i1 is "uncertain" (+inf, as cmpf/cmpi give it).
#include <algorithm>
#include <cmath>
#include <optional>

#include "interpreter/ElementwiseBoundRules.h"
#include "interpreter/ElementwiseInternal.h"
#include "ir/eval/IntegerLane.h"

namespace tilesim::elementwise {
namespace {

uint64_t widthMask(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

// The lane read as a value of `width` bits, signed or unsigned.
__int128 integerValue(uint64_t bits, int width, bool isUnsigned) {
  bits &= widthMask(width);
  if (isUnsigned || width >= 64) return isUnsigned ? static_cast<__int128>(bits) : static_cast<__int128>(static_cast<int64_t>(bits));
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<__int128>(static_cast<int64_t>((bits ^ sign) - sign));
}

// Whether every value within `bound` of the lane stays inside its type's signed (or unsigned) range, so that
// the modular reading above is also the plain one (extsi, extui, sitofp, uitofp and orderings need that).
bool staysInRange(uint64_t bits, int width, bool isUnsigned, double bound) {
  if (!(bound < 0x1p62)) return false;
  const __int128 value = integerValue(bits, width, isUnsigned), reach = static_cast<__int128>(std::floor(bound));
  const __int128 low = isUnsigned ? 0 : -(static_cast<__int128>(1) << (width - 1));
  const __int128 high = isUnsigned ? (static_cast<__int128>(1) << width) - 1 : (static_cast<__int128>(1) << (width - 1)) - 1;
  return value - reach >= low && value + reach <= high;
}

double modularDistance(uint64_t a, uint64_t b, int width) {
  const uint64_t mask = widthMask(width), up = (a - b) & mask, down = (b - a) & mask;
  return static_cast<double>(std::min(up, down));
}

bool isUnsignedPredicate(IntPredicate p) {
  return p == IntPredicate::Ult || p == IntPredicate::Ule || p == IntPredicate::Ugt || p == IntPredicate::Uge;
}

// fptosi/fptoui: the GPU's float lies in [x - ex, x + ex]; cvt.rzi (truncate, saturate) is monotone at 16 bits
// and wider, so the integers it can give lie between the conversions of the two ends. One integer: exact.
// 8- and 1-bit targets wrap after a 16-bit conversion: exact when the 16-bit conversions agree, else +inf.
double floatToIntegerBound(double x, double ex, ScalarKind sourceKind, int width, bool isUnsigned) {
  if (ex == 0) return 0.0;
  if (!std::isfinite(ex) || !std::isfinite(x)) return kInf;
  const int converted = std::max(width, 16);
  bool outOfRange = false;
  const uint64_t low = scalar::integerFromFloat(x - ex, sourceKind, converted, isUnsigned, &outOfRange);
  const uint64_t high = scalar::integerFromFloat(x + ex, sourceKind, converted, isUnsigned, &outOfRange);
  const uint64_t mine = scalar::integerFromFloat(x, sourceKind, converted, isUnsigned, &outOfRange);
  if (low == high) return 0.0;
  if (width < 16) return kInf;
  const __int128 v = integerValue(mine, width, isUnsigned), lo = integerValue(low, width, isUnsigned),
                 hi = integerValue(high, width, isUnsigned);
  const __int128 worst = std::max(v - lo < 0 ? lo - v : v - lo, hi - v < 0 ? v - hi : hi - v);
  return static_cast<double>(worst);
}

// arith.cmpi with bounded operands: certain when the operands cannot meet within their bounds, read the way the
// predicate reads them (signed, unsigned; modular for eq/ne) and, for orderings, without leaving the range.
double compareIntegerBound(IntPredicate p, uint64_t a, uint64_t b, int width, double ea, double eb) {
  const double slack = ea + eb;
  if (slack == 0) return 0.0;
  if (!std::isfinite(slack)) return kInf;
  if (p == IntPredicate::Eq || p == IntPredicate::Ne) return modularDistance(a, b, width) > slack ? 0.0 : kInf;
  const bool isUnsigned = isUnsignedPredicate(p);
  if (!staysInRange(a, width, isUnsigned, ea) || !staysInRange(b, width, isUnsigned, eb)) return kInf;
  const __int128 d = integerValue(a, width, isUnsigned) - integerValue(b, width, isUnsigned);
  return static_cast<double>(d < 0 ? -d : d) > slack ? 0.0 : kInf;
}

// One lane of `kind` on `width`-bit values (8, 16, 32, 64), for enumeration.
uint64_t integerLaneOfWidth(IntArithOp kind, uint64_t a, uint64_t b, int width) {
  using scalar::integerLane;
  switch (width) {
    case 8: return integerLane<uint8_t>(kind, static_cast<uint8_t>(a), static_cast<uint8_t>(b));
    case 16: return integerLane<uint16_t>(kind, static_cast<uint16_t>(a), static_cast<uint16_t>(b));
    case 32: return integerLane<uint32_t>(kind, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    default: return integerLane<uint64_t>(kind, a, b);
  }
}

// Bitwise ops, shifts, min/max, division: every operand value the bounds allow (each operand ours + d,
// |d| <= floor(e), modulo 2^w; at most 64 combinations, else +inf), the largest distance from our result.
// A combination with undefined behaviour (division by zero, a shift by the width or more) is +inf.
double enumeratedIntegerBound(IntArithOp kind, uint64_t a, uint64_t b, int width, double ea, double eb, uint64_t r) {
  const bool unary = kind == IntArithOp::MathAbsI;
  if (!(ea < 64) || !(eb < 64) || width < 8) return kInf;
  const int64_t ra = static_cast<int64_t>(std::floor(ea)), rb = unary ? 0 : static_cast<int64_t>(std::floor(eb));
  if ((2 * ra + 1) * (2 * rb + 1) > 64) return kInf;
  const uint64_t mask = widthMask(width);
  const bool divides = kind == IntArithOp::ArithDivSI || kind == IntArithOp::ArithDivUI || kind == IntArithOp::ArithCeilDivSI ||
                       kind == IntArithOp::ArithRemSI || kind == IntArithOp::ArithRemUI;
  const bool shifts = kind == IntArithOp::ArithShLI || kind == IntArithOp::ArithShRSI || kind == IntArithOp::ArithShRUI;
  double worst = 0;
  for (int64_t da = -ra; da <= ra; ++da)
    for (int64_t db = -rb; db <= rb; ++db) {
      const uint64_t x = (a + static_cast<uint64_t>(da)) & mask, y = (b + static_cast<uint64_t>(db)) & mask;
      if (divides && y == 0) return kInf;
      if (shifts && y >= static_cast<uint64_t>(width)) return kInf;
      worst = std::max(worst, modularDistance(integerLaneOfWidth(kind, x, y, width), r, width));
    }
  return worst;
}

// The IntArith family: muli and trunci's rule-based bounds, the rest by enumeration; addi and subi (the bounds
// add) are the general rules'. nullopt: the general rules.
std::optional<double> intArithLaneBound(IntArithOp kind, Operands operands, const Tile& result, int64_t lane, double ea,
                                        double eb) {
  const Tile& a = *operands[0];
  const int width = a.elementType().bitWidth();
  switch (kind) {
    case IntArithOp::ArithAddI:
    case IntArithOp::ArithSubI: return std::nullopt;
    case IntArithOp::ArithMulI: {
      if (ea + eb == 0) return 0.0;
      const double x = std::fabs(static_cast<double>(a.signedAt(lane))), y = std::fabs(static_cast<double>(operands[1]->signedAt(lane)));
      const double bound = y * ea + x * eb + ea * eb;
      return std::isnan(bound) ? kInf : bound;
    }
    case IntArithOp::ArithDivSI:
    case IntArithOp::ArithCeilDivSI:
    case IntArithOp::ArithDivUI:
    case IntArithOp::ArithRemSI:
    case IntArithOp::ArithRemUI:
    case IntArithOp::ArithAndI:
    case IntArithOp::ArithOrI:
    case IntArithOp::ArithXOrI:
    case IntArithOp::ArithShLI:
    case IntArithOp::ArithShRSI:
    case IntArithOp::ArithShRUI:
    case IntArithOp::ArithMaxSI:
    case IntArithOp::ArithMinSI:
    case IntArithOp::ArithMaxUI:
    case IntArithOp::ArithMinUI:
    case IntArithOp::MathAbsI:
    case IntArithOp::TTMulhiUI: {
      if (ea + eb == 0) return std::nullopt;  // the general rules (UB lanes)
      const uint64_t bitsB = operands.size() > 1 ? operands[1]->bitsAt(lane) : 0;
      return enumeratedIntegerBound(kind, a.bitsAt(lane), bitsB, width, ea, eb, result.bitsAt(lane));
    }
  }
  return std::nullopt;
}

// The Cast family: the conversions out of floats into integers, and those whose integer operand may wrap.
std::optional<double> castLaneBound(CastOp kind, const Tile& a, const Tile& result, int64_t lane, double ea) {
  const int width = a.elementType().bitWidth();
  switch (kind) {
    case CastOp::ArithFPToSI:
    case CastOp::ArithFPToUI:
      return floatToIntegerBound(laneAsDouble(a, lane), ea, a.elementType().scalarKind(), result.elementType().bitWidth(),
                                 kind == CastOp::ArithFPToUI);
    case CastOp::ArithSIToFP:
    case CastOp::ArithUIToFP:
    case CastOp::ArithExtSI:
    case CastOp::ArithExtUI: {
      if (ea == 0) return std::nullopt;  // the general rules (sitofp: 0 unless approximate)
      const bool isUnsigned = kind == CastOp::ArithUIToFP || kind == CastOp::ArithExtUI;
      if (!staysInRange(a.bitsAt(lane), width, isUnsigned, ea)) return kInf;  // the GPU's value may wrap to the other end
      return std::nullopt;
    }
    case CastOp::ArithTruncI: return ea;
    case CastOp::ArithExtF:
    case CastOp::ArithTruncF:
    case CastOp::ArithBitcast:
    case CastOp::TTFpToFp:
    case CastOp::TTBitcast: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> integerLaneBound(const Operation& op, Operands operands, const Tile& result, int64_t lane,
                                       double ea, double eb) {
  const Tile& a = *operands[0];
  auto compare = [&](CompareOp kind) -> std::optional<double> {
    switch (kind) {
      case CompareOp::ArithCmpI:
        if (op.operand(0) == op.operand(1) && std::isfinite(ea)) return 0.0;  // x <pred> x: one answer on both
        return compareIntegerBound(intPredicate(op), a.bitsAt(lane), operands[1]->bitsAt(lane),
                                   a.elementType().bitWidth(), ea, eb);
      case CompareOp::ArithCmpF:
      case CompareOp::ArithSelect: return std::nullopt;
    }
    return std::nullopt;
  };
  return visitElementwiseFamily(op.kind, Overloaded{
      [&](IntArithOp kind) { return intArithLaneBound(kind, operands, result, lane, ea, eb); },
      [&](CastOp kind) { return castLaneBound(kind, a, result, lane, ea); },
      compare,
      [](auto) -> std::optional<double> { return std::nullopt; },  // FloatArith, Math, External: float lanes
  });
}

}  // namespace tilesim::elementwise

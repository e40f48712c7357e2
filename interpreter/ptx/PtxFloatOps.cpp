// The PTX subset's handlers for float types (interpreter/ptx/PtxOpcodes.h): §9.7.3 / §9.7.4 half and float
// arithmetic, exact (one rounding to nearest even, NVIDIA's canonical NaN); §9.7.3.21 ex2.approx and §9.7.3.25
// tanh.approx, correctly rounded here with the hardware's error recorded; float setp.
#include <algorithm>

#include "interpreter/MeasuredBounds.h"
#include "interpreter/ptx/PtxOpcodes.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::ptx {

namespace {

template <typename Op>
bool floatResult(PtxStep& step, Op op) {
  return step.result(floatLanes(step.a, step.b, step.c, step.type, step.ftz, op));
}

// div, rcp and sqrt are approximate on the GPU unless rounded (.rn); the subset has only the exact form.
template <typename Op>
bool roundedFloatResult(PtxStep& step, Op op) {
  if (!has(step.in, "rn")) return step.unsupported("is approximate; only the .rn form is in the subset");
  return floatResult(step, op);
}

// min / max: the other operand when one is NaN; -0 is below +0.
double floatMinimum(double x, double y) {
  if (std::isnan(x)) return y;
  if (std::isnan(y)) return x;
  if (x == y) return std::signbit(x) ? x : y;
  return std::min(x, y);
}

double floatMaximum(double x, double y) {
  if (std::isnan(x)) return y;
  if (std::isnan(y)) return x;
  if (x == y) return std::signbit(x) ? y : x;
  return std::max(x, y);
}

// neg / abs flip or clear each lane's sign bit: NaN payloads are kept.
bool signBitResult(PtxStep& step, bool negate) {
  const bool packed = step.type.cls == Class::Half2 || step.type.cls == Class::BFloat2;
  const int laneWidth = packed ? 16 : step.width;
  uint64_t r = 0;
  for (int lane = 0; lane < (packed ? 2 : 1); ++lane) {
    uint64_t bits = (step.a >> (lane * laneWidth)) & mask(laneWidth);
    const uint64_t sign = uint64_t{1} << (laneWidth - 1);
    bits = negate ? bits ^ sign : bits & ~sign;
    r |= bits << (lane * laneWidth);
  }
  return step.result(r);
}

// ex2 / tanh .approx.f32: the correctly rounded value, and as its error bound the one measured on the H200 when
// conformance/triton/measured_bounds.tsv has the instruction (m ulps of the exact value, so at most
// (m + 1/2) 2^-23 relative to ours), else the PTX ISA's documented maximum.
bool approximateResult(PtxStep& step, std::string_view opcode, scalar::MathFunction function, double documented) {
  if (step.type.cls != Class::Float || step.width != 32) return step.unsupported("is not in the subset");
  const double x = flushSubnormal(toDouble(step.a, ScalarKind::F32), true);
  const double result = scalar::evalMath(function, x);
  const bool tanh = function == scalar::MathFunction::Tanh;
  step.result(fromDouble(flushSubnormal(result, step.ftz || tanh), ScalarKind::F32), 32);
  const PtxOperand& destination = step.in.operands[0];
  if (destination.kind == PtxOperand::Kind::Register) {
    const std::string name = "ptx:" + std::string(opcode) + ".approx" + (step.ftz ? ".ftz" : "") + ".f32";
    const MeasuredBound* row = findMeasuredFunction(name, ScalarKind::F32).at(x);
    step.registers.setApproximation(destination.reg, row ? (row->maxUlp + 0.5) * 0x1p-23 : documented);
  }
  return true;
}

}  // namespace

bool floatAdd(PtxStep& step) { return floatResult(step, [](double x, double y, double) { return x + y; }); }
bool floatSub(PtxStep& step) { return floatResult(step, [](double x, double y, double) { return x - y; }); }
bool floatMul(PtxStep& step) { return floatResult(step, [](double x, double y, double) { return x * y; }); }
bool floatMin(PtxStep& step) { return floatResult(step, [](double x, double y, double) { return floatMinimum(x, y); }); }
bool floatMax(PtxStep& step) { return floatResult(step, [](double x, double y, double) { return floatMaximum(x, y); }); }
bool floatNeg(PtxStep& step) { return signBitResult(step, true); }
bool floatAbs(PtxStep& step) { return signBitResult(step, false); }

// One rounding: + - * / sqrt of f16/bf16/f32 values computed in double and rounded once more are exact
// (53 >= 2p + 2); so is fma for f16/bf16 (a near-tie needs the small addend near half an ulp, where its low bit is
// far above double's). f32 fma is not, so it is computed in f32.
bool floatFma(PtxStep& step) {
  const bool singlePrecision = step.type.cls == Class::Float && step.width == 32;
  return floatResult(step, [&](double x, double y, double z) -> double {
    return singlePrecision
               ? static_cast<double>(std::fmaf(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)))
               : std::fma(x, y, z);
  });
}

bool floatDiv(PtxStep& step) { return roundedFloatResult(step, [](double x, double y, double) { return x / y; }); }
bool floatRcp(PtxStep& step) { return roundedFloatResult(step, [](double x, double, double) { return 1.0 / x; }); }
bool floatSqrt(PtxStep& step) { return roundedFloatResult(step, [](double x, double, double) { return std::sqrt(x); }); }

// §9.7.3.21 ex2.approx.f32: max relative error 2^-22 over the full range. Subnormal results flush only with .ftz.
bool exp2Approx(PtxStep& step) { return approximateResult(step, "ex2", scalar::MathFunction::Exp2, 0x1p-22); }

// §9.7.3.25 tanh.approx.f32: max relative error 2^-11. Subnormal results always flush.
bool tanhApprox(PtxStep& step) { return approximateResult(step, "tanh", scalar::MathFunction::Tanh, 0x1p-11); }

// setp.CMP.f32 p, a, b: ordered compares (false on NaN) unless prefixed `u` (true on NaN); num and nan test for NaN.
bool floatSetp(PtxStep& step) {
  if (step.type.cls != Class::Float) return step.unsupported("is not in the subset");
  const std::string& cmp = step.in.modifiers.empty() ? "" : step.in.modifiers[0];
  const ScalarKind kind = floatKind(step.type.cls, step.width);
  const double x = toDouble(step.a, kind), y = toDouble(step.b, kind);
  const bool unordered = std::isnan(x) || std::isnan(y);
  std::string base = cmp;
  const bool orUnordered = base.size() == 3 && base[0] == 'u';
  if (orUnordered) base.erase(0, 1);
  bool r;
  if (base == "eq") r = x == y;
  else if (base == "ne") r = !unordered && x != y;
  else if (base == "lt") r = x < y;
  else if (base == "le") r = x <= y;
  else if (base == "gt") r = x > y;
  else if (base == "ge") r = x >= y;
  else if (cmp == "num") r = !unordered;
  else if (cmp == "nan") r = unordered;
  else return step.unsupported("uses a comparison the subset does not know");
  if (orUnordered) r = r || unordered;
  return step.result(r ? 1 : 0, 1);
}

}  // namespace tilesim::ptx

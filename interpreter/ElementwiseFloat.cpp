// Float elementwise ops over whole tiles: arith + - * / % neg max/min, arith.cmpf, math.*, tt.precise_*,
// tt.clampf and tt.extern_elementwise (libdevice). The float kind is dispatched once per tile into a
// template whose loop loads through FloatCodec (f16/bf16 widen to float), applies the ScalarEval.h
// function and rounds once on store. Math functions: under the exact profile tilesim's own algorithms
// (ir/eval/ExactMath.h, the ones the GPU backend emits); under the triton profile the correctly rounded value
// (evalMath in double), to which the triton profile's error bounds are added afterwards.
#include <array>

#include "interpreter/ElementwiseInternal.h"
#include "ir/OpAttributes.h"
#include "ir/eval/ExactMath.h"

namespace tilesim::elementwise {

using namespace scalar;

namespace {

template <ScalarKind K, typename Fn>
void unaryLoop(const Tile& a, Tile& result, Fn fn) {
  using Codec = FloatCodec<K>;
  using Storage = typename Codec::Storage;
  const Storage* pa = a.as<Storage>();
  Storage* out = result.as<Storage>();
  for (int64_t i = 0, n = result.size(); i < n; ++i) out[i] = Codec::store(fn(Codec::load(pa[i])));
}

template <ScalarKind K, typename Fn>
void binaryLoop(const Tile& a, const Tile& b, Tile& result, Fn fn) {
  using Codec = FloatCodec<K>;
  using Storage = typename Codec::Storage;
  const Storage* pa = a.as<Storage>();
  const Storage* pb = b.as<Storage>();
  Storage* out = result.as<Storage>();
  for (int64_t i = 0, n = result.size(); i < n; ++i) out[i] = Codec::store(fn(Codec::load(pa[i]), Codec::load(pb[i])));
}

template <ScalarKind K, typename Fn>
void ternaryLoop(const Tile& a, const Tile& b, const Tile& c, Tile& result, Fn fn) {
  using Codec = FloatCodec<K>;
  using Storage = typename Codec::Storage;
  const Storage* pa = a.as<Storage>();
  const Storage* pb = b.as<Storage>();
  const Storage* pc = c.as<Storage>();
  Storage* out = result.as<Storage>();
  for (int64_t i = 0, n = result.size(); i < n; ++i)
    out[i] = Codec::store(fn(Codec::load(pa[i]), Codec::load(pb[i]), Codec::load(pc[i])));
}

// An f64 op whose NaN results follow NVIDIA's f64 rules (ScalarEval.h F64NaN: an input NaN passes through, an
// invalid operation gives 0xFFF8...) instead of the canonical NaN; other kinds take binaryLoop.
template <ScalarKind K, typename Fn>
void arithLoop(const Tile& a, const Tile& b, Tile& result, Fn fn, F64NaN rule) {
  if constexpr (K != ScalarKind::F64) {
    binaryLoop<K>(a, b, result, fn);
  } else {
    const double* pa = a.as<double>();
    const double* pb = b.as<double>();
    double* out = result.as<double>();
    for (int64_t i = 0, n = result.size(); i < n; ++i) {
      const double r = fn(pa[i], pb[i]);
      out[i] = r == r ? r : std::bit_cast<double>(f64NaNResult(rule, std::bit_cast<uint64_t>(pa[i]), std::bit_cast<uint64_t>(pb[i])));
    }
  }
}

// arith.remf as NVIDIA lowers it (remainderNvidia): an infinite divisor selects the dividend's bits unchanged
// (a NaN dividend is not even quieted); otherwise the f32 result is canonical on NaN and the f64 one follows
// F64NaN::FirstFirst (the quotient's div.rn sees the dividend first).
template <ScalarKind K>
void remainderLoop(const Tile& a, const Tile& b, Tile& result) {
  using C = typename FloatCodec<K>::Compute;
  if constexpr (K == ScalarKind::F32 || K == ScalarKind::F64) {
    using Storage = typename FloatCodec<K>::Storage;
    const Storage* pa = a.as<Storage>();
    const Storage* pb = b.as<Storage>();
    Storage* out = result.as<Storage>();
    for (int64_t i = 0, n = result.size(); i < n; ++i) {
      if (std::isinf(pb[i])) {
        out[i] = pa[i];
      } else if constexpr (K == ScalarKind::F64) {
        const double r = remainderNvidia<C>(pa[i], pb[i]);
        out[i] = r == r ? r : std::bit_cast<double>(f64NaNResult(F64NaN::FirstFirst, std::bit_cast<uint64_t>(pa[i]), std::bit_cast<uint64_t>(pb[i])));
      } else {
        out[i] = FloatCodec<K>::store(remainderNvidia<C>(pa[i], pb[i]));
      }
    }
  } else {
    binaryLoop<K>(a, b, result, remainderNvidia<C>);
  }
}

// fma's single rounding goes straight from double into K: for narrow K the double is rounded to odd, and a
// detour through float would round twice.
template <ScalarKind K>
void fmaLoop(const Tile& a, const Tile& b, const Tile& c, Tile& result) {
  using Storage = typename FloatCodec<K>::Storage;
  const Storage* pa = a.as<Storage>();
  const Storage* pb = b.as<Storage>();
  const Storage* pc = c.as<Storage>();
  Storage* out = result.as<Storage>();
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    if constexpr (K == ScalarKind::F64) {
      const double r = std::fma(pa[i], pb[i], pc[i]);
      out[i] = r == r ? r
                      : std::bit_cast<double>(f64NaNResult(F64NaN::FmaOrder, std::bit_cast<uint64_t>(pa[i]),
                                                           std::bit_cast<uint64_t>(pb[i]), std::bit_cast<uint64_t>(pc[i])));
    } else {
      out[i] = storeFromDouble<K>(fusedMultiplyAdd(loadAsDouble<K>(pa[i]), loadAsDouble<K>(pb[i]), loadAsDouble<K>(pc[i]), K));
    }
  }
}

// Exact profile: the function's own algorithm in K's compute type (f16/bf16/fp8 in float), rounded once on store.
template <ScalarKind K>
void exactMathLoop(const Tile& a, Tile& result, MathFunction function) {
  using Codec = FloatCodec<K>;
  using Storage = typename Codec::Storage;
  const Storage* pa = a.as<Storage>();
  Storage* out = result.as<Storage>();
  if constexpr (K == ScalarKind::F64) {
    exactmath::DoubleFunction fn = exactmath::doubleFunction(function);
    for (int64_t i = 0, n = result.size(); i < n; ++i) out[i] = Codec::store(fn(Codec::load(pa[i])));
  } else {
    if constexpr (K == ScalarKind::F32) {
      if (exactmath::FloatArrayFunction whole = exactmath::floatArrayFunction(function)) {
        whole(pa, out, result.size());  // the whole tile in one call (vectorised), then canonical NaNs
        for (int64_t i = 0, n = result.size(); i < n; ++i) out[i] = Codec::store(out[i]);
        return;
      }
    }
    exactmath::FloatFunction fn = exactmath::floatFunction(function);
    for (int64_t i = 0, n = result.size(); i < n; ++i) out[i] = Codec::store(fn(Codec::load(pa[i])));
  }
}

// Otherwise math functions are evaluated in double (ScalarEval.h evalMath) and rounded once into K.
template <ScalarKind K>
void mathLoop(const Tile& a, Tile& result, MathFunction function, FloatProfile profile) {
  if (profile == FloatProfile::Exact && exactmath::hasOwnAlgorithm(function)) return exactMathLoop<K>(a, result, function);
  using Storage = typename FloatCodec<K>::Storage;
  MathFunctionPointer fn = mathFunctionPointer(function);
  const Storage* pa = a.as<Storage>();
  Storage* out = result.as<Storage>();
  for (int64_t i = 0, n = result.size(); i < n; ++i) out[i] = storeFromDouble<K>(fn(loadAsDouble<K>(pa[i]), 0, 0));
}

template <ScalarKind K, FloatPredicate P>
void compareLoop(const Tile& a, const Tile& b, Tile& result) {
  using Codec = FloatCodec<K>;
  using Storage = typename Codec::Storage;
  const Storage* pa = a.as<Storage>();
  const Storage* pb = b.as<Storage>();
  uint8_t* out = result.as<uint8_t>();
  for (int64_t i = 0, n = result.size(); i < n; ++i) out[i] = compareFloat(P, Codec::load(pa[i]), Codec::load(pb[i]));
}

template <ScalarKind K, size_t... I>
void compareTiles(const Tile& a, const Tile& b, Tile& result, FloatPredicate predicate, std::index_sequence<I...>) {
  using Loop = void (*)(const Tile&, const Tile&, Tile&);
  static constexpr std::array<Loop, sizeof...(I)> kLoops = {&compareLoop<K, static_cast<FloatPredicate>(I)>...};
  kLoops[static_cast<size_t>(predicate)](a, b, result);
}

// negf and absf touch only the sign bit (NaN payloads included), as PTX neg/abs do.
void signBitLoop(const Tile& a, Tile& result, bool clear) {
  int bytes = a.elementBytes();
  uint64_t sign = uint64_t{1} << (bytes * 8 - 1);
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    uint64_t bits = a.bitsAt(i);
    result.setBits(i, clear ? bits & ~sign : bits ^ sign);
  }
}

bool propagatesNaN(const Operation& op) {
  return ClampFView{op}.propagateNan() == PropagateNan::All;
}

template <ScalarKind K>
void evalMathTyped(const Operation& op, Operands operands, FloatProfile profile, Tile& result) {
  using C = typename FloatCodec<K>::Compute;
  const Tile& a = *operands[0];
  switch (familyOp<MathOp>(op.kind)) {
    case MathOp::MathExp: return mathLoop<K>(a, result, MathFunction::Exp, profile);
    case MathOp::MathExp2: return mathLoop<K>(a, result, MathFunction::Exp2, profile);
    case MathOp::MathLog: return mathLoop<K>(a, result, MathFunction::Log, profile);
    case MathOp::MathLog2: return mathLoop<K>(a, result, MathFunction::Log2, profile);
    case MathOp::MathSin: return mathLoop<K>(a, result, MathFunction::Sin, profile);
    case MathOp::MathCos: return mathLoop<K>(a, result, MathFunction::Cos, profile);
    case MathOp::MathRsqrt: return mathLoop<K>(a, result, MathFunction::Rsqrt, profile);
    case MathOp::MathErf: return mathLoop<K>(a, result, MathFunction::Erf, profile);
    case MathOp::MathSqrt:
    case MathOp::TTPreciseSqrt:
      if constexpr (K == ScalarKind::F64)  // sqrt(NaN) passes the NaN through quieted, sqrt(-x) gives 0xFFF8...
        return arithLoop<K>(a, a, result, [](C x, C) { return std::sqrt(x); }, F64NaN::FirstFirst);
      else
        return unaryLoop<K>(a, result, [](C x) { return std::sqrt(x); });
    case MathOp::MathFloor: return unaryLoop<K>(a, result, [](C x) { return std::floor(x); });
    case MathOp::MathCeil: return unaryLoop<K>(a, result, [](C x) { return std::ceil(x); });
    case MathOp::MathAbsF: return signBitLoop(a, result, true);
    case MathOp::MathFma: return fmaLoop<K>(a, *operands[1], *operands[2], result);
  }
}

template <ScalarKind K>
void evalTyped(const Operation& op, Operands operands, FloatProfile profile, Tile& result) {
  using C = typename FloatCodec<K>::Compute;
  const Tile& a = *operands[0];
  if (op.kind == OpKind::ArithCmpF)  // the Compare family's float half
    return compareTiles<K>(a, *operands[1], result, floatPredicate(op), std::make_index_sequence<16>{});
  if (opFamily(op.kind) == OpFamily::Math) return evalMathTyped<K>(op, operands, profile, result);
  switch (familyOp<FloatArithOp>(op.kind)) {
    case FloatArithOp::ArithAddF: return arithLoop<K>(a, *operands[1], result, [](C x, C y) { return x + y; }, F64NaN::SecondFirst);
    case FloatArithOp::ArithSubF: return arithLoop<K>(a, *operands[1], result, [](C x, C y) { return x - y; }, F64NaN::SecondFirst);
    case FloatArithOp::ArithMulF: return arithLoop<K>(a, *operands[1], result, [](C x, C y) { return x * y; }, F64NaN::SecondFirst);
    case FloatArithOp::ArithDivF:
    case FloatArithOp::TTPreciseDivF: return arithLoop<K>(a, *operands[1], result, [](C x, C y) { return x / y; }, F64NaN::FirstFirst);
    case FloatArithOp::ArithRemF: return remainderLoop<K>(a, *operands[1], result);
    case FloatArithOp::ArithNegF: return signBitLoop(a, result, false);
    case FloatArithOp::ArithMaxNumF: return arithLoop<K>(a, *operands[1], result, maxNum<C>, F64NaN::SecondFirst);
    case FloatArithOp::ArithMinNumF: return arithLoop<K>(a, *operands[1], result, minNum<C>, F64NaN::SecondFirst);
    case FloatArithOp::ArithMaximumF: return arithLoop<K>(a, *operands[1], result, maximum<C>, F64NaN::Positive);
    case FloatArithOp::ArithMinimumF: return arithLoop<K>(a, *operands[1], result, minimum<C>, F64NaN::Positive);
    case FloatArithOp::TTClampF:
      if (propagatesNaN(op))
        return ternaryLoop<K>(a, *operands[1], *operands[2], result,
                              [](C x, C lo, C hi) { return minimum(maximum(x, lo), hi); });
      return ternaryLoop<K>(a, *operands[1], *operands[2], result,
                            [](C x, C lo, C hi) { return minNum(maxNum(x, lo), hi); });
  }
}

MutableTileRef evalExtern(const Operation& op, Operands operands, FloatProfile profile, std::string* error) {
  std::string symbol = ExternElementwiseView{op}.symbol();
  const LibdeviceFunction* function = findLibdeviceFunction(symbol);
  if (!function) {
    if (error) *error = "tt.extern_elementwise: unknown libdevice symbol '" + symbol + "'";
    return nullptr;
  }
  if (static_cast<int>(operands.size()) != function->arity) {
    if (error)
      *error = "tt.extern_elementwise: '" + symbol + "' takes " + std::to_string(function->arity) + " operands, got " +
               std::to_string(operands.size());
    return nullptr;
  }
  MutableTileRef result = makeResult(op, operands);
  ScalarKind kind = result->elementType().scalarKind();
  if (profile == FloatProfile::Exact && exactmath::hasOwnAlgorithm(function->function) && !function->intResult &&
      operands[0]->elementType().scalarKind() == kind) {
    for (int64_t i = 0, n = result->size(); i < n; ++i)
      result->setBits(i, exactmath::evalBits(function->function, operands[0]->bitsAt(i), kind));
    return result;
  }
  // copysign is a bit operation (PTX copysign.f32/f64, which libdevice's __nv_copysignf calls): the magnitude's
  // bits, NaN payload included, with the sign of the second operand. The H200 keeps the payload (Triton 3.6's
  // output of golden-extra/libdevice_exact_f32: copysign(0x7FC00000, 1.0) = 0x7FC00000), so no canonical NaN here.
  if (function->function == MathFunction::CopySign && operands[0]->elementType().scalarKind() == kind &&
      operands[1]->elementType().scalarKind() == kind) {
    const uint64_t sign = uint64_t{1} << (result->elementBytes() * 8 - 1);
    for (int64_t i = 0, n = result->size(); i < n; ++i)
      result->setBits(i, (operands[0]->bitsAt(i) & ~sign) | (operands[1]->bitsAt(i) & sign));
    return result;
  }
  MathFunctionPointer fn = mathFunctionPointer(function->function);
  std::array<double, 3> args{};
  for (int64_t i = 0, n = result->size(); i < n; ++i) {
    for (size_t k = 0; k < operands.size(); ++k) args[k] = laneAsDouble(*operands[k], i);
    double value = fn(args[0], args[1], args[2]);
    if (isIntegerKind(kind)) result->setBits(i, static_cast<uint64_t>(static_cast<int64_t>(value)));
    else result->setBits(i, floatBitsFromDouble(value, kind));
  }
  return result;
}

}  // namespace

MutableTileRef evalFloatOp(const Operation& op, Operands operands, FloatProfile profile, std::string* error) {
  if (op.kind == OpKind::TTExternElementwise) return evalExtern(op, operands, profile, error);
  MutableTileRef result = makeResult(op, operands);
  dispatchFloatKind(operands[0]->elementType().scalarKind(),
                    [&](auto tag) { evalTyped<decltype(tag)::value>(op, operands, profile, *result); });
  return result;
}

double laneAsDouble(const Tile& tile, int64_t lane) {
  ScalarKind kind = tile.elementType().scalarKind();
  if (isIntegerKind(kind)) return static_cast<double>(tile.signedAt(lane));
  if (kind == ScalarKind::F32) return tile.at<float>(lane);
  if (kind == ScalarKind::F64) return tile.at<double>(lane);
  return doubleFromFloatBits(tile.bitsAt(lane), kind);
}

}  // namespace tilesim::elementwise

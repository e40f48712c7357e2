// Float ops (docs/semantics.md §Floats). Exact profile: + - * / sqrt are LLVM's correctly rounded ops with no
// fast-math flags, and the target machine forbids FMA contraction, so PTX gets add.rn / mul.rn / div.rn /
// sqrt.rn. f16 and bf16 are computed in f32 and rounded once — the interpreter's definition, exact for these
// ops (f32 has more than 2p + 2 bits). Triton profile: contraction allowed, `/` is div.full.f32, math.sqrt is
// sqrt.approx.ftz.f32, math.exp is ex2.approx.f32 of x * log2(e), math.exp2 ex2.approx.ftz.f32 and math.rsqrt
// rsqrt.approx.ftz.f32, as Triton lowers them (the interpreter's error bounds assume these); math.erf, sin, cos
// call libdevice's __nv_erff / __nv_sinf / __nv_cosf. Exact profile: log, log2, erf, sin, cos (and exp, exp2,
// rsqrt) are ExactMath.cpp.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

bool isNarrow(llvm::Type* type) { return type->isHalfTy() || type->isBFloatTy(); }
llvm::Value* widen(Builder& b, llvm::Value* v) { return isNarrow(v->getType()) ? b.CreateFPExt(v, b.getFloatTy()) : v; }
llvm::Value* narrowTo(Builder& b, llvm::Value* v, llvm::Type* type) { return v->getType() == type ? v : b.CreateFPTrunc(v, type); }

llvm::CmpInst::Predicate floatPredicate(KernelLowering& lowering, const Operation& op) {
  using P = llvm::CmpInst::Predicate;
  static constexpr std::string_view kNames[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                                "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
  static constexpr P kPredicates[] = {P::FCMP_FALSE, P::FCMP_OEQ, P::FCMP_OGT, P::FCMP_OGE, P::FCMP_OLT, P::FCMP_OLE,
                                      P::FCMP_ONE,   P::FCMP_ORD, P::FCMP_UEQ, P::FCMP_UGT, P::FCMP_UGE, P::FCMP_ULT,
                                      P::FCMP_ULE,   P::FCMP_UNE, P::FCMP_UNO, P::FCMP_TRUE};
  const Attribute* attr = op.attr("predicate");
  if (attr && attr->kind() == Attribute::Kind::Integer && attr->intValue() >= 0 && attr->intValue() < 16)
    return kPredicates[attr->intValue()];
  if (attr && attr->kind() == Attribute::Kind::Bool) return attr->boolValue() ? P::FCMP_TRUE : P::FCMP_FALSE;
  if (attr)
    for (size_t i = 0; i < 16; ++i)
      if (attr->text() == kNames[i]) return kPredicates[i];
  lowering.unsupported(op, "with this predicate");
}

bool propagatesNaN(const Operation& op) {
  const Attribute* attr = op.attr("propagateNan");
  if (!attr) return false;
  if (attr->kind() == Attribute::Kind::Integer) return attr->intValue() != 0;
  return attr->text() == "all";
}

}  // namespace

void lowerFloatOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const OpKind kind = op.kind;
  const bool triton = lowering.options.profile == FloatProfile::Triton;
  for (const Value* operand : op.operands)
    if (!operand->type.isFloat() || isFp8(operand->type)) lowering.unsupported(op, "on " + operand->type.str());
  llvm::Type* type = lowering.scalarType(op, op.operand(0)->type);
  if (kind == OpKind::ArithCmpF) {
    const llvm::CmpInst::Predicate predicate = floatPredicate(lowering, op);
    return lowerElementwise(lowering, op, [&](auto& v) { return b.CreateFCmp(predicate, widen(b, v[0]), widen(b, v[1])); });
  }
  if (kind == OpKind::MathFma && isNarrow(type)) lowering.unsupported(op, "on f16/bf16");
  // Math functions: the triton profile's approximate instructions (Triton's own lowering) for f32 exp, exp2 and
  // rsqrt; everything else is ir/eval/ExactMath's algorithm emitted op for op (ExactMath.cpp).
  const bool approximate = kind == OpKind::MathExp || kind == OpKind::MathExp2 || kind == OpKind::MathRsqrt;
  // math.erf, sin and cos under the triton profile are libdevice's (__nv_erff / __nv_sinf / __nv_cosf on f32, the
  // f16/bf16 operand widened to f32 first; __nv_erf / sin / cos on f64), as Triton lowers them: the H200's math.sin
  // errors in conformance/triton/measured_bounds.tsv (at most 1.499 ulp over every exponent) are __nv_sinf's.
  const bool libdeviceMath = kind == OpKind::MathErf || kind == OpKind::MathSin || kind == OpKind::MathCos;
  if (libdeviceMath && triton) {
    const std::string name = kind == OpKind::MathErf ? "erf" : kind == OpKind::MathSin ? "sin" : "cos";
    const std::string symbol = "__nv_" + name + (type->isDoubleTy() ? "" : "f");
    return lowerElementwise(lowering, op, [&](auto& v) {
      llvm::Value* x = widen(b, v[0]);
      return narrowTo(b, callLibdevice(lowering, op, symbol, {x}, x->getType()), type);
    });
  }
  if (kind == OpKind::MathLog || kind == OpKind::MathLog2 || libdeviceMath ||
      (approximate && (!triton || type->isDoubleTy()))) {
    const ExactFunction function = kind == OpKind::MathExp    ? ExactFunction::Exp
                                   : kind == OpKind::MathExp2 ? ExactFunction::Exp2
                                   : kind == OpKind::MathLog  ? ExactFunction::Log
                                   : kind == OpKind::MathLog2 ? ExactFunction::Log2
                                   : kind == OpKind::MathErf  ? ExactFunction::Erf
                                   : kind == OpKind::MathSin  ? ExactFunction::Sin
                                   : kind == OpKind::MathCos  ? ExactFunction::Cos
                                                              : ExactFunction::Rsqrt;
    return lowerElementwise(lowering, op, [&](auto& v) { return emitExactMath(b, function, v[0]); });
  }
  llvm::FastMathFlags flags;
  if (triton) flags.setAllowContract(true);
  Builder::FastMathFlagGuard guard(b);
  b.setFastMathFlags(flags);
  auto binary = [&](llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y) {
    return b.CreateBinaryIntrinsic(id, x, y);
  };
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    // Sign operations act on the value as it is; everything else on the widened value, rounded once at the end.
    if (kind == OpKind::ArithNegF) return b.CreateFNeg(v[0]);
    if (kind == OpKind::MathAbsF) return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v[0]);
    llvm::Value* x = widen(b, v[0]);
    llvm::Value* y = v.size() > 1 ? widen(b, v[1]) : nullptr;
    llvm::Value* r = nullptr;
    switch (kind) {
      case OpKind::ArithAddF: r = b.CreateFAdd(x, y); break;
      case OpKind::ArithSubF: r = b.CreateFSub(x, y); break;
      case OpKind::ArithMulF: r = b.CreateFMul(x, y); break;
      case OpKind::ArithDivF:
        r = triton && x->getType()->isFloatTy() && !isNarrow(type) ? ptx::divFull(b, x, y) : b.CreateFDiv(x, y);
        break;
      case OpKind::TTPreciseDivF: r = b.CreateFDiv(x, y); break;
      case OpKind::ArithRemF: {  // isinf(b) ? a : fma(-trunc(a / b), b, a), a / b correctly rounded
        llvm::Value* quotient = b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, b.CreateFDiv(x, y));
        llvm::Value* fused = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {b.CreateFNeg(quotient), y, x});
        llvm::Value* infinite = b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y),
                                                llvm::ConstantFP::getInfinity(x->getType()));
        r = b.CreateSelect(infinite, x, fused);
        break;
      }
      case OpKind::ArithMaxNumF: r = binary(llvm::Intrinsic::maxnum, x, y); break;
      case OpKind::ArithMinNumF: r = binary(llvm::Intrinsic::minnum, x, y); break;
      case OpKind::ArithMaximumF: r = binary(llvm::Intrinsic::maximum, x, y); break;
      case OpKind::ArithMinimumF: r = binary(llvm::Intrinsic::minimum, x, y); break;
      case OpKind::TTClampF: {
        const bool nan = propagatesNaN(op);
        llvm::Value* lo = binary(nan ? llvm::Intrinsic::maximum : llvm::Intrinsic::maxnum, x, y);
        r = binary(nan ? llvm::Intrinsic::minimum : llvm::Intrinsic::minnum, lo, widen(b, v[2]));
        break;
      }
      case OpKind::MathSqrt:
        r = triton && x->getType()->isFloatTy() && !isNarrow(type)
                ? b.CreateIntrinsic(llvm::Intrinsic::nvvm_sqrt_approx_ftz_f, {}, {x})
                : b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
        break;
      case OpKind::TTPreciseSqrt: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x); break;
      case OpKind::MathFloor: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); break;
      case OpKind::MathCeil: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x); break;
      case OpKind::MathFma: r = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, v[2]}); break;
      case OpKind::MathExp:  // ex2.approx.f32(x * log2(e))
        r = b.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {},
                              {b.CreateFMul(x, llvm::ConstantFP::get(b.getFloatTy(), 1.4426950408889634))});
        break;
      case OpKind::MathExp2: r = b.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_ftz_f, {}, {x}); break;
      case OpKind::MathRsqrt: r = b.CreateIntrinsic(llvm::Intrinsic::nvvm_rsqrt_approx_ftz_f, {}, {x}); break;
      case OpKind::MathLog:
      case OpKind::MathLog2:
      case OpKind::MathErf:
      case OpKind::MathSin:
      case OpKind::MathCos: TILESIM_UNREACHABLE("exact math functions are lowered above");
      default: TILESIM_UNREACHABLE("not a float op");
    }
    return narrowTo(b, r, type);
  });
}

}  // namespace tilesim::gpu

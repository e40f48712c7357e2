// The FloatArith and Math families (ir/Ops.def; interpreter/ElementwiseFloat.cpp): float ops (docs/semantics.md
// §Floats), one entry point per family. Exact profile: + - * / sqrt are LLVM's correctly rounded ops with no
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
#include "ir/OpAttributes.h"

namespace tilesim::gpu {

using Builder = llvm::IRBuilder<>;

bool isNarrowFloat(llvm::Type* type) { return type->isHalfTy() || type->isBFloatTy(); }
llvm::Value* widenFloat(Builder& b, llvm::Value* v) {
  return isNarrowFloat(v->getType()) ? b.CreateFPExt(v, b.getFloatTy()) : v;
}

namespace {

llvm::Value* narrowTo(Builder& b, llvm::Value* v, llvm::Type* type) { return v->getType() == type ? v : b.CreateFPTrunc(v, type); }

// The element type of a float op, whose operands must all be non-fp8 floats.
llvm::Type* floatOperandType(KernelLowering& lowering, const Operation& op) {
  for (const Value* operand : op.operands)
    if (!operand->type.isFloat() || isFp8(operand->type)) lowering.unsupported(op, "on " + operand->type.str());
  return lowering.scalarType(op, op.operand(0)->type);
}

// Lane by lane with the profile's fast-math flags: contraction allowed under the triton profile only.
template <typename Fn>
void lowerFloatElementwise(KernelLowering& lowering, const Operation& op, Fn&& fn) {
  llvm::FastMathFlags flags;
  if (lowering.options.profile == FloatProfile::Triton) flags.setAllowContract(true);
  Builder::FastMathFlagGuard guard(lowering.builder);
  lowering.builder.setFastMathFlags(flags);
  lowerElementwise(lowering, op, fn);
}

// math.erf, sin and cos under the triton profile are libdevice's (__nv_erff / __nv_sinf / __nv_cosf on f32, the
// f16/bf16 operand widened to f32 first; __nv_erf / sin / cos on f64), as Triton lowers them: the H200's math.sin
// errors in conformance/triton/measured_bounds.tsv (at most 1.499 ulp over every exponent) are __nv_sinf's.
// Null for the functions that are not.
const char* tritonLibdeviceName(MathOp kind) {
  switch (kind) {
    case MathOp::MathErf: return "erf";
    case MathOp::MathSin: return "sin";
    case MathOp::MathCos: return "cos";
    case MathOp::MathExp:
    case MathOp::MathExp2:
    case MathOp::MathLog:
    case MathOp::MathLog2:
    case MathOp::MathSqrt:
    case MathOp::MathRsqrt:
    case MathOp::MathFloor:
    case MathOp::MathCeil:
    case MathOp::MathAbsF:
    case MathOp::MathFma:
    case MathOp::TTPreciseSqrt: return nullptr;
  }
  TILESIM_UNREACHABLE("math op");
}

// The math functions that are ir/eval/ExactMath's algorithm emitted op for op (ExactMath.cpp): log, log2, erf,
// sin and cos always (the triton profile's erf, sin and cos are libdevice's, above), exp, exp2 and rsqrt where the
// triton profile's approximate instruction does not apply (the exact profile, or f64). Nullopt for the others.
std::optional<ExactFunction> exactFunction(MathOp kind, bool triton, llvm::Type* type) {
  const bool approximate = triton && !type->isDoubleTy();  // ex2.approx / rsqrt.approx (Triton's own lowering)
  switch (kind) {
    case MathOp::MathExp: return approximate ? std::nullopt : std::optional(ExactFunction::Exp);
    case MathOp::MathExp2: return approximate ? std::nullopt : std::optional(ExactFunction::Exp2);
    case MathOp::MathRsqrt: return approximate ? std::nullopt : std::optional(ExactFunction::Rsqrt);
    case MathOp::MathLog: return ExactFunction::Log;
    case MathOp::MathLog2: return ExactFunction::Log2;
    case MathOp::MathErf: return ExactFunction::Erf;
    case MathOp::MathSin: return ExactFunction::Sin;
    case MathOp::MathCos: return ExactFunction::Cos;
    case MathOp::MathSqrt:
    case MathOp::MathFloor:
    case MathOp::MathCeil:
    case MathOp::MathAbsF:
    case MathOp::MathFma:
    case MathOp::TTPreciseSqrt: return std::nullopt;
  }
  TILESIM_UNREACHABLE("math op");
}

}  // namespace

void lowerFloatArithOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const FloatArithOp kind = familyOp<FloatArithOp>(op.kind);
  const bool triton = lowering.options.profile == FloatProfile::Triton;
  llvm::Type* type = floatOperandType(lowering, op);
  auto binary = [&](llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y) { return b.CreateBinaryIntrinsic(id, x, y); };
  lowerFloatElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    // negf acts on the value as it is; everything else on the widened value, rounded once at the end.
    if (kind == FloatArithOp::ArithNegF) return b.CreateFNeg(v[0]);
    llvm::Value* x = widenFloat(b, v[0]);
    llvm::Value* y = v.size() > 1 ? widenFloat(b, v[1]) : nullptr;
    llvm::Value* r = nullptr;
    switch (kind) {
      case FloatArithOp::ArithAddF: r = b.CreateFAdd(x, y); break;
      case FloatArithOp::ArithSubF: r = b.CreateFSub(x, y); break;
      case FloatArithOp::ArithMulF: r = b.CreateFMul(x, y); break;
      case FloatArithOp::ArithDivF:
        r = triton && x->getType()->isFloatTy() && !isNarrowFloat(type) ? ptx::divFull(b, x, y) : b.CreateFDiv(x, y);
        break;
      case FloatArithOp::TTPreciseDivF: r = b.CreateFDiv(x, y); break;
      case FloatArithOp::ArithRemF: {  // isinf(b) ? a : fma(-trunc(a / b), b, a), a / b correctly rounded
        llvm::Value* quotient = b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, b.CreateFDiv(x, y));
        llvm::Value* fused = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {b.CreateFNeg(quotient), y, x});
        llvm::Value* infinite = b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y),
                                                llvm::ConstantFP::getInfinity(x->getType()));
        r = b.CreateSelect(infinite, x, fused);
        break;
      }
      case FloatArithOp::ArithMaxNumF: r = binary(llvm::Intrinsic::maxnum, x, y); break;
      case FloatArithOp::ArithMinNumF: r = binary(llvm::Intrinsic::minnum, x, y); break;
      case FloatArithOp::ArithMaximumF: r = binary(llvm::Intrinsic::maximum, x, y); break;
      case FloatArithOp::ArithMinimumF: r = binary(llvm::Intrinsic::minimum, x, y); break;
      case FloatArithOp::TTClampF: {
        const bool nan = ClampFView{op}.propagateNan() == PropagateNan::All;
        llvm::Value* lo = binary(nan ? llvm::Intrinsic::maximum : llvm::Intrinsic::maxnum, x, y);
        r = binary(nan ? llvm::Intrinsic::minimum : llvm::Intrinsic::minnum, lo, widenFloat(b, v[2]));
        break;
      }
      case FloatArithOp::ArithNegF: TILESIM_UNREACHABLE("negf is lowered above");
    }
    return narrowTo(b, r, type);
  });
}

void lowerMathOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const MathOp kind = familyOp<MathOp>(op.kind);
  const bool triton = lowering.options.profile == FloatProfile::Triton;
  llvm::Type* type = floatOperandType(lowering, op);
  if (kind == MathOp::MathFma && isNarrowFloat(type)) lowering.unsupported(op, "on f16/bf16");
  if (const char* name = tritonLibdeviceName(kind); name && triton) {
    const std::string symbol = "__nv_" + std::string(name) + (type->isDoubleTy() ? "" : "f");
    return lowerElementwise(lowering, op, [&](auto& v) {
      llvm::Value* x = widenFloat(b, v[0]);
      return narrowTo(b, callLibdevice(lowering, op, symbol, {x}, x->getType()), type);
    });
  }
  if (const std::optional<ExactFunction> function = exactFunction(kind, triton, type))
    return lowerElementwise(lowering, op, [&](auto& v) { return emitExactMath(b, *function, v[0]); });
  lowerFloatElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    // absf acts on the value as it is; everything else on the widened value, rounded once at the end.
    if (kind == MathOp::MathAbsF) return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v[0]);
    llvm::Value* x = widenFloat(b, v[0]);
    llvm::Value* y = v.size() > 1 ? widenFloat(b, v[1]) : nullptr;
    llvm::Value* r = nullptr;
    switch (kind) {
      case MathOp::MathSqrt:
        r = triton && x->getType()->isFloatTy() && !isNarrowFloat(type)
                ? b.CreateIntrinsic(llvm::Intrinsic::nvvm_sqrt_approx_ftz_f, {}, {x})
                : b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
        break;
      case MathOp::TTPreciseSqrt: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x); break;
      case MathOp::MathFloor: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); break;
      case MathOp::MathCeil: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x); break;
      case MathOp::MathFma: r = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, v[2]}); break;
      case MathOp::MathExp:  // ex2.approx.f32(x * log2(e))
        r = b.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {},
                              {b.CreateFMul(x, llvm::ConstantFP::get(b.getFloatTy(), 1.4426950408889634))});
        break;
      case MathOp::MathExp2: r = b.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_ftz_f, {}, {x}); break;
      case MathOp::MathRsqrt: r = b.CreateIntrinsic(llvm::Intrinsic::nvvm_rsqrt_approx_ftz_f, {}, {x}); break;
      case MathOp::MathAbsF: TILESIM_UNREACHABLE("absf is lowered above");
      case MathOp::MathLog:
      case MathOp::MathLog2:
      case MathOp::MathErf:
      case MathOp::MathSin:
      case MathOp::MathCos: TILESIM_UNREACHABLE("exact math functions are lowered above");
    }
    return narrowTo(b, r, type);
  });
}

}  // namespace tilesim::gpu

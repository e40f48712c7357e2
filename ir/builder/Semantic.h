// The typing half of the builder (internal): triton/language/semantic.py of Triton 3.6 for operators,
// comparisons, where, maximum/minimum, unary ops and math functions. Each function decides the computation
// type (Promotion.h), inserts the implicit casts and broadcasts (Emitter), then emits the op the promoted
// dtype selects. Errors are thrown as FrontendException and caught by KernelBuilder.
#pragma once

#include <utility>

#include "ir/builder/Emitter.h"
#include "ir/builder/KernelBuilder.h"
#include "ir/builder/Tensor.h"

namespace tilesim::builder::semantic {

enum class BinaryOp : uint8_t { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, And, Or, Xor, Shl, Shr };
enum class CompareOp : uint8_t { Lt, Le, Gt, Ge, Eq, Ne };
enum class MathOp : uint8_t { Exp, Exp2, Log, Log2, Sin, Cos, Sqrt, Rsqrt, Floor, Ceil };

Tensor toTensor(Emitter& emitter, const Operand& operand);
// binary_op_type_checking_impl: literals materialised in the computation type, casts, broadcasting.
std::pair<Tensor, Tensor> typeCheck(Emitter& emitter, const Operand& a, const Operand& b, bool allowLhsPointer,
                                    bool allowRhsPointer, bool arithmeticCheck, bool divOrMod);
Tensor binary(Emitter& emitter, BinaryOp op, const Operand& a, const Operand& b);
Tensor compare(Emitter& emitter, CompareOp op, const Operand& a, const Operand& b);
Tensor minMax(Emitter& emitter, bool isMax, const Operand& a, const Operand& b, PropagateNan nan);
Tensor where(Emitter& emitter, const Operand& condition, const Operand& x, const Operand& y);
Tensor minus(Emitter& emitter, const Tensor& x);
Tensor invert(Emitter& emitter, const Tensor& x);
Tensor math(Emitter& emitter, MathOp op, const Tensor& x);
Tensor abs(Emitter& emitter, const Tensor& x);
// tl.clamp (floats only, tt.clampf), tl.fma (math.fma), tl.umulhi (tt.mulhiui): strong literals (to_tensor).
Tensor clamp(Emitter& emitter, const Operand& x, const Operand& lo, const Operand& hi, PropagateNan nan);
Tensor fma(Emitter& emitter, const Operand& x, const Operand& y, const Operand& z);
Tensor umulhi(Emitter& emitter, const Operand& x, const Operand& y);

}  // namespace tilesim::builder::semantic

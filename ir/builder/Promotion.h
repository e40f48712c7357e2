// Triton 3.6's typing rules for binary operators, as pure functions of dtypes (no IR): the computation type
// (semantic.computation_type_impl), C-style integer promotion (integer_promote_impl), the dtype a Python
// literal gets when it becomes a tensor (to_tensor), and the literal checks binary_op_type_checking_impl does.
// docs/builder.md gives the tables these reproduce.
#pragma once

#include <string>

#include "ir/builder/DType.h"
#include "ir/builder/Tensor.h"

namespace tilesim::builder {

// Thrown inside the builder and caught at its API boundary (KernelBuilder records it and stops).
struct FrontendException {
  FrontendError error;
};
[[noreturn]] void throwFrontendError(FrontendError::Kind kind, std::string message);

// Rule 6: with equal signedness the wider wins; else the unsigned one if at least as wide, else the signed one.
DType integerPromote(DType a, DType b);

// Rules 0-6. `aIsScalar`/`bIsScalar` mark weak (Python literal) operands. Throws TypeError for fp8 mixed with
// ints and for mixed signedness with / // %.
DType computationType(DType a, bool aIsScalar, DType b, bool bIsScalar, bool divOrMod);

// to_tensor's choice: bool -> int1; int -> int32, uint32, int64 or uint64 by value; float -> fp32 when
// representable as a normal fp32 (or 0, inf, nan), else fp64. Throws ValueError for an int beyond 64 bits.
DType literalDType(const Literal& literal);

// The checks binary_op_type_checking_impl runs on a weak literal once the computation type is known.
void checkLiteralFits(const Literal& literal, DType computation);

}  // namespace tilesim::builder

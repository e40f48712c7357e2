// One lane of one elementwise op, for the fuzzer's reference evaluator (ReferenceEval.h). Lanes are raw bits:
// integers masked to their width (i1 is 0 or 1), floats in their own format. Every value comes from the fuzzer's
// own scalar oracle (OracleScalar.h) applied to this one lane, so nothing here shares the interpreter's whole-tile
// loops or its scalar code (ir/eval/ScalarEval), except the transcendental math ReferenceLanes.cpp lists.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ir/IR.h"

namespace tilesim::fuzz {

uint64_t maskToWidth(uint64_t bits, ScalarKind kind);
int64_t signExtendLane(uint64_t bits, ScalarKind kind);  // i1: 1 -> -1

// The result bits of `op` (an elementwise op other than select/addptr) for operand lanes `lanes`.
// `operandKind` is the first operand's element kind, `resultKind` the result's. Unsupported: nullopt + error.
// `undefinedBehaviour` is set for the lanes LLVM treats as UB (docs/semantics.md "UB reporting"): integer division
// or remainder by zero, a shift amount >= the width, a float->int conversion of NaN or an out-of-range value.
// `exactMath`: math.* take the exact profile's own algorithms (ir/eval/ExactMath.h) instead of the correctly rounded
// value, as the interpreter does under FloatProfile::Exact.
// Whether evalLane computes `kind` with a math library function (math.exp, exp2, log, log2, sin, cos, rsqrt,
// erf), which is where it reads `exactMath`.
bool usesLibraryMath(OpKind kind);

std::optional<uint64_t> evalLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind operandKind,
                                 ScalarKind resultKind, bool exactMath, std::string* error, bool* undefinedBehaviour);

}  // namespace tilesim::fuzz

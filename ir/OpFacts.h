// The op table's fact columns (ir/OpFacts.def): per-op facts the analyses and the fuzzer query instead of
// keeping switches of their own. Each column is an enum whose values say exactly what they mean; opFacts(kind)
// returns an op's row. Every op of ir/Ops.def must have a row: the table below is built by asking for the row
// of each op of Ops.def, and an op without one fails to compile with
//   incomplete type 'tilesim::OpFactsRow<tilesim::OpKind::NewOp>' used in nested name specifier
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/OpKind.h"

namespace tilesim {

// What the `triton` float profile computes for the op's float results (docs/semantics.md "Error bounds").
enum class TritonPrecision : uint8_t {
  Exact,        // the same bits as the exact profile (or no float result)
  Approximate,  // an approximate instruction (div.full, ex2.approx, libdevice) or an open order (a tensor-core
                // dot, an atomic float add): a float result is known only within the interpreter's error bound
};

// Which operands' error bounds the interpreter follows into the op's effect (its results, the memory it writes,
// the values a terminator carries on): a value known only within a bound used elsewhere leaves the GPU free to
// take another path or touch other memory without either engine being wrong (docs/findings.md G9).
enum class BoundFlow : uint8_t {
  None,               // no operand: a control-flow decision, block pointers and descriptors, inline asm, asserts
  AllOperands,        // every operand: elementwise ops, data movement, addresses, loads and stores, reductions
  LoopCarried,        // scf.for: the iteration arguments (operands 3..), not the bounds and step
  Forwarded,          // scf.condition: the forwarded values (operands 1..), not the condition
  StoredValue,        // tt.atomic_rmw: the value (operand 1), not the address or the mask
  ComparedAndStored,  // tt.atomic_cas: compare and value (operands 1..), not the address
  FloatOperands,      // tt.dot: the float operands (an integer dot is not followed)
};

// Which lanes LLVM may treat as undefined behaviour (docs/semantics.md "UB reporting"); tilesim defines a value
// for each and reports the lane under --check=ub.
enum class UndefinedBehaviour : uint8_t {
  Never,
  ZeroDivisor,           // integer division or remainder by zero
  ShiftPastWidth,        // a shift amount >= the width (unsigned)
  FloatToIntOutOfRange,  // float -> int of NaN or of a value outside the target's range
};

// The AxisInfo transfer rule of the op (ir/analysis/AxisInfo.h has the rules; docs/analysis.md the long form).
enum class AxisInfoRule : uint8_t {
  Unknown,            // nothing is known about the results (floats, memory, program ids, regions, calls, ...)
  Constant,           // arith.constant
  MakeRange,          // tt.make_range
  Splat,
  Broadcast,
  ExpandDims,
  Trans,
  Reshape,
  AddSub,             // addi / subi
  Multiply,           // muli
  DivideOrRemainder,  // div / rem, signed or not: only a known non-zero constant divisor says anything
  BitwiseOrShift,     // and / or / xor, shifts, integer min / max
  CompareInt,         // cmpi
  Select,
  Extend,             // extsi / extui
  Truncate,           // trunci
  AddPointer,         // tt.addptr
  Reinterpret,        // bitcasts, ptr_to_int, int_to_ptr: the same bits
  SharedConstancy,    // a deterministic lane-by-lane op: equal inputs give equal outputs, nothing more
};

struct OpFacts {
  TritonPrecision precision;
  BoundFlow boundFlow;
  UndefinedBehaviour undefinedBehaviour;
  AxisInfoRule axisInfo;
};

// One specialisation per row of ir/OpFacts.def; the primary template is left undefined on purpose.
template <OpKind Kind>
struct OpFactsRow;

#define TILESIM_OP_FACTS(Id, Precision, Flow, Undefined, AxisRule)                                         \
  template <>                                                                                               \
  struct OpFactsRow<OpKind::Id> {                                                                           \
    static constexpr OpFacts value{TritonPrecision::Precision, BoundFlow::Flow, UndefinedBehaviour::Undefined, \
                                   AxisInfoRule::AxisRule};                                                  \
  };
#include "ir/OpFacts.def"
#undef TILESIM_OP_FACTS

// The facts of every op, indexed by OpKind: one entry per row of ir/Ops.def (an op without facts fails here).
inline constexpr OpFacts kOpFactsTable[] = {
#define TILESIM_OP(Id, ...) OpFactsRow<OpKind::Id>::value,
#include "ir/Ops.def"
#undef TILESIM_OP
};

constexpr const OpFacts& opFacts(OpKind kind) { return kOpFactsTable[static_cast<size_t>(kind)]; }

// Whether some lane of the op can be undefined behaviour.
constexpr bool canBeUndefinedBehaviour(OpKind kind) { return opFacts(kind).undefinedBehaviour != UndefinedBehaviour::Never; }

// The column values as docs/ops.md writes them.
constexpr std::string_view precisionName(TritonPrecision precision) {
  switch (precision) {
    case TritonPrecision::Exact: return "exact";
    case TritonPrecision::Approximate: return "approximate";
  }
  return "";
}
constexpr std::string_view boundFlowName(BoundFlow flow) {
  switch (flow) {
    case BoundFlow::None: return "none";
    case BoundFlow::AllOperands: return "all";
    case BoundFlow::LoopCarried: return "iteration arguments";
    case BoundFlow::Forwarded: return "forwarded values";
    case BoundFlow::StoredValue: return "value";
    case BoundFlow::ComparedAndStored: return "compare, value";
    case BoundFlow::FloatOperands: return "float operands";
  }
  return "";
}
constexpr std::string_view undefinedBehaviourName(UndefinedBehaviour undefined) {
  switch (undefined) {
    case UndefinedBehaviour::Never: return "";
    case UndefinedBehaviour::ZeroDivisor: return "zero divisor";
    case UndefinedBehaviour::ShiftPastWidth: return "shift >= width";
    case UndefinedBehaviour::FloatToIntOutOfRange: return "NaN or out of range";
  }
  return "";
}
constexpr std::string_view axisInfoRuleName(AxisInfoRule rule) {
  switch (rule) {
    case AxisInfoRule::Unknown: return "";
    case AxisInfoRule::Constant: return "constant";
    case AxisInfoRule::MakeRange: return "make-range";
    case AxisInfoRule::Splat: return "splat";
    case AxisInfoRule::Broadcast: return "broadcast";
    case AxisInfoRule::ExpandDims: return "expand-dims";
    case AxisInfoRule::Trans: return "trans";
    case AxisInfoRule::Reshape: return "reshape";
    case AxisInfoRule::AddSub: return "add-sub";
    case AxisInfoRule::Multiply: return "multiply";
    case AxisInfoRule::DivideOrRemainder: return "divide-remainder";
    case AxisInfoRule::BitwiseOrShift: return "bitwise-shift";
    case AxisInfoRule::CompareInt: return "compare";
    case AxisInfoRule::Select: return "select";
    case AxisInfoRule::Extend: return "extend";
    case AxisInfoRule::Truncate: return "truncate";
    case AxisInfoRule::AddPointer: return "addptr";
    case AxisInfoRule::Reinterpret: return "reinterpret";
    case AxisInfoRule::SharedConstancy: return "shared-constancy";
  }
  return "";
}

}  // namespace tilesim

// The enumerated attributes of TTIR ops, defined once: comparison predicates, rounding modes, atomic kinds,
// memory semantics and scopes, dot input precisions, NaN policies, cache and eviction hints, program axes and
// block-pointer padding. Each enum has one keyword table (the words Triton prints, in the enum's order), so the
// parser, printer, verifier, builder, interpreter and fuzzer reference cannot disagree about a spelling.
//
// Canonical form: the parser calls normaliseKeywordAttributes() on every op, which rewrites the other accepted
// spellings (MLIR's integer encoding `{predicate = 2 : i64}`, Triton's enum numbers for rounding and NaN policy,
// a quoted string) into the Keyword attribute the custom syntax uses. The printer therefore always sees the
// keyword and prints Triton's text unchanged. Engines read attributes through the typed views at the bottom
// (`CmpIView{op}.predicate()`), which assert on IR the verifier would reject.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/IR.h"

namespace tilesim {

// MLIR arith::CmpIPredicate (the enumerator order is MLIR's integer encoding).
enum class IntPredicate : uint8_t { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };
// MLIR arith::CmpFPredicate: AlwaysFalse = 0 ... AlwaysTrue = 15.
enum class FloatPredicate : uint8_t { False, Oeq, Ogt, Oge, Olt, Ole, One, Ord, Ueq, Ugt, Uge, Ult, Ule, Une, Uno, True };
// Triton RoundingMode of tt.fp_to_fp: RTZ = 0, RTNE = 1.
enum class RoundingMode : uint8_t { Rtz, Rtne };
// Triton RMWOp of tt.atomic_rmw (`exch` is Triton's XCHG).
enum class AtomicRmwKind : uint8_t { And, Or, Xor, Add, FAdd, Max, Min, UMax, UMin, Exch };
enum class MemorySemantic : uint8_t { Relaxed, Acquire, Release, AcqRel };
enum class MemoryScope : uint8_t { Gpu, Cta, Sys };
// Triton InputPrecision of tt.dot.
enum class InputPrecision : uint8_t { TF32, TF32x3, IEEE, BF16x3, BF16x6 };
// Triton PropagateNan of tt.clampf: NONE = 0, ALL = 0xFFFF.
enum class PropagateNan : uint8_t { None, All };
enum class CacheModifier : uint8_t { None, CA, CG, WB, CS, WT, CV };
enum class EvictionPolicy : uint8_t { Normal, First, Last };
// tt.get_program_id / tt.get_num_programs.
enum class ProgramAxis : uint8_t { X, Y, Z };
// Block-pointer tt.load `padding` (an Integer attribute in the text): absent = lanes undefined.
enum class PaddingOption : uint8_t { None, Zero, NaN };

// The keyword table of each enum, in enumerator order.
template <typename Enum>
std::span<const std::string_view> keywordNames();

template <typename Enum>
std::string_view keywordName(Enum value) {
  return keywordNames<Enum>()[static_cast<size_t>(value)];
}

template <typename Enum>
std::optional<Enum> parseKeyword(std::string_view word) {
  std::span<const std::string_view> names = keywordNames<Enum>();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == word) return static_cast<Enum>(i);
  return std::nullopt;
}

// The canonical attribute of a value (what the parser stores and the builder emits).
template <typename Enum>
Attribute keywordAttribute(Enum value) {
  return Attribute::keyword(std::string(keywordName(value)));
}

// The keyword table as one line ("rtz rtne"), for diagnostics.
template <typename Enum>
std::string keywordList() {
  std::string text;
  for (std::string_view name : keywordNames<Enum>()) text += (text.empty() ? "" : " ") + std::string(name);
  return text;
}

// Reads an attribute in any accepted spelling: a Keyword or String in the table, and for the enums that have
// one, the integer encoding (predicates, rounding, NaN policy). nullopt when absent or not a valid value.
std::optional<IntPredicate> intPredicateFrom(const Attribute* attribute);
std::optional<FloatPredicate> floatPredicateFrom(const Attribute* attribute);
std::optional<RoundingMode> roundingModeFrom(const Attribute* attribute);
std::optional<PropagateNan> propagateNanFrom(const Attribute* attribute);
std::optional<ProgramAxis> programAxisFrom(const Attribute* attribute);  // also Triton's 0 / 1 / 2
template <typename Enum>
std::optional<Enum> keywordFrom(const Attribute* attribute) {
  if (!attribute) return std::nullopt;
  if (attribute->kind() != Attribute::Kind::Keyword && attribute->kind() != Attribute::Kind::String) return std::nullopt;
  return parseKeyword<Enum>(attribute->text());
}

// Rewrites every enumerated attribute of `op` that is valid in another spelling into its canonical Keyword.
// Invalid values are left as they are, for the verifier to report.
void normaliseKeywordAttributes(Operation& op);

// ---- typed views over verified ops ----

struct CmpIView {
  const Operation& op;
  IntPredicate predicate() const;
};
struct CmpFView {
  const Operation& op;
  FloatPredicate predicate() const;
};
struct FpToFpView {
  const Operation& op;
  std::optional<RoundingMode> rounding() const;  // absent = the default conversion
};
struct AtomicView {  // tt.atomic_rmw and tt.atomic_cas
  const Operation& op;
  AtomicRmwKind rmwKind() const;  // tt.atomic_rmw only
  MemorySemantic semantic() const;
  MemoryScope scope() const;
};
struct DotView {
  const Operation& op;
  InputPrecision inputPrecision() const;  // absent = ieee
};
struct ClampFView {
  const Operation& op;
  PropagateNan propagateNan() const;  // absent = none
};
struct MemoryHintsView {  // tt.load and tt.store
  const Operation& op;
  CacheModifier cache() const;     // absent = none
  EvictionPolicy eviction() const;  // absent = evict_normal
  PaddingOption padding() const;    // tt.load of a block pointer
};
struct ProgramAxisView {  // tt.get_program_id and tt.get_num_programs
  const Operation& op;
  ProgramAxis axis() const;  // absent = x
  int index() const { return static_cast<int>(axis()); }
};

// ---- issue 21, GPU lowering part: the attributes the GPU backend reads, each through a view (no engine reads an
// attribute by its string name). Absent attributes give the documented fallback; the views that return optional
// or null leave the engine to report IR it cannot lower.

struct AxisView {  // tt.reduce, tt.scan, tt.expand_dims, tt.gather: the dimension the op acts along
  const Operation& op;
  int axis() const;  // absent = 0
};
struct ScanView {
  const Operation& op;
  bool reverse() const;  // absent = false
};
struct TransView {
  const Operation& op;
  const std::vector<int64_t>* order() const;  // result dim i is operand dim order[i]; null when absent
};
struct ConstantView {  // arith.constant
  const Operation& op;
  const Attribute* value() const;  // Integer, Bool, Float or Dense; null when absent
};
struct MakeRangeView {
  const Operation& op;
  int64_t start() const;  // absent = 0
};
struct CallView {  // tt.call
  const Operation& op;
  std::optional<std::string> callee() const;  // the symbol without '@'; nullopt when absent
};
struct InlineAsmView {  // tt.elementwise_inline_asm
  const Operation& op;
  std::optional<std::string> asmString() const;    // nullopt when absent or not a string
  std::optional<std::string> constraints() const;  // nullopt when absent or not a string
  int packedElement() const;                       // elements per asm instance; absent = 1
  bool pure() const;                               // absent = false
};
struct BoundaryCheckView {  // tt.load / tt.store of a block pointer
  const Operation& op;
  std::vector<int64_t> boundaryCheck() const;  // the dimensions checked against the shape; absent = none
};
struct TensorDescriptorView {  // tt.make_tensor_descriptor
  const Operation& op;
  int padding() const;  // 1 zero, 2 NaN; absent = 1
};
struct ExternElementwiseView {  // tt.extern_elementwise
  const Operation& op;
  std::string symbol() const;  // absent = ""
};
struct PrintView {  // tt.print
  const Operation& op;
  std::string prefix() const;  // absent = ""
  bool hex() const;            // absent = false
};
struct AssertView {  // tt.assert
  const Operation& op;
  std::string message() const;  // absent = ""
};

}  // namespace tilesim

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
  // The same, unchecked: nullopt for a word that is not a kind (the interpreter reports it as unsupported), and
  // the word as written for that message.
  std::optional<AtomicRmwKind> rmwKindIfKnown() const;
  std::string rmwKindWord() const;
  MemorySemantic semantic() const;  // absent = acq_rel
  std::optional<MemorySemantic> semanticIfPresent() const;  // absent or not a semantic: nullopt
  MemoryScope scope() const;
};
struct DotView {
  const Operation& op;
  InputPrecision inputPrecision() const;  // absent = ieee
  // Triton's bound on products an fp8 dot may sum in a tensor core's reduced-precision accumulator before adding
  // them to the f32 result (Hopper's default 2^30); absent = 0, as Triton's DefaultValuedAttr.
  int64_t maxNumImpreciseAcc() const;
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

// ---- Issue 21: the views the engines, the fuzz reference and the analyses read (no engine reads an attribute
// by name) ----

struct BoundaryCheckView {  // tt.load and tt.store of a block pointer
  const Operation& op;
  std::span<const int64_t> dimensions() const;  // the dimensions checked against the shape; absent = none
};
struct OrderView {  // tt.trans (the permutation) and tt.make_tensor_ptr (the dimensions, fastest first)
  const Operation& op;
  // tt.trans: result dim d is input dim order[d]; absent: tt.trans reverses the dimensions.
  std::optional<std::span<const int64_t>> order() const;
};
struct CallView {  // tt.call
  const Operation& op;
  const std::string& callee() const;  // the called function's symbol name, without the @
};
struct ConstantView {  // arith.constant
  const Operation& op;
  const Attribute* value() const;  // Dense for a tensor, else Integer, Bool or Float; null when absent
  // Element i's bits (integers: two's complement, not yet masked to the width; floats: their format's bits).
  uint64_t bitsAt(int64_t index) const;
};
// Whether `value` is an arith.constant whose every element has all bits zero (0, +0.0; not -0.0).
bool isZeroConstant(const Value* value);
struct OverflowFlagsView {  // arith.addi, subi, muli, shli: `overflow<nsw, nuw>`
  const Operation& op;
  bool noSignedWrap() const;  // absent = wrapping
};
struct MakeRangeView {  // tt.make_range
  const Operation& op;
  int64_t start() const;  // absent = 0
};
struct AxisView {  // tt.reduce, tt.scan, tt.expand_dims, tt.gather: the dimension the op acts along
  const Operation& op;
  int axis() const;  // absent = 0
};
struct ScanView {  // tt.scan
  const Operation& op;
  bool reverse() const;  // absent = false
};
struct ForView {  // scf.for
  const Operation& op;
  bool unsignedCompare() const;  // `unsignedCmp`: iv < ub compared unsigned
};
// tt.elementwise_inline_asm. Read before verification (checkInlineAsm reports what is missing or out of range),
// so neither accessor asserts.
struct InlineAsmView {
  const Operation& op;
  const std::string* asmString() const;    // the `asm_string` String, or nullptr when absent or of another kind
  const std::string* constraints() const;  // the `constraints` String, or nullptr when absent or of another kind
  int64_t packedElement() const;           // the `packed_element` Integer; absent or of another kind = 1
  bool pure() const;                       // absent = false
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

// ---- TTGIR (issue 23) ----

// ttg.async_wait (`num`), ttng.warp_group_dot_wait and ttng.async_tma_store_wait (`pendings`): how many groups,
// dots or stores may still be outstanding when the op returns.
struct PendingsView {
  const Operation& op;
  int64_t pendings() const;  // absent = 0
};
// ttng.init_barrier and ttng.arrive_barrier (`count`), ttng.barrier_expect (`size`, transaction bytes).
struct BarrierCountView {
  const Operation& op;
  int64_t count() const;  // absent = 1 (a count) or 0 (a size)
};
// ttg.warp_specialize: the warps of each worker partition (`partitionNumWarps`, one per region after the default).
struct WarpSpecializeView {
  const Operation& op;
  std::vector<int64_t> partitionNumWarps() const;  // absent = none
};
struct GlobalScratchView {  // ttg.global_scratch_alloc
  const Operation& op;
  int64_t nbytes() const;     // absent = 0
  int64_t alignment() const;  // absent = 1
};
struct WarpGroupDotView {  // ttng.warp_group_dot: inputPrecision is Triton's enum number (0 tf32, 1 tf32x3, 2 ieee, ...)
  const Operation& op;
  InputPrecision inputPrecision() const;  // absent = ieee
  bool isAsync() const;                   // absent = false
};
struct TensormapCreateView {  // ttng.tensormap_create: the operand groups follow from the operand count
  const Operation& op;
  int rank() const;  // operands: desc, base, box[rank], globalDim[rank], globalStride[rank - 1], elementStride[rank]
  int64_t elementType() const;  // CUtensorMapDataType number
  int64_t fillMode() const;     // 0: zero, 1: NaN
};

}  // namespace tilesim

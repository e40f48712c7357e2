// The keyword tables of ir/OpAttributes.h, the readers that accept every spelling, the parse-time
// normalisation and the typed views.
#include "ir/OpAttributes.h"

#include "ir/Assert.h"

namespace tilesim {

namespace {

constexpr std::string_view kIntPredicates[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
constexpr std::string_view kFloatPredicates[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                                 "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
constexpr std::string_view kRoundingModes[] = {"rtz", "rtne"};
constexpr std::string_view kAtomicRmwKinds[] = {"and", "or", "xor", "add", "fadd", "max", "min", "umax", "umin", "exch"};
constexpr std::string_view kMemorySemantics[] = {"relaxed", "acquire", "release", "acq_rel"};
constexpr std::string_view kMemoryScopes[] = {"gpu", "cta", "sys"};
constexpr std::string_view kInputPrecisions[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"};
constexpr std::string_view kPropagateNans[] = {"none", "all"};
constexpr std::string_view kCacheModifiers[] = {"none", "ca", "cg", "wb", "cs", "wt", "cv"};
constexpr std::string_view kEvictionPolicies[] = {"evict_normal", "evict_first", "evict_last"};
constexpr std::string_view kProgramAxes[] = {"x", "y", "z"};
constexpr std::string_view kPaddingOptions[] = {"none", "zero", "nan"};

// An Integer attribute in [0, count), as the enum.
template <typename Enum>
std::optional<Enum> fromEncoding(const Attribute* attribute, int64_t count) {
  if (attribute->kind() != Attribute::Kind::Integer) return std::nullopt;
  int64_t value = attribute->intValue();
  if (value < 0 || value >= count) return std::nullopt;
  return static_cast<Enum>(value);
}

// Replaces attribute `name` by its canonical keyword when `read` understands it.
template <typename Enum, typename Reader>
void canonicalise(Operation& op, const char* name, Reader read) {
  const Attribute* attribute = op.attr(name);
  if (!attribute || attribute->kind() == Attribute::Kind::Keyword) return;
  if (std::optional<Enum> value = read(attribute)) op.setAttr(name, Attribute::keyword(std::string(keywordName(*value))));
}

template <typename Enum>
Enum required(std::optional<Enum> value, const Operation& op, const char* name) {
  TILESIM_ASSERT(value.has_value(), std::string(op.name()) + " has no valid " + name + " (unverified IR?)");
  return *value;
}

template <typename Enum>
Enum optionalKeyword(const Operation& op, const char* name, Enum fallback) {
  const Attribute* attribute = op.attr(name);
  if (!attribute) return fallback;
  return required(keywordFrom<Enum>(attribute), op, name);
}

}  // namespace

// Each keyword enum's names, the tables above.
#define TILESIM_KEYWORD_NAMES(Enum, table) \
  template <> std::span<const std::string_view> keywordNames<Enum>() { return table; }
TILESIM_KEYWORD_NAMES(IntPredicate, kIntPredicates)
TILESIM_KEYWORD_NAMES(FloatPredicate, kFloatPredicates)
TILESIM_KEYWORD_NAMES(RoundingMode, kRoundingModes)
TILESIM_KEYWORD_NAMES(AtomicRmwKind, kAtomicRmwKinds)
TILESIM_KEYWORD_NAMES(MemorySemantic, kMemorySemantics)
TILESIM_KEYWORD_NAMES(MemoryScope, kMemoryScopes)
TILESIM_KEYWORD_NAMES(InputPrecision, kInputPrecisions)
TILESIM_KEYWORD_NAMES(PropagateNan, kPropagateNans)
TILESIM_KEYWORD_NAMES(CacheModifier, kCacheModifiers)
TILESIM_KEYWORD_NAMES(EvictionPolicy, kEvictionPolicies)
TILESIM_KEYWORD_NAMES(ProgramAxis, kProgramAxes)
TILESIM_KEYWORD_NAMES(PaddingOption, kPaddingOptions)
#undef TILESIM_KEYWORD_NAMES

// An enumerated attribute written either way: MLIR's integer encoding or the keyword (none: nullopt).
template <typename Enum>
std::optional<Enum> encodingOrKeyword(const Attribute* attribute) {
  if (!attribute) return std::nullopt;
  if (auto encoded = fromEncoding<Enum>(attribute, keywordNames<Enum>().size())) return encoded;
  return keywordFrom<Enum>(attribute);
}

std::optional<IntPredicate> intPredicateFrom(const Attribute* attribute) {
  return encodingOrKeyword<IntPredicate>(attribute);
}

std::optional<FloatPredicate> floatPredicateFrom(const Attribute* attribute) {
  if (attribute && attribute->kind() == Attribute::Kind::Bool)
    return attribute->boolValue() ? FloatPredicate::True : FloatPredicate::False;
  return encodingOrKeyword<FloatPredicate>(attribute);
}

std::optional<RoundingMode> roundingModeFrom(const Attribute* attribute) {
  return encodingOrKeyword<RoundingMode>(attribute);
}

std::optional<PropagateNan> propagateNanFrom(const Attribute* attribute) {
  if (!attribute) return std::nullopt;
  if (attribute->kind() == Attribute::Kind::Integer) {
    if (attribute->intValue() == 0) return PropagateNan::None;
    if (attribute->intValue() == 0xFFFF) return PropagateNan::All;
    return std::nullopt;
  }
  return keywordFrom<PropagateNan>(attribute);
}

// An if-chain rather than a switch: most ops have no enumerated attribute, and a switch over OpKind must list
// every kind (no `default:`).
std::optional<ProgramAxis> programAxisFrom(const Attribute* attribute) {
  if (!attribute) return std::nullopt;
  if (auto encoded = fromEncoding<ProgramAxis>(attribute, std::size(kProgramAxes))) return encoded;
  return keywordFrom<ProgramAxis>(attribute);
}

void normaliseKeywordAttributes(Operation& op) {
  const OpKind kind = op.kind;
  if (kind == OpKind::ArithCmpI) canonicalise<IntPredicate>(op, "predicate", intPredicateFrom);
  if (kind == OpKind::ArithCmpF) canonicalise<FloatPredicate>(op, "predicate", floatPredicateFrom);
  if (kind == OpKind::TTFpToFp) canonicalise<RoundingMode>(op, "rounding", roundingModeFrom);
  if (kind == OpKind::TTClampF) canonicalise<PropagateNan>(op, "propagateNan", propagateNanFrom);
  if (kind == OpKind::TTAtomicRMW) canonicalise<AtomicRmwKind>(op, "atomic_rmw_op", keywordFrom<AtomicRmwKind>);
  if (kind == OpKind::TTAtomicRMW || kind == OpKind::TTAtomicCAS) {
    canonicalise<MemorySemantic>(op, "sem", keywordFrom<MemorySemantic>);
    canonicalise<MemoryScope>(op, "scope", keywordFrom<MemoryScope>);
  }
  if (kind == OpKind::TTDot) canonicalise<InputPrecision>(op, "inputPrecision", keywordFrom<InputPrecision>);
  if (kind == OpKind::TTLoad || kind == OpKind::TTStore) {
    canonicalise<CacheModifier>(op, "cache", keywordFrom<CacheModifier>);
    canonicalise<EvictionPolicy>(op, "evict", keywordFrom<EvictionPolicy>);
  }
  if (kind == OpKind::TTGetProgramId || kind == OpKind::TTGetNumPrograms)
    canonicalise<ProgramAxis>(op, "axis", programAxisFrom);
}

IntPredicate CmpIView::predicate() const { return required(intPredicateFrom(op.attr("predicate")), op, "predicate"); }
FloatPredicate CmpFView::predicate() const {
  return required(floatPredicateFrom(op.attr("predicate")), op, "predicate");
}

std::optional<RoundingMode> FpToFpView::rounding() const {
  const Attribute* attribute = op.attr("rounding");
  if (!attribute) return std::nullopt;
  return required(roundingModeFrom(attribute), op, "rounding");
}

AtomicRmwKind AtomicView::rmwKind() const {
  return required(keywordFrom<AtomicRmwKind>(op.attr("atomic_rmw_op")), op, "atomic_rmw_op");
}
std::optional<AtomicRmwKind> AtomicView::rmwKindIfKnown() const {
  return keywordFrom<AtomicRmwKind>(op.attr("atomic_rmw_op"));
}
std::string AtomicView::rmwKindWord() const { return op.keywordAttr("atomic_rmw_op"); }
MemorySemantic AtomicView::semantic() const { return optionalKeyword(op, "sem", MemorySemantic::AcqRel); }
std::optional<MemorySemantic> AtomicView::semanticIfPresent() const { return keywordFrom<MemorySemantic>(op.attr("sem")); }
MemoryScope AtomicView::scope() const { return optionalKeyword(op, "scope", MemoryScope::Gpu); }

InputPrecision DotView::inputPrecision() const { return optionalKeyword(op, "inputPrecision", InputPrecision::IEEE); }

PropagateNan ClampFView::propagateNan() const {
  const Attribute* attribute = op.attr("propagateNan");
  if (!attribute) return PropagateNan::None;
  return required(propagateNanFrom(attribute), op, "propagateNan");
}

CacheModifier MemoryHintsView::cache() const { return optionalKeyword(op, "cache", CacheModifier::None); }
EvictionPolicy MemoryHintsView::eviction() const { return optionalKeyword(op, "evict", EvictionPolicy::Normal); }
PaddingOption MemoryHintsView::padding() const {
  switch (op.intAttr("padding", 0)) {
    case 1: return PaddingOption::Zero;
    case 2: return PaddingOption::NaN;
    default: return PaddingOption::None;
  }
}

ProgramAxis ProgramAxisView::axis() const {
  const Attribute* attribute = op.attr("axis");
  if (!attribute) return ProgramAxis::X;
  return required(programAxisFrom(attribute), op, "axis");
}

// ---- Issue 21: the views the engines, the fuzz reference and the analyses read ----

std::span<const int64_t> BoundaryCheckView::dimensions() const {
  const Attribute* attribute = op.attr("boundaryCheck");
  if (!attribute) return {};
  return attribute->arrayValues();
}

std::optional<std::span<const int64_t>> OrderView::order() const {
  const Attribute* attribute = op.attr("order");
  if (!attribute) return std::nullopt;
  return std::span<const int64_t>(attribute->arrayValues());
}

const std::string& CallView::callee() const {
  const Attribute* attribute = op.attr("callee");
  TILESIM_ASSERT(attribute, "tt.call without callee");
  return attribute->text();
}

const Attribute* ConstantView::value() const { return op.attr("value"); }

bool isZeroConstant(const Value* value) {
  const Operation* constant = value->definingOp;
  if (!constant || constant->kind != OpKind::ArithConstant) return false;
  const ConstantView view{*constant};
  if (!view.value()) return false;
  const int64_t count = value->type.isTensor() ? value->type.numElements() : 1;
  for (int64_t i = 0; i < count; ++i)
    if (view.bitsAt(i) != 0) return false;
  return true;
}

uint64_t ConstantView::bitsAt(int64_t index) const {
  const Attribute* attribute = value();
  TILESIM_ASSERT(attribute, std::string(op.name()) + " without a value");
  const Attribute& constant = *attribute;
  if (constant.kind() == Attribute::Kind::Dense) return constant.denseBitsAt(index);
  if (constant.kind() == Attribute::Kind::Float) return constant.bits();
  return static_cast<uint64_t>(constant.intValue());
}

bool OverflowFlagsView::noSignedWrap() const {
  const Attribute* attribute = op.attr("overflowFlags");
  return attribute && attribute->text().find("nsw") != std::string::npos;
}

int64_t MakeRangeView::start() const { return op.intAttr("start", 0); }

int AxisView::axis() const { return static_cast<int>(op.intAttr("axis", 0)); }

bool ScanView::reverse() const { return op.intAttr("reverse", 0) != 0; }

bool ForView::unsignedCompare() const { return op.hasAttr("unsignedCmp"); }

namespace {
const std::string* stringAttribute(const Operation& op, std::string_view name) {
  const Attribute* attribute = op.attr(name);
  return attribute && attribute->kind() == Attribute::Kind::String ? &attribute->text() : nullptr;
}
}  // namespace

const std::string* InlineAsmView::asmString() const { return stringAttribute(op, "asm_string"); }
const std::string* InlineAsmView::constraints() const { return stringAttribute(op, "constraints"); }

bool InlineAsmView::pure() const {
  const Attribute* attribute = op.attr("pure");
  return attribute && attribute->kind() == Attribute::Kind::Bool && attribute->boolValue();
}

int TensorDescriptorView::padding() const { return static_cast<int>(op.intAttr("padding", 1)); }
std::string ExternElementwiseView::symbol() const { return op.keywordAttr("symbol", ""); }
std::string PrintView::prefix() const { return op.keywordAttr("prefix"); }
bool PrintView::hex() const { return op.intAttr("hex", 0) != 0; }
std::string AssertView::message() const { return op.keywordAttr("message"); }

int64_t InlineAsmView::packedElement() const {
  const Attribute* attribute = op.attr("packed_element");
  return attribute && attribute->kind() == Attribute::Kind::Integer ? attribute->intValue() : 1;
}

namespace {

int64_t integerOr(const Operation& op, std::string_view name, int64_t absent) {
  const Attribute* attribute = op.attr(name);
  return attribute && attribute->kind() == Attribute::Kind::Integer ? attribute->intValue() : absent;
}

}  // namespace

int64_t PendingsView::pendings() const { return integerOr(op, op.kind == OpKind::TTGAsyncWait ? "num" : "pendings", 0); }

int64_t BarrierCountView::count() const {
  return op.kind == OpKind::TTNGBarrierExpect ? integerOr(op, "size", 0) : integerOr(op, "count", 1);
}

std::vector<int64_t> WarpSpecializeView::partitionNumWarps() const {
  const Attribute* warps = op.attr("partitionNumWarps");
  if (!warps || warps->kind() != Attribute::Kind::DenseArray) return {};
  return warps->arrayValues();
}

int64_t GlobalScratchView::nbytes() const { return integerOr(op, "nbytes", 0); }
int64_t GlobalScratchView::alignment() const { return integerOr(op, "alignment", 1); }

int64_t DotView::maxNumImpreciseAcc() const { return integerOr(op, "maxNumImpreciseAcc", 0); }

InputPrecision WarpGroupDotView::inputPrecision() const {
  int64_t number = integerOr(op, "inputPrecision", static_cast<int64_t>(InputPrecision::IEEE));
  TILESIM_ASSERT(number >= 0 && number < static_cast<int64_t>(keywordNames<InputPrecision>().size()),
                 "warp_group_dot inputPrecision " + std::to_string(number) + " outside Triton's enum (the verifier rejects it)");
  return static_cast<InputPrecision>(number);
}

bool WarpGroupDotView::isAsync() const {
  const Attribute* attribute = op.attr("isAsync");
  return attribute && attribute->kind() == Attribute::Kind::Bool && attribute->boolValue();
}

int TensormapCreateView::rank() const { return static_cast<int>((op.operands.size() - 1) / 4); }
int64_t TensormapCreateView::elementType() const { return integerOr(op, "elem_type", 0); }
int64_t TensormapCreateView::fillMode() const { return integerOr(op, "fill_mode", 0); }

}  // namespace tilesim

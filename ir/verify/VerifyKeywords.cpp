// T8: the bare words of op syntax (rounding modes, atomic kinds, memory semantics and scopes, dot precisions,
// NaN policies, cache and eviction hints) name one of the values Triton 3.6 defines. The parser stores them as
// Keyword attributes (docs/ir-syntax.md); engines read them by name, so an unknown word must stop here rather
// than fall through to a default somewhere else.
#include <algorithm>
#include <span>
#include <string_view>

#include "ir/OpAttributes.h"
#include "ir/verify/VerifyContext.h"

namespace tilesim::verify {
namespace {

struct KeywordRule {
  OpKind kind;
  const char* attribute;
  std::span<const std::string_view> values;  // the enum's keyword table (ir/OpAttributes.h)
};

const KeywordRule kRules[] = {
    {OpKind::TTFpToFp, "rounding", keywordNames<RoundingMode>()},
    {OpKind::TTAtomicRMW, "atomic_rmw_op", keywordNames<AtomicRmwKind>()},
    {OpKind::TTAtomicRMW, "sem", keywordNames<MemorySemantic>()},
    {OpKind::TTAtomicRMW, "scope", keywordNames<MemoryScope>()},
    {OpKind::TTAtomicCAS, "sem", keywordNames<MemorySemantic>()},
    {OpKind::TTAtomicCAS, "scope", keywordNames<MemoryScope>()},
    {OpKind::TTDot, "inputPrecision", keywordNames<InputPrecision>()},
    {OpKind::TTClampF, "propagateNan", keywordNames<PropagateNan>()},
    {OpKind::TTLoad, "cache", keywordNames<CacheModifier>()},
    {OpKind::TTLoad, "evict", keywordNames<EvictionPolicy>()},
    {OpKind::TTStore, "cache", keywordNames<CacheModifier>()},
    {OpKind::TTStore, "evict", keywordNames<EvictionPolicy>()},
};

std::string join(std::span<const std::string_view> values) {
  std::string text;
  for (std::string_view value : values) text += (text.empty() ? "" : " ") + std::string(value);
  return text;
}

}  // namespace

bool verifyKeywordAttributes(VerifyContext& ctx, const Operation& op) {
  for (const KeywordRule& rule : kRules) {
    if (rule.kind != op.kind) continue;
    const Attribute* attribute = op.attr(rule.attribute);
    if (!attribute) continue;
    if (attribute->kind() != Attribute::Kind::Keyword && attribute->kind() != Attribute::Kind::String)
      return ctx.fail(op, std::string(rule.attribute) + " must be one of: " + join(rule.values));
    const std::string& word = attribute->text();
    if (std::none_of(rule.values.begin(), rule.values.end(), [&](std::string_view value) { return word == value; }))
      return ctx.fail(op, std::string(rule.attribute) + " = " + word + " is not one of: " + join(rule.values));
  }
  return true;
}

}  // namespace tilesim::verify

// T8: the bare words of op syntax (rounding modes, atomic kinds, memory semantics and scopes, dot precisions,
// NaN policies, cache and eviction hints) name one of the values Triton 3.6 defines. The parser stores them as
// Keyword attributes (docs/ir-syntax.md); engines read them by name, so an unknown word must stop here rather
// than fall through to a default somewhere else.
#include <algorithm>
#include <initializer_list>

#include "ir/verify/VerifyContext.h"

namespace tilesim::verify {
namespace {

struct KeywordRule {
  OpKind kind;
  const char* attribute;
  std::initializer_list<const char*> values;
};

const KeywordRule kRules[] = {
    {OpKind::TTFpToFp, "rounding", {"rtz", "rtne"}},
    {OpKind::TTAtomicRMW, "atomic_rmw_op", {"and", "or", "xor", "add", "fadd", "max", "min", "umax", "umin", "exch"}},
    {OpKind::TTAtomicRMW, "sem", {"relaxed", "acquire", "release", "acq_rel"}},
    {OpKind::TTAtomicRMW, "scope", {"gpu", "cta", "sys"}},
    {OpKind::TTAtomicCAS, "sem", {"relaxed", "acquire", "release", "acq_rel"}},
    {OpKind::TTAtomicCAS, "scope", {"gpu", "cta", "sys"}},
    {OpKind::TTDot, "inputPrecision", {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"}},
    {OpKind::TTClampF, "propagateNan", {"none", "all"}},
    {OpKind::TTLoad, "cache", {"none", "ca", "cg", "wb", "cs", "wt", "cv"}},
    {OpKind::TTLoad, "evict", {"evict_normal", "evict_first", "evict_last"}},
    {OpKind::TTStore, "cache", {"none", "ca", "cg", "wb", "cs", "wt", "cv"}},
    {OpKind::TTStore, "evict", {"evict_normal", "evict_first", "evict_last"}},
};

std::string join(std::initializer_list<const char*> values) {
  std::string text;
  for (const char* value : values) text += (text.empty() ? "" : " ") + std::string(value);
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
    if (std::none_of(rule.values.begin(), rule.values.end(), [&](const char* value) { return word == value; }))
      return ctx.fail(op, std::string(rule.attribute) + " = " + word + " is not one of: " + join(rule.values));
  }
  return true;
}

}  // namespace tilesim::verify

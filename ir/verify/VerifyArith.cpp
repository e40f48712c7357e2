// Verifier checks for the arith and math dialects (invariants A1-A5 in Verifier.cpp) and the small type
// helpers every family shares.
#include <algorithm>
#include <array>
#include <string_view>

#include "ir/OpAttributes.h"
#include "ir/verify/VerifyContext.h"

namespace tilesim::verify {

std::string typeList(const std::vector<Type>& types) {
  std::string text = "(";
  for (size_t i = 0; i < types.size(); ++i) text += (i ? ", " : "") + typeName(types[i]);
  return text + ")";
}

std::vector<Type> typesOf(const std::vector<Value*>& values) {
  std::vector<Type> types;
  for (const Value* value : values) types.push_back(value ? value->type : Type());
  return types;
}

std::vector<Type> typesOf(const std::vector<std::unique_ptr<Value>>& values) {
  std::vector<Type> types;
  for (const auto& value : values) types.push_back(value->type);
  return types;
}

std::vector<Type> resultTypes(const Operation& op) { return typesOf(op.results); }

bool sameShape(Type a, Type b) {
  if (a.isTensor() != b.isTensor()) return false;
  auto left = a.shape(), right = b.shape();
  return std::equal(left.begin(), left.end(), right.begin(), right.end());
}

bool isI1(Type type) { return type.element().isScalar() && type.scalarKind() == ScalarKind::I1; }
bool isScalarI1(Type type) { return type.isScalar() && type.scalarKind() == ScalarKind::I1; }
bool isScalarInteger(Type type) { return type.isScalar() && type.isInteger(); }
bool isPowerOfTwo(int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

std::optional<Type> loadedType(Type pointerType) {
  if (pointerType.isBlockPointer()) return pointerType.pointee();
  Type element = pointerType.element();
  if (!element.isPointer() || element.pointee().isTensor()) return std::nullopt;
  return pointerType.withElement(element.pointee());
}

namespace {

bool hasClass(Type type, ElementClass elements) {
  switch (elements) {
    case ElementClass::Integer: return type.isInteger();
    case ElementClass::Float: return type.isFloat();
    case ElementClass::Any: return true;
  }
  return true;
}

const char* className(ElementClass elements) {
  switch (elements) {
    case ElementClass::Integer: return "integer";
    case ElementClass::Float: return "floating-point";
    case ElementClass::Any: return "any";
  }
  return "any";
}

// The predicate as a keyword (custom syntax) or as its enum number (generic syntax); ir/OpAttributes.h reads both.
bool validPredicate(const Operation& op, std::string* spelled) {
  const Attribute* predicate = op.attr("predicate");
  if (!predicate) return false;
  if (predicate->kind() == Attribute::Kind::Integer) *spelled = std::to_string(predicate->intValue());
  else if (predicate->kind() == Attribute::Kind::Keyword || predicate->kind() == Attribute::Kind::String)
    *spelled = predicate->text();
  else return false;
  if (op.kind == OpKind::ArithCmpI) return intPredicateFrom(predicate).has_value();
  return floatPredicateFrom(predicate).has_value();
}

// Bit width used by the width rules of casts; pointers are not allowed there, so this is the scalar's.
int widthOf(Type type) { return type.bitWidth(); }

}  // namespace

bool verifySameTypeOp(VerifyContext& ctx, const Operation& op, ElementClass elements) {
  Type type = op.result()->type;
  Type first = op.operand(0)->type;
  for (size_t i = 1; i < op.numOperands(); ++i)
    if (op.operand(i)->type != first) return ctx.fail(op, "operand types " + typeList(typesOf(op.operands)) + " differ");
  if (first != type)
    return ctx.fail(op, "result type " + typeName(type) + " differs from the operand type " + typeName(first));
  if (!hasClass(type, elements))
    return ctx.fail(op, "expects " + std::string(className(elements)) + " operands, got " + typeName(type));
  return true;
}

bool verifyCompareOp(VerifyContext& ctx, const Operation& op) {
  Type lhs = op.operand(0)->type, rhs = op.operand(1)->type;
  std::string predicate;
  if (!validPredicate(op, &predicate))
    return ctx.fail(op, predicate.empty() ? "missing or malformed predicate" : "unknown predicate '" + predicate + "'");
  if (lhs != rhs) return ctx.fail(op, "operand types " + typeName(lhs) + " and " + typeName(rhs) + " differ");
  bool integerLike = lhs.isInteger() || lhs.isPointerLike();
  if (op.kind == OpKind::ArithCmpI ? !integerLike : !lhs.isFloat())
    return ctx.fail(op, "cannot compare operands of type " + typeName(lhs));
  Type expected = lhs.withElement(Type::i1());
  if (op.result()->type != expected)
    return ctx.fail(op, "result has type " + typeName(op.result()->type) + ", expected " + typeName(expected));
  return true;
}

bool verifySelectOp(VerifyContext& ctx, const Operation& op) {
  Type condition = op.operand(0)->type, result = op.result()->type;
  if (!isI1(condition)) return ctx.fail(op, "condition has type " + typeName(condition) + ", expected i1");
  if (condition.isTensor() && !sameShape(condition, result))
    return ctx.fail(op, "condition " + typeName(condition) + " does not have the shape of the result " + typeName(result));
  for (size_t i = 1; i < 3; ++i)
    if (op.operand(i)->type != result)
      return ctx.fail(op, "operand #" + std::to_string(i) + " has type " + typeName(op.operand(i)->type) +
                              " but the result has type " + typeName(result));
  return true;
}

bool verifyConstantOp(VerifyContext& ctx, const Operation& op) {
  const Attribute* value = op.attr("value");
  Type result = op.result()->type;
  if (!value) return ctx.fail(op, "has no value");
  Type valueType = value->kind() == Attribute::Kind::Bool ? Type::i1() : value->type();
  bool typed = value->kind() == Attribute::Kind::Integer || value->kind() == Attribute::Kind::Float ||
               value->kind() == Attribute::Kind::Bool || value->kind() == Attribute::Kind::Dense;
  if (!typed) return ctx.fail(op, "value is not a number, a boolean or a dense tensor");
  if (valueType != result)
    return ctx.fail(op, "value of type " + typeName(valueType) + " does not match the result type " + typeName(result));
  if (value->kind() == Attribute::Kind::Dense && !value->isSplat() &&
      static_cast<int64_t>(value->denseBits().size()) != result.numElements())
    return ctx.fail(op, "dense value has " + std::to_string(value->denseBits().size()) + " elements, expected " +
                            std::to_string(result.numElements()));
  return true;
}

bool verifyCastOp(VerifyContext& ctx, const Operation& op) {
  Type from = op.operand(0)->type, to = op.result()->type;
  if (!sameShape(from, to)) return ctx.fail(op, "cannot change the shape from " + typeName(from) + " to " + typeName(to));
  if (from.isPointerLike() || to.isPointerLike())
    return ctx.fail(op, "cannot cast pointers (" + typeName(from) + " to " + typeName(to) + ")");
  bool intIn = from.isInteger(), intOut = to.isInteger();
  std::string fromTo = typeName(from) + " to " + typeName(to);
  OpKind kind = op.kind;
  if (kind == OpKind::ArithExtSI || kind == OpKind::ArithExtUI) {
    if (!intIn || !intOut || widthOf(to) <= widthOf(from)) return ctx.fail(op, "must widen an integer, got " + fromTo);
  } else if (kind == OpKind::ArithTruncI) {
    if (!intIn || !intOut || widthOf(to) >= widthOf(from)) return ctx.fail(op, "must narrow an integer, got " + fromTo);
  } else if (kind == OpKind::ArithSIToFP || kind == OpKind::ArithUIToFP) {
    if (!intIn || intOut) return ctx.fail(op, "must convert an integer to a float, got " + fromTo);
  } else if (kind == OpKind::ArithFPToSI || kind == OpKind::ArithFPToUI) {
    if (intIn || !intOut) return ctx.fail(op, "must convert a float to an integer, got " + fromTo);
  } else if (kind == OpKind::ArithExtF) {
    if (intIn || intOut || widthOf(to) <= widthOf(from)) return ctx.fail(op, "must widen a float, got " + fromTo);
  } else if (kind == OpKind::ArithTruncF) {
    if (intIn || intOut || widthOf(to) >= widthOf(from)) return ctx.fail(op, "must narrow a float, got " + fromTo);
  } else if (kind == OpKind::ArithBitcast) {
    if (widthOf(to) != widthOf(from)) return ctx.fail(op, "must keep the bit width, got " + fromTo);
  }
  return true;
}

}  // namespace tilesim::verify

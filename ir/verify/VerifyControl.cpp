// Verifier checks for functions, calls and structured control flow (invariants C1-C5 in Verifier.cpp): the
// types that flow into and out of regions through block arguments and terminators.
#include "ir/verify/VerifyContext.h"

namespace tilesim::verify {
namespace {

std::vector<Type> operandTypes(const Operation& op, size_t from) {
  std::vector<Type> types;
  for (size_t i = from; i < op.numOperands(); ++i) types.push_back(op.operand(i) ? op.operand(i)->type : Type());
  return types;
}

bool blockArgumentsAre(VerifyContext& ctx, const Operation& op, const Block& block, const std::vector<Type>& expected,
                       const std::string& what) {
  std::vector<Type> actual = typesOf(block.arguments);
  if (actual == expected) return true;
  return ctx.fail(op, what + " takes " + typeList(actual) + ", expected " + typeList(expected));
}

}  // namespace

bool verifyTerminatorTypes(VerifyContext& ctx, const Operation& owner, const Block& block,
                           const std::vector<Type>& expected, const std::string& what) {
  const Operation* terminator = block.terminator();
  // A missing or wrong terminator is reported by the structural walk; do not report it twice.
  if (!terminator || !hasTrait(terminator->kind, kTerminator)) return false;
  size_t skip = terminator->kind == OpKind::SCFCondition ? 1 : 0;
  if (terminator->numOperands() < skip) return false;
  std::vector<Type> actual = operandTypes(*terminator, skip);
  if (actual == expected) return true;
  return ctx.fail(*terminator, "yields " + typeList(actual) + " but the " + what + " of " + std::string(owner.name()) +
                                   " expects " + typeList(expected));
}

bool verifyFuncOp(VerifyContext& ctx, const Operation& op) {
  const Attribute* name = op.attr("sym_name");
  if (!name || name->text().empty()) return ctx.fail(op, "has no name");
  const Attribute* type = op.attr("function_type");
  if (!type || type->kind() != Attribute::Kind::TypeAttr || !type->type().isFunction())
    return ctx.fail(op, "@" + name->text() + " has no function type");
  Type function = type->type();
  std::vector<Type> inputs(function.inputs().begin(), function.inputs().end());
  std::vector<Type> results(function.results().begin(), function.results().end());
  const Block& body = op.region(0).front();
  if (!blockArgumentsAre(ctx, op, body, inputs, "@" + name->text())) return false;
  // Every block that returns (a CFG's others end in branches, checked as branches) matches the function type.
  bool ok = true;
  for (const auto& block : op.region(0).blocks) {
    const Operation* terminator = block->terminator();
    if (terminator && (terminator->kind == OpKind::CFBr || terminator->kind == OpKind::CFCondBr)) continue;
    ok = verifyTerminatorTypes(ctx, op, *block, results, "function type") && ok;
  }
  return ok;
}

bool verifyCallOp(VerifyContext& ctx, const Operation& op) {
  const Attribute* callee = op.attr("callee");
  if (!callee || callee->text().empty()) return ctx.fail(op, "has no callee");
  std::optional<Function> function = ctx.module().findFunction(callee->text());
  if (!function) return ctx.fail(op, "calls @" + callee->text() + ", which is not defined in this module");
  const Attribute* typeAttribute = function->op()->attr("function_type");
  if (!typeAttribute || !typeAttribute->type().isFunction()) return true;  // reported at the callee
  Type type = typeAttribute->type();
  std::vector<Type> inputs(type.inputs().begin(), type.inputs().end());
  std::vector<Type> results(type.results().begin(), type.results().end());
  if (typesOf(op.operands) != inputs || resultTypes(op) != results)
    return ctx.fail(op, "types " + typeList(typesOf(op.operands)) + " -> " + typeList(resultTypes(op)) +
                            " do not match @" + callee->text() + " : " + typeName(type));
  return true;
}

bool verifyForOp(VerifyContext& ctx, const Operation& op) {
  Type bound = op.operand(0)->type;
  if (!isScalarInteger(bound) || op.operand(1)->type != bound || op.operand(2)->type != bound)
    return ctx.fail(op, "lower bound, upper bound and step " + typeList(operandTypes(op, 0)) +
                            " must be scalar integers of one type");
  std::vector<Type> inits = operandTypes(op, 3);
  if (resultTypes(op) != inits)
    return ctx.fail(op, "results " + typeList(resultTypes(op)) + " do not match iter_args " + typeList(inits));
  std::vector<Type> arguments = {bound};
  arguments.insert(arguments.end(), inits.begin(), inits.end());
  const Block& body = op.region(0).front();
  if (!blockArgumentsAre(ctx, op, body, arguments, "body")) return false;
  return verifyTerminatorTypes(ctx, op, body, inits, "body");
}

bool verifyIfOp(VerifyContext& ctx, const Operation& op) {
  Type condition = op.operand(0)->type;
  if (!isScalarI1(condition)) return ctx.fail(op, "condition has type " + typeName(condition) + ", expected i1");
  std::vector<Type> results = resultTypes(op);
  bool hasElse = op.regions.size() == 2 && !op.region(1).empty();
  if (!results.empty() && !hasElse) return ctx.fail(op, "returns " + typeList(results) + " but has no else region");
  for (size_t r = 0; r < op.regions.size(); ++r) {
    if (op.region(r).empty()) continue;
    const Block& block = op.region(r).front();
    if (!block.arguments.empty()) return ctx.fail(op, "region #" + std::to_string(r) + " must not take arguments");
    if (!verifyTerminatorTypes(ctx, op, block, results, r == 0 ? "then region" : "else region")) return false;
  }
  return true;
}

bool verifyWhileOp(VerifyContext& ctx, const Operation& op) {
  std::vector<Type> inits = operandTypes(op, 0), results = resultTypes(op);
  const Block& before = op.region(0).front();
  const Block& after = op.region(1).front();
  if (!blockArgumentsAre(ctx, op, before, inits, "before region")) return false;
  const Operation* condition = before.terminator();
  if (condition && condition->kind == OpKind::SCFCondition && condition->numOperands() >= 1 && condition->operand(0) &&
      !isScalarI1(condition->operand(0)->type))
    return ctx.fail(*condition, "condition has type " + typeName(condition->operand(0)->type) + ", expected i1");
  if (!verifyTerminatorTypes(ctx, op, before, results, "before region")) return false;
  if (!blockArgumentsAre(ctx, op, after, results, "after region")) return false;
  return verifyTerminatorTypes(ctx, op, after, inits, "after region");
}

}  // namespace tilesim::verify

#include "ir/IR.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/Assert.h"

namespace tilesim {
namespace {

// A new value at the end of an operation's results or a block's arguments, its index its place there.
Value* appendValue(std::vector<std::unique_ptr<Value>>& values, Type type, std::string name) {
  auto value = std::make_unique<Value>();
  value->type = type;
  value->name = std::move(name);
  value->index = static_cast<unsigned>(values.size());
  values.push_back(std::move(value));
  return values.back().get();
}

}  // namespace

void Operation::setAttr(std::string_view attrName, Attribute value) {
  for (NamedAttribute& a : attributes) {
    if (a.name == attrName) {
      a.value = std::move(value);
      return;
    }
  }
  attributes.push_back({std::string(attrName), std::move(value)});
}

int64_t Operation::intAttr(std::string_view attrName, int64_t fallback) const {
  const Attribute* a = attr(attrName);
  if (!a) return fallback;
  if (a->kind() == Attribute::Kind::Integer || a->kind() == Attribute::Kind::Bool) return a->intValue();
  return fallback;
}

std::string Operation::keywordAttr(std::string_view attrName, std::string fallback) const {
  const Attribute* a = attr(attrName);
  if (!a) return fallback;
  if (a->kind() == Attribute::Kind::Keyword || a->kind() == Attribute::Kind::String) return a->text();
  return fallback;
}

Value* Operation::addResult(Type type, std::string resultName) {
  Value* value = appendValue(results, type, std::move(resultName));
  value->definingOp = this;
  return value;
}

Region& Operation::addRegion() {
  regions.push_back(std::make_unique<Region>());
  regions.back()->parentOp = this;
  return *regions.back();
}

Operation* Operation::parentOp() const {
  if (!parentBlock || !parentBlock->parentRegion) return nullptr;
  return parentBlock->parentRegion->parentOp;
}

Value* Block::addArgument(Type type, std::string argName, LocId argLoc) {
  Value* value = appendValue(arguments, type, std::move(argName));
  value->loc = argLoc;
  value->ownerBlock = this;
  return value;
}

Operation* Block::append(std::unique_ptr<Operation> op) {
  op->parentBlock = this;
  operations.push_back(std::move(op));
  return operations.back().get();
}

Block& Region::addBlock() {
  blocks.push_back(std::make_unique<Block>());
  blocks.back()->parentRegion = this;
  return *blocks.back();
}

std::string Function::name() const {
  const Attribute* a = op_->attr("sym_name");
  return a ? a->text() : "";
}

bool Function::isPublic() const {
  const Attribute* a = op_->attr("sym_visibility");
  return !a || a->text() != "private";
}

Type Function::type() const {
  const Attribute* a = op_->attr("function_type");
  TILESIM_ASSERT(a && a->kind() == Attribute::Kind::TypeAttr, "tt.func without function_type");
  return a->type();
}

const std::vector<NamedAttribute>& Function::argumentAttributes(size_t i) const {
  static const std::vector<NamedAttribute> empty;
  const Attribute* a = op_->attr("arg_attrs");
  if (!a || a->kind() != Attribute::Kind::Array || i >= a->elements().size()) return empty;
  return a->elements()[i].entries();
}

std::vector<Function> Module::allFunctions() const {
  std::vector<Function> result;
  for (const auto& op : functions) result.emplace_back(op.get());
  return result;
}

std::optional<Function> Module::findFunction(std::string_view functionName) const {
  for (const auto& op : functions) {
    Function f(op.get());
    if (f.name() == functionName) return f;
  }
  return std::nullopt;
}

std::optional<Function> Module::kernel(std::string_view entry) const {
  if (!entry.empty()) return findFunction(entry);
  std::optional<Function> found;
  for (const auto& op : functions) {
    Function f(op.get());
    if (!f.isPublic()) continue;
    if (found) return std::nullopt;  // ambiguous
    found = f;
  }
  return found;
}

bool Module::isTTGIR() const {
  for (const NamedAttribute& a : attributes)
    if (a.name.rfind("ttg.", 0) == 0) return true;
  return !encodingAliases.empty();
}

int64_t Module::integerAttribute(std::string_view name, int64_t absent) const {
  const Attribute* a = findAttribute(attributes, name);
  return a && a->kind() == Attribute::Kind::Integer ? a->intValue() : absent;
}

unsigned numberValues(const Function& function) {
  unsigned next = 0;
  auto numberBlock = [&](auto& self, const Block& block) -> void {
    for (const auto& arg : block.arguments) arg->id = next++;
    for (const auto& op : block.operations) {
      for (const auto& result : op->results) result->id = next++;
      for (const auto& region : op->regions)
        for (const auto& nested : region->blocks) self(self, *nested);
    }
  };
  for (const auto& block : function.op()->region(0).blocks) numberBlock(numberBlock, *block);
  return next;
}

std::vector<Value*> Operation::successorOperands(size_t i) const {
  size_t total = 0;
  for (unsigned count : successorOperandCounts) total += count;
  size_t begin = operands.size() - total;
  for (size_t k = 0; k < i; ++k) begin += successorOperandCounts[k];
  return {operands.begin() + static_cast<ptrdiff_t>(begin),
          operands.begin() + static_cast<ptrdiff_t>(begin + successorOperandCounts[i])};
}

}  // namespace tilesim

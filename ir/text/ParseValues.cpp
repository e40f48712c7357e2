// The parser's SSA values: `%name` and `%name#N` uses resolved against the names in scope (checked against the
// type the syntax states), result and block argument definitions, and the scopes regions open and close. Names
// MLIR would renumber (`%12`, a block argument `%arg3`) are not kept, so the printer numbers them afresh.
#include <charconv>

#include "ir/text/ParserImpl.h"

namespace tilesim::text {

namespace {

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The Value::name to keep for a name as written (without '%').
std::string storedName(std::string_view written, bool blockArgument) {
  if (allDigits(written)) return "";
  if (blockArgument && written.size() > 3 && written.substr(0, 3) == "arg" && allDigits(written.substr(3))) return "";
  return std::string(written);
}

}  // namespace

OperandRef ParserImpl::parseOperandRef() {
  Token t = expect(TokenKind::PercentId, "(an SSA value)");
  OperandRef ref;
  ref.offset = t.offset;
  std::string_view name = t.text.substr(1);
  size_t hash = name.find('#');
  if (hash != std::string_view::npos) {
    std::string_view digits = name.substr(hash + 1);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ref.number);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) failAt(t.offset, "bad result number in '" + std::string(t.text) + "'");
    name = name.substr(0, hash);
  }
  ref.name = name;
  return ref;
}

std::vector<OperandRef> ParserImpl::parseOperandRefList() {
  std::vector<OperandRef> refs;
  if (!at(TokenKind::PercentId)) return refs;
  refs.push_back(parseOperandRef());
  while (at(TokenKind::Comma) && peekNext().is(TokenKind::PercentId)) {
    advance();
    refs.push_back(parseOperandRef());
  }
  return refs;
}

Value* ParserImpl::resolve(const OperandRef& ref, Type expected) {
  auto it = names_.find(ref.name);
  if (it == names_.end()) failAt(ref.offset, "use of undefined value %" + std::string(ref.name));
  const NameEntry& entry = it->second;
  if (ref.number >= entry.count)
    failAt(ref.offset, "result #" + std::to_string(ref.number) + " of %" + std::string(ref.name) + " does not exist (it has " +
                           std::to_string(entry.count) + ")");
  Value* value = entry.first;
  if (ref.number > 0) value = value->definingOp->result(value->index + ref.number);
  if (expected.isValid() && value->type != expected)
    failAt(ref.offset, "use of value %" + std::string(ref.name) + " expects type " + expected.str() + " but it has type " +
                           value->type.str());
  return value;
}

void ParserImpl::resolveInto(Operation& op, const std::vector<OperandRef>& refs, const std::vector<Type>& types) {
  if (refs.size() != types.size())
    fail(std::to_string(refs.size()) + " operands but " + std::to_string(types.size()) + " types");
  for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(resolve(refs[i], types[i]));
}

void ParserImpl::resolveAllSame(Operation& op, const std::vector<OperandRef>& refs, Type type) {
  for (const OperandRef& ref : refs) op.operands.push_back(resolve(ref, type));
}

void ParserImpl::resolveUntyped(Operation& op, const std::vector<OperandRef>& refs) {
  for (const OperandRef& ref : refs) op.operands.push_back(resolve(ref));
}

void ParserImpl::defineValue(std::string_view name, size_t offset, Value* first, unsigned count) {
  auto [it, inserted] = names_.try_emplace(name, NameEntry{first, count});
  if (!inserted) failAt(offset, "redefinition of value %" + std::string(name));
  scopes_.back().push_back(name);
}

void ParserImpl::popScope() {
  for (std::string_view name : scopes_.back()) names_.erase(name);
  scopes_.pop_back();
}

Value* ParserImpl::addBlockArgument(Block& block, const PendingArgument& arg) {
  Value* value = block.addArgument(arg.type, storedName(arg.name, true), arg.loc);
  defineValue(arg.name, arg.offset, value, 1);
  return value;
}

void ParserImpl::defineResults(Operation& op, const std::vector<ResultDef>& defs, const std::vector<Type>& types) {
  size_t next = 0;
  for (const ResultDef& def : defs) {
    Value* first = nullptr;
    for (unsigned i = 0; i < def.count; ++i) {
      Value* value = op.addResult(types[next++], storedName(def.name, false));
      if (def.group) value->groupIndex = static_cast<int>(i);
      if (!first) first = value;
    }
    defineValue(def.name, def.offset, first, def.count);
  }
}

}  // namespace tilesim::text

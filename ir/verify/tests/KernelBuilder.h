// A tiny programmatic IR builder for the verifier's negative tests: each op gets a text position on its own
// line ("test.ttir":N:5) so tests can check where a diagnostic points without going through the parser.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace tilesim::testing {

class KernelBuilder {
 public:
  explicit KernelBuilder(std::vector<Type> arguments, std::vector<Type> results = {}, std::string name = "kernel") {
    module.sourceName = "test.ttir";
    function = addFunction(name, arguments, results);
    body = &function->region(0).front();
  }

  Operation* addFunction(const std::string& name, const std::vector<Type>& arguments, const std::vector<Type>& results) {
    auto op = std::make_unique<Operation>(OpKind::TTFunc);
    op->textPos = nextPos();
    op->setAttr("sym_name", Attribute::string(name));
    op->setAttr("function_type", Attribute::typeAttr(Type::function(arguments, results)));
    Block& block = op->addRegion().addBlock();
    for (Type type : arguments) block.addArgument(type, "arg" + std::to_string(block.arguments.size()));
    module.functions.push_back(std::move(op));
    return module.functions.back().get();
  }

  Value* arg(size_t i) const { return body->argument(i); }

  // Appends an op to `block` (the function body by default).
  Operation* add(OpKind kind, std::vector<Value*> operands, std::vector<Type> results,
                 std::vector<NamedAttribute> attributes = {}, Block* block = nullptr) {
    auto op = std::make_unique<Operation>(kind);
    op->operands = std::move(operands);
    for (Type type : results) op->addResult(type, "v" + std::to_string(counter_++));
    op->attributes = std::move(attributes);
    op->textPos = nextPos();
    return (block ? block : body)->append(std::move(op));
  }
  Value* value(OpKind kind, std::vector<Value*> operands, Type result, std::vector<NamedAttribute> attributes = {},
               Block* block = nullptr) {
    return add(kind, std::move(operands), {result}, std::move(attributes), block)->result();
  }

  Value* constant(int64_t v, Type type = Type::i32(), Block* block = nullptr) {
    return value(OpKind::ArithConstant, {}, type, {{"value", Attribute::integer(v, type)}}, block);
  }
  Value* range(int64_t start, int64_t end, Block* block = nullptr) {
    return value(OpKind::TTMakeRange, {}, Type::tensor({end - start}, Type::i32()),
                 {{"start", Attribute::integer(start, Type::i32())}, {"end", Attribute::integer(end, Type::i32())}}, block);
  }
  Operation* ret(std::vector<Value*> values = {}, Block* block = nullptr) {
    return add(OpKind::TTReturn, std::move(values), {}, {}, block ? block : &function->region(0).front());
  }

  SourcePos nextPos() { return SourcePos{"test.ttir", line_++, 5}; }

  Module module;
  Operation* function = nullptr;
  Block* body = nullptr;

 private:
  int line_ = 1;
  int counter_ = 0;
};

inline NamedAttribute intAttr(const std::string& name, int64_t v) { return {name, Attribute::integer(v, Type::i32())}; }
inline NamedAttribute keyAttr(const std::string& name, const std::string& word) { return {name, Attribute::keyword(word)}; }

}  // namespace tilesim::testing

// The in-memory IR: a Module holds functions (tt.func ops); an Operation has operands (Values defined
// elsewhere), results (Values it owns), attributes, regions, a source Location and the position of its text.
// A Region holds Blocks; a Block holds arguments (Values) and a list of Operations ending in a terminator.
// This is MLIR's structure, reduced to what TTIR uses. Ownership is strict: a Module owns everything under it
// through unique_ptrs; Values are referred to by raw pointers that stay valid while the Module lives.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/Attribute.h"
#include "ir/Location.h"
#include "ir/OpKind.h"
#include "ir/Type.h"

namespace tilesim {

class Operation;
class Block;
class Region;

class Value {
 public:
  Type type;
  // The SSA name without '%' as parsed or given by the builder ("offs_2", "acc"); empty = print a number.
  // Results of one op that print as `%acc:3` share the name and carry groupIndex 0..2 (`%acc#1`).
  std::string name;
  int groupIndex = -1;
  LocId loc = kNoLoc;         // block arguments only (ops carry their own loc)
  Operation* definingOp = nullptr;  // null for block arguments
  Block* ownerBlock = nullptr;      // block arguments only
  unsigned index = 0;               // result number or argument number
  unsigned id = 0;                  // dense number within its function, assigned by numberValues()

  bool isBlockArgument() const { return definingOp == nullptr; }
};

class Operation {
 public:
  explicit Operation(OpKind kind) : kind(kind) {}

  OpKind kind;
  std::vector<Value*> operands;
  std::vector<std::unique_ptr<Value>> results;
  std::vector<NamedAttribute> attributes;
  std::vector<std::unique_ptr<Region>> regions;
  LocId loc = kNoLoc;
  SourcePos textPos;            // where the op's text starts in the TTIR we parsed
  Block* parentBlock = nullptr;
  // Branches (cf.br, cf.cond_br): the successor blocks, in the op's region, and how many of the trailing operands
  // each one receives as block arguments. Operands are [own operands..., successor 0's..., successor 1's...].
  std::vector<Block*> successors;
  std::vector<unsigned> successorOperandCounts;

  std::string_view name() const { return mnemonic(kind); }
  Value* result(size_t i = 0) const { return results[i].get(); }
  Value* operand(size_t i) const { return operands[i]; }
  size_t numOperands() const { return operands.size(); }
  size_t numResults() const { return results.size(); }
  Region& region(size_t i) const { return *regions[i]; }
  // The operands successor `i` receives (a branch's block arguments).
  std::vector<Value*> successorOperands(size_t i) const;

  const Attribute* attr(std::string_view attrName) const { return findAttribute(attributes, attrName); }
  void setAttr(std::string_view attrName, Attribute value);
  bool hasAttr(std::string_view attrName) const { return attr(attrName) != nullptr; }
  // Convenience accessors for common attribute shapes; `fallback` when absent.
  int64_t intAttr(std::string_view attrName, int64_t fallback = 0) const;
  std::string keywordAttr(std::string_view attrName, std::string fallback = "") const;  // Keyword or String

  Value* addResult(Type type, std::string name = "");
  Region& addRegion();
  Operation* parentOp() const;
};

class Block {
 public:
  std::vector<std::unique_ptr<Value>> arguments;
  std::vector<std::unique_ptr<Operation>> operations;
  Region* parentRegion = nullptr;
  std::string label;  // "bb0" when the text named it

  Value* argument(size_t i) const { return arguments[i].get(); }
  Value* addArgument(Type type, std::string name = "", LocId loc = kNoLoc);
  Operation* append(std::unique_ptr<Operation> op);
  Operation* terminator() const { return operations.empty() ? nullptr : operations.back().get(); }
};

class Region {
 public:
  std::vector<std::unique_ptr<Block>> blocks;
  Operation* parentOp = nullptr;

  Block& front() const { return *blocks.front(); }
  Block& addBlock();
  bool empty() const { return blocks.empty(); }
};

// A tt.func viewed through its attributes: sym_name, sym_visibility, function_type, arg_attrs.
class Function {
 public:
  explicit Function(Operation* op) : op_(op) {}
  Operation* op() const { return op_; }
  std::string name() const;              // without '@'
  bool isPublic() const;
  Type type() const;                     // function type
  Block& body() const { return op_->region(0).front(); }
  size_t numArguments() const { return body().arguments.size(); }
  Value* argument(size_t i) const { return body().argument(i); }
  // The name of parameter i as written (`%x_ptr` -> "x_ptr").
  std::string argumentName(size_t i) const { return argument(i)->name; }
  const std::vector<NamedAttribute>& argumentAttributes(size_t i) const;

 private:
  Operation* op_;
};

class Module {
 public:
  std::vector<std::unique_ptr<Operation>> functions;  // tt.func ops, in order
  std::vector<NamedAttribute> attributes;              // `module attributes {...}`
  // TTGIR's encoding aliases (`#blocked = #ttg.blocked<...>` before the module), in the order they are printed.
  std::vector<EncodingAlias> encodingAliases;
  LocationTable locations;
  LocId loc = kNoLoc;                                  // the module's own loc
  std::string sourceName;                              // file the module was parsed from

  std::vector<Function> allFunctions() const;
  std::optional<Function> findFunction(std::string_view name) const;
  // The kernel to launch: the only public function, or the one named `entry` when given.
  std::optional<Function> kernel(std::string_view entry = "") const;
  // TTGIR: a module that carries `ttg.*` module attributes (ttg.num-warps, ttg.target, ...).
  bool isTTGIR() const;
  int64_t integerAttribute(std::string_view name, int64_t absent) const;  // `"ttg.num-warps" = 4 : i32`
};

// Walks every op under `op`/`block` in program order (pre-order), including nested regions.
template <typename Fn>
void walk(const Block& block, Fn&& fn);
template <typename Fn>
void walk(const Operation& op, Fn&& fn) {
  fn(op);
  for (const auto& region : op.regions)
    for (const auto& block : region->blocks) walk(*block, fn);
}
template <typename Fn>
void walk(const Block& block, Fn&& fn) {
  for (const auto& op : block.operations) walk(*op, fn);
}

// Gives every Value in the function a dense id (arguments and results, nested regions included);
// returns the count. Engines use ids to index their value slots.
unsigned numberValues(const Function& function);

}  // namespace tilesim

// Structural equality of modules for round-trip tests. Values are matched by position as they are defined, so
// operand wiring is compared by definition, not by name; names are compared too (an unnamed value prints as a
// number, which reads back unnamed). Attributes of an op compare as a set (syntax may reorder them); locations
// compare by resolved structure, and the #loc alias tables must match entry by entry.
#include "ir/text/Equality.h"

#include <unordered_map>

namespace tilesim {

namespace {

constexpr int kMaxLocationDepth = 256;

class Comparer {
 public:
  Comparer(const Module& a, const Module& b, std::string* difference) : a_(a), b_(b), difference_(difference) {}

  bool modules() {
    if (!attributesEqual(a_.attributes, b_.attributes)) return fail("module attributes differ");
    if (a_.encodingAliases.size() != b_.encodingAliases.size()) return fail("encoding alias counts differ");
    for (size_t i = 0; i < a_.encodingAliases.size(); ++i)
      if (a_.encodingAliases[i].name != b_.encodingAliases[i].name || a_.encodingAliases[i].encoding != b_.encodingAliases[i].encoding)
        return fail("encoding alias #" + a_.encodingAliases[i].name + " differs");
    if (!locationsEqual(a_.loc, b_.loc, 0)) return fail("module locations differ");
    const auto& aliasesA = a_.locations.aliases();
    const auto& aliasesB = b_.locations.aliases();
    if (aliasesA.size() != aliasesB.size())
      return fail("location alias tables differ in size: " + std::to_string(aliasesA.size()) + " vs " +
                  std::to_string(aliasesB.size()));
    for (size_t i = 0; i < aliasesA.size(); ++i) {
      if (aliasesA[i].name != aliasesB[i].name || aliasesA[i].beforeModule != aliasesB[i].beforeModule ||
          !locationsEqual(aliasesA[i].target, aliasesB[i].target, 0))
        return fail("location alias #" + aliasesA[i].name + " differs");
    }
    if (a_.functions.size() != b_.functions.size()) return fail("different number of functions");
    for (size_t i = 0; i < a_.functions.size(); ++i)
      if (!operationsEqual(*a_.functions[i], *b_.functions[i])) return false;
    return true;
  }

  // A block's position in its region (successors are compared by position), or -1.
  static long blockIndex(const Block* block) {
    if (!block || !block->parentRegion) return -1;
    const auto& blocks = block->parentRegion->blocks;
    for (size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].get() == block) return static_cast<long>(b);
    return -1;
  }

 private:
  bool fail(const std::string& message) {
    if (difference_ && difference_->empty()) *difference_ = message;
    return false;
  }

  std::string where(const Operation& op) {
    return std::string(op.name()) + (op.textPos.known() ? " at " + op.textPos.str() : std::string());
  }

  bool locationsEqual(LocId x, LocId y, int depth) {
    if (depth > kMaxLocationDepth) return true;  // a cyclic alias chain: equal as far as we looked
    bool validX = x >= 0 && static_cast<size_t>(x) < a_.locations.size();
    bool validY = y >= 0 && static_cast<size_t>(y) < b_.locations.size();
    if (!validX || !validY) return validX == validY;
    const Location& lx = a_.locations.at(x);
    const Location& ly = b_.locations.at(y);
    if (lx.kind != ly.kind || lx.text != ly.text || lx.line != ly.line || lx.column != ly.column ||
        lx.children.size() != ly.children.size())
      return false;
    for (size_t i = 0; i < lx.children.size(); ++i)
      if (!locationsEqual(lx.children[i], ly.children[i], depth + 1)) return false;
    return true;
  }

  static bool attributesEqual(const std::vector<NamedAttribute>& x, const std::vector<NamedAttribute>& y) {
    if (x.size() != y.size()) return false;
    for (const NamedAttribute& entry : x) {
      const Attribute* other = findAttribute(y, entry.name);
      if (!other || !(*other == entry.value)) return false;
    }
    return true;
  }

  bool valuesEqual(const Value& x, const Value& y, const std::string& context) {
    if (x.type != y.type) return fail(context + ": type " + x.type.str() + " vs " + y.type.str());
    if (x.name != y.name) return fail(context + ": name '" + x.name + "' vs '" + y.name + "'");
    if (!x.name.empty() && x.groupIndex != y.groupIndex) return fail(context + ": result group differs");
    if (x.index != y.index) return fail(context + ": index differs");
    if (!locationsEqual(x.loc, y.loc, 0)) return fail(context + ": location differs");
    map_[&x] = &y;
    return true;
  }

  bool operationsEqual(const Operation& x, const Operation& y) {
    if (x.kind != y.kind) return fail(where(x) + ": op " + std::string(x.name()) + " vs " + std::string(y.name()));
    if (x.operands.size() != y.operands.size()) return fail(where(x) + ": operand count differs");
    for (size_t i = 0; i < x.operands.size(); ++i) {
      auto it = map_.find(x.operands[i]);
      if (it == map_.end() || it->second != y.operands[i])
        return fail(where(x) + ": operand " + std::to_string(i) + " is wired to a different value");
    }
    if (!attributesEqual(x.attributes, y.attributes)) return fail(where(x) + ": attributes differ");
    if (!locationsEqual(x.loc, y.loc, 0)) return fail(where(x) + ": location differs");
    if (x.successorOperandCounts != y.successorOperandCounts || x.successors.size() != y.successors.size())
      return fail(where(x) + ": successors differ");
    for (size_t i = 0; i < x.successors.size(); ++i)
      if (blockIndex(x.successors[i]) != blockIndex(y.successors[i])) return fail(where(x) + ": successor " + std::to_string(i) + " differs");
    if (x.regions.size() != y.regions.size()) return fail(where(x) + ": region count differs");
    for (size_t r = 0; r < x.regions.size(); ++r) {
      const Region& rx = *x.regions[r];
      const Region& ry = *y.regions[r];
      if (rx.blocks.size() != ry.blocks.size()) return fail(where(x) + ": block count differs");
      for (size_t b = 0; b < rx.blocks.size(); ++b) {
        const Block& bx = *rx.blocks[b];
        const Block& by = *ry.blocks[b];
        if (bx.arguments.size() != by.arguments.size()) return fail(where(x) + ": block argument count differs");
        for (size_t i = 0; i < bx.arguments.size(); ++i)
          if (!valuesEqual(*bx.arguments[i], *by.arguments[i], where(x) + " block argument " + std::to_string(i))) return false;
        if (bx.operations.size() != by.operations.size())
          return fail(where(x) + ": region " + std::to_string(r) + " has " + std::to_string(bx.operations.size()) + " vs " +
                      std::to_string(by.operations.size()) + " ops");
        for (size_t i = 0; i < bx.operations.size(); ++i)
          if (!operationsEqual(*bx.operations[i], *by.operations[i])) return false;
      }
    }
    if (x.results.size() != y.results.size()) return fail(where(x) + ": result count differs");
    for (size_t i = 0; i < x.results.size(); ++i)
      if (!valuesEqual(*x.results[i], *y.results[i], where(x) + " result " + std::to_string(i))) return false;
    return true;
  }

  const Module& a_;
  const Module& b_;
  std::string* difference_;
  std::unordered_map<const Value*, const Value*> map_;
};

}  // namespace

bool modulesEqual(const Module& a, const Module& b, std::string* difference) {
  if (difference) difference->clear();
  return Comparer(a, b, difference).modules();
}

}  // namespace tilesim

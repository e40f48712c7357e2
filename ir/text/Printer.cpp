// TTIR printer: module, functions, regions and blocks, SSA names, locations and attributes; op syntax is in
// PrintOps.cpp. Output is the text Triton prints (same layout, names, loc aliases), so tilesim's parser and
// Triton's MLIR parser both read it back.
#include "ir/text/Printer.h"

#include <vector>

#include "ir/text/FloatText.h"
#include "ir/text/Lexer.h"
#include "ir/text/PrinterImpl.h"

namespace tilesim {

namespace text {

namespace {

constexpr int kMaxLocationDepth = 256;

bool isFunctionSignatureAttribute(std::string_view name) {
  return name == "sym_name" || name == "sym_visibility" || name == "function_type" || name == "arg_attrs" ||
         name == "res_attrs";
}

void printSymbol(std::string& out, std::string_view name) {
  out += '@';
  out += isBareIdentifier(name) ? std::string(name) : quoteString(name);
}

}  // namespace

std::string strippedPointerType(Type type) {
  if (!type.isPointer()) return type.str();
  std::string s = "<" + type.pointee().str();
  if (type.addressSpace() != 1) s += ", " + std::to_string(type.addressSpace());
  return s + ">";
}

PrinterImpl::PrinterImpl(const Module& module, const PrintOptions& options) : module_(module), options_(options) {
  for (const LocationAlias& alias : module.locations.aliases()) aliasOf_.try_emplace(alias.target, &alias.name);
}

// ---------------------------------------------------------------- names

void PrinterImpl::nameFunction(const Operation& function) {
  std::unordered_set<std::string> taken;
  walk(function, [&](const Operation& op) {
    for (const auto& result : op.results)
      if (!result->name.empty()) taken.insert(result->name);
    for (const auto& region : op.regions)
      for (const auto& block : region->blocks)
        for (const auto& arg : block->arguments)
          if (!arg->name.empty()) taken.insert(arg->name);
  });
  auto fresh = [&](const std::string& prefix, unsigned& counter) {
    std::string name = prefix + std::to_string(counter++);
    while (taken.count(name)) name = prefix + std::to_string(counter++);
    return name;
  };
  struct Work {
    const Region* region;
    unsigned nextValue;
    unsigned nextArgument;
  };
  std::vector<Work> work;
  for (const auto& region : function.regions) work.push_back({region.get(), 0, 0});
  while (!work.empty()) {
    Work item = work.back();
    work.pop_back();
    for (size_t b = 0; b < item.region->blocks.size(); ++b) {
      const Block& block = *item.region->blocks[b];
      for (const auto& arg : block.arguments) {
        std::string name;
        if (b == 0) {
          unsigned number = item.nextArgument++;
          name = arg->name.empty() ? fresh("arg", number) : arg->name;
        } else {
          name = arg->name.empty() ? fresh("", item.nextValue) : arg->name;
        }
        useNames_[arg.get()] = "%" + name;
      }
      for (const auto& op : block.operations) {
        if (op->results.empty()) continue;
        bool allUnnamed = true;
        for (const auto& result : op->results) allUnnamed = allUnnamed && result->name.empty();
        bool group = allUnnamed || op->results[0]->groupIndex >= 0;
        if (group) {
          std::string base = "%" + (allUnnamed ? fresh("", item.nextValue) : op->results[0]->name);
          if (op->results.size() == 1 && (allUnnamed || op->results[0]->groupIndex < 0)) {
            useNames_[op->results[0].get()] = base;
          } else {
            for (size_t i = 0; i < op->results.size(); ++i) useNames_[op->results[i].get()] = base + "#" + std::to_string(i);
          }
        } else {
          for (const auto& result : op->results)
            useNames_[result.get()] = "%" + (result->name.empty() ? fresh("", item.nextValue) : result->name);
        }
      }
    }
    for (const auto& block : item.region->blocks)
      for (const auto& op : block->operations)
        for (const auto& nested : op->regions) work.push_back({nested.get(), item.nextValue, item.nextArgument});
  }
}

const std::string& PrinterImpl::use(const Value* value) {
  auto it = useNames_.find(value);
  if (it != useNames_.end()) return it->second;
  unknownName_ = "%" + (value->name.empty() ? std::string("<<unknown value>>") : value->name);
  return unknownName_;
}

void PrinterImpl::printResultNames(const Operation& op) {
  if (op.results.empty()) return;
  const std::string& first = use(op.results[0].get());
  size_t hash = first.find('#');
  if (hash != std::string::npos && op.results[0]->name.find('#') == std::string::npos) {
    out.append(first, 0, hash);
    out += ":" + std::to_string(op.results.size());
  } else {
    for (size_t i = 0; i < op.results.size(); ++i) {
      if (i) out += ", ";
      out += use(op.results[i].get());
    }
  }
  out += " = ";
}

void PrinterImpl::printUses(const std::vector<Value*>& values, size_t begin, size_t end) {
  end = std::min(end, values.size());
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out += ", ";
    out += use(values[i]);
  }
}

void PrinterImpl::printTypes(const std::vector<Value*>& values, size_t begin, size_t end) {
  end = std::min(end, values.size());
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out += ", ";
    out += values[i]->type.str();
  }
}

// ---------------------------------------------------------------- locations

void PrinterImpl::printLocation(LocId loc) {
  if (!options_.locations || loc < 0 || static_cast<size_t>(loc) >= module_.locations.size()) return;
  out += " loc(";
  printLocationReference(loc);
  out += ")";
}

void PrinterImpl::printLocationReference(LocId loc) {
  auto it = aliasOf_.find(loc);
  if (it != aliasOf_.end()) {
    out += "#" + *it->second;
    return;
  }
  printLocationBody(loc, 0);
}

void PrinterImpl::printLocationBody(LocId loc, int depth) {
  if (loc < 0 || static_cast<size_t>(loc) >= module_.locations.size() || depth > kMaxLocationDepth) {
    out += "unknown";
    return;
  }
  const Location& location = module_.locations.at(loc);
  auto child = [&](size_t i) {
    LocId id = location.children[i];
    auto it = aliasOf_.find(id);
    if (it != aliasOf_.end()) {
      out += "#" + *it->second;
    } else {
      printLocationBody(id, depth + 1);
    }
  };
  switch (location.kind) {
    case Location::Kind::Unknown: out += "unknown"; return;
    case Location::Kind::FileLineCol:
      out += quoteString(location.text) + ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
      return;
    case Location::Kind::Name:
      out += quoteString(location.text);
      if (!location.children.empty()) {
        out += "(";
        child(0);
        out += ")";
      }
      return;
    case Location::Kind::CallSite:
      out += "callsite(";
      if (location.children.size() == 2) {
        child(0);
        out += " at ";
        child(1);
      }
      out += ")";
      return;
    case Location::Kind::Fused:
      out += "fused[";
      for (size_t i = 0; i < location.children.size(); ++i) {
        if (i) out += ", ";
        child(i);
      }
      out += "]";
      return;
  }
}

// ---------------------------------------------------------------- attributes

void PrinterImpl::printAttribute(const Attribute& attribute) {
  switch (attribute.kind()) {
    case Attribute::Kind::Invalid: out += "unit"; return;
    case Attribute::Kind::Unit: out += "unit"; return;
    case Attribute::Kind::Bool: out += attribute.boolValue() ? "true" : "false"; return;
    case Attribute::Kind::Integer:
      out += std::to_string(attribute.intValue());
      if (attribute.type().isValid()) out += " : " + attribute.type().str();
      return;
    case Attribute::Kind::Float:
      out += formatFloat(attribute.bits(), attribute.type().scalarKind()) + " : " + attribute.type().str();
      return;
    case Attribute::Kind::String: out += quoteString(attribute.text()); return;
    case Attribute::Kind::TypeAttr: out += attribute.type().str(); return;
    case Attribute::Kind::SymbolRef: printSymbol(out, attribute.text()); return;
    case Attribute::Kind::Keyword: out += attribute.text(); return;
    case Attribute::Kind::DenseArray: {
      out += "array<" + attribute.type().str();
      bool isBool = attribute.type() == Type::i1();
      for (size_t i = 0; i < attribute.arrayValues().size(); ++i) {
        out += i ? ", " : ": ";
        int64_t v = attribute.arrayValues()[i];
        out += isBool ? (v ? "true" : "false") : std::to_string(v);
      }
      out += ">";
      return;
    }
    case Attribute::Kind::Dense: {
      Type type = attribute.type();
      ScalarKind kind = type.scalarKind();
      int width = bitWidth(kind);
      auto element = [&](uint64_t bits) {
        if (kind == ScalarKind::I1) {
          out += (bits & 1) ? "true" : "false";
        } else if (isIntegerKind(kind)) {
          int64_t value = width == 64 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
          out += std::to_string(value);
        } else {
          out += formatFloat(bits, kind);
        }
      };
      out += "dense<";
      if (attribute.isSplat()) {
        element(attribute.denseBits()[0]);
      } else {
        // Nested brackets by shape, row-major.
        std::span<const int64_t> shape = type.shape();
        int64_t index = 0;
        auto nested = [&](auto& self, size_t dim) -> void {
          out += "[";
          for (int64_t i = 0; i < shape[dim]; ++i) {
            if (i) out += ", ";
            if (dim + 1 < shape.size()) {
              self(self, dim + 1);
            } else {
              element(attribute.denseBits()[static_cast<size_t>(index++)]);
            }
          }
          out += "]";
        };
        if (shape.empty()) out += "[]";
        else nested(nested, 0);
      }
      out += "> : " + type.str();
      return;
    }
    case Attribute::Kind::Array:
      out += "[";
      for (size_t i = 0; i < attribute.elements().size(); ++i) {
        if (i) out += ", ";
        printAttribute(attribute.elements()[i]);
      }
      out += "]";
      return;
    case Attribute::Kind::Dictionary:
      out += "{";
      printAttributeDictEntries(attribute.entries(), {});
      out += "}";
      return;
  }
}

void PrinterImpl::printAttributeDictEntries(const std::vector<NamedAttribute>& attributes,
                                            std::initializer_list<std::string_view> skip) {
  bool first = true;
  for (const NamedAttribute& entry : attributes) {
    bool skipped = false;
    for (std::string_view name : skip) skipped = skipped || entry.name == name;
    if (skipped) continue;
    if (!first) out += ", ";
    first = false;
    out += isBareIdentifier(entry.name) ? entry.name : quoteString(entry.name);
    if (entry.value.kind() == Attribute::Kind::Unit) continue;
    out += " = ";
    printAttribute(entry.value);
  }
}

void PrinterImpl::printAttributeDict(const std::vector<NamedAttribute>& attributes,
                                     std::initializer_list<std::string_view> skip) {
  size_t shown = 0;
  for (const NamedAttribute& entry : attributes) {
    bool skipped = false;
    for (std::string_view name : skip) skipped = skipped || entry.name == name;
    if (!skipped) ++shown;
  }
  if (shown == 0) return;
  out += " {";
  printAttributeDictEntries(attributes, skip);
  out += "}";
}

// ---------------------------------------------------------------- structure

void PrinterImpl::printModule() {
  if (options_.locations)
    for (const LocationAlias& alias : module_.locations.aliases())
      if (alias.beforeModule) {
        out += "#" + alias.name + " = loc(";
        printLocationBody(alias.target, 0);
        out += ")\n";
      }
  out += "module";
  if (!module_.attributes.empty()) {
    out += " attributes {";
    printAttributeDictEntries(module_.attributes, {});
    out += "}";
  }
  out += " {\n";
  for (const auto& function : module_.functions) printFunction(*function, 2);
  out += "}";
  printLocation(module_.loc);
  out += "\n";
  if (options_.locations)
    for (const LocationAlias& alias : module_.locations.aliases())
      if (!alias.beforeModule) {
        out += "#" + alias.name + " = loc(";
        printLocationBody(alias.target, 0);
        out += ")\n";
      }
}

void PrinterImpl::printFunction(const Operation& function, int indent) {
  nameFunction(function);
  out.append(static_cast<size_t>(indent), ' ');
  out += "tt.func ";
  const Attribute* visibility = function.attr("sym_visibility");
  if (visibility && visibility->kind() == Attribute::Kind::String) out += visibility->text() + " ";
  const Attribute* name = function.attr("sym_name");
  printSymbol(out, name ? name->text() : "");
  out += "(";
  const Block* body = function.regions.empty() || function.regions[0]->empty() ? nullptr : &function.regions[0]->front();
  const Attribute* argAttrs = function.attr("arg_attrs");
  if (body) {
    for (size_t i = 0; i < body->arguments.size(); ++i) {
      if (i) out += ", ";
      const Value* arg = body->arguments[i].get();
      out += use(arg) + ": " + arg->type.str();
      if (argAttrs && argAttrs->kind() == Attribute::Kind::Array && i < argAttrs->elements().size() &&
          !argAttrs->elements()[i].entries().empty()) {
        out += " ";
        printAttribute(argAttrs->elements()[i]);
      }
      printLocation(arg->loc);
    }
  }
  out += ")";
  const Attribute* type = function.attr("function_type");
  if (type && type->kind() == Attribute::Kind::TypeAttr && type->type().isFunction() && !type->type().results().empty()) {
    std::span<const Type> results = type->type().results();
    const Attribute* resAttrs = function.attr("res_attrs");
    bool hasResultAttrs = resAttrs && resAttrs->kind() == Attribute::Kind::Array;
    if (results.size() == 1 && !hasResultAttrs && !results[0].isFunction()) {
      out += " -> " + results[0].str();
    } else {
      out += " -> (";
      for (size_t i = 0; i < results.size(); ++i) {
        if (i) out += ", ";
        out += results[i].str();
        if (hasResultAttrs && i < resAttrs->elements().size() && !resAttrs->elements()[i].entries().empty()) {
          out += " ";
          printAttribute(resAttrs->elements()[i]);
        }
      }
      out += ")";
    }
  }
  bool extra = false;
  for (const NamedAttribute& entry : function.attributes) extra = extra || !isFunctionSignatureAttribute(entry.name);
  if (extra) {
    out += " attributes {";
    printAttributeDictEntries(function.attributes, {"sym_name", "sym_visibility", "function_type", "arg_attrs", "res_attrs"});
    out += "}";
  }
  out += " ";
  if (!function.regions.empty()) printRegion(*function.regions[0], indent, false, false, kNoLoc);
  printLocation(function.loc);
  out += "\n";
}

namespace {

// A block's name as printed: its label, or bbN by position in its region.
std::string blockName(const Block& block) {
  if (!block.label.empty()) return block.label;
  const Region& region = *block.parentRegion;
  for (size_t b = 0; b < region.blocks.size(); ++b)
    if (region.blocks[b].get() == &block) return "bb" + std::to_string(b);
  return "bb?";
}

// MLIR's comment after a non-entry block label: `// pred: ^bb0`, `// 2 preds: ^bb0, ^bb1`, `// no predecessors`.
std::string predecessorComment(const Block& block) {
  std::vector<std::string> predecessors;
  for (const auto& other : block.parentRegion->blocks) {
    const Operation* terminator = other->terminator();
    if (!terminator) continue;
    for (const Block* successor : terminator->successors)
      if (successor == &block) {
        predecessors.push_back("^" + blockName(*other));
        break;
      }
  }
  if (predecessors.empty()) return "  // no predecessors";
  std::string text = predecessors.size() == 1 ? "  // pred: " : "  // " + std::to_string(predecessors.size()) + " preds: ";
  for (size_t i = 0; i < predecessors.size(); ++i) text += (i ? ", " : "") + predecessors[i];
  return text;
}

}  // namespace

void PrinterImpl::printSuccessor(const Operation& op, size_t index) {
  const Block* target = index < op.successors.size() ? op.successors[index] : nullptr;
  out += " ^" + (target ? blockName(*target) : std::string("bb?"));
  std::vector<Value*> arguments = op.successorOperands(index);
  if (arguments.empty()) return;
  out += "(";
  printUses(arguments);
  out += " : ";
  for (size_t i = 0; i < arguments.size(); ++i) out += (i ? ", " : "") + arguments[i]->type.str();
  out += ")";
}

void PrinterImpl::printBlockHeader(const Block& block, size_t index, int indent) {
  out.append(static_cast<size_t>(indent), ' ');
  out += "^" + (block.label.empty() ? "bb" + std::to_string(index) : block.label);
  if (!block.arguments.empty()) {
    out += "(";
    for (size_t i = 0; i < block.arguments.size(); ++i) {
      if (i) out += ", ";
      const Value* arg = block.arguments[i].get();
      out += use(arg) + ": " + arg->type.str();
      printLocation(arg->loc);
    }
    out += ")";
  }
  out += ":";
  if (index > 0) out += predecessorComment(block);
  out += "\n";
}

void PrinterImpl::printRegion(const Region& region, int indent, bool printEntryArguments, bool omitEmptyYield,
                              LocId parentLoc) {
  out += "{\n";
  for (size_t b = 0; b < region.blocks.size(); ++b) {
    const Block& block = *region.blocks[b];
    if (b > 0 || (printEntryArguments && !block.arguments.empty())) printBlockHeader(block, b, indent);
    for (size_t i = 0; i < block.operations.size(); ++i) {
      const Operation& op = *block.operations[i];
      bool implicit = omitEmptyYield && i + 1 == block.operations.size() && op.kind == OpKind::SCFYield &&
                      op.operands.empty() && op.attributes.empty() && (op.loc == parentLoc || !options_.locations ||
                      (op.loc != kNoLoc && parentLoc != kNoLoc && module_.locations.at(op.loc) == module_.locations.at(parentLoc) &&
                       !aliasOf_.count(op.loc) && !aliasOf_.count(parentLoc)));
      if (!implicit) printOperation(op, indent + 2);
    }
  }
  out.append(static_cast<size_t>(indent), ' ');
  out += "}";
}

void PrinterImpl::printOperation(const Operation& op, int indent) {
  if (op.kind == OpKind::TTFunc) {
    printFunction(op, indent);
    return;
  }
  out.append(static_cast<size_t>(indent), ' ');
  printResultNames(op);
  printOpBody(op, indent);
  printLocation(op.loc);
  out += "\n";
}

}  // namespace text

std::string printModule(const Module& module, const PrintOptions& options) {
  text::PrinterImpl printer(module, options);
  printer.printModule();
  return std::move(printer.out);
}

std::string printOperation(const Operation& op, const Module& module, const PrintOptions& options) {
  text::PrinterImpl printer(module, options);
  const Operation* top = &op;
  while (top->parentOp()) top = top->parentOp();
  if (top->kind == OpKind::TTFunc) printer.nameFunction(*top);
  printer.printOperation(op, 0);
  return std::move(printer.out);
}

std::string printValueName(const Value& value) {
  const Operation* owner = value.definingOp;
  if (!owner && value.ownerBlock && value.ownerBlock->parentRegion) owner = value.ownerBlock->parentRegion->parentOp;
  if (!owner) return "%" + (value.name.empty() ? std::string("<<unnamed>>") : value.name);
  while (owner->parentOp()) owner = owner->parentOp();
  Module empty;
  text::PrinterImpl printer(empty, PrintOptions{});
  printer.nameFunction(*owner);
  return printer.use(&value);
}

}  // namespace tilesim

// TTIR printer: module, functions, regions and blocks, SSA names; locations are in PrintLocations.cpp, attributes
// in PrintAttributes.cpp, op syntax in PrintOps.cpp and ir/text/syntax/. Output is the text Triton prints (same
// layout, names, loc aliases), so tilesim's parser and Triton's MLIR parser both read it back.
#include "ir/text/Printer.h"

#include <cstdint>
#include <vector>

#include "ir/text/Lexer.h"
#include "ir/text/PrinterImpl.h"

namespace tilesim {

namespace text {

namespace {

bool isFunctionSignatureAttribute(std::string_view name) {
  return name == "sym_name" || name == "sym_visibility" || name == "function_type" || name == "arg_attrs" ||
         name == "res_attrs";
}

}  // namespace

void printSymbol(std::string& out, std::string_view name) {
  out += '@';
  out += isBareIdentifier(name) ? std::string(name) : quoteString(name);
}

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

// ---------------------------------------------------------------- structure

void PrinterImpl::printModule() {
  // TTGIR's encoding aliases go where they were read among the location aliases (all first when built, or when
  // locations are not printed); the scope makes every type below refer to them by name.
  EncodingAliasScope encodingNames(module_.encodingAliases);
  size_t nextEncoding = 0, locationsPrinted = 0;
  auto printEncodingAliasesUpTo = [&](size_t locationCount) {
    for (; nextEncoding < module_.encodingAliases.size(); ++nextEncoding) {
      const EncodingAlias& alias = module_.encodingAliases[nextEncoding];
      if (options_.locations && alias.locationAliasesBefore > locationCount) break;
      out += "#" + alias.name + " = " + alias.encoding.str() + "\n";
    }
  };
  printEncodingAliasesUpTo(0);
  if (options_.locations)
    for (const LocationAlias& alias : module_.locations.aliases())
      if (alias.beforeModule) {
        out += "#" + alias.name + " = loc(";
        printLocationBody(alias.target, 0);
        out += ")\n";
        printEncodingAliasesUpTo(++locationsPrinted);
      }
  printEncodingAliasesUpTo(SIZE_MAX);
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
  EncodingAliasScope encodingNames(module.encodingAliases);
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

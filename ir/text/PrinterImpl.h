// The printer's internal state, shared by Printer.cpp (module, functions, regions, names), PrintLocations.cpp,
// PrintAttributes.cpp, PrintOps.cpp (op syntax) and the custom-syntax pairs of ir/text/syntax/. Value names follow
// MLIR's SSANameState so that Triton's own numbering (`%0`, `%arg9`) comes back unchanged: per function, a
// region's unnamed results are numbered before its nested regions, which all start from the parent region's final
// counters; entry-block arguments count `argN`.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "ir/IR.h"
#include "ir/text/Printer.h"

namespace tilesim::text {

class PrinterImpl {
 public:
  PrinterImpl(const Module& module, const PrintOptions& options);

  void printModule();
  void printFunction(const Operation& function, int indent);
  void printOperation(const Operation& op, int indent);
  void printRegion(const Region& region, int indent, bool printEntryArguments, bool omitEmptyYield, LocId parentLoc);
  void printBlockHeader(const Block& block, size_t index, int indent);

  // Names: `nameFunction` fills useNames_ for every value under a function.
  void nameFunction(const Operation& function);
  const std::string& use(const Value* value);
  void printResultNames(const Operation& op);
  void printUses(const std::vector<Value*>& values, size_t begin = 0, size_t end = SIZE_MAX);
  // ` ^bb1` or ` ^bb1(%a, %b : i32, f32)`: branch successor `index` of `op` with its arguments.
  void printSuccessor(const Operation& op, size_t index);

  // PrintLocations.cpp
  void printLocation(LocId loc);   // ` loc(...)` or nothing
  void printLocationReference(LocId loc, int depth = 0);  // `#alias` or the location spelled out
  void printLocationBody(LocId loc, int depth);

  // PrintAttributes.cpp
  void printAttribute(const Attribute& attribute);
  void printAttributeDict(const std::vector<NamedAttribute>& attributes, std::initializer_list<std::string_view> skip = {});
  void printAttributeDictEntries(const std::vector<NamedAttribute>& attributes, std::initializer_list<std::string_view> skip);
  void printTypes(const std::vector<Value*>& values, size_t begin = 0, size_t end = SIZE_MAX);

  // PrintOps.cpp
  void printOpBody(const Operation& op, int indent);
  void printCustomBody(const Operation& op, int indent);
  void printGenericBody(const Operation& op, int indent);

  std::string out;
  const Module& module_;
  PrintOptions options_;

 private:
  std::unordered_map<const Value*, std::string> useNames_;
  std::unordered_map<LocId, const std::string*> aliasOf_;
  std::string unknownName_;
};

std::string strippedPointerType(Type type);  // `<tensor<32x32xf32>>` for !tt.ptr<tensor<32x32xf32>>
void printSymbol(std::string& out, std::string_view name);  // `@name`, or `@"name"` when it is no bare identifier

}  // namespace tilesim::text

// Writes a Module as TTIR text that both tilesim's parser and Triton's own MLIR parser accept.
// print(parse(text)) re-parses to an identical module (modulesEqual), and printing is idempotent.
#pragma once

#include <string>

#include "ir/IR.h"

namespace tilesim {

struct PrintOptions {
  bool locations = true;  // `loc(...)` annotations and the #loc alias table
};

std::string printModule(const Module& module, const PrintOptions& options = {});
std::string printOperation(const Operation& op, const Module& module, const PrintOptions& options = {});  // one op, its regions included
std::string printValueName(const Value& value);  // "%offs_2", "%acc#1", "%arg3"

}  // namespace tilesim

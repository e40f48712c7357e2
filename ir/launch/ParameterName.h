// The name a launch argument binds to a kernel parameter by (docs/findings.md F1). A parameter written `%arg3`
// (what MLIR prints for a parameter without a name location: Triton's passes reprint every module that way) is
// stored unnamed by the parser; it binds as `arg<position>`, the name MLIR and tilesim's printer give it.
#pragma once

#include <string>

#include "ir/IR.h"

namespace tilesim {

inline std::string parameterBindingName(const Function& kernel, size_t index) {
  const std::string& name = kernel.argument(index)->name;
  return name.empty() ? "arg" + std::to_string(index) : name;
}

}  // namespace tilesim

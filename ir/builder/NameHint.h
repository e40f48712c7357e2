// setNameHint as an expression, so that naming a value and making it is one line, as in Triton's Python:
// `Tensor rows = named(kb, "rows").arange(0, n);` sets the hint before the call and all that its arguments
// make (C++17 evaluates the object before the arguments), exactly as a setNameHint statement before it would,
// and leaves it set afterwards in the same way.
#pragma once

#include <string>
#include <utility>

#include "ir/builder/KernelBuilder.h"

namespace tilesim::builder {

inline KernelBuilder& named(KernelBuilder& kb, std::string hint) {
  kb.setNameHint(std::move(hint));
  return kb;
}

}  // namespace tilesim::builder

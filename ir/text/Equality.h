// Structural equality of modules: same functions, ops, operand wiring, types, attributes, value names and
// (resolved) locations. Used by the round-trip tests: parse(print(m)) must equal m.
#pragma once

#include <string>

#include "ir/IR.h"

namespace tilesim {

// Returns true when equal; otherwise false and, if `difference` is non-null, a description of the first
// difference found.
bool modulesEqual(const Module& a, const Module& b, std::string* difference = nullptr);

}  // namespace tilesim

// Checks the invariants every engine relies on, after parsing and after every transformation. Each failure
// is one Diagnostic with the op's file:line:col (Operation::textPos) and a one-line message.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/IR.h"

namespace tilesim {

Diagnostics verifyModule(const Module& module);

}  // namespace tilesim

// The checks of one tt.elementwise_inline_asm op that do not depend on its operands' values: the asm string
// exists and parses within the subset's bounds (PtxSubset.h), every instruction is one the machine runs
// (validatePtx), and packed_element elements of every operand and result fit one 64-bit register. The
// interpreter runs them before the first invocation, and `tilesim check` runs them on every such op, so check
// rejects exactly the asm that run cannot handle (docs/semantics.md "Inline asm").
#pragma once

#include <string>

#include "interpreter/ptx/PtxSubset.h"
#include "ir/IR.h"

namespace tilesim::ptx {

// "" and the parsed `program`, or the message (without the op's position).
std::string checkInlineAsm(const Operation& op, PtxProgram& program);

}  // namespace tilesim::ptx

// The checks of one tt.elementwise_inline_asm op that do not depend on its operands' values: the asm string
// exists and parses within the subset's bounds (PtxSubset.h), every instruction is one the machine runs
// (validatePtx), and packed_element elements of every operand and result fill whole registers (asmRegisters). The
// interpreter runs them before the first invocation, and `tilesim check` runs them on every such op, so check
// rejects exactly the asm that run cannot handle (docs/semantics.md "Inline asm").
#pragma once

#include <string>

#include "interpreter/ptx/PtxSubset.h"
#include "ir/IR.h"

namespace tilesim::ptx {

// How Triton's lowering (ElementwiseInlineAsmOpConversion) hands one operand or result of a call its
// `packed_element` elements: elements narrower than 32 bits are packed into 32-bit registers, `perRegister` of
// them (lowest element in the lowest bits), so an operand takes `registers` placeholders. Results' placeholders
// come first, in result order, then the operands': four f16 of packed_element 4 are two registers, $k and $k+1.
struct AsmRegisters {
  int perRegister = 1;
  int registers = 1;
};
AsmRegisters asmRegisters(Type type, int64_t pack);

// "" and the parsed `program`, or the message (without the op's position).
std::string checkInlineAsm(const Operation& op, PtxProgram& program);

}  // namespace tilesim::ptx

// The PTX subset's opcode table (interpreter/ptx/PtxOpcodes.h) and what every handler shares (PtxStep).
#include "interpreter/ptx/PtxOpcodes.h"

#include <algorithm>
#include <array>

namespace tilesim::ptx {

namespace {

// One row per opcode: name, integer-type handler, float-type handler, then the facts (approximate, moves
// vectors, no data effect). An opcode missing here, or a row without a handler for the instruction's type
// class, is answered "is not in the subset".
constexpr std::array kOpcodes = {
    // §9.7.18 griddepcontrol: programmatic dependent launch ordering, no data effect.
    PtxOpcode{"griddepcontrol", nullptr, nullptr, false, false, true},
    PtxOpcode{"mov", move, move, false, true, false},
    PtxOpcode{"add", integerAdd, floatAdd},
    PtxOpcode{"sub", integerSub, floatSub},
    PtxOpcode{"mul", integerMul, floatMul},
    PtxOpcode{"mad", integerMad, nullptr},
    PtxOpcode{"fma", nullptr, floatFma},
    PtxOpcode{"min", integerMin, floatMin},
    PtxOpcode{"max", integerMax, floatMax},
    PtxOpcode{"neg", integerNeg, floatNeg},
    PtxOpcode{"abs", integerAbs, floatAbs},
    PtxOpcode{"div", nullptr, floatDiv},
    PtxOpcode{"rcp", nullptr, floatRcp},
    PtxOpcode{"sqrt", nullptr, floatSqrt},
    PtxOpcode{"ex2", nullptr, exp2Approx, true},
    PtxOpcode{"tanh", nullptr, tanhApprox, true},
    PtxOpcode{"and", bitAnd, nullptr},
    PtxOpcode{"or", bitOr, nullptr},
    PtxOpcode{"xor", bitXor, nullptr},
    PtxOpcode{"not", bitNot, nullptr},
    PtxOpcode{"shl", shiftLeft, nullptr},
    PtxOpcode{"shr", shiftRight, nullptr},
    PtxOpcode{"lop3", lookup3, nullptr},
    PtxOpcode{"prmt", permuteBytes, nullptr},
    PtxOpcode{"shf", funnelShift, nullptr},
    PtxOpcode{"setp", integerSetp, floatSetp},
    PtxOpcode{"selp", select, select},
    PtxOpcode{"cvt", convert, convert},
};

}  // namespace

const PtxOpcode* findPtxOpcode(std::string_view opcode) {
  auto it = std::find_if(kOpcodes.begin(), kOpcodes.end(), [&](const PtxOpcode& row) { return row.name == opcode; });
  return it == kOpcodes.end() ? nullptr : &*it;
}

PtxStep::PtxStep(const PtxInstruction& instruction, PtxRegisterFile& registerFile, std::string* errorOut)
    : in(instruction), registers(registerFile), error(errorOut), types(typesOf(instruction)) {
  if (!types.empty()) type = types.back();
  width = type.width;
  ftz = has(in, "ftz");
  a = source(1);
  b = source(2);
  c = source(3);
}

uint64_t PtxStep::source(size_t index) const {
  return index < in.operands.size() ? registers.value(in.operands[index]) : 0;
}

bool PtxStep::result(uint64_t bits, int resultWidth) const {
  registers.write(in.operands[0], bits, resultWidth);
  return true;
}

bool PtxStep::unsupported(const std::string& why) const {
  *error = "inline asm: '" + in.text + "' " + why + " (outside tilesim's PTX subset: docs/semantics.md)";
  return false;
}

}  // namespace tilesim::ptx

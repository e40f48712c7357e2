// The PTX subset's opcode table: each opcode the machine runs, with its handler for an integer or bit type
// (`.b32`, `.s16`, `.u64`, `.pred`, the fp8 pairs) and its handler for a float type (`.f32`, `.bf16`, `.f16x2`),
// either absent where PTX (or the subset) has no such form, and the facts the parser and machine need about it.
// PtxMachine::execute (PtxSubset.cpp) checks what every instruction shares (a type, operands, no vectors outside
// mov, a register destination), then calls the row's handler; parsePtx reads `approximate`. Handlers live in
// PtxIntegerOps.cpp, PtxFloatOps.cpp and PtxConvert.cpp, each beside the PTX ISA 8.5 section it follows.
// Internal to interpreter/ptx/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "interpreter/ptx/PtxSubset.h"
#include "interpreter/ptx/PtxValues.h"

namespace tilesim::ptx {

// One instruction as its handler sees it: the decoded type modifiers, the first three sources, the register file.
struct PtxStep {
  PtxStep(const PtxInstruction& instruction, PtxRegisterFile& registers, std::string* error);

  const PtxInstruction& in;
  PtxRegisterFile& registers;
  std::string* error;
  std::vector<TypeInfo> types;  // every type modifier, in order (typesOf)
  TypeInfo type;                // the last: the operation's type (cvt: the source type)
  int width = 0;                // type.width
  bool ftz = false;             // the .ftz modifier
  uint64_t a = 0, b = 0, c = 0; // sources 1, 2, 3 (0 where absent)

  uint64_t source(size_t index) const;  // operand `index`'s value, 0 where absent
  // Writes the destination (operand 0) at `resultWidth` bits, or at the operation's width.
  bool result(uint64_t bits, int resultWidth) const;
  bool result(uint64_t bits) const { return result(bits, width); }
  // Sets *error to "inline asm: '<text>' <why> (outside tilesim's PTX subset: ...)"; returns false.
  bool unsupported(const std::string& why) const;
};

using PtxHandler = bool (*)(PtxStep& step);

struct PtxOpcode {
  std::string_view name;    // "lop3"
  PtxHandler integer;       // for a type that is not a float class; nullptr: not in the subset
  PtxHandler floating;      // for a float class (isFloatClass); nullptr: not in the subset
  bool approximate = false; // the GPU's result is approximate (ex2, tanh): PtxProgram::hasApproximation
  bool movesVectors = false;  // may take a vector operand `{a, b}` (mov's pack and unpack)
  bool noDataEffect = false;  // a scheduling hint: runs as a no-op whatever its modifiers and operands
};

// The row of `opcode`, or nullptr when the subset does not know it.
const PtxOpcode* findPtxOpcode(std::string_view opcode);

// ---- handlers ----

// PtxIntegerOps.cpp: §9.7.1 integer arithmetic, §9.7.7 logic and shift, §9.7.9.7 prmt, §9.7.9.10 mov.
bool integerAdd(PtxStep& step);
bool integerSub(PtxStep& step);
bool integerMul(PtxStep& step);
bool integerMad(PtxStep& step);
bool integerMin(PtxStep& step);
bool integerMax(PtxStep& step);
bool integerNeg(PtxStep& step);
bool integerAbs(PtxStep& step);
bool bitAnd(PtxStep& step);
bool bitOr(PtxStep& step);
bool bitXor(PtxStep& step);
bool bitNot(PtxStep& step);
bool shiftLeft(PtxStep& step);
bool shiftRight(PtxStep& step);
bool lookup3(PtxStep& step);
bool permuteBytes(PtxStep& step);
bool funnelShift(PtxStep& step);
bool integerSetp(PtxStep& step);
bool select(PtxStep& step);
bool move(PtxStep& step);

// PtxFloatOps.cpp: §9.7.3 / §9.7.4 half and float arithmetic, ex2 / tanh.approx, float setp.
bool floatAdd(PtxStep& step);
bool floatSub(PtxStep& step);
bool floatMul(PtxStep& step);
bool floatFma(PtxStep& step);
bool floatMin(PtxStep& step);
bool floatMax(PtxStep& step);
bool floatNeg(PtxStep& step);
bool floatAbs(PtxStep& step);
bool floatDiv(PtxStep& step);
bool floatRcp(PtxStep& step);
bool floatSqrt(PtxStep& step);
bool exp2Approx(PtxStep& step);
bool tanhApprox(PtxStep& step);
bool floatSetp(PtxStep& step);

// PtxConvert.cpp: §9.7.9.21 cvt.
bool convert(PtxStep& step);

}  // namespace tilesim::ptx

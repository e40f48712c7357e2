// The PTX subset's register machine (interpreter/ptx/PtxSubset.h): the register file, run / runUnguarded /
// validatePtx, and execute, which checks what every instruction shares and hands it to its row of the opcode table
// (PtxOpcodes.h). The instructions themselves, each beside the PTX ISA 8.5 section it follows, are in
// PtxIntegerOps.cpp, PtxFloatOps.cpp and PtxConvert.cpp; parsing is in PtxParser.cpp.
#include "interpreter/ptx/PtxSubset.h"

#include "interpreter/ptx/PtxOpcodes.h"

namespace tilesim::ptx {

uint64_t PtxRegisterFile::value(const PtxOperand& operand) const {
  switch (operand.kind) {
    case PtxOperand::Kind::Register: return read(operand.reg);
    case PtxOperand::Kind::Immediate: return operand.immediate;
    case PtxOperand::Kind::Vector: return 0;
  }
  return 0;
}

void PtxRegisterFile::write(const PtxOperand& operand, uint64_t value, int width) {
  if (operand.kind == PtxOperand::Kind::Register) writeRegister(operand.reg, value, width);
}

void PtxRegisterFile::writeRegister(int reg, uint64_t value, int width) {
  bits[static_cast<size_t>(reg)] = value & mask(width);
  written[static_cast<size_t>(reg)] = true;
}

void PtxRegisterFile::reset() {
  approximation.assign(bits.size(), 0.0);
  written.assign(bits.size(), false);
}

double PtxMachine::approximation(int placeholder) const {
  const std::vector<double>& approximation = registers_.approximation;
  return static_cast<size_t>(placeholder) < approximation.size() ? approximation[static_cast<size_t>(placeholder)] : 0.0;
}

bool PtxMachine::run(std::string* error) {
  registers_.reset();
  for (const PtxInstruction& instruction : program_.instructions) {
    if (instruction.guard >= 0) {
      bool predicate = registers_.read(instruction.guard) & 1;
      if (predicate == instruction.guardNegated) continue;
    }
    if (!execute(instruction, error)) return false;
  }
  return true;
}

bool PtxMachine::runUnguarded(std::string* error) {
  registers_.reset();
  for (const PtxInstruction& instruction : program_.instructions)
    if (!execute(instruction, error)) return false;
  return true;
}

std::string validatePtx(const PtxProgram& program) {
  PtxMachine scratch(program);
  std::string error;
  return scratch.runUnguarded(&error) ? "" : error;
}

// The checks are ordered as the answers for an unknown or malformed instruction should read: first what it lacks
// (a type, operands), then what only mov may do (vectors, a destination that is not a register), then whether the
// subset has the opcode for this type class.
bool PtxMachine::execute(const PtxInstruction& instruction, std::string* error) {
  const PtxOpcode* opcode = findPtxOpcode(instruction.opcode);
  if (opcode && opcode->noDataEffect) return true;
  PtxStep step(instruction, registers_, error);
  if (step.types.empty()) return step.unsupported("has no type the subset knows");
  if (instruction.operands.empty()) return step.unsupported("has no operands");
  if (!opcode || !opcode->movesVectors) {
    for (const PtxOperand& operand : instruction.operands)
      if (operand.kind == PtxOperand::Kind::Vector) return step.unsupported("has a vector operand (only mov packs and unpacks)");
    if (instruction.operands[0].kind != PtxOperand::Kind::Register)
      return step.unsupported("has a destination that is not a register");
  }
  const PtxHandler handler = !opcode ? nullptr : isFloatClass(step.type.cls) ? opcode->floating : opcode->integer;
  if (!handler) return step.unsupported("is not in the subset");
  return handler(step);
}

}  // namespace tilesim::ptx

// tt.elementwise_inline_asm on the interpreter: the asm string runs on the PTX subset machine
// (interpreter/ptx/PtxSubset.h), once per group of `packed_element` consecutive elements, exactly as Triton's
// lowering calls it: results' registers first, then the operands'; elements narrower than 32 bits are packed
// into 32-bit registers (four i8 or two f16 in one, lowest element in the lowest bits), so four f16 of
// packed_element 4 are two placeholders (ptx::asmRegisters).
// Undefined lanes: an invocation with an undefined input, or an output the asm never writes (a register that
// holds garbage on the GPU — Triton's `// dummy $0` idiom), gives undefined outputs, which the checks follow.
// An output written by an approximate instruction (ex2.approx, tanh.approx) carries the instruction's error as
// a bound, under both profiles: the asm runs verbatim on the GPU, and its approximate instructions are the
// hardware's (MUFU.EX2 is within -1..+2 ulp of the correctly rounded value this machine computes, findings C2),
// so not even the exact profile can promise their bits.
#include <cmath>

#include "interpreter/Executor.h"
#include "interpreter/ptx/InlineAsmCheck.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

int64_t attributeInt(const Operation& op, const char* name, int64_t fallback) {
  const Attribute* attribute = op.attr(name);
  return attribute && attribute->kind() == Attribute::Kind::Integer ? attribute->intValue() : fallback;
}

}  // namespace

void executeInlineAsm(Executor& executor, const Operation& op, Executor::Frame& frame) {
  ptx::PtxProgram program;
  if (std::string error = ptx::checkInlineAsm(op, program); !error.empty()) executor.trap(Report::Kind::Unsupported, op, error);
  const int64_t pack = attributeInt(op, "packed_element", 1);
  const int outputs = static_cast<int>(op.numResults());
  const int inputs = static_cast<int>(op.numOperands());

  std::vector<TileRef> operands;
  for (const Value* value : op.operands) operands.push_back(executor.get(frame, value));
  std::vector<MutableTileRef> results;
  for (int r = 0; r < outputs; ++r) results.push_back(makeTile(op.result(static_cast<size_t>(r))->type));
  const int64_t elements = outputs > 0 ? results[0]->size() : (inputs > 0 ? operands[0]->size() : 1);
  if (elements % pack != 0)
    executor.trap(Report::Kind::Unsupported, op, "inline asm: " + std::to_string(elements) +
                                                     " elements are not a multiple of packed_element " + std::to_string(pack));

  // Where each result's and operand's registers start among the placeholders (results first; asmRegisters).
  std::vector<ptx::AsmRegisters> layouts;
  std::vector<int> firstRegister;
  int placeholders = 0;
  for (int r = 0; r < outputs; ++r) layouts.push_back(ptx::asmRegisters(results[static_cast<size_t>(r)]->type(), pack));
  for (int j = 0; j < inputs; ++j) layouts.push_back(ptx::asmRegisters(op.operand(static_cast<size_t>(j))->type, pack));
  int outputRegisters = 0;
  for (size_t i = 0; i < layouts.size(); ++i) {
    firstRegister.push_back(placeholders);
    placeholders += layouts[i].registers;
    if (i < static_cast<size_t>(outputs)) outputRegisters = placeholders;
  }

  // Each invocation's instructions count against --max-steps (the asm text bounds them, the grid multiplies).
  executor.countSteps(op, static_cast<uint64_t>(elements / pack) * program.instructions.size());
  ptx::PtxMachine machine(program);
  for (int64_t group = 0; group < elements / pack; ++group) {
    bool undefined = false;
    for (int j = 0; j < inputs; ++j) {
      const Tile& tile = *operands[static_cast<size_t>(j)];
      const int bits = tile.elementBytes() * 8;
      const ptx::AsmRegisters& layout = layouts[static_cast<size_t>(outputs + j)];
      for (int q = 0; q < layout.registers; ++q) {
        uint64_t packed = 0;
        for (int k = 0; k < layout.perRegister; ++k) {
          const int64_t lane = tile.size() == 1 ? 0 : group * pack + q * layout.perRegister + k;
          packed |= (tile.bitsAt(lane) & (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1)) << (k * bits);
          undefined = undefined || (tile.undefinedMask() && tile.undefinedMask()[lane]);
        }
        machine.setOperand(firstRegister[static_cast<size_t>(outputs + j)] + q, packed);
      }
    }
    for (int r = 0; r < outputRegisters; ++r) machine.setOperand(r, 0);
    std::string error;
    if (!machine.run(&error)) executor.trap(Report::Kind::Unsupported, op, error);
    for (int r = 0; r < outputs; ++r) {
      Tile& tile = *results[static_cast<size_t>(r)];
      const int bits = tile.elementBytes() * 8;
      const ptx::AsmRegisters& layout = layouts[static_cast<size_t>(r)];
      for (int q = 0; q < layout.registers; ++q) {
        const int reg = firstRegister[static_cast<size_t>(r)] + q;
        const uint64_t packed = machine.operand(reg);
        const bool garbage = undefined || !machine.written(reg);
        const double relative = machine.approximation(reg);
        for (int k = 0; k < layout.perRegister; ++k) {
          const int64_t lane = group * pack + q * layout.perRegister + k;
          const uint64_t value = (packed >> (k * bits)) & (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
          tile.setBits(lane, value);
          if (garbage) tile.mutableUndefinedMask()[lane] = 1;
          if (relative > 0 && tile.elementType().isFloat()) {
            const ScalarKind kind = tile.elementType().scalarKind();
            const double v = doubleFromFloatBits(value, kind);
            tile.mutableErrorBounds()[lane] = std::isfinite(v) ? std::fabs(v) * relative + std::ldexp(1.0, -149)
                                                               : INFINITY;
          }
        }
      }
    }
  }
  for (int r = 0; r < outputs; ++r) executor.set(frame, op.result(static_cast<size_t>(r)), results[static_cast<size_t>(r)]);
}

}  // namespace tilesim

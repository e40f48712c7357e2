// checkInlineAsm (interpreter/ptx/InlineAsmCheck.h).
#include "interpreter/ptx/InlineAsmCheck.h"

#include <algorithm>

#include "ir/OpAttributes.h"

namespace tilesim::ptx {

AsmRegisters asmRegisters(Type type, int64_t pack) {
  const Type element = type.element();
  const int bits = element.isScalar() ? storageBytes(element.scalarKind()) * 8 : 64;
  AsmRegisters layout;
  layout.perRegister = static_cast<int>(std::min<int64_t>(std::max(32 / bits, 1), pack));
  layout.registers = static_cast<int>(pack / layout.perRegister);
  return layout;
}

std::string checkInlineAsm(const Operation& op, PtxProgram& program) {
  const InlineAsmView view{op};
  const std::string* asmText = view.asmString();
  if (!asmText) return "inline asm without asm_string";
  const int64_t pack = view.packedElement();
  if (pack < 1 || pack > 8) return "inline asm: packed_element must be 1..8";
  int placeholders = 0;
  auto place = [&](Type type) -> std::string {
    const AsmRegisters layout = asmRegisters(type, pack);
    if (pack % layout.perRegister != 0)
      return "inline asm: packed_element " + std::to_string(pack) + " does not fill whole 32-bit registers of " +
             type.str() + " (" + std::to_string(layout.perRegister) + " per register)";
    placeholders += layout.registers;
    return "";
  };
  for (size_t r = 0; r < op.numResults(); ++r)
    if (std::string error = place(op.result(r)->type); !error.empty()) return error;
  for (const Value* value : op.operands)
    if (std::string error = place(value->type); !error.empty()) return error;
  if (std::string error = parsePtx(*asmText, placeholders, program); !error.empty()) return "inline asm: " + error;
  return validatePtx(program);
}

}  // namespace tilesim::ptx

// checkInlineAsm (interpreter/ptx/InlineAsmCheck.h).
#include "interpreter/ptx/InlineAsmCheck.h"

namespace tilesim::ptx {

std::string checkInlineAsm(const Operation& op, PtxProgram& program) {
  const Attribute* asmText = op.attr("asm_string");
  if (!asmText || asmText->kind() != Attribute::Kind::String) return "inline asm without asm_string";
  const Attribute* packAttr = op.attr("packed_element");
  const int64_t pack = packAttr && packAttr->kind() == Attribute::Kind::Integer ? packAttr->intValue() : 1;
  if (pack < 1 || pack > 8) return "inline asm: packed_element must be 1..8";
  auto fits = [&](Type type) {
    const Type element = type.element();
    return !element.isScalar() || pack * storageBytes(element.scalarKind()) * 8 <= 64;
  };
  for (const Value* value : op.operands)
    if (!fits(value->type)) return "inline asm: packed_element " + std::to_string(pack) + " of " + value->type.str() + " is more than a 64-bit register";
  for (size_t r = 0; r < op.numResults(); ++r)
    if (!fits(op.result(r)->type))
      return "inline asm: packed_element " + std::to_string(pack) + " of " + op.result(r)->type.str() + " is more than a 64-bit register";
  const int placeholders = static_cast<int>(op.numResults() + op.numOperands());
  if (std::string error = parsePtx(asmText->text(), placeholders, program); !error.empty()) return "inline asm: " + error;
  return validatePtx(program);
}

}  // namespace tilesim::ptx

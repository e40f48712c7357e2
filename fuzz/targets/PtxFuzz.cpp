// Fuzz target: the inline-asm PTX subset (interpreter/ptx/PtxSubset.h). The first byte picks the number of asm
// operands (1..8), the next 8 bytes seed the input registers, the rest is the asm text. Properties: no crash,
// hang or UB on any text; what parses and validates (validatePtx, which `tilesim check` runs) also runs, on any
// register values: check rejects exactly what run cannot handle.
#include <cstring>
#include <string>

#include "fuzz/targets/FuzzTarget.h"
#include "interpreter/ptx/PtxSubset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const int placeholders = 1 + data[0] % 8;
  uint64_t registers = 0;
  std::memcpy(&registers, data + 1, 8);
  const std::string_view text(reinterpret_cast<const char*>(data + 9), size - 9);
  tilesim::ptx::PtxProgram program;
  if (!tilesim::ptx::parsePtx(text, placeholders, program).empty()) return 0;
  if (program.numRegisters > tilesim::ptx::kMaxPtxRegisters || program.instructions.size() > tilesim::ptx::kMaxPtxInstructions)
    fuzzPropertyFailed("ptx_fuzz", "a program beyond the subset's bounds parsed");
  if (!tilesim::ptx::validatePtx(program).empty()) return 0;
  tilesim::ptx::PtxMachine machine(program);
  for (int p = 0; p < placeholders; ++p) machine.setOperand(p, registers * static_cast<uint64_t>(p + 1));
  std::string error;
  if (!machine.run(&error)) fuzzPropertyFailed("ptx_fuzz", ("validated asm failed to run: " + error).c_str());
  for (int p = 0; p < placeholders; ++p) (void)machine.operand(p);
  return 0;
}

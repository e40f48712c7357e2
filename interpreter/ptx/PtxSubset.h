// A small, exact subset of PTX for `tt.elementwise_inline_asm` (tl.inline_asm_elementwise): the instructions
// real Triton kernels put in elementwise asm — integer and bit ops, byte permutes, f16x2/bf16x2 packed math,
// conversions, FMA, and the approximate `ex2`/`tanh` — run on a tiny register machine, one asm invocation at a
// time. Scheduling hints with no data effect (`griddepcontrol.*` of programmatic dependent launch) are no-ops.
// Anything outside the subset is a clear "unsupported" answer naming the instruction, never a guess.
//
// Semantics follow the PTX ISA 8.5 sections named beside each instruction in PtxIntegerOps.cpp, PtxFloatOps.cpp
// and PtxConvert.cpp; the opcodes the machine knows are the rows of PtxOpcodes.cpp. Values are exact:
// integer ops wrap, float ops round to nearest even with NVIDIA's canonical NaN, conversions round as their
// modifier says. Two instructions are approximate on the GPU; the machine computes the correctly rounded value
// and reports how far the hardware may be (`approximation`, in units of the result), so the interpreter can carry
// it as an error bound under the `triton` profile:
//   ex2.approx.f32  (§9.7.3.21): max relative error 2^-22 over the full range (2 ulp of f32);
//   tanh.approx.f32 (§9.7.3.25): max relative error 2^-11 (Triton's GeGLU/GELU helpers use it).
//
//   PtxProgram program;
//   std::string error = parsePtx("lop3.b32 $0, $1, $2, $3, 0xE8;", /*operands=*/4, program);
//   PtxMachine machine(program);
//   machine.setOperand(1, a); ... machine.run(&error); uint64_t r = machine.operand(0);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilesim::ptx {

// An instruction operand: a register (declared with .reg, or an asm placeholder $N), an immediate, or a vector
// of registers `{a, b}` (mov's pack/unpack form).
struct PtxOperand {
  enum class Kind : uint8_t { Register, Immediate, Vector };
  Kind kind = Kind::Register;
  int reg = -1;                 // index into the machine's register file
  uint64_t immediate = 0;       // raw bits; `0f3F800000` hex floats are bit patterns, decimal ints as written
  bool immediateIsFloat = false;
  double floatImmediate = 0;    // a decimal float literal (rare in PTX; `1.0` is accepted)
  std::vector<int> vector;      // Vector: the registers, lowest bits first
};

struct PtxInstruction {
  std::string text;              // as written, for messages
  std::string opcode;            // "lop3"
  std::vector<std::string> modifiers;  // {"b32"}, {"rn", "f16", "f32"}
  std::vector<PtxOperand> operands;
  int guard = -1;                // @p / @!p predicate register, or -1
  bool guardNegated = false;
};

struct PtxProgram {
  std::vector<PtxInstruction> instructions;
  int numRegisters = 0;          // placeholders $0..$N-1 are registers 0..N-1
  int numPlaceholders = 0;
  bool hasApproximation = false; // ex2.approx / tanh.approx appear
};

// Resource bounds on what the asm text controls (real Triton asm strings are a few hundred bytes with a handful
// of registers): the text, the registers it declares, the instructions, a vector operand's registers.
inline constexpr size_t kMaxPtxTextBytes = size_t{1} << 20;
inline constexpr int kMaxPtxRegisters = 1 << 16;
inline constexpr size_t kMaxPtxInstructions = 1 << 16;
inline constexpr size_t kMaxPtxVectorRegisters = 8;

// Parses `asm` (comments `//` and `/* */`, `{ }` scopes, `.reg` declarations, `;`-separated instructions) with
// `placeholders` operands $0..$N-1. Returns an empty string, or an error naming the offending text (or the bound
// it exceeds). A vector operand `{a, b}` must hold 1..8 registers.
std::string parsePtx(std::string_view asmText, int placeholders, PtxProgram& program);

// Whether the machine can run every instruction of `program`, whatever the register values and predicates: each
// is executed once, guards ignored, on a scratch machine. "" or the message run() would give. `tilesim check`
// and the interpreter (before the first invocation) call it, so check rejects what run cannot handle.
std::string validatePtx(const PtxProgram& program);

// The machine's registers: 64-bit slots (each holds its value in the low bits), whether the asm wrote each, and
// the relative error bound the GPU may show on each (ex2 / tanh.approx). The instruction handlers work on it.
struct PtxRegisterFile {
  explicit PtxRegisterFile(int count) : bits(static_cast<size_t>(count)) {}
  uint64_t read(int reg) const { return bits[static_cast<size_t>(reg)]; }
  uint64_t value(const PtxOperand& operand) const;  // a register's bits, an immediate's, 0 for a vector
  void write(const PtxOperand& operand, uint64_t value, int width);  // the low `width` bits; only to a register
  void writeRegister(int reg, uint64_t value, int width);
  void setApproximation(int reg, double bound) { approximation[static_cast<size_t>(reg)] = bound; }
  void reset();  // before a run: nothing written, every bound 0 (the values stay)

  std::vector<uint64_t> bits;
  std::vector<bool> written;
  std::vector<double> approximation;
};

// Runs a parsed program on its register file.
class PtxMachine {
 public:
  explicit PtxMachine(const PtxProgram& program) : program_(program), registers_(program.numRegisters) {}
  void setOperand(int placeholder, uint64_t bits) { registers_.bits[static_cast<size_t>(placeholder)] = bits; }
  uint64_t operand(int placeholder) const { return registers_.read(placeholder); }
  // Relative error bound the GPU may show on each placeholder after run() (0 = exact).
  double approximation(int placeholder) const;
  // Whether the asm wrote the placeholder (an output it never writes holds garbage on the GPU).
  bool written(int placeholder) const {
    return static_cast<size_t>(placeholder) < registers_.written.size() && registers_.written[static_cast<size_t>(placeholder)];
  }
  // Executes every instruction in order; false (with `error` naming the instruction) for one outside the subset.
  bool run(std::string* error);
  // Executes every instruction once, ignoring guards (validatePtx).
  bool runUnguarded(std::string* error);

 private:
  bool execute(const PtxInstruction& instruction, std::string* error);
  const PtxProgram& program_;
  PtxRegisterFile registers_;
};

}  // namespace tilesim::ptx

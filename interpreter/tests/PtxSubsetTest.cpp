// The inline-asm PTX subset (interpreter/ptx/PtxSubset.h): each instruction against its definition in the PTX ISA
// (8.5), with operands chosen so the expected value follows from that definition by hand (stated beside each), and
// the answers outside the subset: a clear message naming the instruction.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "interpreter/ptx/PtxSubset.h"

namespace tilesim::ptx {
namespace {

// Runs `text` with placeholders $0 (the output) and $1.. (the inputs); returns $0.
uint64_t run1(const std::string& text, std::vector<uint64_t> inputs, std::string* error = nullptr) {
  PtxProgram program;
  std::string parseError = parsePtx(text, 1 + static_cast<int>(inputs.size()), program);
  if (!parseError.empty()) {
    if (error) *error = parseError;
    else ADD_FAILURE() << parseError;
    return 0;
  }
  PtxMachine machine(program);
  for (size_t i = 0; i < inputs.size(); ++i) machine.setOperand(static_cast<int>(i) + 1, inputs[i]);
  std::string runError;
  if (!machine.run(&runError)) {
    if (error) *error = runError;
    else ADD_FAILURE() << runError;
  }
  return machine.operand(0);
}

uint32_t bitsOf(float value) { return std::bit_cast<uint32_t>(value); }

TEST(PtxSubset, IntegerAndLogic) {
  EXPECT_EQ(run1("add.s32 $0, $1, $2;", {0x7FFFFFFF, 1}), 0x80000000u);          // wraps
  EXPECT_EQ(run1("mul.hi.u32 $0, $1, $2;", {0x80000000u, 4}), 2u);               // (2^31 * 4) >> 32
  EXPECT_EQ(run1("mul.hi.s32 $0, $1, $2;", {0xFFFFFFFFu, 0xFFFFFFFFu}), 0u);     // (-1 * -1) >> 32
  EXPECT_EQ(run1("mad.lo.s32 $0, $1, $2, $3;", {3, 5, 7}), 22u);
  EXPECT_EQ(run1("shl.b32 $0, $1, $2;", {1, 32}), 0u);                           // shifts clamp at the width
  EXPECT_EQ(run1("shr.s32 $0, $1, $2;", {0x80000000u, 40}), 0xFFFFFFFFu);        // sign fill
  EXPECT_EQ(run1("min.s32 $0, $1, $2;", {0xFFFFFFFFu, 1}), 0xFFFFFFFFu);         // -1 < 1 signed
  EXPECT_EQ(run1("min.u32 $0, $1, $2;", {0xFFFFFFFFu, 1}), 1u);
  // lop3 LUT 0xE8 is the majority function: bit set where at least two of a, b, c have it.
  EXPECT_EQ(run1("lop3.b32 $0, $1, $2, $3, 0xE8;", {0b1100, 0b1010, 0b0110}), 0b1110u);
  // LUT 0x96 is a ^ b ^ c.
  EXPECT_EQ(run1("lop3.b32 $0, $1, $2, $3, 0x96;", {0xF0F0F0F0u, 0xFF00FF00u, 0x12345678u}),
            0xF0F0F0F0u ^ 0xFF00FF00u ^ 0x12345678u);
}

TEST(PtxSubset, BytePermuteAndFunnelShift) {
  // prmt: bytes {b, a} are numbered 0..7 from a's lowest; selector nibble i picks result byte i.
  EXPECT_EQ(run1("prmt.b32 $0, $1, $2, $3;", {0x44332211u, 0x88776655u, 0x3210u}), 0x44332211u);  // a itself
  EXPECT_EQ(run1("prmt.b32 $0, $1, $2, $3;", {0x44332211u, 0x88776655u, 0x7654u}), 0x88776655u);  // b itself
  EXPECT_EQ(run1("prmt.b32 $0, $1, $2, $3;", {0x44332211u, 0x88776655u, 0x0123u}), 0x11223344u);  // a reversed
  EXPECT_EQ(run1("prmt.b32 $0, $1, $2, $3;", {0x000000F0u, 0, 0x8888u}), 0xFFFFFFFFu);  // bit 3: byte 0's sign
  // shf.l.wrap: the high 32 bits of ({b:a} << n); shf.r.clamp: the low 32 bits of ({b:a} >> min(n, 32)).
  EXPECT_EQ(run1("shf.l.wrap.b32 $0, $1, $2, $3;", {0x80000000u, 0x00000001u, 1}), 0x00000003u);
  EXPECT_EQ(run1("shf.l.wrap.b32 $0, $1, $2, $3;", {0x80000000u, 0x00000001u, 33}), 0x00000003u);  // 33 & 31
  EXPECT_EQ(run1("shf.r.clamp.b32 $0, $1, $2, $3;", {0, 0xABCD0000u, 40}), 0xABCD0000u);       // clamps at 32
}

TEST(PtxSubset, PackedHalfArithmeticAndConversions) {
  // f16: 1.0 = 0x3C00, 2.0 = 0x4000, 3.0 = 0x4200, 0.5 = 0x3800. Low half first.
  EXPECT_EQ(run1("add.rn.f16x2 $0, $1, $2;", {0x40003C00u, 0x3C003C00u}), 0x42004000u);   // {1+1, 2+1}
  EXPECT_EQ(run1("mul.rn.f16x2 $0, $1, $2;", {0x40003C00u, 0x38003800u}), 0x3C003800u);   // {0.5, 1}
  EXPECT_EQ(run1("fma.rn.f16x2 $0, $1, $2, $3;", {0x40004000u, 0x40004000u, 0xBC00BC00u}), 0x42004200u);  // 2*2-1
  // bf16: 1.0 = 0x3F80, 2.0 = 0x4000.
  EXPECT_EQ(run1("add.rn.bf16x2 $0, $1, $2;", {0x3F803F80u, 0x3F803F80u}), 0x40004000u);
  // cvt.rn.f16x2.f32 d, a, b puts a in the high half and b in the low half.
  EXPECT_EQ(run1("cvt.rn.f16x2.f32 $0, $1, $2;", {bitsOf(2.0f), bitsOf(1.0f)}), 0x40003C00u);
  EXPECT_EQ(run1("cvt.rn.bf16x2.f32 $0, $1, $2;", {bitsOf(2.0f), bitsOf(1.0f)}), 0x40003F80u);
  // e4m3: 1.0 = 0x38, 448 (max finite) = 0x7E; satfinite clamps 1000 to 448.
  EXPECT_EQ(run1("cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;", {bitsOf(1000.0f), bitsOf(1.0f)}), 0x7E38u);
  EXPECT_EQ(run1("cvt.rn.f16x2.e4m3x2 $0, $1;", {0x3838u}), 0x3C003C00u);
  EXPECT_EQ(run1("cvt.f32.f16 $0, $1;", {0x3800u}), bitsOf(0.5f));
  EXPECT_EQ(run1("cvt.rn.f16.f32 $0, $1;", {bitsOf(65520.0f)}), 0x7C00u);                 // rounds up to inf
  EXPECT_EQ(run1("cvt.rzi.s32.f32 $0, $1;", {bitsOf(-2.7f)}), 0xFFFFFFFEu);               // -2
  EXPECT_EQ(run1("cvt.rzi.s32.f32 $0, $1;", {bitsOf(3e9f)}), 0x7FFFFFFFu);                // saturates
  EXPECT_EQ(run1("cvt.rni.s32.f32 $0, $1;", {bitsOf(2.5f)}), 2u);                         // nearest even
}

TEST(PtxSubset, FloatOpsRoundOnceAndCanonicaliseNaN) {
  // fma.rn.f32 rounds once: (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; a separate multiply would give 0.
  const float a = 1.0f + 0x1p-23f, b = 1.0f - 0x1p-23f;
  EXPECT_EQ(run1("fma.rn.f32 $0, $1, $2, $3;", {bitsOf(a), bitsOf(b), bitsOf(-1.0f)}), bitsOf(-0x1p-46f));
  EXPECT_EQ(run1("add.f32 $0, $1, $2;", {0x7FC00001u, bitsOf(1.0f)}), 0x7FFFFFFFu);        // canonical NaN
  EXPECT_EQ(run1("mov.b32 $0, 0f3F800000;", {}), bitsOf(1.0f));
  EXPECT_EQ(run1("neg.f32 $0, $1;", {0x7FC00001u}), 0xFFC00001u);                           // sign bit only
}

TEST(PtxSubset, RegistersScopesPredicatesAndVectors) {
  const std::string text =
      "{ .reg .b16 lo, hi; .reg .pred p;\n"
      "  mov.b32 {lo, hi}, $1;        // unpack\n"
      "  setp.lt.u32 p, $2, 5;\n"
      "  @p mov.b32 $0, {hi, lo};     /* swap halves when $2 < 5 */\n"
      "  @!p mov.b32 $0, $1; }";
  EXPECT_EQ(run1(text, {0x11112222u, 3}), 0x22221111u);
  EXPECT_EQ(run1(text, {0x11112222u, 9}), 0x11112222u);
}

TEST(PtxSubset, SchedulingHintsAreNoOpsAndUnknownsAreNamed) {
  PtxProgram program;
  ASSERT_EQ(parsePtx("griddepcontrol.wait; // dummy $0", 1, program), "");
  PtxMachine machine(program);
  std::string error;
  EXPECT_TRUE(machine.run(&error)) << error;
  EXPECT_FALSE(machine.written(0));  // the dummy output holds garbage on the GPU: the interpreter marks it undefined

  run1("bfind.u32 $0, $1;", {8}, &error);
  EXPECT_NE(error.find("bfind.u32"), std::string::npos) << error;
  EXPECT_NE(error.find("outside tilesim's PTX subset"), std::string::npos) << error;
  error.clear();
  run1("add.s32 $0, $1, r9;", {1}, &error);
  EXPECT_NE(error.find("r9"), std::string::npos) << error;
  error.clear();
  run1("add.s32 $0, $1, $1", {1}, &error);
  EXPECT_NE(error.find("missing ';'"), std::string::npos) << error;
}

TEST(PtxSubset, ApproximateInstructionsRecordTheirError) {
  PtxProgram program;
  ASSERT_EQ(parsePtx("ex2.approx.f32 $0, $1;", 2, program), "");
  PtxMachine machine(program);
  machine.setOperand(1, bitsOf(3.0f));
  std::string error;
  ASSERT_TRUE(machine.run(&error)) << error;
  EXPECT_EQ(machine.operand(0), bitsOf(8.0f));  // the correctly rounded 2^3
  EXPECT_GT(machine.approximation(0), 0.0);
}

}  // namespace
}  // namespace tilesim::ptx

// The wgmma layouts (gpu_backend/layout/WgmmaLayouts.h) against the PTX ISA, written here independently:
//  - operand reads: a model of how the hardware forms the shared-memory address of each element of an m64 x k16
//    (a, K-major) or k16 x nN (b, MN-major) operand from a 64-bit matrix descriptor (§9.7.15.5.1.1: start address,
//    leading and stride byte offsets and swizzle mode decoded from the bits; rows of a core-matrix group one
//    swizzle width apart, groups of 8 rows a stride byte offset apart, blocks of the contiguous dimension a
//    leading byte offset apart; the swizzle XORs address bits [4, 4 + s) with [7, 7 + s) of the whole address).
//    For every instruction the lowering issues, each element must be read from where the placement stored it.
//  - the accumulator: the registers each instruction writes, through the mma.sync accumulator layout, must hold
//    the D fragment of §9.7.15.5.1 ("Register fragments, matrix D"): thread t of warp w of warpgroup g, register
//    i: row 64 g + 16 (w % 4) + t / 4 + 8 ((i >> 1) & 1), column 8 (i >> 2) + 2 (t % 4) + (i & 1).
//  - which dots of the benchmark kernels take wgmma.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/TensorCoreDots.h"
#include "gpu_backend/layout/WgmmaLayouts.h"
#include "ir/text/Parser.h"

namespace tilesim::gpu {
namespace {

struct Descriptor {
  uint64_t start, leading, stride;
  int swizzleBytes;
};

Descriptor decode(uint64_t bits) {
  const int mode = static_cast<int>(bits >> 62);
  return {(bits & 0x3FFF) << 4, ((bits >> 16) & 0x3FFF) << 4, ((bits >> 32) & 0x3FFF) << 4,
          mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0};
}

// The byte address the hardware reads for element (strided, contiguous) of an operand, where `strided` runs
// along the rows (a: m; b: k) and `contiguous` along the contiguous dimension (a: k; b: n).
uint64_t hardwareAddress(const Descriptor& d, int64_t strided, int64_t contiguous, int elementBytes) {
  const int64_t perRow = d.swizzleBytes / elementBytes;
  const uint64_t address = d.start + static_cast<uint64_t>(strided / 8) * d.stride +
                           static_cast<uint64_t>(strided % 8) * static_cast<uint64_t>(d.swizzleBytes) +
                           static_cast<uint64_t>(contiguous / perRow) * d.leading +
                           static_cast<uint64_t>(contiguous % perRow) * static_cast<uint64_t>(elementBytes);
  const uint64_t mask = static_cast<uint64_t>(d.swizzleBytes / 16 - 1);
  return address ^ (((address >> 7) & mask) << 4);
}

// Every element of every instruction's a and b, read by the model, where the placement stored it (buffers at
// 1024-aligned addresses: the model's swizzle uses whole addresses).
void checkOperandReads(int64_t m, int64_t n, int64_t depth, int numWarps, bool bKMajor = false) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(depth) + " w" + std::to_string(numWarps) +
               (bKMajor ? " b K-major" : ""));
  std::optional<NvmmaTile> a = nvmmaTile(m, depth, 2), b = bKMajor ? nvmmaTile(n, depth, 2) : nvmmaTile(depth, n, 2);
  ASSERT_TRUE(a && b);
  WgmmaPlan plan;
  plan.a = *a, plan.b = *b, plan.bKMajor = bKMajor, plan.m = m, plan.n = n, plan.depth = depth;
  const SharedPlacement aPlacement = wgmmaOperandPlacement(plan, 0), bPlacement = wgmmaOperandPlacement(plan, 1);
  std::set<uint64_t> aOffsets, bOffsets;  // bijective into the buffer
  for (int64_t index = 0; index < m * depth; ++index) aOffsets.insert(aPlacement.offset(static_cast<uint64_t>(index)));
  for (int64_t index = 0; index < depth * n; ++index) bOffsets.insert(bPlacement.offset(static_cast<uint64_t>(index)));
  EXPECT_EQ(static_cast<int64_t>(aOffsets.size()), m * depth);
  EXPECT_EQ(*aOffsets.rbegin(), static_cast<uint64_t>(m * depth - 1));
  EXPECT_EQ(static_cast<int64_t>(bOffsets.size()), depth * n);
  const uint64_t aBase = 2048, bBase = 2048 + static_cast<uint64_t>((a->bytes() + 1023) / 1024 * 1024);
  for (int warpgroup = 0; warpgroup < numWarps / 4; ++warpgroup)
    for (int64_t block = 0; block < m / (16 * numWarps); ++block)
      for (int64_t k = 0; k < depth; k += 16) {
        // As lowering/Dot.cpp forms them: base >> 4, + 64 g rows, + the instruction's start.
        const uint64_t aBits = a->descriptorBits() | ((aBase >> 4) + static_cast<uint64_t>(warpgroup) * (a->startOffset(64, 0) >> 4) +
                                                      (a->startOffset(16 * numWarps * block, k) >> 4));
        const uint64_t bBits = b->descriptorBits() | ((bBase >> 4) + (plan.bStartOffset(k) >> 4));
        const Descriptor aDescriptor = decode(aBits), bDescriptor = decode(bBits);
        const int64_t row0 = 64 * warpgroup + 16 * numWarps * block;
        for (int64_t row = 0; row < 64; ++row)
          for (int64_t kk = 0; kk < 16; ++kk) {
            const uint64_t stored = aBase + 2 * aPlacement.offset(static_cast<uint64_t>((row0 + row) * depth + k + kk));
            ASSERT_EQ(hardwareAddress(aDescriptor, row, kk, 2), stored) << "a row " << row0 + row << " k " << k + kk;
          }
        for (int64_t kk = 0; kk < 16; ++kk)
          for (int64_t column = 0; column < n; ++column) {
            const uint64_t stored = bBase + 2 * bPlacement.offset(static_cast<uint64_t>((k + kk) * n + column));
            // MN-major: rows along k, n contiguous; K-major: rows along n, k contiguous (as a's).
            const uint64_t read = bKMajor ? hardwareAddress(bDescriptor, column, kk, 2) : hardwareAddress(bDescriptor, kk, column, 2);
            ASSERT_EQ(read, stored) << "b k " << k + kk << " n " << column;
          }
      }
}

TEST(WgmmaLayouts, EveryOperandElementIsReadWhereItWasStored) {
  checkOperandReads(128, 256, 64, 8);  // Triton's best matmul tile: 128-byte swizzles, b in four blocks
  checkOperandReads(128, 128, 32, 4);  // a 64-byte swizzle
  checkOperandReads(64, 16, 16, 4);    // 32-byte swizzles
  checkOperandReads(128, 64, 128, 4);  // attention's P V at D 64, BLOCK_N 128: a in two blocks
  checkOperandReads(256, 128, 64, 8);  // two row blocks per warpgroup
  checkOperandReads(128, 128, 128, 8, true);  // attention's q k^T at D 128: k K-major, two 128-byte blocks of k
  checkOperandReads(64, 64, 64, 4, true);
  checkOperandReads(128, 256, 32, 8, true);    // a 64-byte swizzle, 256 rows of b
}

// wgmma's a from registers: the words registerAWords picks, through the fragment layout, must hold the ISA's
// register fragment of A (§9.7.15.5.1, "Register fragments, matrix A", the same as mma.m16n8k16's): thread t of
// warp w (warpgroup w / 4), word i of row block b, k step s, its element h (0: low half, 1: high): row
// 64 (w / 4) + 16 (w % 4) + 16 num_warps b + t / 4 + 8 (i & 1), column 16 s + 8 (i >> 1) + 2 (t % 4) + h.
TEST(WgmmaLayouts, RegisterAWordsHoldTheIsasAFragment) {
  for (auto [m, n, depth, warps] : {std::tuple<int64_t, int64_t, int64_t, int>{128, 128, 128, 8}, {128, 64, 64, 4},
                                    {64, 64, 64, 4}, {256, 128, 64, 8}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(depth) + " w" + std::to_string(warps));
    WgmmaPlan plan;
    plan.m = m, plan.n = n, plan.depth = depth, plan.numWarps = warps;
    plan.instructionRegisters.resize(static_cast<size_t>(m / (16 * warps)));
    const LinearLayout fragment = registerAFragment(plan);
    const std::optional<std::vector<int>> words = registerAWords(plan);
    ASSERT_TRUE(words);
    const int steps = static_cast<int>(depth / 16);
    ASSERT_EQ(static_cast<int>(words->size()), 4 * plan.rowBlocks() * steps);
    for (int warp = 0; warp < warps; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (int block = 0; block < plan.rowBlocks(); ++block)
          for (int step = 0; step < steps; ++step)
            for (int i = 0; i < 4; ++i)
              for (int h = 0; h < 2; ++h) {
                const int reg = (*words)[static_cast<size_t>(4 * (block * steps + step) + i)] + h;
                const std::vector<int64_t> element = fragment.apply(std::vector<int64_t>{warp, lane, reg});
                const int64_t row = 64 * (warp / 4) + 16 * (warp % 4) + 16 * warps * block + lane / 4 + 8 * (i & 1);
                const int64_t column = 16 * step + 8 * (i >> 1) + 2 * (lane % 4) + h;
                ASSERT_EQ(element, (std::vector<int64_t>{row, column}))
                    << "warp " << warp << " lane " << lane << " block " << block << " step " << step << " word " << i;
              }
  }
}

TEST(WgmmaLayouts, NarrowRowsHaveNoTile) {
  EXPECT_FALSE(nvmmaTile(64, 8, 2));  // 16 bytes per row
  EXPECT_EQ(nvmmaTile(64, 16, 2)->swizzleBytes, 32);
  EXPECT_EQ(nvmmaTile(64, 32, 2)->swizzleBytes, 64);
  EXPECT_EQ(nvmmaTile(64, 256, 2)->swizzleBytes, 128);
}

// A kernel of one dot of the given shape and element types.
std::string dotKernel(int64_t m, int64_t n, int64_t k, const std::string& in, const std::string& out,
                      const std::string& attributes = "") {
  const std::string a = "tensor<" + std::to_string(m) + "x" + std::to_string(k) + "x" + in + ">";
  const std::string b = "tensor<" + std::to_string(k) + "x" + std::to_string(n) + "x" + in + ">";
  const std::string c = "tensor<" + std::to_string(m) + "x" + std::to_string(n) + "x" + out + ">";
  return "module {\n  tt.func public @k(%a: " + a + ", %b: " + b + ", %c: " + c + ") {\n    %d = tt.dot %a, %b, %c" +
         attributes + " : " +
         a + " * " + b + " -> " + c + "\n    tt.return\n  }\n}\n";
}

struct Planned {
  std::optional<WgmmaPlan> plan;
  std::optional<LinearLayout> accumulator;
};

Planned planOf(int64_t m, int64_t n, int64_t k, const std::string& in, const std::string& out, int numWarps,
               bool bKMajor = false, const std::string& attributes = "") {
  ParseResult parsed = parseModule(dotKernel(m, n, k, in, out, attributes), "dot.ttir");
  EXPECT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  if (!parsed.module) return {};
  const Operation* dot = nullptr;
  for (const auto& op : parsed.module->kernel()->body().operations)
    if (op->kind == OpKind::TTDot) dot = op.get();
  EXPECT_NE(dot, nullptr);
  Planned planned;
  planned.accumulator = tensorCoreResultLayout(*dot, numWarps, 227 * 1024);
  if (planned.accumulator) planned.plan = wgmmaPlan(*dot, *planned.accumulator, numWarps, 227 * 1024, bKMajor);
  return planned;
}

TEST(WgmmaLayouts, EachInstructionWritesTheIsasDFragment) {
  for (auto [m, n, warps] : {std::tuple<int64_t, int64_t, int>{128, 256, 8}, {128, 128, 4}, {64, 64, 4}, {256, 64, 8}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " w" + std::to_string(warps));
    Planned planned = planOf(m, n, 64, "f16", "f32", warps);
    ASSERT_TRUE(planned.plan);
    const WgmmaPlan& plan = *planned.plan;
    EXPECT_EQ(plan.rowBlocks(), m / (16 * warps));
    std::set<int> written;
    for (int warp = 0; warp < warps; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (int block = 0; block < plan.rowBlocks(); ++block)
          for (int i = 0; i < n / 2; ++i) {
            const int reg = plan.instructionRegisters[static_cast<size_t>(block)][static_cast<size_t>(i)];
            written.insert(reg);
            const std::vector<int64_t> element = planned.accumulator->apply(std::vector<int64_t>{warp, lane, reg});
            const int64_t row = 64 * (warp / 4) + 16 * warps * block + 16 * (warp % 4) + lane / 4 + 8 * ((i >> 1) & 1);
            const int64_t column = 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
            ASSERT_EQ(element, (std::vector<int64_t>{row, column})) << "warp " << warp << " lane " << lane << " block " << block << " d" << i;
          }
    EXPECT_EQ(static_cast<int>(written.size()), numRegisters(*planned.accumulator));
  }
}

TEST(WgmmaLayouts, TakesTheDotsItCanRun) {
  EXPECT_TRUE(planOf(128, 256, 64, "f16", "f32", 8).plan);
  EXPECT_TRUE(planOf(128, 128, 32, "bf16", "f32", 4).plan);
  EXPECT_TRUE(planOf(64, 64, 16, "f16", "f16", 4).plan);
  EXPECT_STREQ(planOf(128, 128, 32, "bf16", "f32", 4).plan->types, "f32.bf16.bf16");
  EXPECT_FALSE(planOf(32, 64, 32, "f16", "f32", 2).plan);     // not a warpgroup
  EXPECT_FALSE(planOf(64, 128, 32, "f16", "f32", 8).plan);    // warps along N: not wgmma's fragment
  EXPECT_FALSE(planOf(128, 512, 32, "f16", "f32", 4).plan);   // N over 256
  EXPECT_FALSE(planOf(128, 128, 32, "f32", "f32", 4).plan);   // ieee f32: the FMA path
  EXPECT_FALSE(planOf(128, 8, 32, "f16", "f32", 4).plan);     // b rows of 16 bytes
  // fp8: b K-major whatever its registers (the instruction has no transposes), k32 steps, 1-byte tiles.
  const std::optional<WgmmaPlan> fp8 = planOf(128, 256, 64, "f8E4M3FN", "f32", 8, false).plan;
  ASSERT_TRUE(fp8);
  EXPECT_TRUE(fp8->bKMajor);
  EXPECT_STREQ(fp8->types, "f32.e4m3.e4m3");
  EXPECT_EQ(fp8->k, 32);
  EXPECT_EQ(fp8->a.elementBytes, 1);
  EXPECT_EQ(fp8->b.rows, 256);  // [N][K]
  EXPECT_EQ(fp8->b.swizzleBytes, 64);
  EXPECT_FALSE(planOf(128, 256, 64, "f8E4M3FN", "f16", 8, true).plan);  // an f16 accumulator: mma.sync
  // tf32: k8 steps of 4-byte elements, b K-major whatever its registers (copied or stored transposed).
  for (bool bRegistersAlongK : {false, true}) {
    const std::optional<WgmmaPlan> tf32 = planOf(128, 128, 32, "f32", "f32", 4, bRegistersAlongK, ", inputPrecision = tf32").plan;
    ASSERT_TRUE(tf32);
    EXPECT_STREQ(tf32->types, "f32.tf32.tf32");
    EXPECT_EQ(tf32->k, 8);
    EXPECT_EQ(tf32->a.elementBytes, 4);
    EXPECT_TRUE(tf32->bKMajor);
    EXPECT_EQ(tf32->b.rows, 128);  // [N][K]
    EXPECT_EQ(tf32->b.swizzleBytes, 128);
  }
  EXPECT_FALSE(planOf(128, 128, 32, "f32", "f32", 4, true, ", inputPrecision = tf32x3").plan);  // three dots: FMA
  // i8 into i32: as fp8; k32 steps, 1-byte tiles.
  const std::optional<WgmmaPlan> i8 = planOf(128, 128, 64, "i8", "i32", 4, false).plan;
  ASSERT_TRUE(i8);
  EXPECT_STREQ(i8->types, "s32.s8.s8");
  EXPECT_EQ(i8->k, 32);
  EXPECT_EQ(i8->b.elementBytes, 1);
  EXPECT_TRUE(i8->bKMajor);
  const std::optional<WgmmaPlan> kMajor = planOf(128, 128, 128, "f16", "f32", 8, true).plan;
  ASSERT_TRUE(kMajor);
  EXPECT_TRUE(kMajor->bKMajor);
  EXPECT_EQ(kMajor->b.rows, 128);
  EXPECT_EQ(kMajor->bStartOffset(64), kMajor->b.startOffset(0, 64));  // the second 128-byte column block
}

// The K-major tiles of fp8 and i8 (1-byte elements, k32) and tf32 (4-byte elements, k8): every element of every
// instruction read where it was stored (a and b K-major).
TEST(WgmmaLayouts, KMajorOperandElementsAreReadWhereTheyWereStored) {
  for (auto [bytes, k] : {std::pair<int, int>{1, 32}, {4, 8}})
    for (auto [m, n, depth] : {std::tuple<int64_t, int64_t, int64_t>{128, 256, 64}, {64, 64, 32}, {128, 128, 128}}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(depth) + " " + std::to_string(bytes) + "-byte");
      WgmmaPlan plan;
      plan.a = *nvmmaTile(m, depth, bytes), plan.b = *nvmmaTile(n, depth, bytes), plan.bKMajor = true;
      plan.m = m, plan.n = n, plan.depth = depth, plan.k = k;
      const SharedPlacement aPlacement = wgmmaOperandPlacement(plan, 0), bPlacement = wgmmaOperandPlacement(plan, 1);
      const uint64_t aBase = 4096, bBase = 4096 + static_cast<uint64_t>((plan.a.bytes() + 1023) / 1024 * 1024);
      for (int64_t k0 = 0; k0 < depth; k0 += plan.k) {
        const Descriptor a = decode(plan.a.descriptorBits() | ((aBase >> 4) + (plan.a.startOffset(0, k0) >> 4)));
        const Descriptor b = decode(plan.b.descriptorBits() | ((bBase >> 4) + (plan.bStartOffset(k0) >> 4)));
        for (int64_t kk = 0; kk < plan.k; ++kk) {
          for (int64_t row = 0; row < 64; ++row)
            ASSERT_EQ(hardwareAddress(a, row, kk, bytes), aBase + static_cast<uint64_t>(bytes) * aPlacement.offset(static_cast<uint64_t>(row * depth + k0 + kk)))
                << "a row " << row << " k " << k0 + kk;
          for (int64_t column = 0; column < n; ++column)
            ASSERT_EQ(hardwareAddress(b, column, kk, bytes), bBase + static_cast<uint64_t>(bytes) * bPlacement.offset(static_cast<uint64_t>((k0 + kk) * n + column)))
                << "b k " << k0 + kk << " n " << column;
        }
      }
    }
}

}  // namespace
}  // namespace tilesim::gpu

// The mma.sync layouts (gpu_backend/layout/DistributedLayouts.h: mmaLayout, mmaOperandGroup) against the PTX
// ISA's fragment tables (§9.7.14.5.7-9), written here independently as the ISA states them (groupID = lane >> 2,
// threadID_in_group = lane % 4). The test runs a whole dot the way lowering/Dot.cpp's tensor-core path does:
// every thread's registers from the operand layouts, for each accumulator group and k tile the registers the
// lowering hands to the instruction, the instruction executed as the ISA defines it (fragments placed by the
// ISA's tables, D = A B + C on integers), and the result read back through the accumulator layout; it must equal
// a plain matrix product, in every warp that holds a copy too.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "gpu_backend/layout/DistributedLayouts.h"

namespace tilesim::gpu {
namespace {

// (row, col) of element i of a thread's fragment, as the ISA's tables give them. wordBits: 0 tf32 (m16n8k8),
// 1 f16/bf16 (m16n8k16), 2 s8 (m16n8k32).
std::pair<int, int> isaA(int wordBits, int lane, int i) {
  const int group = lane >> 2, thread = lane % 4;
  switch (wordBits) {
    case 0: return {group + ((i == 1 || i == 3) ? 8 : 0), thread + (i >= 2 ? 4 : 0)};
    case 1: return {group + ((i < 2 || (i >= 4 && i < 6)) ? 0 : 8), thread * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
    default: return {group + ((i < 4 || (i >= 8 && i < 12)) ? 0 : 8), thread * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
  }
}
std::pair<int, int> isaB(int wordBits, int lane, int i) {
  const int group = lane >> 2, thread = lane % 4;
  switch (wordBits) {
    case 0: return {thread + (i >= 1 ? 4 : 0), group};
    case 1: return {thread * 2 + (i & 1) + (i >= 2 ? 8 : 0), group};
    default: return {thread * 4 + (i & 3) + (i >= 4 ? 16 : 0), group};
  }
}
std::pair<int, int> isaC(int lane, int i) { return {(lane >> 2) + (i >= 2 ? 8 : 0), (lane % 4) * 2 + (i & 1)}; }

struct DotCase {
  std::vector<int64_t> result;  // [B,]M,N
  int64_t depth;
  int wordBits;
  int warps;
};

int64_t flatOf(const std::vector<int64_t>& coordinates, const std::vector<int64_t>& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coordinates[d];
  return flat;
}

void runDot(const DotCase& dot) {
  const size_t rank = dot.result.size();
  const int64_t batches = rank == 3 ? dot.result[0] : 1, rows = dot.result[rank - 2], columns = dot.result[rank - 1];
  const int64_t depth = dot.depth;
  std::vector<int64_t> aShape = dot.result, bShape = dot.result;
  aShape[rank - 1] = depth;
  bShape[rank - 2] = depth;
  std::vector<int64_t> a(static_cast<size_t>(batches * rows * depth)), b(static_cast<size_t>(batches * depth * columns)),
      c(static_cast<size_t>(batches * rows * columns));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int64_t>((i * 7 + 3) % 13) - 6;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int64_t>((i * 5 + 1) % 11) - 5;
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<int64_t>(i % 17);

  const LinearLayout aLayout = mmaLayout(MmaOperand::A, dot.result, depth, dot.wordBits, dot.warps);
  const LinearLayout bLayout = mmaLayout(MmaOperand::B, dot.result, depth, dot.wordBits, dot.warps);
  const LinearLayout cLayout = mmaLayout(MmaOperand::Accumulator, dot.result, depth, dot.wordBits, dot.warps);
  ASSERT_EQ(numWarps(cLayout), dot.warps);
  ASSERT_TRUE(cLayout.isSurjective());
  const int kTile = 8 << dot.wordBits, kTiles = static_cast<int>(depth / kTile);
  const int aPerTile = 4 << dot.wordBits, bPerTile = 2 << dot.wordBits;
  const int groups = numRegisters(cLayout) / 4;
  ASSERT_EQ(numRegisters(cLayout) % 4, 0);

  auto at = [](const LinearLayout& layout, int warp, int lane, int reg) {
    return layout.apply(std::vector<int64_t>{warp, lane, reg});
  };
  std::vector<int64_t> result(c.size(), 0);
  std::vector<int> written(c.size(), 0);
  for (int warp = 0; warp < dot.warps; ++warp) {
    std::vector<std::vector<int64_t>> acc(32);  // acc[lane][reg]
    for (int lane = 0; lane < 32; ++lane)
      for (int reg = 0; reg < numRegisters(cLayout); ++reg)
        acc[static_cast<size_t>(lane)].push_back(c[static_cast<size_t>(flatOf(at(cLayout, warp, lane, reg), dot.result))]);
    for (int group = 0; group < groups; ++group) {
      const int aGroup = mmaOperandGroup(MmaOperand::A, dot.result, dot.warps, group);
      const int bGroup = mmaOperandGroup(MmaOperand::B, dot.result, dot.warps, group);
      for (int kt = 0; kt < kTiles; ++kt) {
        // The instruction as the ISA defines it: place each lane's fragment elements, multiply, scatter D.
        std::vector<int64_t> aTile(static_cast<size_t>(16 * kTile), 0), bTile(static_cast<size_t>(kTile * 8), 0), cTile(16 * 8, 0);
        std::vector<int> aSeen(aTile.size(), 0), bSeen(bTile.size(), 0), cSeen(cTile.size(), 0);
        for (int lane = 0; lane < 32; ++lane) {
          for (int i = 0; i < aPerTile; ++i) {
            const int reg = aPerTile * (kt + kTiles * aGroup) + i;
            ASSERT_LT(reg, numRegisters(aLayout));
            auto [row, col] = isaA(dot.wordBits, lane, i);
            aTile[static_cast<size_t>(row * kTile + col)] = a[static_cast<size_t>(flatOf(at(aLayout, warp, lane, reg), aShape))];
            ++aSeen[static_cast<size_t>(row * kTile + col)];
          }
          for (int i = 0; i < bPerTile; ++i) {
            const int reg = bPerTile * (kt + kTiles * bGroup) + i;
            ASSERT_LT(reg, numRegisters(bLayout));
            auto [row, col] = isaB(dot.wordBits, lane, i);
            bTile[static_cast<size_t>(row * 8 + col)] = b[static_cast<size_t>(flatOf(at(bLayout, warp, lane, reg), bShape))];
            ++bSeen[static_cast<size_t>(row * 8 + col)];
          }
          for (int i = 0; i < 4; ++i) {
            auto [row, col] = isaC(lane, i);
            cTile[static_cast<size_t>(row * 8 + col)] = acc[static_cast<size_t>(lane)][static_cast<size_t>(4 * group + i)];
            ++cSeen[static_cast<size_t>(row * 8 + col)];
          }
        }
        for (int seen : aSeen) ASSERT_EQ(seen, 1);
        for (int seen : bSeen) ASSERT_EQ(seen, 1);
        for (int seen : cSeen) ASSERT_EQ(seen, 1);
        for (int lane = 0; lane < 32; ++lane)
          for (int i = 0; i < 4; ++i) {
            auto [row, col] = isaC(lane, i);
            int64_t sum = cTile[static_cast<size_t>(row * 8 + col)];
            for (int k = 0; k < kTile; ++k)
              sum += aTile[static_cast<size_t>(row * kTile + k)] * bTile[static_cast<size_t>(k * 8 + col)];
            acc[static_cast<size_t>(lane)][static_cast<size_t>(4 * group + i)] = sum;
          }
      }
    }
    for (int lane = 0; lane < 32; ++lane)
      for (int reg = 0; reg < numRegisters(cLayout); ++reg) {
        const int64_t flat = flatOf(at(cLayout, warp, lane, reg), dot.result);
        const int64_t value = acc[static_cast<size_t>(lane)][static_cast<size_t>(reg)];
        if (written[static_cast<size_t>(flat)]++) {
          ASSERT_EQ(result[static_cast<size_t>(flat)], value) << "copies disagree at " << flat;
        }
        result[static_cast<size_t>(flat)] = value;
      }
  }
  for (int64_t batch = 0; batch < batches; ++batch)
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t n = 0; n < columns; ++n) {
        int64_t expected = c[static_cast<size_t>((batch * rows + m) * columns + n)];
        for (int64_t k = 0; k < depth; ++k)
          expected += a[static_cast<size_t>((batch * rows + m) * depth + k)] * b[static_cast<size_t>((batch * depth + k) * columns + n)];
        ASSERT_EQ(result[static_cast<size_t>((batch * rows + m) * columns + n)], expected)
            << "at [" << batch << "][" << m << "][" << n << "]";
      }
}

TEST(MmaLayout, F16TilesOnWarpsAlongM) { runDot({{64, 64}, 32, 1, 4}); }
TEST(MmaLayout, F16TilesOnWarpsAlongN) { runDot({{16, 64}, 16, 1, 4}); }
TEST(MmaLayout, F16FewerTilesThanWarpsGivesCopies) { runDot({{16, 16}, 32, 1, 8}); }
TEST(MmaLayout, F16RepeatsInRegisters) { runDot({{128, 64}, 64, 1, 4}); }
TEST(MmaLayout, Tf32) { runDot({{32, 32}, 32, 0, 4}); }
TEST(MmaLayout, Int8) { runDot({{16, 32}, 64, 2, 4}); }
TEST(MmaLayout, BatchedOnWarpsAndRegisters) {
  runDot({{2, 16, 8}, 16, 1, 4});
  runDot({{4, 32, 16}, 32, 1, 2});
  runDot({{2, 32, 16}, 8, 0, 1});
}

TEST(MmaLayout, AccumulatorIsTheIsaTableInOneTile) {
  // One 16 x 8 tile, one warp: register i of lane l is the ISA's c_i: row groupID (+8 for c2, c3), column 2t + i%2.
  LinearLayout layout = mmaLayout(MmaOperand::Accumulator, std::vector<int64_t>{16, 8}, 16, 1, 1);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      auto [row, col] = isaC(lane, i);
      EXPECT_EQ(layout.apply(std::vector<int64_t>{0, lane, i}), (std::vector<int64_t>{row, col}));
    }
}

}  // namespace
}  // namespace tilesim::gpu

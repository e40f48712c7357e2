// Shared-memory placements (gpu_backend/layout/SharedLayouts.h) and the shared-memory plan
// (gpu_backend/lowering/SharedMemory.h).
//
// The bank model is checked on the textbook cases first (a row of 32 floats is one wavefront, a column of a
// row-major 32 x 32 float tile is 32), then the placements: every one is a bijection of the tensor's elements
// onto the buffer (so a conversion through it moves every element to where the target reads it), keeps
// vectors aligned, and is never worse than the row-major placement; for the conversions the GPU backend makes
// most (a transpose, a blocked tile into mma.sync fragments and back) it reaches the fewest wavefronts on both
// sides, where row-major does not. Reads by ldmatrix are run lane by lane as the PTX ISA defines the
// instruction and must deliver every register the target layout asks for.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/SharedLayouts.h"
#include "gpu_backend/layout/TargetLimits.h"
#include "gpu_backend/lowering/SharedMemory.h"

namespace tilesim::gpu {
namespace {

LinearLayout blocked(std::vector<int64_t> shape, int warps, int vector) {
  return blockedLayout(shape, defaultBlockedParams(shape, warps, vector));
}

// The layout of tt.trans of a [rows, cols] tensor in `layout`: the same registers, the index's two halves
// swapped (row bits become the low, fastest bits).
LinearLayout transposed(const LinearLayout& layout, int rowBits, int colBits) {
  std::vector<uint64_t> bases;
  for (uint64_t b : layout.bases()) bases.push_back(((b & ((1u << colBits) - 1)) << rowBits) | (b >> colBits));
  return LinearLayout(layout.inDims(), {{"dim0", colBits}, {"dim1", rowBits}}, bases);
}

// A blocked [rows, cols] tile whose threads walk the rows fastest or, at random, the columns (tt.trans of a
// loaded [cols, rows] tile).
LinearLayout randomlyOrderedBlocked(std::mt19937& random, int rowBits, int colBits, int warps, int vector) {
  const int64_t rows = int64_t{1} << rowBits, cols = int64_t{1} << colBits;
  return random() % 2 ? transposed(blocked({cols, rows}, warps, vector), colBits, rowBits)
                      : blocked({rows, cols}, warps, vector);
}

// `trials` draws of a random 2^rowBits x 2^colBits tile (each side at most 2^7); `test(rowBits, colBits)` runs
// for the draws with minBits <= rowBits + colBits <= maxBits, and the others are skipped.
template <typename Test>
void forEachRandomTile(std::mt19937& random, int trials, int minBits, int maxBits, Test test) {
  for (int trial = 0; trial < trials; ++trial) {
    const int rowBits = static_cast<int>(random() % 8), colBits = static_cast<int>(random() % 8);
    if (rowBits + colBits >= minBits && rowBits + colBits <= maxBits) test(rowBits, colBits);
  }
}

void expectBijective(const SharedPlacement& placement, int indexBits) {
  std::set<uint64_t> offsets;
  for (uint64_t index = 0; index < (uint64_t{1} << indexBits); ++index) {
    const uint64_t offset = placement.offset(index);
    ASSERT_LT(offset, uint64_t{1} << indexBits);
    offsets.insert(offset);
  }
  EXPECT_EQ(offsets.size(), size_t{1} << indexBits);
}

int64_t totalWavefronts(const LinearLayout& a, const LinearLayout& b, const SharedPlacement& p, int bytes) {
  return storeCost(a, p, bytes).wavefronts + loadCost(b, p, bytes).wavefronts;
}

TEST(BankCost, RowsAreOneWavefrontAndColumnsOfARowMajorTileAreThirtyTwo) {
  // One warp, tensor<32x32xf32>. Rows: lane l holds column l of each row (register r = row r).
  std::vector<uint64_t> rowBases, columnBases;
  for (int i = 0; i < 5; ++i) rowBases.push_back(uint64_t{32} << i);  // register bits: rows
  const std::vector<uint64_t> lanes{1, 2, 4, 8, 16};                  // lane bits: columns
  std::vector<LayoutDim> in{{"warp", 0}, {"lane", 5}, {"register", 5}}, out{{"dim0", 5}, {"dim1", 5}};
  std::vector<uint64_t> byRow;  // packed input order: register bits low, then lanes
  byRow.insert(byRow.end(), rowBases.begin(), rowBases.end());
  byRow.insert(byRow.end(), lanes.begin(), lanes.end());
  const LinearLayout rowAccess(in, out, byRow);
  std::vector<uint64_t> byColumn;
  byColumn.insert(byColumn.end(), lanes.begin(), lanes.end());          // registers walk the columns
  byColumn.insert(byColumn.end(), rowBases.begin(), rowBases.end());    // lanes walk the rows
  const LinearLayout columnAccess(in, out, byColumn);
  const SharedPlacement rowMajor = rowMajorPlacement(10);
  EXPECT_EQ(bankCost(rowAccess, rowMajor, 0, 4).wavefronts, 32);    // 32 instructions, one wavefront each
  EXPECT_EQ(bankCost(rowAccess, rowMajor, 0, 4).ideal, 32);
  EXPECT_EQ(bankCost(columnAccess, rowMajor, 0, 4).wavefronts, 32 * 32);  // every lane in bank r: 32-way
  // Any placement that sends the rows' lane span onto the banks fixes the columns: the chosen one does both.
  const SharedPlacement chosen = chooseSharedPlacement(rowAccess, columnAccess, 4);
  expectBijective(chosen, 10);
  EXPECT_EQ(storeCost(rowAccess, chosen, 4).wavefronts, 32);
  EXPECT_EQ(loadCost(columnAccess, chosen, 4).wavefronts, 32);
}

// bankCost counts in closed form what simulatedBankCost counts lane by lane: the same wavefronts and ideal for
// the placements the chooser makes (both sides, plain and ldmatrix), for row-major and for random bijective
// placements (whose unaligned vectors take the simulation), over random blocked tiles of every element size.
TEST(BankCost, ClosedFormEqualsTheLaneByLaneSimulation) {
  std::mt19937 random(20261203);
  int compared = 0;
  auto expectSame = [&](const LinearLayout& layout, const SharedPlacement& placement, int vectorBits, int bytes) {
    const BankCost closed = bankCost(layout, placement, vectorBits, bytes);
    const BankCost simulated = simulatedBankCost(layout, placement, vectorBits, bytes);
    EXPECT_EQ(closed.wavefronts, simulated.wavefronts) << layout.str() << " vector bits " << vectorBits << " bytes " << bytes;
    EXPECT_EQ(closed.ideal, simulated.ideal);
    ++compared;
  };
  forEachRandomTile(random, 300, 1, 12, [&](int rowBits, int colBits) {
    const int indexBits = rowBits + colBits;
    const int warps = 1 << (random() % 4), bytes = 1 << (random() % 4);
    const LinearLayout source = randomlyOrderedBlocked(random, rowBits, colBits, warps, 1 << (random() % 4));
    const LinearLayout target = randomlyOrderedBlocked(random, rowBits, colBits, warps, 1 << (random() % 4));
    const SharedPlacement chosen = chooseSharedPlacement(source, target, bytes, bytes <= 2);
    expectSame(source, chosen, chosen.storeVectorBits, bytes);
    if (std::optional<LinearLayout> rows = ldmatrixRows(target, chosen.read, bytes))
      expectSame(*rows, chosen, ldmatrixRowBits(bytes), bytes);
    else expectSame(target, chosen, chosen.loadVectorBits, bytes);
    const SharedPlacement rowMajor = rowMajorPlacement(indexBits);
    for (int vectorBits = 0; (1 << vectorBits) <= numRegisters(source) && (bytes << vectorBits) <= 16; ++vectorBits)
      expectSame(source, rowMajor, vectorBits, bytes);
    // A random bijection: index bit i goes to offset bit i XOR a random mix of the bits below it.
    SharedPlacement mixed;
    for (int i = 0; i < indexBits; ++i) mixed.offsetOfIndexBit.push_back((uint64_t{1} << i) ^ (random() & ((uint64_t{1} << i) - 1)));
    expectSame(target, mixed, static_cast<int>(random() % 3), bytes);
  });
  std::printf("bank costs compared, closed form against simulation: %d\n", compared);
  EXPECT_GT(compared, 500);
}

TEST(SharedPlacement, TransposesReachTheFewestWavefrontsOnBothSides) {
  struct Case {
    int64_t rows, cols;
    int warps, elementBytes;
  };
  for (const Case& c : std::vector<Case>{{64, 64, 4, 4}, {64, 64, 8, 2}, {32, 128, 4, 4}, {128, 64, 8, 1},
                                         {64, 32, 4, 8}, {16, 256, 2, 4}, {128, 128, 8, 2}}) {
    SCOPED_TRACE(::testing::Message() << c.rows << "x" << c.cols << " warps " << c.warps << " bytes " << c.elementBytes);
    const int vector = 16 / c.elementBytes;
    const int rowBits = std::countr_zero(static_cast<uint64_t>(c.rows)), colBits = std::countr_zero(static_cast<uint64_t>(c.cols));
    // tt.trans of a loaded [cols, rows] tile, stored as the [rows, cols] result's blocked layout wants.
    const LinearLayout loaded = blocked({c.cols, c.rows}, c.warps, vector);
    const LinearLayout source = transposed(loaded, colBits, rowBits);
    const LinearLayout target = blocked({c.rows, c.cols}, c.warps, vector);
    const SharedPlacement chosen = chooseSharedPlacement(source, target, c.elementBytes);
    expectBijective(chosen, rowBits + colBits);
    const BankCost stores = storeCost(source, chosen, c.elementBytes), loads = loadCost(target, chosen, c.elementBytes);
    EXPECT_EQ(stores.wavefronts, stores.ideal);
    EXPECT_EQ(loads.wavefronts, loads.ideal);
    const SharedPlacement rowMajor = rowMajorPlacement(rowBits + colBits);
    const int64_t before = totalWavefronts(source, target, rowMajor, c.elementBytes);
    EXPECT_GT(before, totalWavefronts(source, target, chosen, c.elementBytes));
    std::printf("transpose %lldx%lld, %d-byte elements, %d warps: %lld wavefronts row-major, %lld chosen (%d-element stores, %d-element loads)\n",
                static_cast<long long>(c.rows), static_cast<long long>(c.cols), c.elementBytes, c.warps,
                static_cast<long long>(before), static_cast<long long>(stores.wavefronts + loads.wavefronts),
                chosen.storeVectorElements(), chosen.loadVectorElements());
  }
}

TEST(SharedPlacement, BlockedTilesIntoMmaFragmentsAndBackAreConflictFree) {
  // f16 dot 64 x 32 x 64 on 4 warps (m16n8k16: wordBits 1): a and b from blocked tiles into the operand
  // layouts, the accumulator back into a blocked tile.
  const std::vector<int64_t> result{64, 64};
  struct Move {
    LinearLayout from, to;
  };
  const std::vector<Move> moves{
      {blocked({64, 32}, 4, 8), mmaLayout(MmaOperand::A, result, 32, 1, 4)},
      {blocked({32, 64}, 4, 8), mmaLayout(MmaOperand::B, result, 32, 1, 4)},
      {mmaLayout(MmaOperand::Accumulator, result, 32, 1, 4), blocked({64, 64}, 4, 4)},
  };
  for (size_t i = 0; i < moves.size(); ++i) {
    SCOPED_TRACE(i);
    const int bytes = i == 2 ? 4 : 2;
    const SharedPlacement chosen = chooseSharedPlacement(moves[i].from, moves[i].to, bytes);
    expectBijective(chosen, moves[i].from.outBits());
    const BankCost stores = storeCost(moves[i].from, chosen, bytes), loads = loadCost(moves[i].to, chosen, bytes);
    EXPECT_EQ(stores.wavefronts, stores.ideal);
    EXPECT_EQ(loads.wavefronts, loads.ideal);
  }
}

TEST(SharedPlacement, RandomBlockedPairsAreBijectiveAlignedAndNeverWorseThanRowMajor) {
  std::mt19937 random(20261201);
  int improved = 0;
  forEachRandomTile(random, 300, 1, 13, [&](int rowBits, int colBits) {
    const int warps = 1 << (random() % 4), bytes = 1 << (random() % 4);
    const int sourceVector = 1 << (random() % 4), targetVector = 1 << (random() % 4);
    const LinearLayout source = randomlyOrderedBlocked(random, rowBits, colBits, warps, sourceVector);
    const LinearLayout target = blocked({int64_t{1} << rowBits, int64_t{1} << colBits}, warps, targetVector);
    SCOPED_TRACE(::testing::Message() << source.str() << " -> " << target.str() << " bytes " << bytes);
    const SharedPlacement chosen = chooseSharedPlacement(source, target, bytes);
    expectBijective(chosen, rowBits + colBits);
    for (auto [layout, vectorBits] : {std::pair{&source, chosen.storeVectorBits}, std::pair{&target, chosen.loadVectorBits}}) {
      const uint64_t low = (uint64_t{1} << vectorBits) - 1;
      for (int i = 0; i < vectorBits; ++i) EXPECT_EQ(chosen.offset(layout->basis("register", i)), uint64_t{1} << i);
      const int registers = layout->inDimOffset(layout->inDimIndex("register"));
      for (int b = 0; b < layout->inBits(); ++b) {
        if (b >= registers && b < registers + vectorBits) continue;  // the vector's own bits
        EXPECT_EQ(chosen.offset(layout->bases()[static_cast<size_t>(b)]) & low, 0u);
      }
    }
    const int64_t rowMajor = totalWavefronts(source, target, rowMajorPlacement(rowBits + colBits), bytes);
    const int64_t ours = totalWavefronts(source, target, chosen, bytes);
    EXPECT_LE(ours, rowMajor);
    improved += ours < rowMajor;
  });
  EXPECT_GT(improved, 0);
}

// Runs the ldmatrix reads of `placement` (SharedRead::Ldmatrix*) on a buffer that holds every element's index at
// its offset, lane by lane as PTX ISA §9.7.14.5.15 defines ldmatrix.sync.aligned.m8n8.x4[.trans].b16: each lane
// gives one row address (from ldmatrixRows, as the lowering computes it), each row is 16 contiguous bytes at a
// 16-byte-aligned address, and thread t receives word j = 16-bit elements (2 (t % 4), 2 (t % 4) + 1) of row
// t / 4 of matrix j, or with .trans elements t / 4 of rows 2 (t % 4) and 2 (t % 4) + 1. With 8-bit elements
// (no .trans) the word is bytes 4 (t % 4) .. 4 (t % 4) + 3 of the row. Every delivered element must be the one
// the target layout puts in that register (registers perWord * j + h of the group).
void expectLdmatrixDeliversTarget(const LinearLayout& target, const SharedPlacement& placement, int elementBytes = 2) {
  ASSERT_NE(placement.read, SharedRead::Plain);
  const std::optional<LinearLayout> rows = ldmatrixRows(target, placement.read, elementBytes);
  ASSERT_TRUE(rows.has_value());
  const int indexBits = target.outBits();
  std::vector<uint64_t> buffer(size_t{1} << indexBits, ~uint64_t{0});
  for (uint64_t index = 0; index < buffer.size(); ++index) buffer[placement.offset(index)] = index;
  auto packed = [](const LinearLayout& layout, int warp, int lane, int reg) {
    auto at = [&](std::string_view dim, int value) {
      const int d = layout.inDimIndex(dim);
      return d < 0 ? uint64_t{0} : uint64_t(value) << layout.inDimOffset(d);
    };
    return at(kWarpDim, warp) | at(kLaneDim, lane) | at(kRegisterDim, reg);
  };
  const bool transposed = placement.read == SharedRead::LdmatrixTransposed;
  const int perWord = 4 / elementBytes, rowElements = 16 / elementBytes;
  int checked = 0;
  for (int warp = 0; warp < numWarps(target); ++warp)
    for (int group = 0; group < numRegisters(target); group += 4 * perWord) {
      std::vector<uint64_t> rowAddress;  // element offset of the row lane l points at
      for (int lane = 0; lane < 32; ++lane) {
        rowAddress.push_back(placement.offset(rows->apply(packed(*rows, warp, lane, group))));
        ASSERT_EQ(rowAddress.back() % static_cast<uint64_t>(rowElements), 0u)
            << "row of lane " << lane << " not 16-byte aligned";
      }
      for (int t = 0; t < 32; ++t)
        for (int j = 0; j < 4; ++j)
          for (int h = 0; h < perWord; ++h) {
            const int lane = transposed ? 8 * j + 2 * (t % 4) + h : 8 * j + t / 4;
            const int column = transposed ? t / 4 : perWord * (t % 4) + h;
            const uint64_t delivered = buffer[rowAddress[static_cast<size_t>(lane)] + static_cast<uint64_t>(column)];
            ASSERT_EQ(delivered, target.apply(packed(target, warp, t, group + perWord * j + h)))
                << "warp " << warp << " thread " << t << " register " << group + perWord * j + h;
            ++checked;
          }
    }
  EXPECT_EQ(checked, numWarps(target) * 32 * numRegisters(target));
}

// One mma operand moved from a blocked tile into its fragments: the dot's shape, the operand, and whether the
// tile's 16-byte vectors run along K (else along M or N), with the read ldmatrix must take.
struct MmaOperandMove {
  int64_t m, n, k;
  int warps;
  MmaOperand operand;
  bool vectorAlongK;
  SharedRead expected;
};

// The move of `c` for `elementBytes`-byte elements (2: m16n8k16, one word bit; 1: m16n8k32, two) must be read with
// c.expected, conflict free on both sides, 16 bytes per store and per lane's load, delivering every register; and
// without ldmatrix (an older GPU) the same conversion takes plain loads.
void expectMmaOperandReadWithLdmatrix(const MmaOperandMove& c, int elementBytes) {
  const bool isA = c.operand == MmaOperand::A;
  SCOPED_TRACE(::testing::Message() << (isA ? "a " : "b ") << c.m << "x" << c.n << "x" << c.k << " warps " << c.warps
                                    << (c.vectorAlongK ? " vectors along k" : " vectors across k") << ", "
                                    << elementBytes << "-byte elements");
  const std::vector<int64_t> result{c.m, c.n};
  const LinearLayout target = mmaLayout(c.operand, result, c.k, elementBytes == 1 ? 2 : 1, c.warps);
  const int64_t rows = isA ? c.m : c.k, cols = isA ? c.k : c.n;  // the operand's shape
  const int rowBits = std::countr_zero(static_cast<uint64_t>(rows)), colBits = std::countr_zero(static_cast<uint64_t>(cols));
  // Vectors along the operand's last dimension: a row-major blocked tile; along its first: a transposed one.
  const bool alongLast = isA == c.vectorAlongK;
  const int vector = 16 / elementBytes;
  const LinearLayout source = alongLast ? blocked({rows, cols}, c.warps, vector)
                                        : transposed(blocked({cols, rows}, c.warps, vector), colBits, rowBits);
  const SharedPlacement chosen = chooseSharedPlacement(source, target, elementBytes, /*ldmatrix=*/true);
  EXPECT_EQ(chosen.read, c.expected);
  expectBijective(chosen, rowBits + colBits);
  const BankCost stores = storeCost(source, chosen, elementBytes), loads = loadCost(target, chosen, elementBytes);
  EXPECT_EQ(stores.wavefronts, stores.ideal);
  EXPECT_EQ(loads.wavefronts, loads.ideal);
  EXPECT_EQ(chosen.storeVectorElements(), vector);
  EXPECT_EQ(chosen.loadVectorElements(), vector);
  expectLdmatrixDeliversTarget(target, chosen, elementBytes);
  EXPECT_EQ(chooseSharedPlacement(source, target, elementBytes).read, SharedRead::Plain);
}

TEST(SharedPlacement, MmaOperandsOfSixteenBitTilesAreReadWithLdmatrix) {
  // f16 dots on tensor cores: a [M, K] and b [K, N] from blocked tiles whose vectors run along K (a: rows without
  // .trans) or along M / N (b as loaded row-major; a transposed).
  const std::vector<MmaOperandMove> moves{
      {64, 64, 32, 4, MmaOperand::A, true, SharedRead::Ldmatrix},
      {64, 64, 32, 4, MmaOperand::B, false, SharedRead::LdmatrixTransposed},
      {128, 128, 64, 8, MmaOperand::A, true, SharedRead::Ldmatrix},
      {128, 128, 64, 8, MmaOperand::B, false, SharedRead::LdmatrixTransposed},
      {64, 64, 32, 4, MmaOperand::A, false, SharedRead::LdmatrixTransposed},
      {64, 64, 32, 4, MmaOperand::B, true, SharedRead::Ldmatrix},
      {32, 64, 64, 4, MmaOperand::A, true, SharedRead::Ldmatrix},
      {128, 64, 32, 4, MmaOperand::B, false, SharedRead::LdmatrixTransposed},
  };
  for (const MmaOperandMove& move : moves) expectMmaOperandReadWithLdmatrix(move, 2);
}

TEST(SharedPlacement, MmaOperandsOfEightBitTilesAreReadWithLdmatrixAlongK) {
  // fp8 dots on mma.sync: a [M, K] row-major and b [K, N] K-major (a column-major b, as fp8 GEMMs pass it), loaded
  // with 16-byte vectors along K. ldmatrix without .trans hands each thread the four bytes of its fragment word.
  const std::vector<MmaOperandMove> moves{
      {64, 32, 32, 2, MmaOperand::A, true, SharedRead::Ldmatrix},
      {64, 32, 32, 2, MmaOperand::B, true, SharedRead::Ldmatrix},
      {32, 64, 32, 2, MmaOperand::A, true, SharedRead::Ldmatrix},
      {32, 64, 32, 2, MmaOperand::B, true, SharedRead::Ldmatrix},
      {128, 128, 64, 4, MmaOperand::A, true, SharedRead::Ldmatrix},
      {128, 128, 64, 4, MmaOperand::B, true, SharedRead::Ldmatrix},
  };
  for (const MmaOperandMove& move : moves) expectMmaOperandReadWithLdmatrix(move, 1);
}

TEST(SharedPlacement, LdmatrixReadsOfRandomEightAndSixteenBitTilesDeliverTheTarget) {
  std::mt19937 random(20261202);
  int readByLdmatrix = 0;
  forEachRandomTile(random, 400, 8, 13, [&](int rowBits, int colBits) {
    const int warps = 1 << (random() % 3);
    const int sourceVector = 1 << (random() % 4), targetVector = 1 << (random() % 3);
    const LinearLayout source = randomlyOrderedBlocked(random, rowBits, colBits, warps, sourceVector);
    const LinearLayout target = randomlyOrderedBlocked(random, rowBits, colBits, warps, targetVector);
    SCOPED_TRACE(::testing::Message() << source.str() << " -> " << target.str());
    const int bytes = 1 + static_cast<int>(random() % 2);
    const SharedPlacement chosen = chooseSharedPlacement(source, target, bytes, /*ldmatrix=*/true);
    expectBijective(chosen, rowBits + colBits);
    if (chosen.read == SharedRead::Plain) return;
    ++readByLdmatrix;
    const BankCost stores = storeCost(source, chosen, bytes), loads = loadCost(target, chosen, bytes);
    EXPECT_EQ(stores.wavefronts, stores.ideal);
    EXPECT_EQ(loads.wavefronts, loads.ideal);
    expectLdmatrixDeliversTarget(target, chosen, bytes);
  });
  std::printf("random 8- and 16-bit tiles read with ldmatrix: %d\n", readByLdmatrix);
  EXPECT_GT(readByLdmatrix, 0);
}

TEST(SharedMemoryPlan, BarriersOnlyWhereAnotherThreadMayStillUseTheBytes) {
  SharedMemoryPlan plan(kSharedBytesWithoutOptIn);
  const SharedRange first = plan.place(256);
  EXPECT_EQ(first.offset, 0);
  EXPECT_FALSE(plan.writeNeedsBarrier(first));  // nothing used shared memory yet
  plan.recordWrite(first);
  EXPECT_TRUE(plan.readNeedsBarrier(first));  // other threads' stores
  plan.barrier();
  plan.recordRead(first);
  EXPECT_FALSE(plan.readNeedsBarrier(first));  // reads after reads
  const SharedRange second = plan.place(128);  // beside the first, whose loads may still run
  EXPECT_EQ(second.offset, 256);
  EXPECT_FALSE(plan.writeNeedsBarrier(second));
  plan.recordWrite(second);
  EXPECT_TRUE(plan.writeNeedsBarrier(first));  // a write over bytes still being read
  plan.barrier();
  plan.recordRead(second);
  const SharedRange third = plan.place(4096);  // does not fit beside within the budget: back to 0
  EXPECT_EQ(third.offset, 0);
  EXPECT_TRUE(plan.writeNeedsBarrier(third));  // [0, 4096) covers the second's pending reads
  plan.barrier();
  plan.recordWrite(third);
  plan.forget();
  EXPECT_TRUE(plan.writeNeedsBarrier(SharedRange{8192, 16}));  // after control flow anything may be pending
  EXPECT_EQ(plan.place(16).offset, 0);
  EXPECT_EQ(plan.peakBytes(), 4096);
}

TEST(SharedMemoryPlan, AReservedRingKeepsEveryOtherBufferOutUntilReleased) {
  SharedMemoryPlan plan(kSharedBytesWithoutOptIn);
  const SharedRange before = plan.place(512);
  plan.recordWrite(before);
  const std::optional<SharedRange> ring = plan.reserve(3 * 1024, 1024);
  ASSERT_TRUE(ring);
  EXPECT_EQ(ring->offset, 0);  // reserved from the start: its user orders its accesses with barriers of its own
  EXPECT_TRUE(plan.writeNeedsBarrier(*ring));  // but the write before it overlaps
  plan.barrier();
  const SharedRange inside = plan.place(256);  // an op of the loop body: after the ring
  EXPECT_EQ(inside.offset, 3 * 1024);
  plan.recordWrite(inside);
  plan.barrier();
  EXPECT_EQ(plan.place(256).offset, 3 * 1024);  // reuse starts after the ring too
  EXPECT_FALSE(plan.reserve(kSharedBytesWithoutOptIn, 16));  // a second ring that does not fit beside the first
  plan.release(*ring);
  EXPECT_EQ(plan.place(64).offset, 0);
  EXPECT_EQ(plan.peakBytes(), 3 * 1024 + 256);
}

}  // namespace
}  // namespace tilesim::gpu

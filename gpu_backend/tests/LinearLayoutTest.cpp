// The linear-layout algebra (gpu_backend/layout/LinearLayout.h) and the blocked/slice constructors.
#include <gtest/gtest.h>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/LinearLayout.h"

namespace tilesim::gpu {
namespace {

LinearLayout blocked(std::vector<int64_t> shape, int warps, int vector) {
  return blockedLayout(shape, defaultBlockedParams(shape, warps, vector));
}

TEST(LinearLayout, AppliesAsXorOfBases) {
  // The header's worked example 1: tensor<16> over 4 lanes, 2 registers per lane, repeated.
  LinearLayout layout = LinearLayout::fromDimBases({{"lane", 2}, {"register", 2}}, {{"dim0", 4}}, {{2, 4}, {1, 8}});
  EXPECT_EQ(layout.apply(std::vector<int64_t>{3, 3}), std::vector<int64_t>{15});
  EXPECT_EQ(layout.apply(std::vector<int64_t>{1, 2}), std::vector<int64_t>{10});
  EXPECT_EQ(layout.rank(), 4);
  EXPECT_TRUE(layout.isSurjective());
}

TEST(LinearLayout, ComposeAndInvert) {
  LinearLayout swap = LinearLayout::fromDimBases({{"in", 3}}, {{"out", 3}}, {{2, 1, 4}});
  LinearLayout twice = swap.compose(swap.withOutDims({{"in", 3}}));
  EXPECT_EQ(twice, LinearLayout::identity({{"in", 3}}).withOutDims({{"out", 3}}));
  // A non-trivial bijection: x -> (x0 ^ x1, x1, x2 ^ x0).
  LinearLayout mix = LinearLayout::fromDimBases({{"in", 3}}, {{"out", 3}}, {{1 | 4, 1 | 2, 4}});
  std::optional<LinearLayout> inverse = mix.invert();
  ASSERT_TRUE(inverse);
  for (uint64_t x = 0; x < 8; ++x) EXPECT_EQ(inverse->apply(mix.apply(x)), x);
  EXPECT_EQ(inverse->compose(mix), LinearLayout::identity({{"in", 3}}));
  // Not injective: no inverse.
  LinearLayout broadcast = LinearLayout::fromDimBases({{"in", 2}}, {{"out", 2}}, {{1, 0}});
  EXPECT_FALSE(broadcast.invert());
  EXPECT_EQ(broadcast.rank(), 1);
}

TEST(LinearLayout, DropAndInsertOutputDims) {
  LinearLayout layout = LinearLayout::identity({{"dim0", 2}, {"dim1", 3}});  // packed: dim1 low
  LinearLayout dropped = layout.dropOutDim(1);
  EXPECT_EQ(dropped.dimBases("dim1"), (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(dropped.dimBases("dim0"), (std::vector<uint64_t>{1, 2}));
  LinearLayout inserted = dropped.insertOutDim(1, "one");
  EXPECT_EQ(inserted.outBits(), 2);
  EXPECT_EQ(inserted.outDims()[1].bits, 0);
}

TEST(BlockedLayout, VectorisedOneDimensional) {
  // tensor<1024xf32>, 4 warps: 4 consecutive elements per thread (16 bytes), lanes then warps, then repeats.
  LinearLayout layout = blocked({1024}, 4, 4);
  EXPECT_EQ(numRegisters(layout), 8);
  EXPECT_EQ(vectorWidth(layout), 4);
  EXPECT_EQ(layout.dimBases(kRegisterDim), (std::vector<uint64_t>{1, 2, 512}));
  EXPECT_EQ(layout.dimBases(kLaneDim), (std::vector<uint64_t>{4, 8, 16, 32, 64}));
  EXPECT_EQ(layout.dimBases(kWarpDim), (std::vector<uint64_t>{128, 256}));
  EXPECT_TRUE(layout.isSurjective());
  // Lane 3 of warp 1, register 5 (bits 101: 1 and 512): 512 + 128 + 3 * 4 + 1.
  EXPECT_EQ(layout.apply(std::vector<int64_t>{1, 3, 5}), std::vector<int64_t>{512 + 128 + 12 + 1});
}

// A vector run must be the thread's own: registers 1, 2 hold elements +1, +2, but when a lane basis also moves
// bit 0 (lane 1 starts at element 1 ^ 8), a thread's registers 0..3 are no longer one aligned run of memory.
TEST(BlockedLayout, VectorWidthNeedsLowBitsOwnedByRegisters) {
  LinearLayout clean = LinearLayout::fromDimBases({{"warp", 0}, {"lane", 1}, {"register", 2}}, {{"dim0", 3}},
                                                  {{}, {4}, {1, 2}});
  EXPECT_EQ(vectorWidth(clean), 4);
  LinearLayout mixed = LinearLayout::fromDimBases({{"warp", 0}, {"lane", 1}, {"register", 2}}, {{"dim0", 4}},
                                                  {{}, {9}, {1, 2}});
  EXPECT_EQ(vectorWidth(mixed), 1);
  LinearLayout second = LinearLayout::fromDimBases({{"warp", 0}, {"lane", 1}, {"register", 2}}, {{"dim0", 4}},
                                                   {{}, {10}, {1, 2}});
  EXPECT_EQ(vectorWidth(second), 2);  // bit 1 is taken by the lane too: a run of 2
}

TEST(BlockedLayout, SmallTensorsAreDuplicated) {
  LinearLayout layout = blocked({16}, 4, 4);  // fewer elements than threads: 1 per thread, copies
  EXPECT_EQ(numRegisters(layout), 1);
  EXPECT_EQ(layout.dimBases(kLaneDim), (std::vector<uint64_t>{1, 2, 4, 8, 0}));
  EXPECT_EQ(layout.dimBases(kWarpDim), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(layout.zeroBasisMask(kLaneDim), 0b10000u);
  EXPECT_TRUE(layout.isSurjective());
}

TEST(BlockedLayout, TwoDimensionalFastestDimFirst) {
  // tensor<32x64xf16>, 4 warps: 8 halves (16 bytes) per thread along dim 1, 8 lanes along dim 1, 4 along dim 0.
  BlockedParams params = defaultBlockedParams(std::vector<int64_t>{32, 64}, 4, 8);
  EXPECT_EQ(params.sizePerThread, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(params.threadsPerWarp, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(params.warpsPerCta, (std::vector<int64_t>{4, 1}));
  LinearLayout layout = blockedLayout(std::vector<int64_t>{32, 64}, params);
  EXPECT_EQ(vectorWidth(layout), 8);
  EXPECT_EQ(numRegisters(layout), 16);
  EXPECT_TRUE(layout.isSurjective());
  EXPECT_EQ(layout.str(), "warp=[[4,0], [8,0]] lane=[[0,8], [0,16], [0,32], [1,0], [2,0]] "
                          "register=[[0,1], [0,2], [0,4], [16,0]]");
}

TEST(SliceLayout, ReductionResultCollapsesRegisters) {
  LinearLayout parent = blocked({32, 64}, 4, 8);
  std::vector<int> removed;
  LinearLayout rows = sliceLayout(parent, 1, &removed);  // reduce along dim 1
  EXPECT_EQ(removed, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(numRegisters(rows), 2);
  EXPECT_EQ(rows.dimBases(kLaneDim), (std::vector<uint64_t>{0, 0, 0, 1, 2}));
  EXPECT_EQ(rows.dimBases(kWarpDim), (std::vector<uint64_t>{4, 8}));
  EXPECT_EQ(rows.dimBases(kRegisterDim), (std::vector<uint64_t>{16}));
  EXPECT_TRUE(rows.isSurjective());
  LinearLayout columns = sliceLayout(parent, 0, &removed);  // reduce along dim 0
  EXPECT_EQ(removed, (std::vector<int>{3}));
  EXPECT_EQ(numRegisters(columns), 8);
  EXPECT_EQ(vectorWidth(columns), 8);
}

}  // namespace
}  // namespace tilesim::gpu

// The distributed layouts of the GPU backend, as constructors of LinearLayout (LinearLayout.h): a layout maps
// (warp, lane, register) of a program's 32 * num_warps threads to the flat row-major index of a tensor element.
//  - blocked: Triton's #blocked — each thread owns sizePerThread consecutive elements of the fastest dimension,
//    lanes then warps are laid along the fastest dimension first, and the pattern repeats in registers when the
//    tensor is larger than one tile (extra register bits), or duplicates (zero bases) when it is smaller.
//  - slice: the layout of a reduction's result, the parent with the reduced dimension projected away: registers
//    that only differed along it collapse (their bits are removed), lanes and warps along it hold copies.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpu_backend/layout/LinearLayout.h"

namespace tilesim::gpu {

inline constexpr std::string_view kWarpDim = "warp";
inline constexpr std::string_view kLaneDim = "lane";
inline constexpr std::string_view kRegisterDim = "register";
inline constexpr int kLanesPerWarp = 32;

// Triton's BlockedEncodingAttr parameters (order is always fastest-last: dims rank-1, ..., 0).
struct BlockedParams {
  std::vector<int64_t> sizePerThread, threadsPerWarp, warpsPerCta;
  std::string str() const;  // "sizePerThread=[1,4] threadsPerWarp=[4,8] warpsPerCTA=[4,1]"
};

// Triton's default: `vectorElements` consecutive elements per thread in the fastest dimension (16-byte
// accesses: 128 / bit width), reduced while the tensor has fewer elements than threads * that; lanes and then
// warps go to the fastest dimension first, what is left over to dimension 0 (as copies).
BlockedParams defaultBlockedParams(std::span<const int64_t> shape, int numWarps, int vectorElements);
LinearLayout blockedLayout(std::span<const int64_t> shape, const BlockedParams& params);

// The output dimensions of a tensor shape ("dim0", ...); every extent must be a power of two.
std::vector<LayoutDim> tensorDims(std::span<const int64_t> shape);
bool isPowerOfTwoShape(std::span<const int64_t> shape);

// The slice layout of `parent` with output dimension `axis` removed. `removedRegisterBits` receives the
// register bits that collapsed (the result's register r is the parent's register with those bits zero).
LinearLayout sliceLayout(const LinearLayout& parent, int axis, std::vector<int>* removedRegisterBits);

int numRegisters(const LinearLayout& layout);
int numWarps(const LinearLayout& layout);
// The flat element index register r holds in lane 0 of warp 0 (others XOR their lane/warp part onto it).
uint64_t registerElement(const LinearLayout& layout, int reg);
// How many consecutive registers hold consecutive elements of the flat index: the widest vector access. The
// first k register bases are 1, 2, ..., 2^(k-1) and no other basis (later registers, lanes, warps) touches those
// k low bits, so registers r ... r + 2^k - 1 (r a multiple of 2^k) hold one aligned run of the flat index in
// every thread.
int vectorWidth(const LinearLayout& layout);

}  // namespace tilesim::gpu

// The distributed layouts of the GPU backend, as constructors of LinearLayout (LinearLayout.h): a layout maps
// (warp, lane, register) of a program's 32 * num_warps threads to the flat row-major index of a tensor element.
//  - blocked: Triton's #blocked — each thread owns sizePerThread consecutive elements of the fastest dimension,
//    lanes then warps are laid along the fastest dimension first, and the pattern repeats in registers when the
//    tensor is larger than one tile (extra register bits), or duplicates (zero bases) when it is smaller.
//  - slice: the layout of a reduction's result, the parent with the reduced dimension projected away: registers
//    that only differed along it collapse (their bits are removed), lanes and warps along it hold copies.
//  - mma: Triton's #nvidia_mma version 2 (the accumulator of `mma.sync.aligned.m16n8kK`) and its #dot_op
//    operands A and B, element for element as the PTX ISA's fragment tables (§9.7.14.5.7-9, "Matrix Fragments
//    for mma.m16n8k8 / m16n8k16 / m16n8k32") place them; the tiles of the tensor go to warps, then repeat in
//    registers.
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

// The result layout of a tt.broadcast with the dimensions the operand broadcasts along projected away: the layout
// the operand must be in so that each register already holds the element the result's register repeats
// (lowering/Movement.cpp).
LinearLayout broadcastSource(const LinearLayout& result, std::span<const int64_t> sourceShape);

// The mma.sync layouts of a dot [B,]M,K x [B,]K,N -> [B,]M,N with M % 16 == 0, N % 8 == 0 and K % (8 << wordBits)
// == 0, powers of two. `wordBits` is log2 of the operand elements one 32-bit register holds: 0 for tf32 (m16n8k8),
// 1 for f16/bf16 (m16n8k16), 2 for i8 (m16n8k32); one instruction covers 16 x 8 x (8 << wordBits).
// In one instruction, with g = lane / 4 and t = lane % 4 (the ISA's groupID and threadID_in_group), w = wordBits:
//  - Accumulator: register bits [n0, m3], lane bits [n1, n2, m0, m1, m2] (c0,c1 at row g, c2,c3 at g + 8;
//    columns 2t, 2t + 1).
//  - A: register bits [k0 .. k(w-1), m3, k(w+2)], lane bits [k(w), k(w+1), m0, m1, m2]: consecutive registers
//    2^w at a time form the 32-bit words a0, a1, a2, a3 of the instruction (low element in the low bits).
//  - B: register bits [k0 .. k(w-1), k(w+2)], lane bits [k(w), k(w+1), n0, n1, n2]: the words b0, b1.
// The 16 x 8 tiles of the result (tile bits: the M tiles, then the N tiles, then the batch) go to the warps bit by
// bit, what is left repeats in registers in that order (an operand gets a zero warp basis, a copy, for a tile bit
// it does not depend on: A for the N tiles, B for the M tiles). A's and B's registers then repeat over the k
// tiles (k bits w+3 and up), then over their tile bits left out of the warps. So accumulator register 4 g + i is
// element i of the warp's tile group g; its k tile kt reads A registers (EA (kt + KT gA)) .. + EA - 1 and B
// registers EB (kt + KT gB) .. + EB - 1, where EA = 4 << w, EB = 2 << w, KT = K / (8 << w), and gA (gB) is g with
// only its M and batch (N and batch) bits kept (mmaOperandGroup).
enum class MmaOperand : uint8_t { A, B, Accumulator };
LinearLayout mmaLayout(MmaOperand operand, std::span<const int64_t> resultShape, int64_t depth, int wordBits,
                       int numWarps);
// The register group of operand A or B that accumulator tile group `group` (accumulator registers 4 group ..
// 4 group + 3) multiplies (A, B) or the group itself (Accumulator).
int mmaOperandGroup(MmaOperand operand, std::span<const int64_t> resultShape, int numWarps, int group);

int numRegisters(const LinearLayout& layout);
int numWarps(const LinearLayout& layout);
// The flat element index register r holds in lane 0 of warp 0 (others XOR their lane/warp part onto it).
uint64_t registerElement(const LinearLayout& layout, int reg);
// How many consecutive registers hold consecutive elements of the flat index: the widest vector access. The
// first k register bases are 1, 2, ..., 2^(k-1) and no other basis (later registers, lanes, warps) touches those
// k low bits, so registers r ... r + 2^k - 1 (r a multiple of 2^k) hold one aligned run of the flat index in
// every thread.
int vectorWidth(const LinearLayout& layout);

// The widest run of consecutive registers along one tensor dimension: the first k register bases are that
// dimension's index bits 0 .. k-1 and no other basis touches them, so registers r ... r + 2^k - 1 (r a multiple of
// 2^k) hold elements i, i + 1, ..., i + 2^k - 1 along `dim` (the others fixed) in every thread. vectorWidth is the
// run along the last dimension; a layout that Triton's coalesce pass orders fastest along another dimension (a
// load contiguous along it, coalescedLayout) has its run there.
struct RegisterRun {
  int dim = 0;
  int elements = 1;
};
RegisterRun registerRun(const LinearLayout& layout);

// Triton's coalesced blocked layout for an access contiguous along `fastest`: defaultBlockedParams with
// `fastest` as the fastest dimension (order = [fastest, the others from the last down]).
LinearLayout coalescedLayout(std::span<const int64_t> shape, int numWarps, int vectorElements, int fastest);

}  // namespace tilesim::gpu

// Hopper's warpgroup MMA (`wgmma.mma_async`, PTX ISA §9.7.15), as layouts: which tt.dot ops it runs, where its
// operands go in shared memory, what its shared-memory descriptors hold and which accumulator registers one
// instruction writes. No LLVM here; lowering/Dot.cpp emits the instructions (docs/gpu-backend.md "wgmma").
//
// The shape of what is built (Triton's MMAv3 for these dots, as its TTGIR for the benchmark kernels shows):
//  - a and b are stored from registers into shared memory in the NVMMA layout below, then every warpgroup (4
//    consecutive warps) issues m64nNk16 instructions that read both from shared memory through descriptors;
//  - the accumulator stays in registers in exactly the mma.sync accumulator layout (DistributedLayouts.h
//    mmaLayout) whenever every warp's 16-row tile lies along M: wgmma's D fragment of one warp is mma.sync's C
//    fragment repeated along N (§9.7.15.5.1 "Register fragments: matrix D"), and the warps of a warpgroup take
//    its 64 rows 16 at a time. So the layout assignment, the loop-carried accumulator and every conversion stay
//    as they are; only the instructions change.
//
// The NVMMA shared layout of an operand tile [rows][columns] with the columns contiguous (a: [M][K], "K-major";
// b: [K][N], "MN-major", read transposed): the columns are cut into blocks of `swizzleBytes` (128, 64 or 32: the
// widest that the row's bytes fill), each block stored as [rows][swizzleBytes] row-major, the blocks one after
// another; inside a block the 16-byte chunk of each row is XORed with the row's position in its group of
// swizzleBytes / 16 rows, as byte-address bits [4, 4 + s) ^= bits [7, 7 + s), s = log2(swizzleBytes / 16)
// (CUTLASS's Swizzle<s, 4, 3>, which the hardware applies to the address; the buffer is 1024-byte aligned).
// A descriptor (§9.7.15.5.1.1 "Matrix Descriptor Format") holds the start address >> 4 (bits 0-13), the leading
// byte offset >> 4 (bits 16-29: between column blocks, rows * swizzleBytes), the stride byte offset >> 4 (bits
// 32-45: between groups of 8 rows, 8 * swizzleBytes) and the swizzle mode (bits 62-63: 1 = 128 B, 2 = 64 B,
// 3 = 32 B). An instruction's operand starts at the tile's element (row0, column0) with column0 a multiple of 16
// bytes inside its block: the unswizzled byte offset of that element, added to the descriptor's address.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu_backend/layout/LinearLayout.h"
#include "gpu_backend/layout/SharedLayouts.h"
#include "ir/IR.h"

namespace tilesim::gpu {

// One operand tile in shared memory.
struct NvmmaTile {
  int64_t rows = 0, columns = 0;  // the columns are contiguous
  int elementBytes = 2;
  int swizzleBytes = 128;  // 128, 64 or 32

  int64_t bytes() const { return rows * columns * elementBytes; }
  // The swizzled byte offset of element (row, column) in the buffer.
  uint64_t byteOffset(int64_t row, int64_t column) const;
  // The byte offset an instruction's descriptor adds for an operand starting at (row, column): the unswizzled
  // offset (the hardware swizzles the addresses it forms).
  uint64_t startOffset(int64_t row, int64_t column) const;
  // The descriptor without its start address: leading and stride byte offsets and the swizzle mode.
  uint64_t descriptorBits() const;
};

// The NVMMA tile of `columns` contiguous elements per row: the widest swizzle the row fills; nothing when a row
// has fewer than 32 bytes.
std::optional<NvmmaTile> nvmmaTile(int64_t rows, int64_t columns, int elementBytes);

// The placement (element offsets) of a [rows][columns] tensor, flat row-major index, in `tile`'s layout.
SharedPlacement nvmmaPlacement(const NvmmaTile& tile);

// A tt.dot that runs on wgmma: a and b tiles, the instruction (m64 n`n` k`k`) and its type suffix.
// b is MN-major ([K][N], N contiguous, read transposed: the instruction's tnspB = 1) unless `bKMajor`: then its
// tile is [N][K], K contiguous like a's (tnspB = 0) — for a b whose registers run along K (attention's k, loaded
// with d contiguous, or tl.trans of a [N][K] load), so that its stores or cp.async copies land 16 bytes at a time.
struct WgmmaPlan {
  NvmmaTile a, b;
  bool bKMajor = false;
  int64_t m = 0, n = 0, depth = 0;  // the dot's M, N, K
  int k = 16;                       // the instruction's K (32 for fp8 and i8, 8 for tf32)
  int numWarps = 4;
  const char* types = "f32.f16.f16";
  // Accumulator registers (of `accumulator`, the mma.sync layout) of the instruction for row block `rowBlock`
  // (rows 16 * numWarps * rowBlock + 64 * warpgroup ...), in the order of its D operand: n / 2 registers.
  std::vector<std::vector<int>> instructionRegisters;
  int rowBlocks() const { return static_cast<int>(instructionRegisters.size()); }
  // The descriptor offset (unswizzled bytes) of b's k step starting at depth `k`.
  uint64_t bStartOffset(int64_t k) const { return bKMajor ? b.startOffset(0, k) : b.startOffset(k, 0); }
};

// Where the elements of operand `which` (0: a [M][K], 1: b [K][N]; flat row-major index) lie in its tile.
SharedPlacement wgmmaOperandPlacement(const WgmmaPlan& plan, int which);

// The instruction's types of a dot wgmma runs (PTX ISA §9.7.15.5.2): its type suffix, K per instruction, the
// operands' element bytes, and whether b is read K-major whatever its registers (only .f16 and .bf16 may read b
// transposed). f16 x f16 and bf16 x bf16 into f32 (or f16 from f16): k16; f32 `tf32` into f32: k8; fp8 (e4m3 /
// e5m2, mixed too) into f32 and i8 into i32: k32. For the last three b is always K-major, as in Triton's MMAv3
// (`nvmma_shared<transposed = true>` in its TTGIR): a b whose registers run along N is copied transposed 4 bytes at
// a time (tf32) or stored transposed from registers (8-bit: cp.async copies 4 bytes at least). Nothing for the rest.
struct WgmmaTypes {
  const char* name;
  int k, elementBytes;
  bool bKMajorOnly;
};
std::optional<WgmmaTypes> wgmmaTypes(const Operation& dot);

// The wgmma plan of `dot` whose result has the mma.sync accumulator layout `accumulator`, or nothing when it
// keeps mma.sync: the types above, rank 2, num_warps a multiple of 4 with every warp's 16-row tile along M
// (M >= 16 num_warps), N from 16 to 256, K a multiple of the instruction's, rows of at least 32 bytes, and a and
// b together within `sharedBytes` (each 1024-byte aligned). `bKMajor`: b's registers run along K.
std::optional<WgmmaPlan> wgmmaPlan(const Operation& dot, const LinearLayout& accumulator, int numWarps,
                                   int64_t sharedBytes, bool bKMajor = false);

// wgmma's a from registers (the instruction's register form): each warp's 16 x 16 fragment of a k step is
// mma.m16n8k16's A fragment, four 32-bit words a0..a3 of two elements (rows +0/+8, columns +0/+8), so a is held
// in `registerAFragment` (mmaLayout's A layout, warps along M as the accumulator's). The registers of that layout
// holding the low element of each word, for row block b, k step s, word i at [4 (b * steps + s) + i]; nothing
// when a word's two elements are not a register pair.
LinearLayout registerAFragment(const WgmmaPlan& plan);
std::optional<std::vector<int>> registerAWords(const WgmmaPlan& plan);

// "m64n<n>k16": the instruction's shape.
std::string wgmmaShape(const WgmmaPlan& plan);

}  // namespace tilesim::gpu

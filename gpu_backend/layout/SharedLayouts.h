// Where a layout conversion puts a tensor in shared memory (Conversion.cpp): a bijective linear map over GF(2)
// from the tensor's flat index bits to the element offset in the buffer, and how many consecutive registers
// move as one vector access. Chosen from the two layouts alone, so every conversion — a transpose, a dot operand
// going into its mma fragments, a reduction result broadcast back — gets the same treatment ("Linear Layouts",
// arXiv 2505.23819, §5.4 "optimal swizzling", which this follows in spirit; the construction is ours).
//
// The bank model (NVIDIA shared memory, sm_70 and later): 32 banks of 4 bytes; a warp's access of w bytes per
// lane is served in phases of 128 / w lanes for w >= 4 (8 lanes for 16-byte vectors, 16 for 8-byte, all 32
// for 4 bytes), all 32 lanes for narrower ones; within a phase, lanes that touch different 4-byte words of the
// same bank are serialised (one more "wavefront" each), lanes that touch the same word are not.
//
// The construction, with k vector bits (the register bases one layout starts with, up to 16 bytes; the other
// side's vector is the part of those both layouts start with) and the
// offset's segment bits [k, k + m) that pick the bank inside a 128-byte row (m = log2(128 / w)):
// two lanes of one phase whose elements differ by d (an XOR of lane bases) hit different banks iff the segment
// bits of offset(d) are not all zero. So the offsets must send the span P of the phase's lane bases of the
// source, and Q of the target, injectively onto the segment bits: the subspace C of index vectors that map
// outside the segment must meet neither P nor Q. C is grown greedily from the vector bits, preferring whole
// index bits from the highest down (the identity when the row-major order is already conflict free) and then
// XORs of two index bits (a classic XOR swizzle); the segment bits take a complement of C. When no C avoids both
// P and Q the source side, then the target side, then neither is relaxed, and the candidate with the fewest
// wavefronts (bankCost) wins.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gpu_backend/layout/LinearLayout.h"

namespace tilesim::gpu {

// How the target's threads read the buffer: plain loads of 2^loadVectorBits consecutive registers, or
// ldmatrix.sync.aligned.m8n8.x4 (PTX ISA §9.7.14.5.15; sm_75 and later, 16-bit elements), which reads four 8x8
// matrices of 16-bit elements, each row 16 contiguous bytes whose address one lane gives (lane l: row l % 8 of
// matrix l / 8), and hands every thread t two elements of each matrix j, as its register pair (2j, 2j + 1):
// row t / 4, columns 2 (t % 4) and 2 (t % 4) + 1 without .trans; rows 2 (t % 4) and 2 (t % 4) + 1, column t / 4
// with .trans. One instruction then does the work of four 32-bit loads: an mma operand's fragments, read from
// a tile stored with 16-byte vectors along either of its dimensions. 8-bit elements are read as byte pairs
// without .trans (Triton does the same for its 8-bit mma operands): thread t's word j is then bytes
// 4 (t % 4) .. 4 (t % 4) + 3 of row t / 4, the four registers (4j .. 4j + 3) of an m16n8k32 fragment word
// whose bytes run along K; .trans would hand out bytes of two rows, so 8-bit tiles have no transposed read.
enum class SharedRead { Plain, Ldmatrix, LdmatrixTransposed };

struct SharedPlacement {
  // offsetOfIndexBit[i]: the element offset of index bit i alone; offset(x) = XOR of those of x's set bits.
  std::vector<uint64_t> offsetOfIndexBit;
  // The source's registers are stored 2^storeVectorBits at a time, the target's loaded 2^loadVectorBits at a
  // time (consecutive registers, consecutive offsets). The two differ where one side's leading registers are
  // consecutive elements that the other side holds in different lanes: a blocked tile of one element per thread
  // going into mma fragments, whose element pairs are then loaded as one 32-bit word, or an accumulator's
  // column pairs stored as one 8-byte vector into a tile that is read an element at a time.
  int storeVectorBits = 0, loadVectorBits = 0;
  // Ldmatrix*: loadVectorBits is ldmatrixRowBits (16 bytes per instruction: 8 or 16 registers) and the row
  // addresses are those of ldmatrixRows(target, read, elementBytes).
  SharedRead read = SharedRead::Plain;

  uint64_t offset(uint64_t index) const;
  int storeVectorElements() const { return 1 << storeVectorBits; }
  int loadVectorElements() const { return 1 << loadVectorBits; }
};

// The placement for moving a tensor from `source` to `target` (distributed layouts over the same tensor),
// elements of `elementBytes` bytes (1, 2, 4 or 8). With `ldmatrix` (the target GPU has it), a 16-bit or 8-bit
// target is read with ldmatrix where both sides are then free of bank conflicts and the threads' stores and loads take
// fewer instructions than with plain loads (an mma operand's fragments: four 32-bit loads become one ldmatrix,
// and a tile whose vectors run across the fragments' element pairs is still stored 16 bytes at a time).
SharedPlacement chooseSharedPlacement(const LinearLayout& source, const LinearLayout& target, int elementBytes,
                                      bool ldmatrix = false);

// The addresses ldmatrix reads `target` from, as a layout over the same tensor: lane l of a warp, register
// g * 2^R (R = ldmatrixRowBits), gives the address of the 16-byte row that lane l holds under this layout, for
// the instruction that loads target registers [g * 2^R, (g + 1) * 2^R). Its first R register bases are the row's
// elements (without .trans: the word's target register bits, 1 for 16-bit elements and 2 for bytes, and lane
// bits 0, 1; with .trans, 16-bit only: lane bits 2, 3, 4), its lane bases the row (the other three of those) and
// the matrix (the next two target register bits), its other register bases the target's remaining register
// bits. nullopt when the target has too few registers or not 32 distinct lanes, `read` is Plain, or the elements
// are neither 8- nor 16-bit (or 8-bit and transposed).
std::optional<LinearLayout> ldmatrixRows(const LinearLayout& target, SharedRead read, int elementBytes);
// An ldmatrix row's elements, as register bits of the rows layout: 3 (8 16-bit elements) or 4 (16 bytes).
int ldmatrixRowBits(int elementBytes);
// Whether `vector` consecutive registers of `layout` (vector a power of two) land at consecutive offsets through
// `placement`, aligned: the vector's register bases are offsets 1, 2, 4, ... and no other basis touches those bits.
bool landsContiguous(const LinearLayout& layout, const SharedPlacement& placement, int vector);
// The widest such vector, at most `most` elements (a power of two).
int contiguousVectorElements(const LinearLayout& layout, const SharedPlacement& placement, int most);

// The row-major placement (offset = index), scalar accesses: what conversions used before.
SharedPlacement rowMajorPlacement(int indexBits);

// Wavefronts of all the warp instructions with which `layout`'s threads store (or load) their registers, 2^vectorBits
// at a time, through `placement`, simulated lane by lane under the bank model above, and the fewest those
// instructions could take (one per phase). storeCost and loadCost are the two sides of a conversion.
struct BankCost {
  int64_t wavefronts = 0, ideal = 0;
};
BankCost bankCost(const LinearLayout& layout, const SharedPlacement& placement, int vectorBits, int elementBytes);
// The same by visiting every lane of every phase of every instruction (what bankCost computes in closed form;
// the tests compare the two).
BankCost simulatedBankCost(const LinearLayout& layout, const SharedPlacement& placement, int vectorBits,
                           int elementBytes);
inline BankCost storeCost(const LinearLayout& source, const SharedPlacement& placement, int elementBytes) {
  return bankCost(source, placement, placement.storeVectorBits, elementBytes);
}
// An ldmatrix is one phase per matrix: its 8 rows of 16 bytes, as a 16-byte access of the row layout.
BankCost loadCost(const LinearLayout& target, const SharedPlacement& placement, int elementBytes);

}  // namespace tilesim::gpu

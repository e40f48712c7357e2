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
#include <vector>

#include "gpu_backend/layout/LinearLayout.h"

namespace tilesim::gpu {

struct SharedPlacement {
  // offsetOfIndexBit[i]: the element offset of index bit i alone; offset(x) = XOR of those of x's set bits.
  std::vector<uint64_t> offsetOfIndexBit;
  // The source's registers are stored 2^storeVectorBits at a time, the target's loaded 2^loadVectorBits at a
  // time (consecutive registers, consecutive offsets). The two differ where one side's leading registers are
  // consecutive elements that the other side holds in different lanes: a blocked tile of one element per thread
  // going into mma fragments, whose element pairs are then loaded as one 32-bit word, or an accumulator's
  // column pairs stored as one 8-byte vector into a tile that is read an element at a time.
  int storeVectorBits = 0, loadVectorBits = 0;

  uint64_t offset(uint64_t index) const;
  int storeVectorElements() const { return 1 << storeVectorBits; }
  int loadVectorElements() const { return 1 << loadVectorBits; }
};

// The placement for moving a tensor from `source` to `target` (distributed layouts over the same tensor),
// elements of `elementBytes` bytes (1, 2, 4 or 8).
SharedPlacement chooseSharedPlacement(const LinearLayout& source, const LinearLayout& target, int elementBytes);
// The row-major placement (offset = index), scalar accesses: what conversions used before.
SharedPlacement rowMajorPlacement(int indexBits);

// Wavefronts of all the warp instructions with which `layout`'s threads store (or load) their registers, 2^vectorBits
// at a time, through `placement`, simulated lane by lane under the bank model above, and the fewest those
// instructions could take (one per phase). storeCost and loadCost are the two sides of a conversion.
struct BankCost {
  int64_t wavefronts = 0, ideal = 0;
};
BankCost bankCost(const LinearLayout& layout, const SharedPlacement& placement, int vectorBits, int elementBytes);
inline BankCost storeCost(const LinearLayout& source, const SharedPlacement& placement, int elementBytes) {
  return bankCost(source, placement, placement.storeVectorBits, elementBytes);
}
inline BankCost loadCost(const LinearLayout& target, const SharedPlacement& placement, int elementBytes) {
  return bankCost(target, placement, placement.loadVectorBits, elementBytes);
}

}  // namespace tilesim::gpu

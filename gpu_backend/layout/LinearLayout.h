// Linear layouts: the one representation of how a tensor is spread over a GPU's registers, lanes and warps
// (Triton 3.x's LinearLayout; "Linear Layouts", arXiv 2505.23819). Everything the lowering needs to know about
// where an element lives — which element a (register, lane, warp) holds, how many consecutive elements a thread
// owns (the vector width), which elements are duplicated, how to move a tensor from one layout to another — is a
// query on this value, not a special case in the lowering.
//
// A linear layout is a linear map over GF(2) (bits, with XOR as addition) from input bits to output bits. The
// inputs and outputs are each a list of named dimensions whose sizes are powers of two. The map is stored by its
// values on powers of two, the *bases*: basis(d, k) is the output for input dimension d = 2^k, all others 0.
// Every other input maps to the XOR of the bases of its set bits:
//     L(x) = XOR over set bits k of x: basis(k).
// Outputs are written packed, the last output dimension in the lowest bits (for a tensor: its row-major flat
// index). Inputs are packed the same way; a distributed layout lists its inputs as (warp, lane, register), so
// the packed input is the thread's linear position times the registers per thread plus the register.
//
// Worked example 1: a blocked layout of tensor<16xf32> over one warp of 4 lanes (toy sizes), 2 consecutive elements
// per lane (sizePerThread = 2):
//     register bases: [1, 8]    register 1 holds the element after register 0; the 4 lanes x 2 elements cover
//                               8 elements, so the tile repeats and register bit 1 adds 8
//     lane bases:     [2, 4]    lane 1 starts 2 elements later, lane 2 starts 4 later
//     warp bases:     []
//   Lane 3, register 3: L = 1 ^ 8 ^ 2 ^ 4 = element 15. Lane 1, register 2: 8 ^ 2 = element 10.
//   Vector width = 2: register bases 0..k-1 equal 1, 2, ..., 2^(k-1) for k = 1 (the next one is 8, not 2).
//
// Worked example 2: broadcasting. A basis 0 means the input bit does not change the element: those threads hold
// copies. tensor<4xf32> over 32 lanes: lane bases [1, 2, 0, 0, 0] — lanes 0, 4, 8, ... all hold element 0.
//
// Worked example 3: a 2-D tensor<4x8xi32> (output bits: dim1 = bits 0..2, dim0 = bits 3..4), 32 lanes,
// threads along the fastest dim first: lane bases [(0,1), (0,2), (0,4), (1,0), (2,0)] written per dimension
// as (dim0, dim1), packed [1, 2, 4, 8, 16]: the identity. Transposing the tensor is composing with the
// permutation that swaps the dimensions' bits (compose), with no data moving: the layout changes, the registers
// do not. A reduction along dim 1 makes the lane bases [0, 0, 0, (1), (2)] over the result tensor<4xi32>: the
// slice layout, where lanes 0..7 share one row's result.
//
// Composition and inversion: to move a tensor from layout A to layout B, the lowering looks at B^-1 ∘ A (here:
// which source register/lane/warp holds the element a destination register wants). When only register bases
// differ it is a register permutation; otherwise data moves through lanes or shared memory (Conversion.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilesim::gpu {

// The number of index bits that address `value` elements: the least b with 2^b >= value (0 for value <= 1).
// Tensor extents are powers of two, where it is the exact log2. The one log2 helper of gpu_backend.
inline int log2Ceil(int64_t value) {
  int bits = 0;
  while ((int64_t{1} << bits) < value) ++bits;
  return bits;
}

struct LayoutDim {
  std::string name;
  int bits = 0;  // the dimension has 2^bits values
  bool operator==(const LayoutDim&) const = default;
};

// A subspace of GF(2)^64 (bit vectors, XOR as addition) in echelon form: rows with distinct leading bits, highest
// first, so reducing a vector is one pass (v = min(v, v ^ row) clears the row's leading bit when v has it).
class Gf2Span {
 public:
  uint64_t reduce(uint64_t v) const {
    for (uint64_t row : rows_) v = std::min(v, v ^ row);
    return v;
  }
  bool contains(uint64_t v) const { return reduce(v) == 0; }
  bool add(uint64_t v) {  // false when v is already in the span
    v = reduce(v);
    if (v == 0) return false;
    rows_.insert(std::upper_bound(rows_.begin(), rows_.end(), v, std::greater<>()), v);
    return true;
  }
  int dimension() const { return static_cast<int>(rows_.size()); }

 private:
  std::vector<uint64_t> rows_;
};

class LinearLayout {
 public:
  LinearLayout() = default;
  // `bases[i]` is the packed output of input bit i (packed input order: last input dimension lowest).
  LinearLayout(std::vector<LayoutDim> inDims, std::vector<LayoutDim> outDims, std::vector<uint64_t> bases);
  // Bases given per input dimension (outer vector in inDims' order, inner: bit 0 first).
  static LinearLayout fromDimBases(std::vector<LayoutDim> inDims, std::vector<LayoutDim> outDims,
                                   const std::vector<std::vector<uint64_t>>& basesPerDim);
  static LinearLayout identity(std::vector<LayoutDim> dims);

  const std::vector<LayoutDim>& inDims() const { return inDims_; }
  const std::vector<LayoutDim>& outDims() const { return outDims_; }
  int inBits() const { return static_cast<int>(bases_.size()); }
  int outBits() const;
  int inDimIndex(std::string_view name) const;  // -1 when absent
  int outDimIndex(std::string_view name) const;
  int inDimBits(std::string_view name) const;   // 0 when absent
  int inDimOffset(int dim) const;               // bit position of the dimension in the packed input
  int outDimOffset(int dim) const;

  // The packed output of bit `bit` of input dimension `dim`.
  uint64_t basis(std::string_view inDim, int bit) const;
  std::vector<uint64_t> dimBases(std::string_view inDim) const;
  const std::vector<uint64_t>& bases() const { return bases_; }

  uint64_t apply(uint64_t packedInput) const;
  // One coordinate per input dimension (inDims' order) -> one per output dimension.
  std::vector<int64_t> apply(std::span<const int64_t> inputCoordinates) const;
  uint64_t packOutput(std::span<const int64_t> coordinates) const;
  std::vector<int64_t> unpackOutput(uint64_t packed) const;

  // this ∘ inner: inner's outputs must be this layout's inputs (same names and sizes).
  LinearLayout compose(const LinearLayout& inner) const;
  // The inverse map; nullopt unless the layout is a bijection (as many input as output bits, full rank).
  std::optional<LinearLayout> invert() const;
  // Rank of the map over GF(2); surjective when rank == outBits (every element is held somewhere).
  int rank() const;
  bool isSurjective() const { return rank() == outBits(); }
  // Bases of the input dimension that are 0 (their input bit only duplicates data).
  uint64_t zeroBasisMask(std::string_view inDim) const;

  // Same map, output dimensions replaced (same total bits; the packed index is reinterpreted).
  LinearLayout withOutDims(std::vector<LayoutDim> outDims) const;
  // Same map, the bits of output dimension `dim` dropped (an output projection).
  LinearLayout dropOutDim(int dim) const;
  // Same map with an output dimension of size 1 inserted before position `dim`.
  LinearLayout insertOutDim(int dim, std::string name) const;
  // Removes input bits (by packed position) from the layout; the remaining bits keep their order.
  LinearLayout removeInBits(std::string_view inDim, std::span<const int> bits) const;

  bool operator==(const LinearLayout& other) const = default;
  // "register=[[0,1],[0,2]] lane=[[0,4],...] warp=[...]" with per-output-dimension coordinates.
  std::string str() const;

 private:
  std::vector<LayoutDim> inDims_, outDims_;
  std::vector<uint64_t> bases_;
};

}  // namespace tilesim::gpu

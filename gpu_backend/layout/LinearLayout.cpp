// The GF(2) algebra of LinearLayout.h: application, composition, rank (Gaussian elimination), inversion.
#include "gpu_backend/layout/LinearLayout.h"

#include <bit>
#include <sstream>

#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

int totalBits(const std::vector<LayoutDim>& dims) {
  int bits = 0;
  for (const LayoutDim& dim : dims) bits += dim.bits;
  return bits;
}

// Offset of dims[index] when the last dimension takes the lowest bits.
int packedOffset(const std::vector<LayoutDim>& dims, int index) {
  int offset = 0;
  for (size_t i = static_cast<size_t>(index) + 1; i < dims.size(); ++i) offset += dims[i].bits;
  return offset;
}

uint64_t lowMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

}  // namespace

LinearLayout::LinearLayout(std::vector<LayoutDim> inDims, std::vector<LayoutDim> outDims, std::vector<uint64_t> bases)
    : inDims_(std::move(inDims)), outDims_(std::move(outDims)), bases_(std::move(bases)) {
  TILESIM_ASSERT(static_cast<int>(bases_.size()) == totalBits(inDims_), "linear layout: one basis per input bit");
  TILESIM_ASSERT(totalBits(outDims_) <= 63, "linear layout: at most 63 output bits");
  for (uint64_t basis : bases_) TILESIM_ASSERT((basis & ~lowMask(outBits())) == 0, "linear layout: basis out of range");
}

LinearLayout LinearLayout::fromDimBases(std::vector<LayoutDim> inDims, std::vector<LayoutDim> outDims,
                                        const std::vector<std::vector<uint64_t>>& basesPerDim) {
  TILESIM_ASSERT(basesPerDim.size() == inDims.size(), "linear layout: bases for every input dimension");
  std::vector<uint64_t> bases(static_cast<size_t>(totalBits(inDims)));
  for (size_t d = 0; d < inDims.size(); ++d) {
    TILESIM_ASSERT(static_cast<int>(basesPerDim[d].size()) == inDims[d].bits, "linear layout: bases per bit");
    int offset = packedOffset(inDims, static_cast<int>(d));
    for (int k = 0; k < inDims[d].bits; ++k) bases[static_cast<size_t>(offset + k)] = basesPerDim[d][static_cast<size_t>(k)];
  }
  return LinearLayout(std::move(inDims), std::move(outDims), std::move(bases));
}

LinearLayout LinearLayout::identity(std::vector<LayoutDim> dims) {
  std::vector<uint64_t> bases(static_cast<size_t>(totalBits(dims)));
  for (size_t k = 0; k < bases.size(); ++k) bases[k] = uint64_t{1} << k;
  return LinearLayout(dims, dims, std::move(bases));
}

int LinearLayout::outBits() const { return totalBits(outDims_); }

int LinearLayout::inDimIndex(std::string_view name) const {
  for (size_t i = 0; i < inDims_.size(); ++i)
    if (inDims_[i].name == name) return static_cast<int>(i);
  return -1;
}

int LinearLayout::outDimIndex(std::string_view name) const {
  for (size_t i = 0; i < outDims_.size(); ++i)
    if (outDims_[i].name == name) return static_cast<int>(i);
  return -1;
}

int LinearLayout::inDimBits(std::string_view name) const {
  int index = inDimIndex(name);
  return index < 0 ? 0 : inDims_[static_cast<size_t>(index)].bits;
}

int LinearLayout::inDimOffset(int dim) const { return packedOffset(inDims_, dim); }
int LinearLayout::outDimOffset(int dim) const { return packedOffset(outDims_, dim); }

uint64_t LinearLayout::basis(std::string_view inDim, int bit) const {
  int index = inDimIndex(inDim);
  TILESIM_ASSERT(index >= 0 && bit < inDims_[static_cast<size_t>(index)].bits, "linear layout: no such input bit");
  return bases_[static_cast<size_t>(inDimOffset(index) + bit)];
}

std::vector<uint64_t> LinearLayout::dimBases(std::string_view inDim) const {
  std::vector<uint64_t> result;
  for (int k = 0; k < inDimBits(inDim); ++k) result.push_back(basis(inDim, k));
  return result;
}

uint64_t LinearLayout::apply(uint64_t packedInput) const {
  uint64_t result = 0;
  while (packedInput) {
    int bit = std::countr_zero(packedInput);
    packedInput &= packedInput - 1;
    if (bit < inBits()) result ^= bases_[static_cast<size_t>(bit)];
  }
  return result;
}

std::vector<int64_t> LinearLayout::apply(std::span<const int64_t> inputCoordinates) const {
  TILESIM_ASSERT(inputCoordinates.size() == inDims_.size(), "linear layout: one coordinate per input dimension");
  uint64_t packed = 0;
  for (size_t d = 0; d < inDims_.size(); ++d)
    packed |= (static_cast<uint64_t>(inputCoordinates[d]) & lowMask(inDims_[d].bits)) << inDimOffset(static_cast<int>(d));
  return unpackOutput(apply(packed));
}

uint64_t LinearLayout::packOutput(std::span<const int64_t> coordinates) const {
  uint64_t packed = 0;
  for (size_t d = 0; d < outDims_.size(); ++d)
    packed |= (static_cast<uint64_t>(coordinates[d]) & lowMask(outDims_[d].bits)) << outDimOffset(static_cast<int>(d));
  return packed;
}

std::vector<int64_t> LinearLayout::unpackOutput(uint64_t packed) const {
  std::vector<int64_t> result;
  for (size_t d = 0; d < outDims_.size(); ++d)
    result.push_back(static_cast<int64_t>((packed >> outDimOffset(static_cast<int>(d))) & lowMask(outDims_[d].bits)));
  return result;
}

LinearLayout LinearLayout::compose(const LinearLayout& inner) const {
  TILESIM_ASSERT(inner.outDims_ == inDims_, "linear layout compose: inner outputs must be the outer inputs");
  std::vector<uint64_t> bases;
  for (uint64_t basis : inner.bases_) bases.push_back(apply(basis));
  return LinearLayout(inner.inDims_, outDims_, std::move(bases));
}

int LinearLayout::rank() const {
  // Gaussian elimination over GF(2), one pivot bit per kept row.
  std::vector<uint64_t> rows = bases_;
  int rank = 0;
  for (int bit = 0; bit < outBits(); ++bit) {
    uint64_t pivotBit = uint64_t{1} << bit;
    size_t pivot = static_cast<size_t>(rank);
    while (pivot < rows.size() && !(rows[pivot] & pivotBit)) ++pivot;
    if (pivot == rows.size()) continue;
    std::swap(rows[pivot], rows[static_cast<size_t>(rank)]);
    for (size_t r = 0; r < rows.size(); ++r)
      if (r != static_cast<size_t>(rank) && (rows[r] & pivotBit)) rows[r] ^= rows[static_cast<size_t>(rank)];
    ++rank;
  }
  return rank;
}

std::optional<LinearLayout> LinearLayout::invert() const {
  const int n = inBits();
  if (n != outBits() || rank() != n) return std::nullopt;
  // Solve L * X = I column by column: augment each basis with the input bit it came from and eliminate.
  std::vector<uint64_t> rows = bases_;   // rows[k] = L(e_k)
  std::vector<uint64_t> origin(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) origin[static_cast<size_t>(k)] = uint64_t{1} << k;
  for (int bit = 0; bit < n; ++bit) {
    uint64_t pivotBit = uint64_t{1} << bit;
    size_t pivot = static_cast<size_t>(bit);
    while (!(rows[pivot] & pivotBit)) ++pivot;
    std::swap(rows[pivot], rows[static_cast<size_t>(bit)]);
    std::swap(origin[pivot], origin[static_cast<size_t>(bit)]);
    for (size_t r = 0; r < rows.size(); ++r)
      if (r != static_cast<size_t>(bit) && (rows[r] & pivotBit)) {
        rows[r] ^= rows[static_cast<size_t>(bit)];
        origin[r] ^= origin[static_cast<size_t>(bit)];
      }
  }
  // Now rows[b] = e_b, so L^-1(e_b) = origin[b].
  return LinearLayout(outDims_, inDims_, std::move(origin));
}

uint64_t LinearLayout::zeroBasisMask(std::string_view inDim) const {
  uint64_t mask = 0;
  std::vector<uint64_t> bases = dimBases(inDim);
  for (size_t k = 0; k < bases.size(); ++k)
    if (bases[k] == 0) mask |= uint64_t{1} << k;
  return mask;
}

LinearLayout LinearLayout::withOutDims(std::vector<LayoutDim> outDims) const {
  TILESIM_ASSERT(totalBits(outDims) == outBits(), "linear layout: reinterpreting outputs keeps the bit count");
  return LinearLayout(inDims_, std::move(outDims), bases_);
}

LinearLayout LinearLayout::dropOutDim(int dim) const {
  const int offset = outDimOffset(dim), bits = outDims_[static_cast<size_t>(dim)].bits;
  std::vector<LayoutDim> outDims = outDims_;
  outDims.erase(outDims.begin() + dim);
  std::vector<uint64_t> bases;
  for (uint64_t basis : bases_) {
    uint64_t low = basis & lowMask(offset), high = basis >> (offset + bits);
    bases.push_back(low | (high << offset));
  }
  return LinearLayout(inDims_, std::move(outDims), std::move(bases));
}

LinearLayout LinearLayout::insertOutDim(int dim, std::string name) const {
  std::vector<LayoutDim> outDims = outDims_;
  outDims.insert(outDims.begin() + dim, LayoutDim{std::move(name), 0});
  return LinearLayout(inDims_, std::move(outDims), bases_);
}

LinearLayout LinearLayout::removeInBits(std::string_view inDim, std::span<const int> bits) const {
  const int index = inDimIndex(inDim);
  TILESIM_ASSERT(index >= 0, "linear layout: no such input dimension");
  std::vector<std::vector<uint64_t>> perDim;
  std::vector<LayoutDim> inDims = inDims_;
  for (size_t d = 0; d < inDims_.size(); ++d) {
    std::vector<uint64_t> kept;
    std::vector<uint64_t> all = dimBases(inDims_[d].name);
    for (size_t k = 0; k < all.size(); ++k) {
      bool removed = false;
      if (static_cast<int>(d) == index)
        for (int bit : bits) removed |= bit == static_cast<int>(k);
      if (!removed) kept.push_back(all[k]);
    }
    inDims[d].bits = static_cast<int>(kept.size());
    perDim.push_back(std::move(kept));
  }
  return fromDimBases(std::move(inDims), outDims_, perDim);
}

std::string LinearLayout::str() const {
  std::ostringstream out;
  for (size_t d = 0; d < inDims_.size(); ++d) {
    if (d) out << ' ';
    out << inDims_[d].name << "=[";
    std::vector<uint64_t> bases = dimBases(inDims_[d].name);
    for (size_t k = 0; k < bases.size(); ++k) {
      if (k) out << ", ";
      std::vector<int64_t> coordinates = unpackOutput(bases[k]);
      if (coordinates.size() == 1) {
        out << coordinates[0];
        continue;
      }
      out << '[';
      for (size_t c = 0; c < coordinates.size(); ++c) out << (c ? "," : "") << coordinates[c];
      out << ']';
    }
    out << ']';
  }
  return out.str();
}

}  // namespace tilesim::gpu

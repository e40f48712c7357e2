#include "gpu_backend/layout/SharedLayouts.h"

#include <algorithm>
#include <bit>
#include <optional>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

constexpr int kBanks = 32;
constexpr int kRowBytes = 4 * kBanks;  // one wavefront serves one 128-byte row of banks
constexpr int kMaxVectorBytes = 16;

Gf2Span spanOf(const std::vector<uint64_t>& vectors) {
  Gf2Span span;
  for (uint64_t v : vectors) span.add(v);
  return span;
}

// span(a) ∩ span(b) = {0}.
bool meetsOnlyInZero(const Gf2Span& a, const std::vector<uint64_t>& b) {
  Gf2Span sum = a;
  const int bDimension = spanOf(b).dimension();
  for (uint64_t v : b) sum.add(v);
  return sum.dimension() == a.dimension() + bDimension;
}

// The nonzero lane bases of the first `laneBits` lane bits, reduced modulo the vector span.
std::vector<uint64_t> phaseLaneBases(const LinearLayout& layout, int laneBits, const Gf2Span& vector) {
  std::vector<uint64_t> bases = layout.dimBases(kLaneDim);
  std::vector<uint64_t> result;
  for (int i = 0; i < laneBits && i < static_cast<int>(bases.size()); ++i)
    if (uint64_t v = vector.reduce(bases[static_cast<size_t>(i)])) result.push_back(v);
  return result;
}


// The placement whose out-of-segment subspace is `outside` (vector bases first), as offsets of index bits.
std::optional<SharedPlacement> placementFrom(const std::vector<uint64_t>& outside, int vectorBits, int indexBits) {
  Gf2Span span = spanOf(outside);
  std::vector<uint64_t> segment;
  for (int i = 0; i < indexBits; ++i)
    if (span.add(uint64_t{1} << i)) segment.push_back(uint64_t{1} << i);
  std::vector<uint64_t> rest(outside.begin() + vectorBits, outside.end());
  std::sort(rest.begin(), rest.end());
  // Offset bit o holds index vector indexOfOffsetBit[o]: [vector | segment | rest].
  std::vector<uint64_t> indexOfOffsetBit(outside.begin(), outside.begin() + vectorBits);
  indexOfOffsetBit.insert(indexOfOffsetBit.end(), segment.begin(), segment.end());
  indexOfOffsetBit.insert(indexOfOffsetBit.end(), rest.begin(), rest.end());
  if (static_cast<int>(indexOfOffsetBit.size()) != indexBits) return std::nullopt;
  std::vector<LayoutDim> offsetDims{{"offset", indexBits}}, indexDims{{"index", indexBits}};
  std::optional<LinearLayout> inverse = LinearLayout(offsetDims, indexDims, indexOfOffsetBit).invert();
  if (!inverse) return std::nullopt;
  SharedPlacement placement;
  placement.offsetOfIndexBit = inverse->bases();
  return placement;
}

// A vector access of 2^vectorBits registers needs every other basis of the layout to keep the low offset
// bits clear, so that each vector starts aligned in every thread.
bool vectorsAligned(const SharedPlacement& placement, const LinearLayout& layout, int vectorBits) {
  const uint64_t low = (uint64_t{1} << vectorBits) - 1;
  for (std::string_view dim : {kRegisterDim, kLaneDim, kWarpDim}) {
    std::vector<uint64_t> bases = layout.dimBases(dim);
    for (size_t i = 0; i < bases.size(); ++i) {
      if (dim == kRegisterDim && static_cast<int>(i) < vectorBits) continue;
      if (placement.offset(bases[i]) & low) return false;
    }
  }
  return true;
}

// Grows the out-of-segment subspace from the vector bases until it has `dimension` vectors, each one keeping
// the subspace clear of every constraint span; nullopt when the candidates run out first.
std::optional<std::vector<uint64_t>> growOutside(const std::vector<uint64_t>& vector, int dimension, int indexBits,
                                                 const std::vector<std::vector<uint64_t>>& constraints) {
  std::vector<uint64_t> chosen = vector;
  Gf2Span span = spanOf(vector);
  uint64_t vectorMask = 0;
  for (uint64_t v : vector) vectorMask |= v;
  auto tryAdd = [&](uint64_t candidate) {
    if (static_cast<int>(chosen.size()) >= dimension) return;
    if (std::popcount(vectorMask) == static_cast<int>(vector.size())) candidate &= ~vectorMask;  // unit vectors
    Gf2Span grown = span;
    if (candidate == 0 || !grown.add(candidate)) return;
    for (const auto& constraint : constraints)
      if (!meetsOnlyInZero(grown, constraint)) return;
    span = grown;
    chosen.push_back(candidate);
  };
  for (int i = indexBits - 1; i >= 0; --i) tryAdd(uint64_t{1} << i);
  for (int i = indexBits - 1; i >= 1; --i)
    for (int j = i - 1; j >= 0; --j) tryAdd((uint64_t{1} << i) | (uint64_t{1} << j));
  if (static_cast<int>(chosen.size()) < dimension) return std::nullopt;
  return chosen;
}

}  // namespace

uint64_t SharedPlacement::offset(uint64_t index) const {
  uint64_t result = 0;
  for (size_t i = 0; i < offsetOfIndexBit.size() && index; ++i, index >>= 1)
    if (index & 1) result ^= offsetOfIndexBit[i];
  return result;
}

SharedPlacement rowMajorPlacement(int indexBits) {
  SharedPlacement placement;
  for (int i = 0; i < indexBits; ++i) placement.offsetOfIndexBit.push_back(uint64_t{1} << i);
  return placement;
}

BankCost simulatedBankCost(const LinearLayout& layout, const SharedPlacement& placement, int vectorBits,
                           int elementBytes) {
  const int vector = 1 << vectorBits;
  const int accessBytes = vector * elementBytes;
  const int phaseLanes = accessBytes >= 16 ? 8 : accessBytes == 8 ? 16 : kLanesPerWarp;
  const uint64_t wordsPerAccess = accessBytes >= 4 ? static_cast<uint64_t>(accessBytes / 4) : 1;
  const int registers = numRegisters(layout), warps = numWarps(layout);
  const int lanes = 1 << layout.inDimBits(kLaneDim);
  auto shift = [&](std::string_view dim) {
    const int index = layout.inDimIndex(dim);
    return index < 0 ? 0 : layout.inDimOffset(index);
  };
  const int warpShift = shift(kWarpDim), laneShift = shift(kLaneDim), registerShift = shift(kRegisterDim);
  // offset(apply(x)) is linear in x: the offsets of the input bits, XORed.
  std::vector<uint64_t> offsetOfInputBit;
  for (uint64_t basis : layout.bases()) offsetOfInputBit.push_back(placement.offset(basis));
  auto offsetOf = [&](uint64_t input) {
    uint64_t offset = 0;
    for (size_t bit = 0; input; ++bit, input >>= 1)
      if (input & 1) offset ^= offsetOfInputBit[bit];
    return offset;
  };
  std::vector<uint64_t> laneOffsets;
  for (int lane = 0; lane < kLanesPerWarp; ++lane) laneOffsets.push_back(offsetOf(uint64_t(lane % lanes) << laneShift));
  BankCost cost;
  std::vector<uint64_t> words;  // (bank << 58) | word of one phase, sorted to count distinct words per bank
  for (int warp = 0; warp < warps; ++warp)
    for (int reg = 0; reg < registers; reg += vector)
      for (int first = 0; first < kLanesPerWarp; first += phaseLanes) {
        words.clear();
        const uint64_t fixed = offsetOf((uint64_t(warp) << warpShift) | (uint64_t(reg) << registerShift));
        for (int lane = first; lane < first + phaseLanes; ++lane) {
          const uint64_t byte = (fixed ^ laneOffsets[static_cast<size_t>(lane)]) * static_cast<uint64_t>(elementBytes);
          for (uint64_t w = byte / 4; w < byte / 4 + wordsPerAccess; ++w) words.push_back(((w % kBanks) << 58) | w);
        }
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        int64_t worst = 1, run = 0;
        for (size_t i = 0; i < words.size(); ++i) {
          run = i > 0 && (words[i] >> 58) == (words[i - 1] >> 58) ? run + 1 : 1;
          worst = std::max(worst, run);
        }
        cost.wavefronts += worst;
        cost.ideal += 1;
      }
  return cost;
}

// The same count without visiting the lanes. A phase's first words are c XOR f(x) over the phase's lane bits x,
// f linear (offsets are XORs of the bases' offsets, and scaling by the element size and dividing by 4 bytes are
// shifts), and an aligned vector of k words adds the low log2(k) word bits: the words one phase touches form an
// affine subspace of dimension r = rank(f, vector words). The bank is the word's low 5 bits, another linear map;
// each bank the phase hits then holds the same 2^(r - rank(bank of f, vector words)) distinct words, whatever
// the constant c (the warp, the register, the phase's other lane bits). So every phase of every instruction
// costs the same. Unaligned vectors (which no chosen placement has) and vectors wider than the registers or
// than 16 bytes are counted by the simulation.
BankCost bankCost(const LinearLayout& layout, const SharedPlacement& placement, int vectorBits, int elementBytes) {
  const int vector = 1 << vectorBits;
  const int accessBytes = vector * elementBytes;
  const int phaseLanes = accessBytes >= 16 ? 8 : accessBytes == 8 ? 16 : kLanesPerWarp;
  const int wordsPerAccess = accessBytes >= 4 ? accessBytes / 4 : 1;
  auto wordOf = [&](uint64_t offset) {  // the 4-byte word holding element offset `offset`
    return elementBytes >= 4 ? offset * static_cast<uint64_t>(elementBytes / 4) : offset / static_cast<uint64_t>(4 / elementBytes);
  };
  if (vector > numRegisters(layout) || accessBytes > kMaxVectorBytes)  // not an access the lowering makes
    return simulatedBankCost(layout, placement, vectorBits, elementBytes);
  // Every basis but the vector's own registers must keep the access's first word aligned to the vector.
  const int registerOffset = layout.inDimIndex(kRegisterDim) < 0 ? -1 : layout.inDimOffset(layout.inDimIndex(kRegisterDim));
  for (int bit = 0; bit < layout.inBits(); ++bit) {
    if (registerOffset >= 0 && bit >= registerOffset && bit < registerOffset + vectorBits) continue;
    if (wordOf(placement.offset(layout.bases()[static_cast<size_t>(bit)])) % static_cast<uint64_t>(wordsPerAccess))
      return simulatedBankCost(layout, placement, vectorBits, elementBytes);
  }
  Gf2Span words, banks;
  const std::vector<uint64_t> lanes = layout.dimBases(kLaneDim);
  for (int i = 0; (1 << i) < phaseLanes && i < static_cast<int>(lanes.size()); ++i) {
    const uint64_t word = wordOf(placement.offset(lanes[static_cast<size_t>(i)]));
    words.add(word);
    banks.add(word % kBanks);
  }
  for (int w = 1; w < wordsPerAccess; w <<= 1) {
    words.add(static_cast<uint64_t>(w));
    banks.add(static_cast<uint64_t>(w));
  }
  const int64_t instructions = int64_t{numWarps(layout)} * ((numRegisters(layout) + vector - 1) / vector);
  BankCost cost;
  cost.ideal = instructions * (kLanesPerWarp / phaseLanes);
  cost.wavefronts = cost.ideal << (words.dimension() - banks.dimension());
  return cost;
}

namespace {

// The register bases `layout` starts with that can move as one vector: independent, within 16 bytes.
std::vector<uint64_t> vectorPrefix(const LinearLayout& layout, int elementBytes) {
  std::vector<uint64_t> prefix;
  Gf2Span span;
  for (uint64_t basis : layout.dimBases(kRegisterDim)) {
    if ((2 << prefix.size()) * elementBytes > kMaxVectorBytes || !span.add(basis)) break;
    prefix.push_back(basis);
  }
  return prefix;
}

SharedPlacement choosePlainPlacement(const LinearLayout& source, const LinearLayout& target, int elementBytes) {
  TILESIM_ASSERT(source.outBits() == target.outBits(), "shared placement between different shapes");
  const int indexBits = source.outBits();
  const std::vector<uint64_t> sourcePrefix = vectorPrefix(source, elementBytes),
                              targetPrefix = vectorPrefix(target, elementBytes);
  int common = 0;  // the vector both sides can move
  while (common < static_cast<int>(std::min(sourcePrefix.size(), targetPrefix.size())) &&
         sourcePrefix[static_cast<size_t>(common)] == targetPrefix[static_cast<size_t>(common)])
    ++common;
  // Either side may move more than the common vector: its own vector bits are then the low offset bits, and the
  // other side moves the common part of them. Candidates from the widest vectors down, the target's own first
  // (a loaded vector serves its users as one word: an mma operand's element pairs), then the source's, then the
  // common one; each under the constraints both sides, the source's, the target's, none. The first that reaches
  // the fewest wavefronts on both sides is taken (a wider vector never needs more wavefronts: for 4 bytes and
  // more the fewest is the bytes moved / 128 per warp whatever the width), else the cheapest, the earlier on ties.
  std::optional<SharedPlacement> best;
  int64_t bestCost = 0;
  auto consider = [&](SharedPlacement candidate) {
    const BankCost stores = storeCost(source, candidate, elementBytes), loads = loadCost(target, candidate, elementBytes);
    const int64_t cost = stores.wavefronts + loads.wavefronts;
    if (!best || cost < bestCost) {
      best = std::move(candidate);
      bestCost = cost;
    }
    return stores.wavefronts == stores.ideal && loads.wavefronts == loads.ideal;
  };
  // Tries the vectors wider[0, vectorBits) for vectorBits from `widest` down to `narrowest`; true when optimal.
  auto tryVectors = [&](const std::vector<uint64_t>& wider, bool targetWider, int widest, int narrowest) {
    for (int vectorBits = widest; vectorBits >= narrowest; --vectorBits) {
      const int otherBits = std::min(vectorBits, common);  // the narrower side's vector
      const int storeBits = targetWider ? otherBits : vectorBits, loadBits = targetWider ? vectorBits : otherBits;
      const std::vector<uint64_t> vector(wider.begin(), wider.begin() + vectorBits);
      const Gf2Span vectorSpan = spanOf(vector);
      const int accessBytes = (1 << vectorBits) * elementBytes;
      const int segmentBits = log2Ceil(kRowBytes / accessBytes);
      const int laneBits = std::min(log2Ceil(kLanesPerWarp), segmentBits);
      const std::vector<uint64_t> p = phaseLaneBases(source, laneBits, vectorSpan),
                                  q = phaseLaneBases(target, laneBits, vectorSpan);
      const int outsideDimension = std::max(vectorBits, indexBits - segmentBits);
      for (const auto& constraints : std::vector<std::vector<std::vector<uint64_t>>>{{p, q}, {p}, {q}, {}}) {
        std::optional<std::vector<uint64_t>> outside = growOutside(vector, outsideDimension, indexBits, constraints);
        if (!outside) continue;
        std::optional<SharedPlacement> placement = placementFrom(*outside, vectorBits, indexBits);
        if (!placement) continue;
        placement->storeVectorBits = storeBits;
        placement->loadVectorBits = loadBits;
        if (!vectorsAligned(*placement, source, storeBits) || !vectorsAligned(*placement, target, loadBits)) continue;
        if (consider(std::move(*placement))) return true;
      }
    }
    return false;
  };
  if (tryVectors(targetPrefix, true, static_cast<int>(targetPrefix.size()), common + 1) ||
      tryVectors(sourcePrefix, false, static_cast<int>(sourcePrefix.size()), common + 1) ||
      tryVectors(sourcePrefix, false, common, 0))
    return *best;
  consider(rowMajorPlacement(indexBits));
  return *best;
}

}  // namespace

int ldmatrixRowBits(int elementBytes) { return elementBytes == 1 ? 4 : 3; }

std::optional<LinearLayout> ldmatrixRows(const LinearLayout& target, SharedRead read, int elementBytes) {
  if (read == SharedRead::Plain || (elementBytes != 1 && elementBytes != 2)) return std::nullopt;
  const bool transposed = read == SharedRead::LdmatrixTransposed;
  if (transposed && elementBytes == 1) return std::nullopt;  // .trans moves 16-bit elements, not bytes
  // The registers of one 32-bit word: 1 bit of a 16-bit pair, 2 bits of a byte quadruple.
  const size_t wordBits = elementBytes == 1 ? 2 : 1;
  const std::vector<uint64_t> registers = target.dimBases(kRegisterDim), lanes = target.dimBases(kLaneDim);
  if (registers.size() < wordBits + 2 || lanes.size() != 5) return std::nullopt;
  std::vector<uint64_t> wordAndColumns(registers.begin(), registers.begin() + static_cast<std::ptrdiff_t>(wordBits));
  wordAndColumns.push_back(lanes[0]);
  wordAndColumns.push_back(lanes[1]);
  const std::vector<uint64_t> rows{lanes[2], lanes[3], lanes[4]};
  std::vector<uint64_t> rowRegisters = transposed ? rows : wordAndColumns;  // the 16 bytes of one row
  std::vector<uint64_t> rowLanes = transposed ? wordAndColumns : rows;      // which row of a matrix
  rowLanes.push_back(registers[wordBits]);                                  // which matrix
  rowLanes.push_back(registers[wordBits + 1]);
  rowRegisters.insert(rowRegisters.end(), registers.begin() + static_cast<std::ptrdiff_t>(wordBits + 2), registers.end());
  if (spanOf(rowRegisters).dimension() != static_cast<int>(rowRegisters.size()) ||
      spanOf(rowLanes).dimension() != static_cast<int>(rowLanes.size()))
    return std::nullopt;
  std::vector<LayoutDim> inDims;
  std::vector<std::vector<uint64_t>> basesPerDim;
  for (const LayoutDim& dim : target.inDims()) {
    inDims.push_back(dim);
    basesPerDim.push_back(dim.name == kRegisterDim ? rowRegisters
                          : dim.name == kLaneDim   ? rowLanes
                                                   : target.dimBases(dim.name));
  }
  return LinearLayout::fromDimBases(inDims, target.outDims(), basesPerDim);
}

BankCost loadCost(const LinearLayout& target, const SharedPlacement& placement, int elementBytes) {
  if (std::optional<LinearLayout> rows = ldmatrixRows(target, placement.read, elementBytes))
    return bankCost(*rows, placement, ldmatrixRowBits(elementBytes), elementBytes);
  return bankCost(target, placement, placement.loadVectorBits, elementBytes);
}

namespace {

// The conflict-free placement, if there is one, for reading `target` (8- or 16-bit elements) with ldmatrix as
// `read`: the rows' 16 bytes take the low offset bits, the source stores the part of them its own vector starts
// with.
std::optional<SharedPlacement> ldmatrixPlacement(const LinearLayout& source, const LinearLayout& target, SharedRead read,
                                                 int elementBytes) {
  const int rowBits = ldmatrixRowBits(elementBytes);
  std::optional<LinearLayout> rows = ldmatrixRows(target, read, elementBytes);
  if (!rows) return std::nullopt;
  const int indexBits = source.outBits();
  const std::vector<uint64_t> rowBases = rows->dimBases(kRegisterDim);
  const std::vector<uint64_t> vector(rowBases.begin(), rowBases.begin() + rowBits);
  const std::vector<uint64_t> sourcePrefix = vectorPrefix(source, elementBytes);
  int storeBits = 0;
  while (storeBits < std::min(rowBits, static_cast<int>(sourcePrefix.size())) &&
         sourcePrefix[static_cast<size_t>(storeBits)] == vector[static_cast<size_t>(storeBits)])
    ++storeBits;
  const Gf2Span vectorSpan = spanOf(vector);
  const int segmentBits = log2Ceil(kRowBytes / kMaxVectorBytes);  // 8 rows of 16 bytes per phase
  // The source's phase: the lanes one store instruction serves at once (all 32 for accesses under 4 bytes).
  const int storeLaneBits = std::min(log2Ceil(kLanesPerWarp), log2Ceil(kRowBytes / (elementBytes << storeBits)));
  const std::vector<uint64_t> p = phaseLaneBases(source, storeLaneBits, vectorSpan),
                              q = phaseLaneBases(*rows, segmentBits, vectorSpan);
  for (const auto& constraints : std::vector<std::vector<std::vector<uint64_t>>>{{p, q}, {q}}) {
    std::optional<std::vector<uint64_t>> outside =
        growOutside(vector, std::max(rowBits, indexBits - segmentBits), indexBits, constraints);
    if (!outside) continue;
    std::optional<SharedPlacement> placement = placementFrom(*outside, rowBits, indexBits);
    if (!placement) continue;
    placement->storeVectorBits = storeBits;
    placement->loadVectorBits = rowBits;
    placement->read = read;
    if (!vectorsAligned(*placement, source, storeBits) || !vectorsAligned(*placement, *rows, rowBits)) continue;
    const BankCost stores = storeCost(source, *placement, elementBytes),
                   loads = loadCost(target, *placement, elementBytes);
    if (stores.wavefronts == stores.ideal && loads.wavefronts == loads.ideal) return placement;
  }
  return std::nullopt;
}

}  // namespace

SharedPlacement chooseSharedPlacement(const LinearLayout& source, const LinearLayout& target, int elementBytes,
                                      bool ldmatrix) {
  SharedPlacement best = choosePlainPlacement(source, target, elementBytes);
  if (!ldmatrix || (elementBytes != 1 && elementBytes != 2)) return best;
  // Each thread's shared-memory instructions: its stores and its loads (an ldmatrix loads 16 bytes: 8 or 16
  // registers).
  auto instructions = [&](const SharedPlacement& placement) {
    return (numRegisters(source) >> placement.storeVectorBits) + (numRegisters(target) >> placement.loadVectorBits);
  };
  for (SharedRead read : {SharedRead::Ldmatrix, SharedRead::LdmatrixTransposed})
    if (std::optional<SharedPlacement> placement = ldmatrixPlacement(source, target, read, elementBytes))
      if (instructions(*placement) < instructions(best)) best = std::move(*placement);
  return best;
}

bool landsContiguous(const LinearLayout& layout, const SharedPlacement& placement, int vector) {
  const uint64_t low = static_cast<uint64_t>(vector - 1);
  const int registerOffset = layout.inDimOffset(layout.inDimIndex(kRegisterDim));
  for (int i = 0; i < layout.inBits(); ++i) {
    const uint64_t offset = placement.offset(layout.bases()[static_cast<size_t>(i)]);
    const int registerBit = i - registerOffset;
    const bool vectorBasis = registerBit >= 0 && (uint64_t{1} << registerBit) <= low;
    if (vectorBasis ? offset != (uint64_t{1} << registerBit) : (offset & low) != 0) return false;
  }
  return numRegisters(layout) % vector == 0;
}

int contiguousVectorElements(const LinearLayout& layout, const SharedPlacement& placement, int most) {
  int vector = 1;
  while (vector * 2 <= most && landsContiguous(layout, placement, vector * 2)) vector *= 2;
  return vector;
}

}  // namespace tilesim::gpu

// The Memory family's tt.load and tt.store (of tensors of pointers, scalar pointers and block pointers). The
// Pointer family is PointerOps.cpp, the descriptor accesses Descriptors.cpp, the Atomic family Atomics.cpp.
// Masked-off lanes never touch memory. With checks on, every active lane is checked for an undefined
// address or value, an address outside every buffer, and races with other programs (Memory.h).
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "interpreter/MemoryAccess.h"
#include "ir/FloatBits.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim {
namespace {

// A float value's error bound (absolute, in value units) restated in the units of the buffer it is stored into.
// Stored through a reinterpreting pointer (an f32 written into an i32 buffer: `o_ptr.to(tl.pointer_type(tl.float32))`),
// the buffer's integer view of a float within `bound` of the stored value differs from the stored bits by at most
// the number of representable floats between them: float bits are monotone in the magnitude within one sign.
// A bound that reaches across zero leaves the integer view unconstrained.
double boundInBufferUnits(double bound, uint64_t bits, ScalarKind valueKind, ScalarKind bufferKind) {
  if (bound == 0 || valueKind == bufferKind || isFloatKind(bufferKind) || !isFloatKind(valueKind)) return bound;
  const double value = doubleFromFloatBits(bits, valueKind);
  if (!std::isfinite(bound) || !std::isfinite(value)) return INFINITY;
  const double magnitude = std::fabs(value);
  if (magnitude - bound <= 0) return INFINITY;
  const auto bitsOf = [&](double m) { return static_cast<int64_t>(floatBitsFromDouble(m, valueKind, Rounding::TowardZero)); };
  const int64_t here = bitsOf(magnitude);
  const int64_t high = bitsOf(magnitude + bound);  // at most magnitude + bound
  int64_t low = bitsOf(magnitude - bound);         // at most magnitude - bound: step up to the first float inside
  if (doubleFromFloatBits(static_cast<uint64_t>(low), valueKind) < magnitude - bound) ++low;
  return static_cast<double>(std::max(high - here, here - low));
}

using memory::hexAddress;
using memory::laneUndefined;
using memory::MemoryAccessor;
using memory::quietNaNBits;

struct BlockAddresses {
  std::vector<uint64_t> address;
  std::vector<uint8_t> inBounds;
};

BlockAddresses blockAddresses(const BlockPointer& bp, std::span<const int64_t> blockShape, int elementBytes,
                              std::span<const int64_t> boundaryCheck) {
  std::vector<bool> checked(static_cast<size_t>(bp.rank), false);
  for (int64_t d : boundaryCheck)
    if (d >= 0 && d < bp.rank) checked[d] = true;
  int64_t n = 1;
  for (int64_t d : blockShape) n *= d;
  BlockAddresses result;
  result.address.resize(n);
  result.inBounds.resize(n);
  for (int64_t lane = 0; lane < n; ++lane) {
    std::vector<int64_t> index = ops::laneIndex(blockShape, lane);
    uint64_t elementOffset = 0;
    bool inside = true;
    for (int d = 0; d < bp.rank; ++d) {
      // Wrapping (unsigned) arithmetic, as the GPU's: a hostile shape or stride must not be C++ overflow.
      uint64_t position = static_cast<uint64_t>(int64_t{bp.offsets[d]}) + static_cast<uint64_t>(index[d]);
      int64_t signedPosition = static_cast<int64_t>(position);
      if (checked[d] && (signedPosition < 0 || signedPosition >= bp.shape[d])) inside = false;
      elementOffset += position * static_cast<uint64_t>(bp.strides[d]);
    }
    result.address[lane] = offsetAddress(bp.base, elementOffset * static_cast<uint64_t>(elementBytes));
    result.inBounds[lane] = inside;
  }
  return result;
}

// Everything a load or store loop needs, resolved once per op so the per-lane loop is plain array reads.
struct LaneSource {
  const uint64_t* addresses = nullptr;  // one per lane (pointer tile or block-pointer addresses)
  std::vector<uint64_t> blockAddresses;
  std::vector<uint8_t> blockInBounds;   // block pointers: inside the boundary-checked dims
  const uint8_t* mask = nullptr;        // null: all lanes active
  bool maskIsScalar = false;
  const uint8_t* undefinedAddress = nullptr;
  const uint8_t* undefinedMask = nullptr;
  bool isBlock = false;

  bool active(int64_t lane) const { return !mask || (mask[maskIsScalar ? 0 : lane] & 1); }
};

// Triton profile: whether the GPU may access another address than ours in this lane, or decide its mask the
// other way: the mask lane is uncertain (+inf), or the lane is active and its pointer carries a bound (an offset
// computed from an approximate float, docs/findings.md G9: the bound in bytes). 0: certain.
double laneUncertainty(const Tile& pointers, const Tile* mask, const LaneSource& source, int64_t lane) {
  if (mask && mask->errorBounds() && mask->errorBounds()[mask->size() == 1 ? 0 : lane] > 0) return INFINITY;
  if (!source.active(lane) || !pointers.errorBounds()) return 0.0;
  return pointers.errorBounds()[pointers.size() == 1 ? 0 : lane];
}

LaneSource laneSource(const Tile& pointers, const Tile* mask, std::span<const int64_t> shape, int bytes,
                      std::span<const int64_t> boundaryCheck) {
  LaneSource source;
  source.isBlock = pointers.elementType().isBlockPointer();
  if (source.isBlock) {
    BlockAddresses block = blockAddresses(*pointers.as<BlockPointer>(), shape, bytes, boundaryCheck);
    source.blockAddresses = std::move(block.address);
    source.blockInBounds = std::move(block.inBounds);
    source.addresses = source.blockAddresses.data();
  } else {
    source.addresses = pointers.as<uint64_t>();
    source.undefinedAddress = pointers.undefinedMask();
  }
  if (mask) {
    source.mask = mask->as<uint8_t>();
    source.maskIsScalar = mask->size() == 1;
    source.undefinedMask = mask->undefinedMask();
  }
  return source;
}

// Whether the mask (if any) is on in all n lanes: the precondition of the fast paths below.
bool allLanesActive(const LaneSource& source, int64_t n) {
  if (!source.mask) return true;
  if (source.maskIsScalar) return source.mask[0] & 1;
  uint8_t all = 1;
  for (int64_t lane = 0; lane < n; ++lane) all &= source.mask[lane];
  return all & 1;
}

// The contiguous fast path of a load or store: every lane active with a defined mask and address, and the
// addresses consecutive elements inside one buffer (a row of a tensor, the common case). Then the bytes move
// with one memcpy and only the race shadow (with checks on) is visited per element; anything else — a masked-off
// lane, an address out of bounds, a block pointer, error bounds — takes the per-lane path, which reports.
// Returns the buffer access, or no buffer when the fast path does not apply.
Access contiguousAccess(const LaneSource& source, const Tile& pointers, int64_t n, int bytes, const Memory& memory) {
  if (source.isBlock || n < 2 || pointers.size() != n || source.undefinedAddress || source.undefinedMask ||
      memory.errorBoundsEnabled())
    return {};
  if (!allLanesActive(source, n)) return {};
  const uint64_t* address = source.addresses;
  const uint64_t first = address[0], step = static_cast<uint64_t>(bytes);
  if (first % step != 0) return {};
  uint64_t differs = 0, expected = first;  // branch-free, so that it vectorises
  for (int64_t lane = 0; lane < n; ++lane) {
    differs |= address[lane] ^ expected;
    expected += step;
  }
  if (differs != 0) return {};
  Access access = memory.translate(first, static_cast<uint64_t>(n) * step);
  if (!access.buffer || (access.buffer->base >> kBufferWindowBits) != (first >> kBufferWindowBits)) return {};
  return access;
}

// The strided fast path: every lane active with a defined mask and address (as for contiguousAccess), the
// addresses an affine function of the lane's (row, column) — first + row * rowStep + column * columnStep, the
// columns being the last dim — and all of them aligned inside one buffer: a tile row of a row-major matrix
// (matmul's A and B tiles), a transposed tile (attention's K^T). Not under the per-element race shadow (its
// per-lane notes are the per-lane path's). Returns the access of the first lane, or no buffer.
struct StridedAccess {
  Access first;
  int64_t rows = 0, columns = 0, rowStep = 0, columnStep = 0;  // steps in bytes
};
StridedAccess stridedAccess(const LaneSource& source, const Tile& pointers, int64_t n, int bytes, const Memory& memory,
                            bool checks) {
  if (source.isBlock || n < 2 || pointers.size() != n || source.undefinedAddress || source.undefinedMask ||
      memory.errorBoundsEnabled() || (checks && memory.raceShadowEnabled()))
    return {};
  if (!allLanesActive(source, n)) return {};
  std::span<const int64_t> shape = pointers.shape();
  const int64_t columns = shape.empty() ? n : shape.back(), rows = n / columns;
  if (columns < 1 || rows * columns != n) return {};
  const uint64_t* address = source.addresses;
  const uint64_t first = address[0];
  const uint64_t columnStep = columns > 1 ? address[1] - first : 0, rowStep = rows > 1 ? address[columns] - first : 0;
  const uint64_t size = static_cast<uint64_t>(bytes);
  if (first % size != 0 || columnStep % size != 0 || rowStep % size != 0) return {};
  uint64_t differs = 0, rowStart = first;  // branch-free, so that it vectorises
  for (int64_t r = 0; r < rows; ++r, rowStart += rowStep) {
    uint64_t expected = rowStart;
    const uint64_t* row = address + r * columns;
    for (int64_t c = 0; c < columns; ++c, expected += columnStep) differs |= row[c] ^ expected;
  }
  if (differs != 0) return {};
  // In one buffer: the steps are at most the buffer's size, so the affine addresses cannot wrap, and the
  // extreme corners (the lowest and highest addresses of an affine grid) are inside it.
  const Access access = memory.translate(first, size);
  if (!access.buffer) return {};
  const auto rs = static_cast<int64_t>(rowStep), cs = static_cast<int64_t>(columnStep);
  const auto limit = static_cast<int64_t>(access.buffer->sizeBytes);
  if (rs > limit || -rs > limit || cs > limit || -cs > limit) return {};
  const int64_t low = static_cast<int64_t>(access.offset) + std::min<int64_t>(0, rs) * (rows - 1) +
                      std::min<int64_t>(0, cs) * (columns - 1);
  const int64_t high = static_cast<int64_t>(access.offset) + std::max<int64_t>(0, rs) * (rows - 1) +
                       std::max<int64_t>(0, cs) * (columns - 1);
  if (low < 0 || high + bytes > limit) return {};
  return {access, rows, columns, rs, cs};
}

// The race log's records of a strided access: one run per row (or column) when those are contiguous, else per
// lane (merged when the op ends, Executor::flushAccesses).
void logStrided(Executor& executor, const StridedAccess& strided, int bytes, bool write) {
  if (!executor.checks() || !executor.context().memory->raceLogEnabled()) return;
  const Buffer& buffer = *strided.first.buffer;
  const auto base = static_cast<int64_t>(strided.first.offset);
  const auto size = static_cast<uint64_t>(bytes);
  if (strided.columnStep == bytes) {
    for (int64_t r = 0; r < strided.rows; ++r)
      executor.logAccess(buffer, static_cast<uint64_t>(base + r * strided.rowStep), size * static_cast<uint64_t>(strided.columns), write);
  } else if (strided.rowStep == bytes) {
    for (int64_t c = 0; c < strided.columns; ++c)
      executor.logAccess(buffer, static_cast<uint64_t>(base + c * strided.columnStep), size * static_cast<uint64_t>(strided.rows), write);
  } else {
    for (int64_t r = 0; r < strided.rows; ++r)
      for (int64_t c = 0; c < strided.columns; ++c)
        executor.logAccess(buffer, static_cast<uint64_t>(base + r * strided.rowStep + c * strided.columnStep), size, write);
  }
}

// Moves the lanes of a strided access: `toTile` loads (memory -> tile), else stores, lane by lane in lane order.
template <int Bytes>
void moveStrided(const StridedAccess& strided, char* tile, bool toTile) {
  uint8_t* base = strided.first.buffer->data + strided.first.offset;
  for (int64_t r = 0; r < strided.rows; ++r) {
    uint8_t* row = base + r * strided.rowStep;
    char* lanes = tile + r * strided.columns * Bytes;
    if (toTile)
      for (int64_t c = 0; c < strided.columns; ++c) std::memcpy(lanes + c * Bytes, row + c * strided.columnStep, Bytes);
    else
      for (int64_t c = 0; c < strided.columns; ++c) std::memcpy(row + c * strided.columnStep, lanes + c * Bytes, Bytes);
  }
}
void moveStrided(const StridedAccess& strided, int bytes, char* tile, bool toTile) {
  switch (bytes) {
    case 1: moveStrided<1>(strided, tile, toTile); break;
    case 2: moveStrided<2>(strided, tile, toTile); break;
    case 4: moveStrided<4>(strided, tile, toTile); break;
    default: moveStrided<8>(strided, tile, toTile); break;
  }
}

// Race-shadow notes for the n consecutive elements of a contiguous access, reported per lane like resolve's.
void noteContiguous(MemoryAccessor& accessor, Executor& executor, const Tile* laneTile, Access access, int64_t n,
                    int bytes, bool write, const char* writing = nullptr) {
  Memory& memory = *executor.context().memory;
  if (!executor.checks()) return;
  if (memory.raceLogEnabled()) {  // one record for the whole row
    executor.logAccess(*access.buffer, access.offset, static_cast<uint64_t>(n) * static_cast<uint64_t>(bytes), write);
    return;
  }
  if (!memory.raceShadowEnabled()) return;
  const int64_t program = executor.programLinearId();
  const uint64_t size = static_cast<uint64_t>(bytes);
  const std::span<const uint32_t> held = executor.heldLocks();  // inside a spin lock's critical section
  for (int64_t lane = 0; lane < n; ++lane) {
    Access element{access.buffer, access.offset + static_cast<uint64_t>(lane) * size, access.buffer};
    RaceHit hit = write ? memory.noteWrite(*access.buffer, element.offset, size, program, held)
                        : memory.noteRead(*access.buffer, element.offset, size, program, held);
    if (hit.found) accessor.reportRace(laneTile, lane, write, element, hit, writing ? writing + lane * bytes : nullptr, size);
    if (!held.empty())
      for (uint64_t e = element.offset / access.buffer->elementBytes;
           e <= (element.offset + size - 1) / access.buffer->elementBytes; ++e)
        executor.noteLockedAccess(*access.buffer, e);
  }
}

// One lane's buffer and byte offset: the address space's own translation on the fast path (no checks, or no race
// tracking) when the address is valid, else MemoryAccessor::resolve, which checks, reports and returns null for a
// bad access. `laneTile` names the lane in a report; `writing`: the bytes a store writes (for race reports).
inline Buffer* laneBuffer(MemoryAccessor& memory, const Memory& addressSpace, bool fastPath, const Tile* laneTile,
                          int64_t lane, uint64_t address, int bytes, bool write, uint64_t* offset,
                          const void* writing = nullptr) {
  Access access = addressSpace.translate(address, static_cast<uint64_t>(bytes));
  if (fastPath && access.buffer) {
    *offset = access.offset;
    return access.buffer;
  }
  return memory.resolve(laneTile, lane, address, static_cast<uint64_t>(bytes), write, offset, /*atomic=*/false,
                        writing);
}

}  // namespace

MutableTileRef loadThroughPointers(Executor& executor, const Operation& op, const Tile& pointers, const Tile* mask,
                                   const Tile* other, Type resultType) {
  MemoryAccessor memory(executor, op);
  MutableTileRef result = makeTile(resultType);
  const int bytes = result->elementBytes();
  const int64_t n = result->size();
  const LaneSource source = laneSource(pointers, mask, resultType.shape(), bytes, BoundaryCheckView{op}.dimensions());
  // Block pointers: padding 1 = zero, 2 = NaN; no padding option means the lanes are undefined (SEMANTICS
  // §3.2), which tilesim gives as 0 with the undefined mark, like a masked load without `other`.
  const int padding = source.isBlock ? static_cast<int>(MemoryHintsView{op}.padding()) : 0;  // None 0, Zero 1, NaN 2
  const Memory& addressSpace = *executor.context().memory;
  const bool tracksBounds = addressSpace.errorBoundsEnabled();
  const bool fastPath = !executor.checks() || !addressSpace.raceTracked();
  double* bounds = nullptr;
  uint8_t* undefined = nullptr;
  auto markUndefined = [&](int64_t lane) { (undefined ? undefined : undefined = result->mutableUndefinedMask())[lane] = 1; };
  char* out = static_cast<char*>(result->raw());
  const bool pointerIsScalar = !source.isBlock && pointers.size() == 1;
  if (Access whole = contiguousAccess(source, pointers, n, bytes, addressSpace); whole.buffer) {
    std::memcpy(out, whole.buffer->data + whole.offset, static_cast<size_t>(n) * static_cast<size_t>(bytes));
    noteContiguous(memory, executor, &pointers, whole, n, bytes, /*write=*/false);
    if (resultType.element().isScalar() && resultType.scalarKind() == ScalarKind::I1)
      for (int64_t lane = 0; lane < n; ++lane) out[lane] = out[lane] != 0;
    return result;
  }
  if (StridedAccess strided = stridedAccess(source, pointers, n, bytes, addressSpace, executor.checks()); strided.first.buffer) {
    moveStrided(strided, bytes, out, /*toTile=*/true);
    logStrided(executor, strided, bytes, /*write=*/false);
    if (resultType.element().isScalar() && resultType.scalarKind() == ScalarKind::I1)
      for (int64_t lane = 0; lane < n; ++lane) out[lane] = out[lane] != 0;
    return result;
  }
  for (int64_t lane = 0; lane < n; ++lane) {
    if (source.undefinedMask && source.undefinedMask[source.maskIsScalar ? 0 : lane])
      memory.undefinedUse(mask, lane, "an undefined mask lane decides a load");
    if (source.isBlock && !source.blockInBounds[lane]) {
      if (padding == 2 && resultType.isFloat()) result->setBits(lane, quietNaNBits(resultType.scalarKind()));
      if (padding == 0) markUndefined(lane);
      continue;
    }
    if (!source.active(lane)) {
      if (other) {
        int64_t from = other->size() == 1 ? 0 : lane;
        std::memcpy(out + lane * bytes, static_cast<const char*>(other->raw()) + from * bytes,
                    TILESIM_MUTANT(interp_load_other_last_lane, bytes, lane == n - 1 ? 0 : bytes));
        if (laneUndefined(*other, lane)) markUndefined(lane);
        if (other->errorBounds()) (bounds ? bounds : bounds = result->mutableErrorBounds())[lane] = other->errorBounds()[from];
      } else {
        markUndefined(lane);
      }
      continue;
    }
    const int64_t pointerLane = pointerIsScalar ? 0 : lane;
    if (source.undefinedAddress && source.undefinedAddress[pointerLane]) {
      memory.undefinedUse(&pointers, lane, "an undefined address is loaded from");
      markUndefined(lane);
      continue;
    }
    const uint64_t address = source.addresses[pointerLane];
    uint64_t offset = 0;
    // A block pointer is one scalar tile: name the lane by the loaded tile's shape.
    Buffer* buffer = laneBuffer(memory, addressSpace, fastPath, source.isBlock ? result.get() : &pointers, lane,
                                address, bytes, /*write=*/false, &offset);
    if (!buffer) continue;  // reads as 0
    switch (bytes) {
      case 1: out[lane] = static_cast<char>(buffer->data[offset]); break;
      case 2: std::memcpy(out + 2 * lane, buffer->data + offset, 2); break;
      case 4: std::memcpy(out + 4 * lane, buffer->data + offset, 4); break;
      default: std::memcpy(out + 8 * lane, buffer->data + offset, 8); break;
    }
    if (tracksBounds) {
      double b = buffer->errorBound[offset / buffer->elementBytes];
      if (b != 0) (bounds ? bounds : bounds = result->mutableErrorBounds())[lane] = b;
    }
  }
  // An uncertain address or mask: the GPU may have loaded another element, or `other`, in that lane.
  if (!source.isBlock && (pointers.errorBounds() || (mask && mask->errorBounds())))
    for (int64_t lane = 0; lane < n; ++lane)
      if (laneUncertainty(pointers, mask, source, lane) > 0) (bounds ? bounds : bounds = result->mutableErrorBounds())[lane] = INFINITY;
  if (resultType.element().isScalar() && resultType.scalarKind() == ScalarKind::I1)
    for (int64_t lane = 0; lane < n; ++lane) out[lane] = out[lane] != 0;
  return result;
}

namespace {

void executeLoad(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const Tile* mask = op.numOperands() > 1 ? executor.get(frame, op.operand(1)).get() : nullptr;
  const Tile* other = op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  executor.set(frame, op.result(), loadThroughPointers(executor, op, pointers, mask, other, op.result()->type));
}

void executeStore(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MemoryAccessor memory(executor, op);
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const Tile& values = *executor.get(frame, op.operand(1));
  const Tile* mask = op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  const int bytes = values.elementBytes();
  const int64_t n = values.size();
  const LaneSource source = laneSource(pointers, mask, values.shape(), bytes, BoundaryCheckView{op}.dimensions());
  const Memory& addressSpace = *executor.context().memory;
  const bool tracksBounds = addressSpace.errorBoundsEnabled();
  const bool fastPath = !executor.checks() || !addressSpace.raceTracked();
  const uint8_t* undefinedValue = values.undefinedMask();
  const double* valueBounds = values.errorBounds();
  const char* in = static_cast<const char*>(values.raw());
  const bool pointerIsScalar = !source.isBlock && pointers.size() == 1;
  if (!undefinedValue && values.size() == n) {
    if (Access whole = contiguousAccess(source, pointers, n, bytes, addressSpace); whole.buffer) {
      noteContiguous(memory, executor, &pointers, whole, n, bytes, /*write=*/true, in);
      std::memcpy(whole.buffer->data + whole.offset, in, static_cast<size_t>(n) * static_cast<size_t>(bytes));
      return;
    }
    if (StridedAccess strided = stridedAccess(source, pointers, n, bytes, addressSpace, executor.checks()); strided.first.buffer) {
      logStrided(executor, strided, bytes, /*write=*/true);
      moveStrided(strided, bytes, const_cast<char*>(in), /*toTile=*/false);
      return;
    }
  }
  for (int64_t lane = 0; lane < n; ++lane) {
    if (source.undefinedMask && source.undefinedMask[source.maskIsScalar ? 0 : lane])
      memory.undefinedUse(mask, lane, "an undefined mask lane decides a store");
    if (!source.active(lane) && TILESIM_MUTANT(interp_store_last_lane_unmasked, true, lane != n - 1)) continue;
    if (source.isBlock && !source.blockInBounds[lane]) continue;
    const int64_t pointerLane = pointerIsScalar ? 0 : lane;
    if (source.undefinedAddress && source.undefinedAddress[pointerLane]) {
      memory.undefinedUse(&pointers, lane, "an undefined address is stored to");
      continue;
    }
    if (undefinedValue && undefinedValue[lane])
      memory.undefinedUse(&values, lane, "an undefined value (masked load without `other`) is stored");
    const uint64_t address = source.addresses[pointerLane];
    uint64_t offset = 0;
    Buffer* buffer = laneBuffer(memory, addressSpace, fastPath, source.isBlock ? &values : &pointers, lane, address,
                                bytes, /*write=*/true, &offset, in + lane * bytes);
    if (!buffer) continue;
    switch (bytes) {
      case 1: buffer->data[offset] = static_cast<uint8_t>(in[lane]); break;
      case 2: std::memcpy(buffer->data + offset, in + 2 * lane, 2); break;
      case 4: std::memcpy(buffer->data + offset, in + 4 * lane, 4); break;
      default: std::memcpy(buffer->data + offset, in + 8 * lane, 8); break;
    }
    if (tracksBounds) {
      const uint64_t element = offset / buffer->elementBytes;
      buffer->errorBound[element] =
          valueBounds ? boundInBufferUnits(valueBounds[lane], values.bitsAt(lane), values.elementType().scalarKind(),
                                           buffer->elementKind)
                      : 0.0;
      if (buffer->atomicAdds) buffer->atomicAdds->additions[element] = 0;  // a later fadd starts a new group
    }
  }
  // An uncertain address or mask: the GPU may have written any element within the pointer's bound of ours (the
  // whole buffer for an unbounded one), or not written ours. Those elements are unconstrained afterwards.
  if (tracksBounds && !source.isBlock && (pointers.errorBounds() || (mask && mask->errorBounds())))
    for (int64_t lane = 0; lane < n; ++lane) {
      const double reach = laneUncertainty(pointers, mask, source, lane);
      if (reach == 0) continue;
      const uint64_t address = source.addresses[pointerIsScalar ? 0 : lane];
      Access access = addressSpace.translate(address, static_cast<uint64_t>(bytes));
      if (!access.buffer) continue;
      Buffer& buffer = *access.buffer;
      const int64_t count = static_cast<int64_t>(buffer.errorBound.size());
      const int64_t element = static_cast<int64_t>(access.offset / buffer.elementBytes);
      const double span = std::ceil(reach / buffer.elementBytes);
      const int64_t from = span >= static_cast<double>(count) ? 0 : std::max<int64_t>(0, element - static_cast<int64_t>(span));
      const int64_t to = span >= static_cast<double>(count) ? count : std::min<int64_t>(count, element + static_cast<int64_t>(span) + 1);
      for (int64_t e = from; e < to; ++e) buffer.errorBound[static_cast<size_t>(e)] = INFINITY;
    }
}

}  // namespace

void executeMemoryOp(Executor& executor, const Operation& op, Executor::Frame& frame) {
  switch (familyOp<MemoryOp>(op.kind)) {
    case MemoryOp::TTLoad: executeLoad(executor, op, frame); return;
    case MemoryOp::TTStore: executeStore(executor, op, frame); return;
    case MemoryOp::TTDescriptorLoad:
    case MemoryOp::TTDescriptorStore:
    case MemoryOp::TTDescriptorGather:
    case MemoryOp::TTDescriptorScatter: executeDescriptorAccess(executor, op, frame); return;
  }
}

}  // namespace tilesim

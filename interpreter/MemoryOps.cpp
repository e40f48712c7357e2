// Pointers and memory: tt.addptr, int_to_ptr, ptr_to_int, pointer bitcasts, tt.load, tt.store (tensors of
// pointers, scalar pointers and block pointers), tt.make_tensor_ptr, tt.advance, tt.atomic_rmw, tt.atomic_cas.
// Masked-off lanes never touch memory. With checks on, every active lane is checked for an undefined
// address or value, an address outside every buffer, and races with other programs (Memory.h).
#include <atomic>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "interpreter/Executor.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

std::string hexAddress(uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, address);
  return text;
}

bool laneUndefined(const Tile& tile, int64_t lane) {
  return tile.undefinedMask() && tile.undefinedMask()[tile.size() == 1 ? 0 : lane];
}

// The NaN Triton's rewrite of padding_option="nan" materialises (dense<0x7FC00000> for f32).
uint64_t quietNaNBits(ScalarKind kind) {
  FloatFormat f = floatFormat(kind);
  if (!f.hasInfinity) return canonicalNaNBits(kind);
  uint64_t exponent = ((uint64_t{1} << f.exponentBits) - 1) << f.mantissaBits;
  return exponent | (uint64_t{1} << (f.mantissaBits - 1));
}

int pointeeBytes(Type pointerType) {
  Type pointee = pointerType.element().pointee();
  if (pointee.isPointer()) return 8;
  return storageBytes(pointee.scalarKind());
}

class MemoryAccessor {
 public:
  MemoryAccessor(Executor& executor, const Operation& op) : executor_(executor), op_(op),
      memory_(*executor.context().memory) {}

  // Checks one active lane's address; returns the buffer access or null (reported) when out of bounds.
  Buffer* resolve(const Tile* laneTile, int64_t lane, uint64_t address, uint64_t size, bool write, uint64_t* offset) {
    Access access = memory_.translate(address, size);
    if (!access.buffer) {
      if (executor_.checks()) reportOutOfBounds(laneTile, lane, address, size, write, access);
      return nullptr;
    }
    *offset = access.offset;
    if (executor_.checks() && memory_.raceShadowEnabled()) {
      RaceHit hit = write ? memory_.noteWrite(*access.buffer, access.offset, size, executor_.programLinearId())
                          : memory_.noteRead(*access.buffer, access.offset, size, executor_.programLinearId());
      if (hit.found) reportRace(laneTile, lane, write, access, hit);
    }
    return access.buffer;
  }

  [[gnu::cold]] void reportOutOfBounds(const Tile* laneTile, int64_t lane, uint64_t address, uint64_t size, bool write,
                                       const Access& access) {
    std::string what = std::string(write ? "write" : "read") + " of " + std::to_string(size) + " bytes ";
    Report r = executor_.makeReport(Report::Kind::OutOfBounds, op_, laneTile, lane, "");
    if (access.nearest) {
      r.buffer = access.nearest->name;
      r.byteOffset = static_cast<int64_t>(access.offset);
      r.message = what + "at byte offset " + std::to_string(access.offset) + " of " + access.nearest->name + " (" +
                  std::to_string(access.nearest->sizeBytes) + " bytes)";
    } else {
      r.message = what + "at address " + hexAddress(address) + ", outside every buffer of the launch";
    }
    executor_.addReport(std::move(r));
  }

  [[gnu::cold]] void reportRace(const Tile* laneTile, int64_t lane, bool write, const Access& access, const RaceHit& hit) {
    Report r = executor_.makeReport(Report::Kind::Race, op_, laneTile, lane, "");
    r.buffer = access.buffer->name;
    r.byteOffset = static_cast<int64_t>(access.offset);
    std::string other = hit.otherProgram >= 0 ? "program " + programName(hit.otherProgram) : "other programs";
    r.message = std::string(write ? "write" : "read") + " of " + access.buffer->name + "[" +
                std::to_string(access.offset / access.buffer->elementBytes) + "] races with a " +
                (hit.otherWrote ? "write" : "read") + " by " + other;
    executor_.addReport(std::move(r));
  }

  std::string programName(int64_t linear) const {
    const auto& grid = executor_.context().grid;
    int64_t x = linear % grid[0], y = (linear / grid[0]) % grid[1], z = linear / (grid[0] * grid[1]);
    return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
  }

  void undefinedUse(const Tile* tile, int64_t lane, const std::string& what) {
    if (executor_.checks()) executor_.report(Report::Kind::UndefinedUse, op_, tile, lane, what);
  }

 private:
  Executor& executor_;
  const Operation& op_;
  Memory& memory_;
};

// The addresses of a block pointer's elements and whether each is inside the checked dims.
struct BlockAddresses {
  std::vector<uint64_t> address;
  std::vector<uint8_t> inBounds;
};

BlockAddresses blockAddresses(const BlockPointer& bp, std::span<const int64_t> blockShape, int elementBytes,
                              const Attribute* boundaryCheck) {
  std::vector<bool> checked(static_cast<size_t>(bp.rank), false);
  if (boundaryCheck)
    for (int64_t d : boundaryCheck->arrayValues())
      if (d >= 0 && d < bp.rank) checked[d] = true;
  int64_t n = 1;
  for (int64_t d : blockShape) n *= d;
  BlockAddresses result;
  result.address.resize(n);
  result.inBounds.resize(n);
  for (int64_t lane = 0; lane < n; ++lane) {
    std::vector<int64_t> index = ops::laneIndex(blockShape, lane);
    int64_t elementOffset = 0;
    bool inside = true;
    for (int d = 0; d < bp.rank; ++d) {
      int64_t position = static_cast<int64_t>(bp.offsets[d]) + index[d];
      if (checked[d] && (position < 0 || position >= bp.shape[d])) inside = false;
      elementOffset += position * bp.strides[d];
    }
    result.address[lane] = bp.base + static_cast<uint64_t>(elementOffset * elementBytes);
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

LaneSource laneSource(const Tile& pointers, const Tile* mask, std::span<const int64_t> shape, int bytes,
                      const Attribute* boundaryCheck) {
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

void executeLoad(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MemoryAccessor memory(executor, op);
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const Tile* mask = op.numOperands() > 1 ? executor.get(frame, op.operand(1)).get() : nullptr;
  const Tile* other = op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  Type resultType = op.result()->type;
  MutableTileRef result = makeTile(resultType);
  const int bytes = result->elementBytes();
  const int64_t n = result->size();
  const LaneSource source = laneSource(pointers, mask, resultType.shape(), bytes, op.attr("boundaryCheck"));
  // Block pointers: padding 1 = zero, 2 = NaN; no padding option means the lanes are undefined (SEMANTICS
  // §3.2), which tilesim gives as 0 with the undefined mark, like a masked load without `other`.
  const int padding = source.isBlock ? static_cast<int>(op.intAttr("padding", 0)) : 0;
  const Memory& addressSpace = *executor.context().memory;
  const bool tracksBounds = addressSpace.errorBoundsEnabled();
  const bool fastPath = !executor.checks() || !addressSpace.raceShadowEnabled();
  double* bounds = nullptr;
  uint8_t* undefined = nullptr;
  auto markUndefined = [&](int64_t lane) { (undefined ? undefined : undefined = result->mutableUndefinedMask())[lane] = 1; };
  char* out = static_cast<char*>(result->raw());
  const bool pointerIsScalar = !source.isBlock && pointers.size() == 1;
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
        std::memcpy(out + lane * bytes, static_cast<const char*>(other->raw()) + from * bytes, bytes);
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
    Buffer* buffer;
    uint64_t offset = 0;
    Access access = addressSpace.translate(address, static_cast<uint64_t>(bytes));
    if (fastPath && access.buffer) {
      buffer = access.buffer;
      offset = access.offset;
    } else {
      // A block pointer is one scalar tile: name the lane by the loaded tile's shape.
      buffer = memory.resolve(source.isBlock ? result.get() : &pointers, lane, address, static_cast<uint64_t>(bytes),
                              false, &offset);
      if (!buffer) continue;  // reads as 0
    }
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
  if (resultType.element().isScalar() && resultType.scalarKind() == ScalarKind::I1)
    for (int64_t lane = 0; lane < n; ++lane) out[lane] = out[lane] != 0;
  executor.set(frame, op.result(), result);
}

void executeStore(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MemoryAccessor memory(executor, op);
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const Tile& values = *executor.get(frame, op.operand(1));
  const Tile* mask = op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  const int bytes = values.elementBytes();
  const int64_t n = values.size();
  const LaneSource source = laneSource(pointers, mask, values.shape(), bytes, op.attr("boundaryCheck"));
  const Memory& addressSpace = *executor.context().memory;
  const bool tracksBounds = addressSpace.errorBoundsEnabled();
  const bool fastPath = !executor.checks() || !addressSpace.raceShadowEnabled();
  const uint8_t* undefinedValue = values.undefinedMask();
  const double* valueBounds = values.errorBounds();
  const char* in = static_cast<const char*>(values.raw());
  const bool pointerIsScalar = !source.isBlock && pointers.size() == 1;
  for (int64_t lane = 0; lane < n; ++lane) {
    if (source.undefinedMask && source.undefinedMask[source.maskIsScalar ? 0 : lane])
      memory.undefinedUse(mask, lane, "an undefined mask lane decides a store");
    if (!source.active(lane)) continue;
    if (source.isBlock && !source.blockInBounds[lane]) continue;
    const int64_t pointerLane = pointerIsScalar ? 0 : lane;
    if (source.undefinedAddress && source.undefinedAddress[pointerLane]) {
      memory.undefinedUse(&pointers, lane, "an undefined address is stored to");
      continue;
    }
    if (undefinedValue && undefinedValue[lane])
      memory.undefinedUse(&values, lane, "an undefined value (masked load without `other`) is stored");
    const uint64_t address = source.addresses[pointerLane];
    Buffer* buffer;
    uint64_t offset = 0;
    Access access = addressSpace.translate(address, static_cast<uint64_t>(bytes));
    if (fastPath && access.buffer) {
      buffer = access.buffer;
      offset = access.offset;
    } else {
      buffer = memory.resolve(source.isBlock ? &values : &pointers, lane, address, static_cast<uint64_t>(bytes), true,
                              &offset);
      if (!buffer) continue;
    }
    switch (bytes) {
      case 1: buffer->data[offset] = static_cast<uint8_t>(in[lane]); break;
      case 2: std::memcpy(buffer->data + offset, in + 2 * lane, 2); break;
      case 4: std::memcpy(buffer->data + offset, in + 4 * lane, 4); break;
      default: std::memcpy(buffer->data + offset, in + 8 * lane, 8); break;
    }
    if (tracksBounds) buffer->errorBound[offset / buffer->elementBytes] = valueBounds ? valueBounds[lane] : 0.0;
  }
}

template <typename T>
T applyRmw(const std::string& kind, T old, T value, ScalarKind scalar) {
  using U = std::make_unsigned_t<T>;
  if (kind == "add") return static_cast<T>(static_cast<U>(old) + static_cast<U>(value));
  if (kind == "and") return old & value;
  if (kind == "or") return old | value;
  if (kind == "xor") return old ^ value;
  if (kind == "exch") return value;
  if (kind == "max") return std::max(old, value);
  if (kind == "min") return std::min(old, value);
  if (kind == "umax") return static_cast<T>(std::max(static_cast<U>(old), static_cast<U>(value)));
  if (kind == "umin") return static_cast<T>(std::min(static_cast<U>(old), static_cast<U>(value)));
  if (kind == "fadd") {
    double sum = doubleFromFloatBits(static_cast<U>(old), scalar) + doubleFromFloatBits(static_cast<U>(value), scalar);
    return static_cast<T>(floatBitsFromDouble(sum, scalar));
  }
  return old;
}

// Float max/min as Triton lowers them: signed-int max on non-negative bit patterns, unsigned-int min on
// negative ones (SEMANTICS.md §3.4), so the order is by bit pattern.
template <typename T>
T floatMinMax(bool isMax, T old, T value) {
  using U = std::make_unsigned_t<T>;
  const bool valueNegative = value < 0;
  if (isMax) return valueNegative ? static_cast<T>(std::min(static_cast<U>(old), static_cast<U>(value))) : std::max(old, value);
  return valueNegative ? static_cast<T>(std::max(static_cast<U>(old), static_cast<U>(value))) : std::min(old, value);
}

template <typename T>
T atomicUpdate(uint8_t* location, const std::string& kind, T value, ScalarKind scalar, bool isFloat) {
  std::atomic_ref<T> ref(*reinterpret_cast<T*>(location));
  T old = ref.load();
  for (;;) {
    T updated = isFloat && (kind == "max" || kind == "min") ? floatMinMax(kind == "max", old, value)
                                                           : applyRmw(kind, old, value, scalar);
    if (ref.compare_exchange_weak(old, updated)) return old;
  }
}

uint64_t atomicRmwLane(uint8_t* location, int bytes, const std::string& kind, uint64_t value, ScalarKind scalar,
                       bool isFloat) {
  switch (bytes) {
    case 2: return static_cast<uint16_t>(atomicUpdate<int16_t>(location, kind, static_cast<int16_t>(value), scalar, isFloat));
    case 4: return static_cast<uint32_t>(atomicUpdate<int32_t>(location, kind, static_cast<int32_t>(value), scalar, isFloat));
    case 8: return static_cast<uint64_t>(atomicUpdate<int64_t>(location, kind, static_cast<int64_t>(value), scalar, isFloat));
    default: return 0;
  }
}

uint64_t atomicCasLane(uint8_t* location, int bytes, uint64_t expected, uint64_t desired) {
  switch (bytes) {
    case 2: { uint16_t e = static_cast<uint16_t>(expected); std::atomic_ref<uint16_t>(*reinterpret_cast<uint16_t*>(location)).compare_exchange_strong(e, static_cast<uint16_t>(desired)); return e; }
    case 4: { uint32_t e = static_cast<uint32_t>(expected); std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(location)).compare_exchange_strong(e, static_cast<uint32_t>(desired)); return e; }
    case 8: { uint64_t e = expected; std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(location)).compare_exchange_strong(e, desired); return e; }
    default: return 0;
  }
}

void executeAtomic(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MemoryAccessor memory(executor, op);
  const bool isCas = op.kind == OpKind::TTAtomicCAS;
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const Tile& values = *executor.get(frame, op.operand(isCas ? 2 : 1));
  const Tile* compare = isCas ? executor.get(frame, op.operand(1)).get() : nullptr;
  const Tile* mask = !isCas && op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  Type resultType = op.result()->type;
  MutableTileRef result = makeTile(resultType);
  const int bytes = result->elementBytes();
  const ScalarKind scalar = resultType.scalarKind();
  const bool isFloat = resultType.isFloat();
  const std::string kind = op.keywordAttr("atomic_rmw_op");
  if (!isCas && bytes < 2) executor.trap(Report::Kind::Unsupported, op, "atomics on 8-bit elements do not exist");
  for (int64_t lane = 0; lane < result->size(); ++lane) {
    if (mask) {
      if (laneUndefined(*mask, lane)) memory.undefinedUse(mask, lane, "an undefined mask lane decides an atomic");
      if (!(mask->bitsAt(mask->size() == 1 ? 0 : lane) & 1)) continue;  // returns 0
    }
    if (laneUndefined(pointers, lane)) {
      memory.undefinedUse(&pointers, lane, "an undefined address is used by an atomic");
      continue;
    }
    if (laneUndefined(values, lane) || (compare && laneUndefined(*compare, lane)))
      memory.undefinedUse(&values, lane, "an undefined value reaches memory through an atomic");
    uint64_t offset = 0;
    uint64_t address = pointers.bitsAt(pointers.size() == 1 ? 0 : lane);
    Access access = executor.context().memory->translate(address, static_cast<uint64_t>(bytes));
    if (!access.buffer) {
      memory.resolve(&pointers, lane, address, static_cast<uint64_t>(bytes), true, &offset);  // reports
      continue;
    }
    uint8_t* location = access.buffer->data + access.offset;
    uint64_t value = values.bitsAt(values.size() == 1 ? 0 : lane);
    uint64_t old = isCas ? atomicCasLane(location, bytes, compare->bitsAt(compare->size() == 1 ? 0 : lane), value)
                         : atomicRmwLane(location, bytes, kind, value, scalar, isFloat);
    result->setBits(lane, old);
    if (isFloat && executor.context().memory->errorBoundsEnabled() && kind == "fadd") {
      // Float atomics combine in whatever order programs arrive: allow one rounding per addition.
      double sum = std::fabs(doubleFromFloatBits(old, scalar)) + std::fabs(doubleFromFloatBits(value, scalar));
      double& bound = access.buffer->errorBound[access.offset / access.buffer->elementBytes];
      bound += sum * std::ldexp(1.0, -(floatFormat(scalar).mantissaBits)) * 2;
    }
  }
  executor.set(frame, op.result(), result);
}

template <typename Offset>
void addOffsets(const Tile& pointers, const Offset* offsets, bool offsetIsScalar, int64_t scale, uint64_t* out,
                int64_t n) {
  const uint64_t* base = pointers.as<uint64_t>();
  const bool baseIsScalar = pointers.size() == 1;
  for (int64_t lane = 0; lane < n; ++lane)
    out[lane] = base[baseIsScalar ? 0 : lane] +
                static_cast<uint64_t>(static_cast<int64_t>(offsets[offsetIsScalar ? 0 : lane]) * scale);
}

TileRef pointerArithmetic(const Operation& op, const Tile& pointers, const Tile& offsets) {
  MutableTileRef result = makeTile(op.result()->type);
  const int64_t scale = pointeeBytes(pointers.type());
  const int64_t n = result->size();
  const bool offsetIsScalar = offsets.size() == 1;
  switch (offsets.elementBytes()) {
    case 1: addOffsets(pointers, offsets.as<int8_t>(), offsetIsScalar, scale, result->as<uint64_t>(), n); break;
    case 2: addOffsets(pointers, offsets.as<int16_t>(), offsetIsScalar, scale, result->as<uint64_t>(), n); break;
    case 4: addOffsets(pointers, offsets.as<int32_t>(), offsetIsScalar, scale, result->as<uint64_t>(), n); break;
    default: addOffsets(pointers, offsets.as<int64_t>(), offsetIsScalar, scale, result->as<uint64_t>(), n); break;
  }
  if (offsets.elementType().scalarKind() == ScalarKind::I1)  // i1 offsets are 0 or 1, never -1
    for (int64_t lane = 0; lane < n; ++lane)
      result->as<uint64_t>()[lane] = pointers.bitsAt(pointers.size() == 1 ? 0 : lane) +
                                     static_cast<uint64_t>((offsets.bitsAt(offsetIsScalar ? 0 : lane) & 1) * scale);
  if (pointers.undefinedMask() || offsets.undefinedMask()) {
    uint8_t* undefined = result->mutableUndefinedMask();
    for (int64_t lane = 0; lane < n; ++lane)
      undefined[lane] = laneUndefined(pointers, lane) || laneUndefined(offsets, lane);
  }
  return result;
}

void executeMakeTensorPtr(Executor& executor, const Operation& op, Executor::Frame& frame) {
  Type blockType = op.result()->type.pointee();
  const int rank = blockType.rank();
  if (rank > 4) executor.trap(Report::Kind::Unsupported, op, "block pointers of rank > 4");
  MutableTileRef result = makeTile(op.result()->type);
  BlockPointer& bp = *result->as<BlockPointer>();
  bp.base = executor.get(frame, op.operand(0))->bitsAt(0);
  bp.rank = rank;
  for (int d = 0; d < rank; ++d) {
    bp.shape[d] = executor.get(frame, op.operand(1 + d))->signedAt(0);
    bp.strides[d] = executor.get(frame, op.operand(1 + rank + d))->signedAt(0);
    bp.offsets[d] = static_cast<int32_t>(executor.get(frame, op.operand(1 + 2 * rank + d))->signedAt(0));
  }
  if (const Attribute* order = op.attr("order"))
    for (size_t d = 0; d < order->arrayValues().size() && d < 4; ++d) bp.order[d] = static_cast<int32_t>(order->arrayValues()[d]);
  executor.set(frame, op.result(), result);
}

void executeAdvance(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MutableTileRef result = makeTile(op.result()->type);
  BlockPointer bp = *executor.get(frame, op.operand(0))->as<BlockPointer>();
  for (int d = 0; d < bp.rank && d + 1 < static_cast<int>(op.numOperands()); ++d)
    bp.offsets[d] += static_cast<int32_t>(executor.get(frame, op.operand(1 + d))->signedAt(0));
  *result->as<BlockPointer>() = bp;
  executor.set(frame, op.result(), result);
}

TileRef copyBits(const Tile& input, Type resultType) {
  MutableTileRef result = makeTile(resultType);
  std::memcpy(result->raw(), input.raw(), static_cast<size_t>(input.size()) * 8);
  if (input.undefinedMask()) std::memcpy(result->mutableUndefinedMask(), input.undefinedMask(), input.size());
  return result;
}

}  // namespace

void executeMemoryOp(Executor& executor, const Operation& op, Executor::Frame& frame) {
  switch (op.kind) {
    case OpKind::TTAddPtr:
      executor.set(frame, op.result(),
                   pointerArithmetic(op, *executor.get(frame, op.operand(0)), *executor.get(frame, op.operand(1))));
      return;
    case OpKind::TTIntToPtr:
    case OpKind::TTPtrToInt:
    case OpKind::TTBitcast:
      executor.set(frame, op.result(), copyBits(*executor.get(frame, op.operand(0)), op.result()->type));
      return;
    case OpKind::TTLoad: executeLoad(executor, op, frame); return;
    case OpKind::TTStore: executeStore(executor, op, frame); return;
    case OpKind::TTAtomicRMW:
    case OpKind::TTAtomicCAS: executeAtomic(executor, op, frame); return;
    case OpKind::TTMakeTensorPtr: executeMakeTensorPtr(executor, op, frame); return;
    case OpKind::TTAdvance: executeAdvance(executor, op, frame); return;
    default: TILESIM_UNREACHABLE("not a memory op: " + std::string(op.name()));
  }
}

}  // namespace tilesim

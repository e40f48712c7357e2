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
      if (executor_.checks()) {
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
      return nullptr;
    }
    *offset = access.offset;
    if (executor_.checks() && memory_.raceShadowEnabled()) {
      RaceHit hit = write ? memory_.noteWrite(*access.buffer, access.offset, size, executor_.programLinearId())
                          : memory_.noteRead(*access.buffer, access.offset, size, executor_.programLinearId());
      if (hit.found) {
        Report r = executor_.makeReport(Report::Kind::Race, op_, laneTile, lane, "");
        r.buffer = access.buffer->name;
        r.byteOffset = static_cast<int64_t>(access.offset);
        std::string other = hit.otherProgram >= 0 ? "program " + programName(hit.otherProgram) : "other programs";
        r.message = std::string(write ? "write" : "read") + " of " + access.buffer->name + "[" +
                    std::to_string(access.offset / access.buffer->elementBytes) + "] races with a " +
                    (hit.otherWrote ? "write" : "read") + " by " + other;
        executor_.addReport(std::move(r));
      }
    }
    return access.buffer;
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

void executeLoad(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MemoryAccessor memory(executor, op);
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const Tile* mask = op.numOperands() > 1 ? executor.get(frame, op.operand(1)).get() : nullptr;
  const Tile* other = op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  Type resultType = op.result()->type;
  MutableTileRef result = makeTile(resultType);
  const int bytes = result->elementBytes();
  const int64_t n = result->size();
  std::vector<uint64_t> blockAddress;
  std::vector<uint8_t> blockInBounds;
  const bool isBlock = pointers.elementType().isBlockPointer();
  int padding = 0;
  if (isBlock) {
    BlockAddresses addresses = blockAddresses(*pointers.as<BlockPointer>(), resultType.shape(), bytes, op.attr("boundaryCheck"));
    blockAddress = std::move(addresses.address);
    blockInBounds = std::move(addresses.inBounds);
    padding = static_cast<int>(op.intAttr("padding", 1));
  }
  const bool tracksBounds = executor.context().memory->errorBoundsEnabled();
  double* bounds = nullptr;
  uint8_t* undefined = nullptr;
  char* out = static_cast<char*>(result->raw());
  for (int64_t lane = 0; lane < n; ++lane) {
    bool active = true;
    if (mask) {
      if (laneUndefined(*mask, lane)) memory.undefinedUse(mask, lane, "an undefined mask lane decides a load");
      active = mask->bitsAt(mask->size() == 1 ? 0 : lane) & 1;
    }
    if (isBlock && !blockInBounds[lane]) {
      if (padding == 2 && resultType.isFloat()) result->setBits(lane, quietNaNBits(resultType.scalarKind()));
      continue;
    }
    if (!active) {
      if (other) {
        int64_t from = other->size() == 1 ? 0 : lane;
        std::memcpy(out + lane * bytes, static_cast<const char*>(other->raw()) + from * bytes, bytes);
        if (laneUndefined(*other, lane)) (undefined ? undefined : undefined = result->mutableUndefinedMask())[lane] = 1;
        if (other->errorBounds()) (bounds ? bounds : bounds = result->mutableErrorBounds())[lane] = other->errorBounds()[from];
      } else {
        (undefined ? undefined : undefined = result->mutableUndefinedMask())[lane] = 1;
      }
      continue;
    }
    uint64_t address = isBlock ? blockAddress[lane] : pointers.bitsAt(pointers.size() == 1 ? 0 : lane);
    if (!isBlock && laneUndefined(pointers, lane)) {
      memory.undefinedUse(&pointers, lane, "an undefined address is loaded from");
      (undefined ? undefined : undefined = result->mutableUndefinedMask())[lane] = 1;
      continue;
    }
    uint64_t offset = 0;
    Buffer* buffer = memory.resolve(&pointers, lane, address, static_cast<uint64_t>(bytes), false, &offset);
    if (!buffer) continue;  // reads as 0
    std::memcpy(out + lane * bytes, buffer->data + offset, bytes);
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
  const bool isBlock = pointers.elementType().isBlockPointer();
  BlockAddresses block;
  if (isBlock) block = blockAddresses(*pointers.as<BlockPointer>(), values.shape(), bytes, op.attr("boundaryCheck"));
  const bool tracksBounds = executor.context().memory->errorBoundsEnabled();
  const char* in = static_cast<const char*>(values.raw());
  for (int64_t lane = 0; lane < n; ++lane) {
    if (mask) {
      if (laneUndefined(*mask, lane)) memory.undefinedUse(mask, lane, "an undefined mask lane decides a store");
      if (!(mask->bitsAt(mask->size() == 1 ? 0 : lane) & 1)) continue;
    }
    if (isBlock && !block.inBounds[lane]) continue;
    if (!isBlock && laneUndefined(pointers, lane)) {
      memory.undefinedUse(&pointers, lane, "an undefined address is stored to");
      continue;
    }
    if (laneUndefined(values, lane))
      memory.undefinedUse(&values, lane, "an undefined value (masked load without `other`) is stored");
    uint64_t address = isBlock ? block.address[lane] : pointers.bitsAt(pointers.size() == 1 ? 0 : lane);
    uint64_t offset = 0;
    Buffer* buffer = memory.resolve(&pointers, lane, address, static_cast<uint64_t>(bytes), true, &offset);
    if (!buffer) continue;
    std::memcpy(buffer->data + offset, in + lane * bytes, bytes);
    if (tracksBounds) buffer->errorBound[offset / buffer->elementBytes] = values.errorBounds() ? values.errorBounds()[lane] : 0.0;
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

TileRef pointerArithmetic(const Operation& op, const Tile& pointers, const Tile& offsets) {
  MutableTileRef result = makeTile(op.result()->type);
  const int64_t scale = pointeeBytes(pointers.type());
  uint64_t* out = result->as<uint64_t>();
  for (int64_t lane = 0; lane < result->size(); ++lane) {
    uint64_t base = pointers.bitsAt(pointers.size() == 1 ? 0 : lane);
    int64_t offset = offsets.signedAt(offsets.size() == 1 ? 0 : lane);
    out[lane] = base + static_cast<uint64_t>(offset * scale);
  }
  if (pointers.undefinedMask() || offsets.undefinedMask()) {
    uint8_t* undefined = result->mutableUndefinedMask();
    for (int64_t lane = 0; lane < result->size(); ++lane)
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

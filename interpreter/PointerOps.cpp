// The Pointer family (tt.addptr, int_to_ptr, ptr_to_int, make_tensor_ptr, advance; also tt.bitcast to a
// pointer): pointer values, no memory access (loads and stores are MemoryOps.cpp). An address that leaves its
// buffer's window becomes wild (Memory.h), so a later access through it is reported, never another buffer's data.
#include <bit>
#include <cstring>

#include "interpreter/MemoryAccess.h"
#include "ir/OpAttributes.h"

namespace tilesim {
namespace {

using memory::laneUndefined;

int pointeeBytes(Type pointerType) {
  Type pointee = pointerType.element().pointee();
  if (pointee.isPointer()) return 8;
  return storageBytes(pointee.scalarKind());
}

// out[lane] = base + offset * 2^shift, wrapping (unsigned, as the GPU's). The loop is branch-free so that it
// vectorises: it only ORs together whether any result left its base's home window, and the rare tile where one
// did is fixed up afterwards lane by lane (offsetAddress: made wild).
template <bool BaseIsScalar, bool OffsetIsScalar, typename Offset>
void addOffsetsLoop(const uint64_t* __restrict base, const Offset* __restrict offsets, unsigned shift,
                    uint64_t* __restrict out, int64_t n) {
  uint64_t moved = 0;
  for (int64_t lane = 0; lane < n; ++lane) {
    const uint64_t b = base[BaseIsScalar ? 0 : lane];
    const uint64_t address =
        b + (static_cast<uint64_t>(static_cast<int64_t>(offsets[OffsetIsScalar ? 0 : lane])) << shift);
    moved |= (address + kMaxBufferBytes) ^ (b + kMaxBufferBytes);
    out[lane] = address;
  }
  if ((moved >> kBufferWindowBits) == 0) return;
  for (int64_t lane = 0; lane < n; ++lane)
    out[lane] = offsetAddress(base[BaseIsScalar ? 0 : lane],
                              static_cast<uint64_t>(static_cast<int64_t>(offsets[OffsetIsScalar ? 0 : lane])) << shift);
}

template <typename Offset>
void addOffsets(const Tile& pointers, const Offset* offsets, bool offsetIsScalar, int64_t scale, uint64_t* out,
                int64_t n) {
  const uint64_t* base = pointers.as<uint64_t>();
  const bool baseIsScalar = pointers.size() == 1;
  const auto shift = static_cast<unsigned>(std::countr_zero(static_cast<uint64_t>(scale)));  // element sizes are 2^k
  TILESIM_ASSERT((int64_t{1} << shift) == scale, "pointee size not a power of 2");
  if (baseIsScalar)
    offsetIsScalar ? addOffsetsLoop<true, true>(base, offsets, shift, out, n) : addOffsetsLoop<true, false>(base, offsets, shift, out, n);
  else
    offsetIsScalar ? addOffsetsLoop<false, true>(base, offsets, shift, out, n) : addOffsetsLoop<false, false>(base, offsets, shift, out, n);
}

TileRef pointerArithmetic(const Operation& op, const Tile& pointers, const Tile& offsets) {
  MutableTileRef result = makeTileToOverwrite(op.result()->type);
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
      result->as<uint64_t>()[lane] = offsetAddress(pointers.bitsAt(pointers.size() == 1 ? 0 : lane),
                                                   (offsets.bitsAt(offsetIsScalar ? 0 : lane) & 1) * scale);
  if (pointers.undefinedMask() || offsets.undefinedMask()) {
    uint8_t* undefined = result->mutableUndefinedMask();
    for (int64_t lane = 0; lane < n; ++lane)
      undefined[lane] = laneUndefined(pointers, lane) || laneUndefined(offsets, lane);
  }
  // Triton profile: an offset known only within a bound (G9) moves the address by up to bound * pointee bytes.
  if (pointers.errorBounds() || offsets.errorBounds()) {
    double* bounds = result->mutableErrorBounds();
    for (int64_t lane = 0; lane < n; ++lane) {
      const double pb = pointers.errorBounds() ? pointers.errorBounds()[pointers.size() == 1 ? 0 : lane] : 0.0;
      const double ob = offsets.errorBounds() ? offsets.errorBounds()[offsetIsScalar ? 0 : lane] : 0.0;
      bounds[lane] = pb + ob * static_cast<double>(scale);
    }
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
  if (const auto order = OrderView{op}.order())
    for (size_t d = 0; d < order->size() && d < 4; ++d) bp.order[d] = static_cast<int32_t>((*order)[d]);
  executor.set(frame, op.result(), result);
}

void executeAdvance(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MutableTileRef result = makeTile(op.result()->type);
  BlockPointer bp = *executor.get(frame, op.operand(0))->as<BlockPointer>();
  for (int d = 0; d < bp.rank && d + 1 < static_cast<int>(op.numOperands()); ++d)
    bp.offsets[d] = static_cast<int32_t>(static_cast<uint32_t>(bp.offsets[d]) +  // i32 offsets wrap, as on the GPU
                                         static_cast<uint32_t>(executor.get(frame, op.operand(1 + d))->signedAt(0)));
  *result->as<BlockPointer>() = bp;
  executor.set(frame, op.result(), result);
}

TileRef copyBits(const Tile& input, Type resultType) {
  MutableTileRef result = makeTile(resultType);
  std::memcpy(result->raw(), input.raw(), static_cast<size_t>(input.size()) * 8);
  if (input.undefinedMask()) std::memcpy(result->mutableUndefinedMask(), input.undefinedMask(), input.size());
  if (input.errorBounds())  // int_to_ptr / ptr_to_int keep an address's bound (bytes)
    std::memcpy(result->mutableErrorBounds(), input.errorBounds(), sizeof(double) * static_cast<size_t>(input.size()));
  return result;
}

}  // namespace

void executePointerOp(Executor& executor, const Operation& op, Executor::Frame& frame) {
  switch (familyOp<PointerOp>(op.kind)) {
    case PointerOp::TTAddPtr:
      executor.set(frame, op.result(),
                   pointerArithmetic(op, *executor.get(frame, op.operand(0)), *executor.get(frame, op.operand(1))));
      return;
    case PointerOp::TTIntToPtr:
    case PointerOp::TTPtrToInt:
      executor.set(frame, op.result(), copyBits(*executor.get(frame, op.operand(0)), op.result()->type));
      return;
    case PointerOp::TTMakeTensorPtr: executeMakeTensorPtr(executor, op, frame); return;
    case PointerOp::TTAdvance: executeAdvance(executor, op, frame); return;
    case PointerOp::TTMakeTensorDescriptor: executeMakeTensorDescriptor(executor, op, frame); return;
  }
}

void executePointerBitcast(Executor& executor, const Operation& op, Executor::Frame& frame) {
  TILESIM_ASSERT(op.kind == OpKind::TTBitcast, "executePointerBitcast on " + std::string(op.name()));
  executor.set(frame, op.result(), copyBits(*executor.get(frame, op.operand(0)), op.result()->type));
}

}  // namespace tilesim

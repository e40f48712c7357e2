// Tensor descriptors (the TMA style of Triton 3.6): tt.make_tensor_descriptor builds a TensorDescriptor
// (Tile.h) — base, shape, strides, padding — and tt.descriptor_load / store / gather / scatter move one block
// through it. An element whose coordinates lie outside [0, shape_d) on any dim is never accessed: a load gives
// the padding (zero, or NaN for floats with padding = 2), a store drops it, as the TMA unit does. An element
// inside the shape is an ordinary access at base + Σ coord_d × stride_d × sizeof(T) (wrapping, as the GPU's
// address arithmetic) and gets every check a tt.load/tt.store lane gets: outside its buffer (a descriptor whose
// shape reaches past the buffer), misaligned, races, undefined values stored. docs/semantics.md has the rules.
#include <cstring>

#include "interpreter/MemoryAccess.h"

namespace tilesim {
namespace {

using memory::laneUndefined;
using memory::MemoryAccessor;
using memory::quietNaNBits;

// Where one block element goes: its address, and whether it is inside the descriptor's shape.
struct ElementPlace {
  uint64_t address = 0;
  bool inside = false;
};

ElementPlace place(const TensorDescriptor& desc, const int64_t* coord, int elementBytes) {
  ElementPlace result;
  result.inside = true;
  uint64_t elementOffset = 0;
  for (int d = 0; d < desc.rank; ++d) {
    if (coord[d] < 0 || coord[d] >= desc.shape[d]) result.inside = false;
    elementOffset += static_cast<uint64_t>(coord[d]) * static_cast<uint64_t>(desc.strides[d]);
  }
  result.address = offsetAddress(desc.base, elementOffset * static_cast<uint64_t>(elementBytes));
  return result;
}

// The coordinates of every element of the accessed block, in the row-major order of `shape` (the op's value
// type): descriptor_load/store at indices idx use idx + the element's index in the block (a value type that
// drops the block's leading 1s has the same row-major order); gather/scatter use row x[i], column y + j.
class BlockWalk {
 public:
  BlockWalk(Executor& executor, const Operation& op, Executor::Frame& frame, const TensorDescriptor& desc,
            std::span<const int64_t> valueShape)
      : desc_(desc), valueShape_(valueShape.begin(), valueShape.end()) {
    gathers_ = op.kind == OpKind::TTDescriptorGather || op.kind == OpKind::TTDescriptorScatter;
    Type block = op.operand(0)->type.descBlock();
    blockShape_.assign(block.shape().begin(), block.shape().end());
    if (gathers_) {
      rows_ = executor.get(frame, op.operand(1));
      start_.push_back(executor.get(frame, op.operand(2))->signedAt(0));
      indexUndefined_ = laneUndefined(*executor.get(frame, op.operand(2)), 0);
    } else {
      // The coordinates follow the descriptor; after them: a stored value, or (TMA load) destination, barrier, pred.
      const size_t after = op.kind == OpKind::TTDescriptorStore || op.kind == OpKind::TTNGAsyncTMACopyLocalToGlobal ? 1
                           : op.kind == OpKind::TTNGAsyncTMACopyGlobalToLocal                                   ? 3
                                                                                                                : 0;
      const size_t count = op.numOperands() - 1 - after;
      for (size_t d = 0; d < count; ++d) {
        const Tile& index = *executor.get(frame, op.operand(1 + d));
        start_.push_back(index.signedAt(0));
        indexUndefined_ = indexUndefined_ || laneUndefined(index, 0);
      }
    }
  }

  bool indexUndefined(int64_t lane) const {
    if (indexUndefined_) return true;
    return gathers_ && laneUndefined(*rows_, lane / valueShape_.back());
  }

  ElementPlace at(int64_t lane, int elementBytes) const {
    int64_t coord[kMaxDescriptorRank] = {};
    if (gathers_) {
      const int64_t width = valueShape_.back();
      coord[0] = rows_->signedAt(lane / width);
      coord[1] = start_[0] + lane % width;
    } else {
      int64_t rest = lane;
      for (int d = desc_.rank - 1; d >= 0; --d) {
        coord[d] = start_[static_cast<size_t>(d)] + rest % blockShape_[static_cast<size_t>(d)];
        rest /= blockShape_[static_cast<size_t>(d)];
      }
    }
    return place(desc_, coord, elementBytes);
  }

 private:
  const TensorDescriptor& desc_;
  std::vector<int64_t> valueShape_, blockShape_, start_;
  TileRef rows_;
  bool gathers_ = false;
  bool indexUndefined_ = false;
};

}  // namespace

MutableTileRef loadDescriptorBlock(Executor& executor, const Operation& op, Executor::Frame& frame, Type resultType) {
  MemoryAccessor memory(executor, op);
  const TensorDescriptor& desc = *executor.get(frame, op.operand(0))->as<TensorDescriptor>();
  MutableTileRef result = makeTile(resultType);
  const int bytes = result->elementBytes();
  const BlockWalk walk(executor, op, frame, desc, resultType.shape());
  const Memory& addressSpace = *executor.context().memory;
  const bool nanPadding = desc.padding == 2 && resultType.isFloat();
  char* out = static_cast<char*>(result->raw());
  for (int64_t lane = 0; lane < result->size(); ++lane) {
    if (walk.indexUndefined(lane)) {
      memory.undefinedUse(result.get(), lane, "an undefined descriptor offset is loaded from");
      result->mutableUndefinedMask()[lane] = 1;
      continue;
    }
    const ElementPlace element = walk.at(lane, bytes);
    if (!element.inside) {
      if (nanPadding) result->setBits(lane, quietNaNBits(resultType.scalarKind()));
      continue;
    }
    uint64_t offset = 0;
    Buffer* buffer = memory.resolve(result.get(), lane, element.address, static_cast<uint64_t>(bytes), false, &offset);
    if (!buffer) continue;  // reported; reads as 0
    std::memcpy(out + lane * bytes, buffer->data + offset, static_cast<size_t>(bytes));
    if (addressSpace.errorBoundsEnabled()) {
      const double bound = buffer->errorBound[offset / buffer->elementBytes];
      if (bound != 0) result->mutableErrorBounds()[lane] = bound;
    }
  }
  return result;
}

void storeDescriptorBlock(Executor& executor, const Operation& op, Executor::Frame& frame, const Tile& values) {
  MemoryAccessor memory(executor, op);
  const TensorDescriptor& desc = *executor.get(frame, op.operand(0))->as<TensorDescriptor>();
  const int bytes = values.elementBytes();
  const BlockWalk walk(executor, op, frame, desc, values.shape());
  const Memory& addressSpace = *executor.context().memory;
  const double* valueBounds = values.errorBounds();
  const char* in = static_cast<const char*>(values.raw());
  for (int64_t lane = 0; lane < values.size(); ++lane) {
    if (walk.indexUndefined(lane)) {
      memory.undefinedUse(&values, lane, "an undefined descriptor offset is stored to");
      continue;
    }
    const ElementPlace element = walk.at(lane, bytes);
    if (!element.inside) continue;  // TMA drops it
    if (laneUndefined(values, lane))
      memory.undefinedUse(&values, lane, "an undefined value (masked load without `other`) is stored");
    uint64_t offset = 0;
    Buffer* buffer = memory.resolve(&values, lane, element.address, static_cast<uint64_t>(bytes), true, &offset,
                                    /*atomic=*/false, in + lane * bytes);
    if (!buffer) continue;
    std::memcpy(buffer->data + offset, in + lane * bytes, static_cast<size_t>(bytes));
    if (addressSpace.errorBoundsEnabled())
      buffer->errorBound[offset / buffer->elementBytes] = valueBounds ? valueBounds[lane] : 0.0;
  }
}

namespace {

void descriptorLoad(Executor& executor, const Operation& op, Executor::Frame& frame) {
  executor.set(frame, op.result(), loadDescriptorBlock(executor, op, frame, op.result()->type));
}

void descriptorStore(Executor& executor, const Operation& op, Executor::Frame& frame) {
  storeDescriptorBlock(executor, op, frame, *executor.get(frame, op.operand(op.numOperands() - 1)));
}

}  // namespace

void executeMakeTensorDescriptor(Executor& executor, const Operation& op, Executor::Frame& frame) {
  Type descType = op.result()->type;
  const int rank = descType.descBlock().rank();
  if (rank > kMaxDescriptorRank) executor.trap(Report::Kind::Unsupported, op, "tensor descriptors of rank > 5");
  MutableTileRef result = makeTile(descType);
  TensorDescriptor& desc = *result->as<TensorDescriptor>();
  desc.base = executor.get(frame, op.operand(0))->bitsAt(0);
  desc.rank = rank;
  desc.padding = TensorDescriptorView{op}.padding();
  for (int d = 0; d < rank; ++d) {
    desc.shape[d] = executor.get(frame, op.operand(1 + d))->signedAt(0);
    desc.strides[d] = executor.get(frame, op.operand(1 + rank + d))->signedAt(0);
  }
  // The TMA unit has no stride for the last dim: it is contiguous whatever the IR says.
  if (desc.strides[rank - 1] != 1)
    executor.trap(Report::Kind::Unsupported, op,
                  "tt.make_tensor_descriptor: the last stride is " + std::to_string(desc.strides[rank - 1]) +
                      "; a TMA descriptor's last dimension is contiguous (stride 1)");
  executor.set(frame, op.result(), result);
}

void executeDescriptorAccess(Executor& executor, const Operation& op, Executor::Frame& frame) {
  if (op.kind == OpKind::TTDescriptorLoad || op.kind == OpKind::TTDescriptorGather)
    descriptorLoad(executor, op, frame);
  else
    descriptorStore(executor, op, frame);
}

}  // namespace tilesim

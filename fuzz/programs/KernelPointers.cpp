// How a generated kernel addresses its inputs and outputs (KernelWriter.h; docs/fuzzing.md "What the generator
// covers"): the GPU backend decides vector widths, alignment and coalescing from `tt.divisibility` and from what
// its axis analysis proves about the offsets, so the frame varies exactly those. A buffer may be a view that
// starts mid-storage (an `alias_of` argument) at any element offset, and claims only the divisibility its byte
// offset honestly has (engines align storage far beyond 16 bytes, ir/launch/Launch.h) or none; inputs of one
// dtype may be shifted, overlapping windows of one storage (read-only, so the program stays well defined);
// offsets may be i64; inputs are read at `offs * stride + shift`; masks may have holes (`offs % k != r`) or a
// lower bound (`offs >= lo`) besides the tail `index < n`.
#include <algorithm>

#include "fuzz/programs/KernelWriter.h"

namespace tilesim::fuzz::kernelgen {

int64_t KernelWriter::inputLanes(size_t i) const {
  const int64_t full = plan_.grid * blockNumel(plan_.block);
  return std::max<int64_t>(1, full - plan_.inputs[i].trim % full);
}

const PointerPlan& KernelWriter::outputPointer(size_t j) const {
  static const PointerPlan kPlain;
  return j < plan_.outputPointers.size() ? plan_.outputPointers[j] : kPlain;
}

void KernelWriter::planInputViews() {
  for (size_t i = 0; i < plan_.inputs.size(); ++i) {
    const InputPlan& input = plan_.inputs[i];
    const PointerPlan& pointer = input.pointer;
    View view;
    view.offset = std::max<int64_t>(0, pointer.viewOffset);
    const int share = pointer.shareStorage;
    if (share >= 0 && static_cast<size_t>(share) < i && plan_.inputs[share].dtype == input.dtype) {
      View& other = inputViews_[static_cast<size_t>(share)];
      if (other.storage < 0) {  // the earlier input becomes a view at its own offset 0 of a new storage
        other.storage = static_cast<int>(storages_.size());
        storages_.push_back({input.dtype, 0, "in_storage" + std::to_string(storages_.size())});
      }
      view.storage = other.storage;
    } else if (view.offset > 0) {
      view.storage = static_cast<int>(storages_.size());
      storages_.push_back({input.dtype, 0, "in_storage" + std::to_string(storages_.size())});
    }
    inputViews_.push_back(view);
  }
  // Each storage covers its views and 0..2 elements more (what a vector access past a view's end would read).
  for (size_t i = 0; i < inputViews_.size(); ++i) {
    const View& view = inputViews_[i];
    if (view.storage < 0) continue;
    Storage& storage = storages_[static_cast<size_t>(view.storage)];
    storage.length = std::max(storage.length, view.offset + inputLength(i) + plan_.inputs[i].pointer.maskParam % 3);
  }
}

void KernelWriter::planOutputView(size_t j) {
  View view;
  view.offset = std::max<int64_t>(0, outputPointer(j).viewOffset);
  if (view.offset > 0) {
    view.storage = static_cast<int>(storages_.size());
    storages_.push_back({stored_[j].dtype, view.offset + outputLength(j) + outputPointer(j).maskParam % 3,
                         "out_storage" + std::to_string(j)});
  }
  outputViews_.push_back(view);
}

int KernelWriter::claimedDivisibility(const PointerPlan& pointer, int64_t offsetElements, DType dtype) const {
  if (!pointer.claimDivisibility) return 0;
  const int64_t bytes = offsetElements * storageBytes(builder::scalarKindOf(dtype));
  if (bytes == 0) return 16;
  return static_cast<int>(std::min<int64_t>(16, bytes & -bytes));
}

std::pair<Tensor, Tensor> KernelWriter::addressing(const PointerPlan& pointer, const Tensor& offs, int64_t length) {
  Tensor o = pointer.offsets64 ? kb_.cast(offs, DType::Int64) : offs;
  Tensor index = o;
  if (pointer.stride > 1) index = kb_.mul(index, Literal(static_cast<long long>(pointer.stride)));
  if (pointer.shift > 0) index = kb_.add(index, Literal(static_cast<long long>(pointer.shift)));
  Tensor mask = kb_.lt(index, Literal(static_cast<long long>(length)));
  if (pointer.maskKind == 1) {  // holes: every k-th lane off
    const long long k = 2 + pointer.maskParam % 3, r = (pointer.maskParam / 3) % k;
    mask = kb_.and_(mask, kb_.ne(kb_.mod(o, Literal(k)), Literal(r)));
  } else if (pointer.maskKind == 2) {  // a window: lanes below lo off
    mask = kb_.and_(mask, kb_.ge(o, Literal(static_cast<long long>(pointer.maskParam % std::max<int64_t>(1, length)))));
  }
  return {index, mask};
}

// x_i = tl.load(in_i + index, mask, other) [then tl.where(mask, x_i, 0) when there is no `other`].
Tensor KernelWriter::loadInput(size_t i, const Tensor& offs) {
  const InputPlan& input = plan_.inputs[i];
  auto [index, mask] = addressing(input.pointer, offs, inputLength(i));
  Tensor pointer = kb_.add(inputs_[i], index);
  Tensor x = input.withOther
                 ? kb_.load(pointer, Operand(mask),
                            Operand(builder::isBool(input.dtype) ? Literal(false)
                                                                 : safeLiteral(input.otherIndex, builder::isFloating(input.dtype))))
                 : kb_.load(pointer, Operand(mask));
  if (!input.withOther && input.sanitize) x = kb_.where(mask, x, builder::isBool(input.dtype) ? Literal(false) : Literal(0));
  return x;
}

// tl.store(out_j + offs_j, value, mask) for a tile; a 0-d value is stored per program at out_j + pid.
void KernelWriter::storeOutput(size_t j, const Tensor& value) {
  planOutputView(j);
  const PointerPlan& pointer = outputPointer(j);
  Tensor out = kb_.pointerArgWithDivisibility("out" + std::to_string(j), value.dtype,
                                              claimedDivisibility(pointer, outputViews_[j].offset, value.dtype));
  if (!value.isBlock()) {
    kb_.store(kb_.add(out, pointer.offsets64 ? kb_.cast(pid_, DType::Int64) : pid_), value);
    return;
  }
  PointerPlan tile = pointer;  // outputs are written densely: stride 1, no shift
  tile.stride = 1;
  tile.shift = 0;
  auto [index, mask] = addressing(tile, offsets(value.shape), outputLength(j));
  kb_.store(kb_.add(out, index), value, Operand(mask));
}

}  // namespace tilesim::fuzz::kernelgen

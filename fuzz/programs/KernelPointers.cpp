// How a generated kernel addresses its inputs and outputs (KernelWriter.h; docs/fuzzing.md "What the generator
// covers"): the GPU backend decides vector widths, alignment and coalescing from `tt.divisibility` and from what
// its axis analysis proves about the offsets, so the frame varies exactly those. A buffer may be a view that
// starts mid-storage (an `alias_of` argument) at any element offset, and claims only the divisibility its byte
// offset honestly has (engines align storage far beyond 16 bytes, ir/launch/Launch.h) or none; inputs of one
// dtype may be shifted, overlapping windows of one storage (read-only, so the program stays well defined);
// offsets may be i64; inputs are read at `offs * stride + shift`, or in groups of lanes reading one element
// (a row's first element broadcast along the row in 2-D, `(offs / g) * g` in 1-D), through a pointer advanced to the view's middle and indexed backwards from there (i32
// offsets below zero); masks may have holes (`offs % k != r`) or a lower bound (`offs >= lo`) besides the tail
// `index < n`.
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
        storages_.push_back({input.dtype, 0, "in_storage" + std::to_string(storages_.size()), inputConvertsTo(share)});
      }
      view.storage = other.storage;
    } else if (view.offset > 0) {
      view.storage = static_cast<int>(storages_.size());
      storages_.push_back({input.dtype, 0, "in_storage" + std::to_string(storages_.size()), inputConvertsTo(i)});
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

// pid * numel + rows[:, None] * C broadcast to [R, C]: every lane of a row gets the offset of the row's first
// element (a per-row value read by every column: aligned, contiguity 1, constancy C along the row).
Tensor KernelWriter::rowStarts(const std::vector<int64_t>& shape) {
  Tensor rows = kb_.mul(kb_.expandDims(kb_.arange(0, shape[0]), 1), Literal(static_cast<long long>(shape[1])));
  rows = kb_.add(rows, kb_.mul(pid_, Literal(static_cast<long long>(blockNumel(shape)))));
  return kb_.broadcastTo(rows, shape);
}

std::pair<Tensor, Tensor> KernelWriter::addressing(const PointerPlan& pointer, const Tensor& offs, int64_t length) {
  Tensor o = pointer.offsets64 ? kb_.cast(offs, DType::Int64) : offs;
  Tensor index = o;
  if (pointer.group > 1 && offs.rank() == 2) {
    index = rowStarts(offs.shape);  // built from the row range alone: AxisInfo sees constancy C along the row
    if (pointer.offsets64) index = kb_.cast(index, DType::Int64);
  } else if (pointer.group > 1) {
    const Literal group(static_cast<long long>(pointer.group));
    index = kb_.mul(kb_.floordiv(index, group), group);
  }
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

// How far input i's pointer moves before it is indexed backwards (PointerPlan::rebase): half its view, rounded down
// to a multiple of 16 bytes where that leaves something, so the move keeps the alignment vector accesses need.
int64_t KernelWriter::rebaseElements(size_t i) const {
  if (!plan_.inputs[i].pointer.rebase) return 0;
  const int64_t half = inputLength(i) / 2;
  const int64_t step = std::max<int64_t>(1, 16 / storageBytes(builder::scalarKindOf(plan_.inputs[i].dtype)));
  return half >= step ? half / step * step : half;
}

// x_i = tl.load(in_i + index, mask, other) [then tl.where(mask, x_i, 0) when there is no `other`].
Tensor KernelWriter::loadInput(size_t i, const Tensor& offs) {
  const InputPlan& input = plan_.inputs[i];
  auto [index, mask] = addressing(input.pointer, offs, inputLength(i));
  Tensor base = inputs_[i];
  if (const long long middle = rebaseElements(i); middle > 0) {
    base = kb_.add(base, Literal(middle));  // in bounds: the view has inputLength(i) elements
    index = kb_.sub(index, Literal(middle));
  }
  Tensor pointer = kb_.add(base, index);
  Tensor x = input.withOther
                 ? kb_.load(pointer, Operand(mask),
                            Operand(builder::isBool(input.dtype) ? Literal(false)
                                                                 : safeLiteral(input.otherIndex, builder::isFloating(input.dtype))))
                 : kb_.load(pointer, Operand(mask));
  if (!input.withOther && input.sanitize) x = kb_.where(mask, x, builder::isBool(input.dtype) ? Literal(false) : Literal(0));
  return x;
}

namespace {

// InputPlan::convert - 1 indexes this: what a loaded value is converted to first ("rtz" rounds toward zero).
struct LoadConversion {
  DType to;
  bool rtz;
};
constexpr LoadConversion kLoadConversions[] = {
    {DType::Fp16, false}, {DType::Fp16, true}, {DType::BF16, false}, {DType::BF16, true}, {DType::Fp8E4Nv, false},
    {DType::Fp8E5, false}, {DType::Int32, false}, {DType::Int8, false}, {DType::UInt8, false}};

}  // namespace

DType KernelWriter::inputConvertsTo(size_t i) const {
  const InputPlan& input = plan_.inputs[i];
  if (input.convert <= 0 || input.dtype == DType::Int1) return DType::Int1;
  const LoadConversion& conversion = kLoadConversions[(input.convert - 1) % std::size(kLoadConversions)];
  if (builder::isFloating(input.dtype)) return conversion.to;
  // Integers convert to a float (the ties of int -> float rounding: 2^11 + 1, 2^24 + 1, ...).
  return builder::isFloating(conversion.to) ? conversion.to : DType::Fp32;
}

Tensor KernelWriter::convertInput(size_t i, const Tensor& x) {
  const DType to = inputConvertsTo(i);
  if (to == DType::Int1 || to == x.dtype) return Tensor{};
  const bool rtz = kLoadConversions[(plan_.inputs[i].convert - 1) % std::size(kLoadConversions)].rtz;
  if (!isFloat(x)) return kb_.cast(x, to);
  if (!builder::isFloating(to)) return floatToInt(x, to);
  const bool narrower = builder::primitiveBitWidth(to) < builder::primitiveBitWidth(x.dtype);
  return rtz && narrower ? kb_.cast(x, to, false, std::string("rtz")) : kb_.cast(x, to);
}

// A tile of the plan's block shape from input k through a tensor descriptor (tt.make_tensor_descriptor +
// tt.descriptor_load): 1-D over the view, or 2-D over rows x cols whose row stride is a multiple of 16 bytes
// (a TMA descriptor's rule; the shape may be a column narrower), at block offsets that may start one before the
// shape or run past it: those elements are the padding (zero, or NaN for floats).
Tensor KernelWriter::descriptorLoadNode(const Node& n) {
  const size_t k = n.b % inputs_.size();
  const DType dtype = plan_.inputs[k].dtype;
  if (dtype == DType::Int1) return Tensor{};
  const int64_t bytes = storageBytes(builder::scalarKindOf(dtype));
  if (inputViews_[k].offset * bytes % 16 != 0) return Tensor{};  // a descriptor's base is 16-byte aligned
  const int64_t length = inputLength(k);
  const std::vector<int64_t>& block = plan_.block;
  const long long shift = n.variant % 3 - 1;
  std::vector<int64_t> shape, strides;
  std::vector<Tensor> offsets{kb_.add(kb_.mul(pid_, Literal(static_cast<long long>(block[0]))), Literal(shift))};
  if (block.size() == 1) {
    shape = {length};
    strides = {1};
  } else {
    const int64_t align = std::max<int64_t>(1, 16 / bytes);
    const int64_t cols = (block[1] + n.variant % 3 + align - 1) / align * align;
    const int64_t rows = length / cols;
    if (rows < 1) return Tensor{};
    shape = {rows, cols - static_cast<int64_t>(n.c % 2)};
    strides = {cols, 1};
    offsets.push_back(kb_.toTensor(Literal(static_cast<long long>(n.c % 3) - 1)));
  }
  const int padding = builder::isFloating(dtype) && n.variant % 4 >= 2 ? 2 : 1;
  return kb_.descriptorLoad(inputs_[k], shape, strides, block, offsets, padding);
}

// tl.store(out_j + offs_j, value, mask) for a tile, or desc.store([pid * rows, 0], value) through a descriptor
// over the buffer (elements past its shape dropped); a 0-d value is stored per program at out_j + pid.
void KernelWriter::storeOutput(size_t j, const Tensor& value) {
  planOutputView(j);
  const PointerPlan& pointer = outputPointer(j);
  Tensor out = kb_.pointerArgWithDivisibility("out" + std::to_string(j), value.dtype,
                                              claimedDivisibility(pointer, outputViews_[j].offset, value.dtype));
  const int64_t bytes = storageBytes(builder::scalarKindOf(value.dtype));
  if (pointer.descriptor && value.isBlock() && value.rank() <= 2 && value.dtype != DType::Int1 &&
      outputViews_[j].offset * bytes % 16 == 0 && (value.rank() == 1 || value.shape[1] * bytes % 16 == 0)) {
    const int64_t length = outputLength(j);
    std::vector<Tensor> offsets{kb_.mul(pid_, Literal(static_cast<long long>(value.shape[0])))};
    if (value.rank() == 1) {
      kb_.descriptorStore(out, {length}, {1}, offsets, value);
    } else {
      offsets.push_back(kb_.toTensor(Literal(0LL)));
      kb_.descriptorStore(out, {length / value.shape[1], value.shape[1]}, {value.shape[1], 1}, offsets, value);
    }
    return;
  }
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

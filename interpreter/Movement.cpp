// The Shape family (splat, unsplat, broadcast, expand_dims, reshape, trans, join, split, cat, gather,
// histogram), plus the tiles of arith.constant and tt.make_range that the Constant family (Executor.cpp)
// builds. Everything that only moves lanes goes through gatherLanes, so the undefined mask and
// the error bounds move exactly like the data.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "interpreter/Executor.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim {
namespace ops {

std::vector<int64_t> laneIndex(std::span<const int64_t> shape, int64_t lane) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = lane % shape[d];
    lane /= shape[d];
  }
  return index;
}

namespace {

std::vector<int64_t> stridesOf(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// Same bytes, new type (reshape, expand_dims, unsplat): copies data and shadows unchanged.
TileRef retype(const Tile& input, Type resultType) {
  MutableTileRef result = makeTile(resultType);
  TILESIM_ASSERT(result->size() == input.size(), "retype with a different element count");
  std::memcpy(result->raw(), input.raw(), static_cast<size_t>(input.size()) * input.elementBytes());
  if (input.undefinedMask()) std::memcpy(result->mutableUndefinedMask(), input.undefinedMask(), input.size());
  if (input.errorBounds())
    std::memcpy(result->mutableErrorBounds(), input.errorBounds(), sizeof(double) * input.size());
  return result;
}

}  // namespace

TileRef gatherLanes(const Tile& input, std::span<const int64_t> sourceLane, Type resultType) {
  MutableTileRef result = makeTileToOverwrite(resultType);  // every lane is written below
  const int64_t n = result->size();
  TILESIM_ASSERT(static_cast<int64_t>(sourceLane.size()) == n, "gatherLanes map size");
  const int bytes = input.elementBytes();
  const char* in = static_cast<const char*>(input.raw());
  char* out = static_cast<char*>(result->raw());
  switch (bytes) {
    case 1: for (int64_t i = 0; i < n; ++i) out[i] = in[sourceLane[i]]; break;
    case 2: for (int64_t i = 0; i < n; ++i) std::memcpy(out + 2 * i, in + 2 * sourceLane[i], 2); break;
    case 4: for (int64_t i = 0; i < n; ++i) std::memcpy(out + 4 * i, in + 4 * sourceLane[i], 4); break;
    case 8: for (int64_t i = 0; i < n; ++i) std::memcpy(out + 8 * i, in + 8 * sourceLane[i], 8); break;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + bytes * i, in + bytes * sourceLane[i], bytes);
  }
  if (const uint8_t* undefined = input.undefinedMask()) {
    uint8_t* dst = result->mutableUndefinedMask();
    for (int64_t i = 0; i < n; ++i) dst[i] = undefined[sourceLane[i]];
  }
  if (const double* bounds = input.errorBounds()) {
    double* dst = result->mutableErrorBounds();
    for (int64_t i = 0; i < n; ++i) dst[i] = bounds[sourceLane[i]];
  }
  return result;
}

TileRef makeRange(const Operation& op) {
  MutableTileRef result = makeTile(op.result()->type);
  const int32_t start = static_cast<int32_t>(MakeRangeView{op}.start());
  int32_t* out = result->as<int32_t>();
  for (int64_t i = 0; i < result->size(); ++i)
    out[i] = TILESIM_MUTANT(interp_make_range_i32_wraps_at_i16, start + static_cast<int32_t>(i),
                            static_cast<int16_t>(start + static_cast<int32_t>(i)));
  return result;
}

TileRef constant(const Operation& op) {
  Type type = op.result()->type;
  MutableTileRef result = makeTile(type);
  const Attribute* value = ConstantView{op}.value();
  switch (value->kind()) {
    case Attribute::Kind::Dense:
      for (int64_t i = 0; i < result->size(); ++i) result->setBits(i, value->denseBitsAt(i));
      break;
    case Attribute::Kind::Integer:
    case Attribute::Kind::Bool:
      result->setBits(0, static_cast<uint64_t>(value->intValue()));
      break;
    case Attribute::Kind::Float:
      result->setBits(0, value->bits());
      break;
    default:
      TILESIM_UNREACHABLE("arith.constant with an unsupported value attribute");
  }
  return result;
}

namespace {

// Copies element `from` of `input` into elements [begin, begin + count) of `result` (data and shadows).
void fillFrom(const Tile& input, int64_t from, Tile& result, int64_t begin, int64_t count) {
  const int bytes = input.elementBytes();
  const char* source = static_cast<const char*>(input.raw()) + from * bytes;
  char* out = static_cast<char*>(result.raw()) + begin * bytes;
  switch (bytes) {
    case 1: std::fill_n(out, count, *source); break;
    case 2: std::fill_n(reinterpret_cast<uint16_t*>(out), count, *reinterpret_cast<const uint16_t*>(source)); break;
    case 4: std::fill_n(reinterpret_cast<uint32_t*>(out), count, *reinterpret_cast<const uint32_t*>(source)); break;
    case 8: std::fill_n(reinterpret_cast<uint64_t*>(out), count, *reinterpret_cast<const uint64_t*>(source)); break;
    default:
      for (int64_t i = 0; i < count; ++i) std::memcpy(out + i * bytes, source, bytes);
  }
  if (input.undefinedMask()) std::fill_n(result.mutableUndefinedMask() + begin, count, input.undefinedMask()[from]);
  if (input.errorBounds()) std::fill_n(result.mutableErrorBounds() + begin, count, input.errorBounds()[from]);
}

// Copies elements [from, from + count) of `input` to [begin, begin + count) of `result`.
void copyRun(const Tile& input, int64_t from, Tile& result, int64_t begin, int64_t count) {
  const int bytes = input.elementBytes();
  std::memcpy(static_cast<char*>(result.raw()) + begin * bytes, static_cast<const char*>(input.raw()) + from * bytes,
              static_cast<size_t>(count) * bytes);
  if (input.undefinedMask()) std::memcpy(result.mutableUndefinedMask() + begin, input.undefinedMask() + from, count);
  if (input.errorBounds())
    std::memcpy(result.mutableErrorBounds() + begin, input.errorBounds() + from, sizeof(double) * count);
}

}  // namespace

TileRef splat(const Tile& scalar, Type resultType) {
  MutableTileRef result = makeTileToOverwrite(resultType);
  fillFrom(scalar, 0, *result, 0, result->size());
  return result;
}

// Walks the result in runs along its last dim: a run is a fill (the input's last dim is 1) or a copy.
TileRef broadcastTo(const Tile& input, Type resultType) {
  std::span<const int64_t> outShape = resultType.shape();
  std::span<const int64_t> inShape = input.shape();
  if (inShape.empty() || input.size() == 1) return splat(input, resultType);
  TILESIM_ASSERT(inShape.size() == outShape.size(), "broadcast between ranks");
  std::vector<int64_t> inStrides = stridesOf(inShape);
  MutableTileRef result = makeTileToOverwrite(resultType);
  const size_t rank = outShape.size();
  const int64_t run = outShape[rank - 1];
  const bool fillRuns = inShape[rank - 1] == 1;
  const int64_t runs = resultType.numElements() / run;
  std::vector<int64_t> index(rank, 0);  // multi-index of the run's first element (last dim stays 0)
  for (int64_t r = 0; r < runs; ++r) {
    int64_t from = 0;
    for (size_t d = 0; d + 1 < rank; ++d) from += (inShape[d] == 1 ? 0 : index[d]) * inStrides[d];
    if (fillRuns) fillFrom(input, from, *result, r * run, run);
    else copyRun(input, from, *result, r * run, run);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < outShape[d]) break;
      index[d] = 0;
    }
  }
  return result;
}

TileRef reshape(const Tile& input, Type resultType) { return retype(input, resultType); }
TileRef expandDims(const Tile& input, Type resultType) { return retype(input, resultType); }

TileRef transpose(const Tile& input, std::span<const int64_t> order, Type resultType) {
  std::span<const int64_t> outShape = resultType.shape();
  std::vector<int64_t> inStrides = stridesOf(input.shape());
  const int64_t n = resultType.numElements();
  std::vector<int64_t> source(static_cast<size_t>(n));
  std::vector<int64_t> index(outShape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = 0;
    for (size_t d = 0; d < outShape.size(); ++d) s += index[d] * inStrides[order[d]];
    source[i] = s;
    for (size_t d = outShape.size(); d-- > 0;) {
      if (++index[d] < outShape[d]) break;
      index[d] = 0;
    }
  }
  return gatherLanes(input, source, resultType);
}

// Joins by concatenating then interleaving: lane 2i of the result is lhs[i], lane 2i+1 is rhs[i].
TileRef join(const Tile& lhs, const Tile& rhs, Type resultType) {
  Type both = Type::tensor({2 * lhs.size()}, lhs.elementType());
  TileRef stacked = concatenate(lhs, rhs, both);
  std::vector<int64_t> source(static_cast<size_t>(2 * lhs.size()));
  for (int64_t i = 0; i < lhs.size(); ++i) {
    source[2 * i] = TILESIM_MUTANT(interp_join_operands_swapped, i, lhs.size() + i);
    source[2 * i + 1] = TILESIM_MUTANT(interp_join_operands_swapped, lhs.size() + i, i);
  }
  return gatherLanes(*stacked, source, resultType);
}

std::pair<TileRef, TileRef> split(const Tile& input, Type resultType) {
  const int64_t half = input.size() / 2;
  std::vector<int64_t> even(static_cast<size_t>(half)), odd(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    even[i] = TILESIM_MUTANT(interp_split_halves_swapped, 2 * i, 2 * i + 1);
    odd[i] = TILESIM_MUTANT(interp_split_halves_swapped, 2 * i + 1, 2 * i);
  }
  return {gatherLanes(input, even, resultType), gatherLanes(input, odd, resultType)};
}

TileRef concatenate(const Tile& lhs, const Tile& rhs, Type resultType) {
  MutableTileRef result = makeTile(resultType);
  const size_t lhsBytes = static_cast<size_t>(lhs.size()) * lhs.elementBytes();
  std::memcpy(result->raw(), lhs.raw(), lhsBytes);
  std::memcpy(static_cast<char*>(result->raw()) + lhsBytes, rhs.raw(), static_cast<size_t>(rhs.size()) * rhs.elementBytes());
  if (lhs.undefinedMask() || rhs.undefinedMask()) {
    uint8_t* dst = result->mutableUndefinedMask();
    if (lhs.undefinedMask()) std::memcpy(dst, lhs.undefinedMask(), lhs.size());
    if (rhs.undefinedMask()) std::memcpy(dst + lhs.size(), rhs.undefinedMask(), rhs.size());
  }
  if (lhs.errorBounds() || rhs.errorBounds()) {
    double* dst = result->mutableErrorBounds();
    if (lhs.errorBounds()) std::memcpy(dst, lhs.errorBounds(), sizeof(double) * lhs.size());
    if (rhs.errorBounds()) std::memcpy(dst + lhs.size(), rhs.errorBounds(), sizeof(double) * rhs.size());
  }
  return result;
}

}  // namespace ops

namespace {

void executeGather(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const Tile& source = *executor.get(frame, op.operand(0));
  const Tile& indices = *executor.get(frame, op.operand(1));
  const int axis = AxisView{op}.axis();
  std::span<const int64_t> srcShape = source.shape();
  std::vector<int64_t> srcStrides(srcShape.size(), 1);
  for (size_t d = srcShape.size(); d-- > 1;) srcStrides[d - 1] = srcStrides[d] * srcShape[d];
  std::vector<int64_t> lanes(static_cast<size_t>(indices.size()));
  for (int64_t i = 0; i < indices.size(); ++i) {
    std::vector<int64_t> index = ops::laneIndex(indices.shape(), i);
    int64_t at = indices.signedAt(i);
    if (at < 0 || at >= srcShape[axis]) {
      Report r = executor.makeReport(Report::Kind::OutOfBounds, op, &indices, i,
                                     "gather index " + std::to_string(at) + " outside [0, " +
                                         std::to_string(srcShape[axis]) + ") along axis " + std::to_string(axis));
      throw ProgramTrap{std::move(r)};
    }
    index[axis] = at;
    for (size_t d = 0; d < index.size(); ++d)  // the verifier requires this; unverified IR must not read wild
      if (index[d] >= srcShape[d])
        executor.trap(Report::Kind::Unsupported, op, "gather index tensor is larger than the source on axis " +
                                                         std::to_string(d));
    int64_t s = 0;
    for (size_t d = 0; d < index.size(); ++d) s += index[d] * srcStrides[d];
    lanes[i] = s;
  }
  TileRef result = ops::gatherLanes(source, lanes, op.result()->type);
  if (indices.undefinedMask()) {
    uint8_t* mask = const_cast<Tile&>(*result).mutableUndefinedMask();
    for (int64_t i = 0; i < indices.size(); ++i) mask[i] |= indices.undefinedMask()[i];
  }
  // Triton profile: an index known only within a bound (an approximate float through fptosi, docs/findings.md
  // G9) may pick another element on the GPU: that lane is unconstrained.
  if (const double* indexBounds = indices.errorBounds()) {
    double* bounds = const_cast<Tile&>(*result).mutableErrorBounds();
    for (int64_t i = 0; i < indices.size(); ++i)
      if (indexBounds[i] > 0) bounds[i] = std::numeric_limits<double>::infinity();
  }
  executor.set(frame, op.result(), result);
}

void executeHistogram(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const Tile& values = *executor.get(frame, op.operand(0));
  const Tile* mask = op.numOperands() > 1 ? executor.get(frame, op.operand(1)).get() : nullptr;
  MutableTileRef result = makeTile(op.result()->type);
  const int64_t bins = result->size();
  int32_t* counts = result->as<int32_t>();
  for (int64_t i = 0; i < values.size(); ++i) {
    if (mask && !(mask->bitsAt(i) & 1)) continue;
    if (values.undefinedMask() && values.undefinedMask()[i] && executor.checks())
      executor.report(Report::Kind::UndefinedUse, op, &values, i, "an undefined value is counted by tt.histogram");
    int64_t v = values.signedAt(i);
    if (v >= 0 && v < bins) ++counts[v];
    // A value known only within a bound (an approximate quotient truncated by fptosi: findings T7) may land in
    // any bin in [v - b, v + b]: each of those counts is uncertain by one more.
    const double b = values.errorBounds() ? values.errorBounds()[i] : 0.0;
    if (b > 0) {
      double* bounds = result->mutableErrorBounds();
      const double lo = std::max(0.0, static_cast<double>(v) - b), hi = std::min(static_cast<double>(bins - 1), static_cast<double>(v) + b);
      for (int64_t bin = static_cast<int64_t>(std::ceil(lo)); bin <= static_cast<int64_t>(std::floor(hi)); ++bin) bounds[bin] += 1;
    }
  }
  executor.set(frame, op.result(), result);
}

}  // namespace

void executeShapeOp(Executor& executor, const Operation& op, Executor::Frame& frame) {
  auto operand = [&](size_t i) -> const Tile& { return *executor.get(frame, op.operand(i)); };
  Type resultType = op.result()->type;
  switch (familyOp<ShapeOp>(op.kind)) {
    case ShapeOp::TTSplat: executor.set(frame, op.result(), ops::splat(operand(0), resultType)); return;
    case ShapeOp::TTUnsplat:
    case ShapeOp::TTReshape:
    case ShapeOp::TTExpandDims: executor.set(frame, op.result(), ops::reshape(operand(0), resultType)); return;
    case ShapeOp::TTBroadcast: executor.set(frame, op.result(), ops::broadcastTo(operand(0), resultType)); return;
    case ShapeOp::TTTrans: {
      const std::optional<std::span<const int64_t>> order = OrderView{op}.order();
      std::vector<int64_t> permutation;
      if (order) permutation.assign(order->begin(), order->end());
      else for (int64_t d = operand(0).type().rank(); d-- > 0;) permutation.push_back(d);
      executor.set(frame, op.result(), ops::transpose(operand(0), permutation, resultType));
      return;
    }
    case ShapeOp::TTJoin: executor.set(frame, op.result(), ops::join(operand(0), operand(1), resultType)); return;
    case ShapeOp::TTSplit: {
      auto [lhs, rhs] = ops::split(operand(0), resultType);
      executor.set(frame, op.result(0), lhs);
      executor.set(frame, op.result(1), rhs);
      return;
    }
    case ShapeOp::TTCat: executor.set(frame, op.result(), ops::concatenate(operand(0), operand(1), resultType)); return;
    case ShapeOp::TTGather: executeGather(executor, op, frame); return;
    case ShapeOp::TTHistogram: executeHistogram(executor, op, frame); return;
  }
}

}  // namespace tilesim

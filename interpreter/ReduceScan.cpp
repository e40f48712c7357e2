// tt.reduce and tt.scan. The combine region runs on whole slices at once ("vectorised": every op in the
// region sees tiles holding one lane per independent reduction), so a reduction of S elements costs log2(S)
// region evaluations, not S-1 per output.
//
// Orders (docs/semantics.md §reductions; BRIEF decision 4):
// - reduce: halving tree. With S the (power-of-two) extent along `axis`: for m = S/2, S/4, ..., 1:
//   x[i] = combine(x[i], x[i + m]) for i < m. This is the butterfly a GPU warp performs; integer reductions
//   are exact in any order, and argmax/argmin ties resolve to the smallest index by their combine region.
// - scan: sequential, acc[0] = x[0], acc[i] = combine(acc[i-1], x[i]) (from the end when reverse).
// Under the triton float profile, float sums/products also get an error bound for the GPU's different order:
// 2 (S-1) u sum|x| (u = unit roundoff of the element type).
#include <cmath>
#include <cstring>

#include "interpreter/Executor.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

struct AxisGeometry {
  int64_t outer = 1, extent = 1, inner = 1;
};

AxisGeometry geometry(std::span<const int64_t> shape, int axis) {
  AxisGeometry g;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d < axis) g.outer *= shape[d];
    else if (d == axis) g.extent = shape[d];
    else g.inner *= shape[d];
  }
  return g;
}

std::vector<int64_t> sliceShape(std::span<const int64_t> shape, int axis, int64_t extent) {
  std::vector<int64_t> result(shape.begin(), shape.end());
  result[axis] = extent;
  return result;
}

// Lanes [begin, begin + count) along the axis.
TileRef slice(const Tile& input, int axis, int64_t begin, int64_t count) {
  AxisGeometry g = geometry(input.shape(), axis);
  std::vector<int64_t> lanes;
  lanes.reserve(static_cast<size_t>(g.outer * count * g.inner));
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t a = begin; a < begin + count; ++a)
      for (int64_t i = 0; i < g.inner; ++i) lanes.push_back((o * g.extent + a) * g.inner + i);
  Type type = input.type().withShape(sliceShape(input.shape(), axis, count));
  return ops::gatherLanes(input, lanes, type);
}

// Writes `part` (shape with extent 1 along axis) into position `at` along the axis of `whole`.
void scatterSlice(Tile& whole, const Tile& part, int axis, int64_t at) {
  AxisGeometry g = geometry(whole.shape(), axis);
  const int bytes = whole.elementBytes();
  for (int64_t o = 0; o < g.outer; ++o) {
    for (int64_t i = 0; i < g.inner; ++i) {
      int64_t dst = (o * g.extent + at) * g.inner + i, src = o * g.inner + i;
      std::memcpy(static_cast<char*>(whole.raw()) + dst * bytes, static_cast<const char*>(part.raw()) + src * bytes, bytes);
      if (part.undefinedMask()) whole.mutableUndefinedMask()[dst] = part.undefinedMask()[src];
      if (part.errorBounds()) whole.mutableErrorBounds()[dst] = part.errorBounds()[src];
    }
  }
}


bool comparesFloats(const Block& combine) {
  for (const auto& op : combine.operations)
    if (op->kind == OpKind::ArithCmpF) return true;
  return false;
}

bool reordersRounding(const Block& combine) {
  for (const auto& op : combine.operations)
    if (op->kind == OpKind::ArithAddF || op->kind == OpKind::ArithSubF || op->kind == OpKind::ArithMulF) return true;
  return false;
}

double unitRoundoff(Type element) {
  if (!element.isFloat()) return 0.0;
  return std::ldexp(1.0, -(floatFormat(element.scalarKind()).mantissaBits + 1));
}

std::vector<TileRef> runCombine(Executor& executor, const Block& combine, std::vector<TileRef> arguments,
                                Executor::Frame& frame) {
  bool saved = frame.vectorized;
  frame.vectorized = true;
  std::vector<TileRef> results = executor.runBlock(combine, arguments, frame);
  frame.vectorized = saved;
  return results;
}

}  // namespace

void executeReduce(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const int axis = static_cast<int>(op.intAttr("axis"));
  const size_t count = op.numOperands();
  const Block& combine = op.region(0).front();
  std::vector<TileRef> current;
  for (const Value* v : op.operands) current.push_back(executor.get(frame, v));
  const Tile& first = *current[0];
  const int64_t extent = first.shape()[axis];
  for (int64_t size = extent; size > 1; size /= 2) {
    const int64_t half = size / 2;
    std::vector<TileRef> arguments;
    for (size_t k = 0; k < count; ++k) arguments.push_back(slice(*current[k], axis, 0, half));
    for (size_t k = 0; k < count; ++k) arguments.push_back(slice(*current[k], axis, half, half));
    std::vector<TileRef> combined = runCombine(executor, combine, arguments, frame);
    for (size_t k = 0; k < count; ++k) {
      Type expected = arguments[k]->type().withElement(combined[k]->elementType());
      current[k] = combined[k]->size() == expected.numElements() ? combined[k] : ops::broadcastTo(*combined[k], expected);
    }
  }
  for (size_t k = 0; k < count; ++k) {
    Type resultType = op.result(k)->type;
    TileRef result = ops::reshape(*current[k], resultType);
    if (executor.context().options.profile == FloatProfile::Triton && resultType.isFloat() && extent > 1 &&
        reordersRounding(combine)) {
      const Tile& input = *executor.get(frame, op.operand(k));
      AxisGeometry g = geometry(input.shape(), axis);
      const double u = unitRoundoff(resultType.element());
      Tile& mutableResult = const_cast<Tile&>(*result);
      double* bounds = mutableResult.mutableErrorBounds();
      for (int64_t o = 0; o < g.outer; ++o)
        for (int64_t i = 0; i < g.inner; ++i) {
          double sum = 0;
          for (int64_t a = 0; a < g.extent; ++a)
            sum += std::fabs(doubleFromFloatBits(input.bitsAt((o * g.extent + a) * g.inner + i), input.elementType().scalarKind()));
          bounds[o * g.inner + i] += 2.0 * static_cast<double>(extent - 1) * u * sum;
        }
    }
    executor.set(frame, op.result(k), result);
  }
  // A combine that compares floats is not associative once a NaN is in the slice (every compare with NaN is
  // false), so which element wins depends on the combining order, and the GPU's order follows its layout
  // (conformance/golden-extra/reduce_minmax_nan_f32). Under the triton profile such results are unconstrained.
  if (executor.context().options.profile == FloatProfile::Triton && comparesFloats(combine)) {
    AxisGeometry g = geometry(first.shape(), axis);
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t i = 0; i < g.inner; ++i) {
        bool sawNaN = false;
        for (const Value* v : op.operands) {
          const Tile& input = *executor.get(frame, v);
          if (!input.elementType().isFloat()) continue;
          for (int64_t a = 0; a < g.extent && !sawNaN; ++a)
            sawNaN = std::isnan(doubleFromFloatBits(input.bitsAt((o * g.extent + a) * g.inner + i), input.elementType().scalarKind()));
        }
        if (!sawNaN) continue;
        for (size_t k = 0; k < count; ++k) {
          Tile& result = const_cast<Tile&>(*executor.get(frame, op.result(k)));
          result.mutableErrorBounds()[o * g.inner + i] = INFINITY;
        }
      }
  }
}

void executeScan(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const int axis = static_cast<int>(op.intAttr("axis"));
  const bool reverse = op.intAttr("reverse", 0) != 0;
  const size_t count = op.numOperands();
  const Block& combine = op.region(0).front();
  std::vector<TileRef> inputs;
  for (const Value* v : op.operands) inputs.push_back(executor.get(frame, v));
  const int64_t extent = inputs[0]->shape()[axis];
  std::vector<MutableTileRef> results;
  for (size_t k = 0; k < count; ++k) results.push_back(makeTile(op.result(k)->type));
  std::vector<TileRef> accumulator;
  for (int64_t step = 0; step < extent; ++step) {
    const int64_t at = reverse ? extent - 1 - step : step;
    std::vector<TileRef> current;
    for (size_t k = 0; k < count; ++k) current.push_back(slice(*inputs[k], axis, at, 1));
    if (step == 0) {
      accumulator = current;
    } else {
      std::vector<TileRef> arguments = accumulator;
      arguments.insert(arguments.end(), current.begin(), current.end());
      std::vector<TileRef> combined = runCombine(executor, combine, arguments, frame);
      for (size_t k = 0; k < count; ++k) {
        Type expected = current[k]->type().withElement(combined[k]->elementType());
        accumulator[k] = combined[k]->size() == expected.numElements() ? combined[k] : ops::broadcastTo(*combined[k], expected);
      }
    }
    for (size_t k = 0; k < count; ++k) scatterSlice(*results[k], *accumulator[k], axis, at);
  }
  if (executor.context().options.profile == FloatProfile::Triton && reordersRounding(combine)) {
    for (size_t k = 0; k < count; ++k) {
      if (!results[k]->type().isFloat()) continue;
      const Tile& input = *inputs[k];
      AxisGeometry g = geometry(input.shape(), axis);
      const double u = unitRoundoff(input.elementType());
      double* bounds = results[k]->mutableErrorBounds();
      for (int64_t o = 0; o < g.outer; ++o)
        for (int64_t i = 0; i < g.inner; ++i) {
          double prefix = 0;
          for (int64_t step = 0; step < g.extent; ++step) {
            int64_t a = reverse ? g.extent - 1 - step : step;
            int64_t lane = (o * g.extent + a) * g.inner + i;
            prefix += std::fabs(doubleFromFloatBits(input.bitsAt(lane), input.elementType().scalarKind()));
            bounds[lane] += 2.0 * static_cast<double>(step) * u * prefix;
          }
        }
    }
  }
  for (size_t k = 0; k < count; ++k) executor.set(frame, op.result(k), results[k]);
}

}  // namespace tilesim

// tt.reduce and tt.scan. The combine region runs on whole slices at once ("vectorised": every op in the
// region sees tiles holding one lane per independent reduction), so a reduction or scan of S elements costs
// log2(S) region evaluations, not S-1 per output.
//
// Orders, stated in the bits of the index along `axis` (docs/semantics.md "Reductions and scans");
// S = 2^k is the extent, the left operand of every combine is the lower index:
// - reduce: a tree that combines the lowest index bit first. Level j = 0..k-1 combines the partial results of
//   the blocks [2i 2^j, (2i+1) 2^j) and [(2i+1) 2^j, (2i+2) 2^j): x'[i] = combine(x[2i], x[2i+1]) on the array
//   left by the previous level. On a GPU with a blocked layout (low bits in registers, then lanes, then warps)
//   that is an in-thread tree, then shfl.bfly over the lane bits from mask 1 upwards, then across warps.
// - scan: Kogge-Stone (Hillis-Steele) over the same bits: for d = 1, 2, 4, ..., S/2, simultaneously for every
//   i >= d: x'[i] = combine(x[i - d], x[i]); lanes i < d keep their value. reverse mirrors the index
//   (i -> S-1-i), so there x'[i] = combine(x[i + d], x[i]) for i < S - d.
// Under the triton float profile, float sums/products also get an error bound for whatever order the GPU uses
// (orderBound below); with LaunchOptions::reduceOrder set from the kernel's TTGIR the interpreter uses Triton's
// own order instead (TritonReduceOrder.h) and the bound is only what the operands carry.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "interpreter/Executor.h"
#include "interpreter/TritonReduceOrder.h"
#include "ir/FloatBits.h"
#include "ir/Mutation.h"

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

// Lanes begin, begin + stride, ..., (count of them) along the axis.
TileRef slice(const Tile& input, int axis, int64_t begin, int64_t count, int64_t stride = 1) {
  AxisGeometry g = geometry(input.shape(), axis);
  std::vector<int64_t> lanes(static_cast<size_t>(g.outer * count * g.inner));  // filled by index: no push_back
  int64_t* lane = lanes.data();                                                 // checks in the hot loop
  for (int64_t o = 0; o < g.outer; ++o) {
    if (g.inner == 1) {  // a reduce along the last dim: one lane per step (a loop the compiler vectorises)
      const int64_t start = o * g.extent + begin;
      for (int64_t n = 0; n < count; ++n) lane[n] = start + n * stride;
      lane += count;
      continue;
    }
    for (int64_t n = 0; n < count; ++n) {
      const int64_t start = (o * g.extent + begin + n * stride) * g.inner;
      for (int64_t i = 0; i < g.inner; ++i) *lane++ = start + i;
    }
  }
  Type type = input.type().withShape(sliceShape(input.shape(), axis, count));
  return ops::gatherLanes(input, lanes, type);
}

// Lanes indices[0], indices[1], ... along the axis.
TileRef gatherAlong(const Tile& input, int axis, const std::vector<int64_t>& indices) {
  AxisGeometry g = geometry(input.shape(), axis);
  std::vector<int64_t> lanes(static_cast<size_t>(g.outer) * indices.size() * static_cast<size_t>(g.inner));
  int64_t* lane = lanes.data();
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t at : indices) {
      const int64_t start = (o * g.extent + at) * g.inner;
      for (int64_t i = 0; i < g.inner; ++i) *lane++ = start + i;
    }
  Type type = input.type().withShape(sliceShape(input.shape(), axis, static_cast<int64_t>(indices.size())));
  return ops::gatherLanes(input, lanes, type);
}

// Writes `part` (extent `count` along axis) into positions [at, at + count) along the axis of `whole`.
void scatterSlice(Tile& whole, const Tile& part, int axis, int64_t at, int64_t count) {
  AxisGeometry g = geometry(whole.shape(), axis);
  const int bytes = whole.elementBytes();
  for (int64_t o = 0; o < g.outer; ++o) {
    for (int64_t n = 0; n < count; ++n) {
      int64_t dst = (o * g.extent + at + n) * g.inner, src = (o * count + n) * g.inner;
      std::memcpy(static_cast<char*>(whole.raw()) + dst * bytes, static_cast<const char*>(part.raw()) + src * bytes,
                  static_cast<size_t>(g.inner * bytes));
      for (int64_t i = 0; i < g.inner; ++i) {
        if (part.undefinedMask()) whole.mutableUndefinedMask()[dst + i] = part.undefinedMask()[src + i];
        if (part.errorBounds()) whole.mutableErrorBounds()[dst + i] = part.errorBounds()[src + i];
      }
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

// gamma_n = n u / (1 - n u): any summation of n + 1 terms in floating point (any tree, any order) is within
// gamma_n sum|x_i| of the exact sum (Higham, Accuracy and Stability, Lemma 3.1 / eq. 4.4); +inf when n u >= 1.
double gamma(double n, double u) {
  double nu = n * u;
  return nu < 1 ? nu / (1 - nu) : INFINITY;
}

// What the combine does to rounding: a sum (its float ops are addf/subf), a product (mulf only), or other.
enum class CombineKind { Sum, Product, Other };

CombineKind combineKind(const Block& combine) {
  bool adds = false, multiplies = false;
  for (const auto& op : combine.operations) {
    adds |= op->kind == OpKind::ArithAddF || op->kind == OpKind::ArithSubF;
    multiplies |= op->kind == OpKind::ArithMulF;
  }
  if (adds && !multiplies) return CombineKind::Sum;
  if (multiplies && !adds) return CombineKind::Product;
  return CombineKind::Other;
}

// The bound a reduction or scan prefix of `count` elements adds for the order: the GPU's result is within
// gamma_{count-1} sum(|x_i| + e_i) of the exact sum of its inputs (which are within e_i of ours; the combine
// region's own bound propagation adds sum e_i), ours within gamma_{ourDepth} sum|x_i| of the exact sum of ours.
// Products use prod(|x_i| + e_i) the same way. Other combines (Welford-style, mixed) keep the historical
// 2 (count-1) u sum|x| and are only sound under the exact order.
// A product's relative bound assumes no partial product leaves the normal range, which depends on the order: the
// partial products of any order lie between `small` (the product of the non-zero factors below 1, at their
// smallest |x| - e) and `large` (the product of the factors above 1, at |x| + e). If `large` overflows, some order
// reaches inf (and inf * 0 = NaN where a zero is among the factors): unconstrained. If `small` is below the
// smallest normal, some order rounds in the subnormal range, each rounding off by up to one subnormal spacing
// that later factors (at most `large`) amplify: that absolute term is added, for both orders' count - 1
// roundings. (The H200 campaign of 2026-12-01: an f32 product 2 ulp and an f64 product 7 ulp of subnormal apart
// in two orders, against bounds of 1.5 ulp and 0 — the relative term underflowed.)
struct OrderTerms {
  double magnitude = 0, magnitudeWithBounds = 0;  // sum (or product) of |x| and of |x| + e
  double large = 1, small = 1;                    // products only (above)
};

struct FloatRange {
  double largest, smallestNormal, smallestSubnormal;
};

FloatRange floatRange(ScalarKind kind) {
  const FloatFormat format = floatFormat(kind);
  return {largestFinite(kind), std::ldexp(1.0, 1 - format.bias), std::ldexp(1.0, 1 - format.bias - format.mantissaBits)};
}

double orderBound(CombineKind kind, const OrderTerms& terms, int64_t count, int64_t ourDepth, double u,
                  const FloatRange& range) {
  if (count <= 1) return 0.0;
  const double n = static_cast<double>(count - 1);
  double bound;
  if (kind == CombineKind::Other) bound = 2.0 * n * u * terms.magnitude;
  else bound = gamma(n, u) * terms.magnitudeWithBounds + gamma(static_cast<double>(ourDepth), u) * terms.magnitude;
  if (kind == CombineKind::Product) {
    if (!(terms.large <= range.largest)) return INFINITY;
    if (terms.small < range.smallestNormal)
      bound += 2.0 * n * range.smallestSubnormal * terms.large * (1.0 + gamma(n, u));
  }
  return std::isnan(bound) ? INFINITY : bound;
}

void accumulate(OrderTerms& terms, CombineKind kind, double value, double bound, bool first) {
  const double magnitude = std::fabs(value), widened = magnitude + bound;
  if (kind == CombineKind::Product) {
    terms.magnitude = first ? magnitude : terms.magnitude * magnitude;
    terms.magnitudeWithBounds = first ? widened : terms.magnitudeWithBounds * widened;
    if (widened > 1) terms.large *= widened;
    const double lowest = std::max(magnitude - bound, 0.0);
    if (widened != 0 && lowest < 1) terms.small *= lowest;
  } else {
    terms.magnitude += magnitude;
    terms.magnitudeWithBounds += widened;
  }
}

int64_t log2Ceil(int64_t n) {
  int64_t depth = 0;
  while ((int64_t{1} << depth) < n) ++depth;
  return depth;
}

std::vector<TileRef> runCombine(Executor& executor, const Block& combine, std::vector<TileRef> arguments,
                                Executor::Frame& frame) {
  bool saved = frame.vectorized;
  frame.vectorized = true;
  std::vector<TileRef> results = executor.runBlock(combine, arguments, frame);
  frame.vectorized = saved;
  return results;
}

// The op of a combine region that is one elementwise op on the region's two arguments in order,
// `%r = op %a, %b; tt.reduce.return %r` (sum, product, max, min, and, or, xor: almost every reduction users
// write), or null.
const Operation* singleElementwiseCombine(const Block& combine) {
  if (combine.operations.size() != 2 || combine.arguments.size() != 2) return nullptr;
  const Operation& op = *combine.operations[0];
  const Operation& terminator = *combine.operations[1];
  const OpFamily family = opFamily(op.kind);
  if (family != OpFamily::IntArith && family != OpFamily::FloatArith && family != OpFamily::Compare) return nullptr;
  const bool onArguments = op.numOperands() == 2 && op.operand(0) == combine.argument(0) &&
                           op.operand(1) == combine.argument(1) && op.numResults() == 1;
  const bool returnsIt = terminator.numOperands() == 1 && terminator.operand(0) == op.result(0);
  return onArguments && returnsIt && op.result(0)->type.isScalar() ? &op : nullptr;
}

// The even and the odd positions among the first 2 * half along `axis` (what slice(input, axis, 0 or 1, half, 2)
// gives), in one pass, with their undefined lanes and error bounds.
std::array<MutableTileRef, 2> evenAndOdd(const Tile& input, int axis, int64_t half) {
  const AxisGeometry g = geometry(input.shape(), axis);
  const Type type = input.type().withShape(sliceShape(input.shape(), axis, half));
  std::array<MutableTileRef, 2> parts{makeTileToOverwrite(type), makeTileToOverwrite(type)};
  const size_t bytes = static_cast<size_t>(input.elementBytes()), run = bytes * static_cast<size_t>(g.inner);
  const auto* in = static_cast<const char*>(input.raw());
  char* out[2] = {static_cast<char*>(parts[0]->raw()), static_cast<char*>(parts[1]->raw())};
  auto copyShadow = [&](auto read, auto write) {  // per lane, only where the input has the shadow
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t n = 0; n < 2 * half; ++n)
        for (int64_t i = 0; i < g.inner; ++i)
          write(n & 1, (o * half + n / 2) * g.inner + i, read((o * g.extent + n) * g.inner + i));
  };
  for (int64_t o = 0; o < g.outer; ++o) {
    const char* row = in + static_cast<size_t>(o * g.extent) * run;
    if (g.inner == 1 && bytes == 4) {  // the common case: a reduction of 32-bit values along the last dim
      auto* even = reinterpret_cast<uint32_t*>(out[0]) + o * half;
      auto* odd = reinterpret_cast<uint32_t*>(out[1]) + o * half;
      const auto* source = reinterpret_cast<const uint32_t*>(row);
      for (int64_t n = 0; n < half; ++n) {
        even[n] = source[2 * n];
        odd[n] = source[2 * n + 1];
      }
      continue;
    }
    for (int64_t n = 0; n < 2 * half; ++n)
      std::memcpy(out[n & 1] + static_cast<size_t>(o * half + n / 2) * run, row + static_cast<size_t>(n) * run, run);
  }
  if (const uint8_t* undefined = input.undefinedMask())
    copyShadow([&](int64_t lane) { return undefined[lane]; },
               [&](int side, int64_t lane, uint8_t v) { parts[side]->mutableUndefinedMask()[lane] = v; });
  if (const double* bounds = input.errorBounds())
    copyShadow([&](int64_t lane) { return bounds[lane]; },
               [&](int side, int64_t lane, double v) { parts[side]->mutableErrorBounds()[lane] = v; });
  return parts;
}

// The contract-order tree of the loop in executeReduce for a single-op combine, without the region machinery:
// each level evaluates the op on the even and odd halves as running the region on them would (the same
// evaluator, shadows, UB reports and step counts), with no frame, index lists or lane gathers.
TileRef reduceBySingleOp(Executor& executor, const Operation& combineOp, const Block& combine, TileRef current,
                         int axis, int64_t size) {
  for (; size > 1; size /= 2) {
    std::array<MutableTileRef, 2> halves = evenAndOdd(*current, axis, size / 2);
    const std::array<TileRef, 2> operands{halves[0], halves[1]};
    executor.countSteps(combineOp, 1);
    current = executor.evaluateElementwise(combineOp, operands);
    executor.countSteps(*combine.terminator(), 1);
  }
  return current;
}

// The per-thread fold of a reduce over a single-use f32 mulf, contracted as LLVM does (ReduceAxisLayout::
// fusedMultiply): acc = fma(a_0, b_0, x_1), then acc = fma(a_j, b_j, acc), x_1 = round(a_1 b_1) the reduce's
// input. Returns one partial per thread group along the axis (group = lane + t * warp), with the addf rule's
// bounds (x_j's bounds cover the unrounded product).
TileRef fusedFold(Executor& executor, Executor::Frame& frame, const Operation& op, int axis,
                  const ReduceAxisLayout& layout) {
  const Operation& multiply = *op.operand(0)->definingOp;
  const Tile& x = *executor.get(frame, op.operand(0));
  const Tile& a = *executor.get(frame, multiply.operand(0));
  const Tile& b = *executor.get(frame, multiply.operand(1));
  const int64_t groups = layout.threadsPerWarp * layout.warpsPerCTA;
  AxisGeometry g = geometry(x.shape(), axis);
  const int64_t perThread = g.extent / groups;
  MutableTileRef result = makeTile(x.type().withShape(sliceShape(x.shape(), axis, groups)));
  const double* xBounds = x.errorBounds();
  const bool bounded = executor.context().options.profile == FloatProfile::Triton && xBounds;
  auto lane = [&](int64_t o, int64_t at, int64_t i) { return (o * g.extent + at) * g.inner + i; };
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t group = 0; group < groups; ++group)
      for (int64_t i = 0; i < g.inner; ++i) {
        const int64_t first = lane(o, tritonElement(layout, group, 0), i);
        float acc = x.at<float>(first);
        double bound = bounded ? xBounds[first] : 0.0;
        for (int64_t j = 1; j < perThread; ++j) {
          const int64_t next = lane(o, tritonElement(layout, group, j), i);
          acc = j == 1 ? std::fma(a.at<float>(first), b.at<float>(first), x.at<float>(next))
                       : std::fma(a.at<float>(next), b.at<float>(next), acc);
          if (bounded) {
            bound += xBounds[next];
            if (bound > 0) bound += std::ldexp(1.0, std::max(std::ilogb(std::fabs(acc) > 0 ? acc : 1.0f), -126) - 23);
          }
        }
        const int64_t out = (o * groups + group) * g.inner + i;
        result->as<float>()[out] = acc;
        if (bounded && bound != 0) result->mutableErrorBounds()[out] = std::isfinite(acc) ? bound : INFINITY;
        if (x.undefinedMask())
          for (int64_t j = 0; j < perThread; ++j)
            if (x.undefinedMask()[lane(o, tritonElement(layout, group, j), i)]) result->mutableUndefinedMask()[out] = 1;
      }
  return result;
}

// The layout to follow for this reduce, or null for the contract order (no TTGIR layout, or one that does not
// tile the extent).
const ReduceAxisLayout* tritonLayout(const Executor& executor, const Operation& op, int64_t extent) {
  const auto& layouts = executor.context().options.reduceLayouts;
  auto found = layouts.find(&op);
  if (found == layouts.end()) return nullptr;
  const ReduceAxisLayout& layout = found->second;
  const int64_t tile = layout.sizePerThread * layout.threadsPerWarp * layout.warpsPerCTA;
  if (tile <= 0 || extent % tile != 0) return nullptr;
  return &layout;
}

void executeReduce(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const int axis = AxisView{op}.axis();
  const size_t count = op.numOperands();
  const Block& combine = op.region(0).front();
  std::vector<TileRef> current;
  for (const Value* v : op.operands) current.push_back(executor.get(frame, v));
  const Tile& first = *current[0];
  const int64_t extent = first.shape()[axis];
  const ReduceAxisLayout* layout = tritonLayout(executor, op, extent);
  if (layout) {
    std::vector<CombineStep> steps = tritonReduceSteps(extent, *layout);
    const int64_t groups = layout->threadsPerWarp * layout->warpsPerCTA, foldSteps = extent / groups - 1;
    const bool fused = layout->fusedMultiply && foldSteps > 0 && count == 1 && op.operand(0)->definingOp &&
                       op.operand(0)->definingOp->kind == OpKind::ArithMulF && first.elementType().scalarKind() == ScalarKind::F32;
    if (fused) {
      current[0] = fusedFold(executor, frame, op, axis, *layout);
      steps.erase(steps.begin(), steps.begin() + foldSteps);
    }
    for (const CombineStep& step : steps) {
      std::vector<TileRef> arguments;
      for (size_t k = 0; k < count; ++k) arguments.push_back(gatherAlong(*current[k], axis, step.left));
      for (size_t k = 0; k < count; ++k) arguments.push_back(gatherAlong(*current[k], axis, step.right));
      std::vector<TileRef> combined = runCombine(executor, combine, arguments, frame);
      const int64_t produced = static_cast<int64_t>(step.left.size()), kept = static_cast<int64_t>(step.kept.size());
      for (size_t k = 0; k < count; ++k) {
        Type expected = arguments[k]->type().withElement(combined[k]->elementType());
        TileRef value = combined[k]->size() == expected.numElements() ? combined[k] : ops::broadcastTo(*combined[k], expected);
        if (kept == 0) {
          current[k] = value;
          continue;
        }
        MutableTileRef next = makeTile(expected.withShape(sliceShape(expected.shape(), axis, produced + kept)));
        scatterSlice(*next, *value, axis, 0, produced);
        scatterSlice(*next, *gatherAlong(*current[k], axis, step.kept), axis, produced, kept);
        current[k] = next;
      }
    }
  }
  const int64_t treeSize = layout ? 1 : TILESIM_MUTANT(interp_reduce16_drops_upper, extent, extent == 16 ? 8 : extent);
  const Operation* singleOp = count == 1 ? singleElementwiseCombine(combine) : nullptr;
  if (singleOp && treeSize > 1 && first.elementType().isScalar())
    current[0] = reduceBySingleOp(executor, *singleOp, combine, current[0], axis, treeSize);
  for (int64_t size = singleOp ? 1 : treeSize; size > 1; size /= 2) {
    const int64_t half = size / 2;
    std::vector<TileRef> arguments;  // (even positions..., odd positions...): the lowest remaining index bit
    for (size_t k = 0; k < count; ++k) arguments.push_back(slice(*current[k], axis, 0, half, 2));
    for (size_t k = 0; k < count; ++k) arguments.push_back(slice(*current[k], axis, 1, half, 2));
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
        reordersRounding(combine) && !layout) {
      const Tile& input = *executor.get(frame, op.operand(k));
      AxisGeometry g = geometry(input.shape(), axis);
      const double u = unitRoundoff(resultType.element());
      const FloatRange range = floatRange(resultType.element().scalarKind());
      const CombineKind kind = combineKind(combine);
      const double* inputBounds = input.errorBounds();
      Tile& mutableResult = const_cast<Tile&>(*result);
      double* bounds = mutableResult.mutableErrorBounds();
      for (int64_t o = 0; o < g.outer; ++o)
        for (int64_t i = 0; i < g.inner; ++i) {
          OrderTerms terms;
          for (int64_t a = 0; a < g.extent; ++a) {
            const int64_t lane = (o * g.extent + a) * g.inner + i;
            accumulate(terms, kind, doubleFromFloatBits(input.bitsAt(lane), input.elementType().scalarKind()),
                       inputBounds ? inputBounds[lane] : 0.0, a == 0);
          }
          bounds[o * g.inner + i] += orderBound(kind, terms, extent, log2Ceil(extent), u, range);
        }
    }
    executor.set(frame, op.result(k), result);
  }
  // A combine that compares floats is not associative once a NaN is in the slice (every compare with NaN is
  // false), so which element wins depends on the combining order, and the GPU's order follows its layout
  // (conformance/golden-extra/reduce_minmax_nan_f32). Under the triton profile such results are unconstrained.
  // In Triton's order (a TTGIR layout) the winner is the GPU's, so the lanes stay constrained.
  if (executor.context().options.profile == FloatProfile::Triton && comparesFloats(combine) && !layout) {
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
  const int axis = AxisView{op}.axis();
  const bool reverse = ScanView{op}.reverse();
  const size_t count = op.numOperands();
  const Block& combine = op.region(0).front();
  std::vector<TileRef> inputs;
  for (const Value* v : op.operands) inputs.push_back(executor.get(frame, v));
  const int64_t extent = inputs[0]->shape()[axis];
  std::vector<MutableTileRef> results;
  std::vector<TileRef> current = inputs;
  for (int64_t distance = 1; TILESIM_MUTANT(interp_scan_skips_last_step, distance < extent, distance * 2 < extent); distance *= 2) {
    const int64_t combined = extent - distance;  // lanes that combine at this step
    // Forward: lanes [distance, extent) take combine(x[i - distance], x[i]); reverse mirrors the index.
    const int64_t earlierAt = reverse ? distance : 0, laterAt = reverse ? 0 : distance;
    std::vector<TileRef> arguments;
    for (size_t k = 0; k < count; ++k) arguments.push_back(slice(*current[k], axis, earlierAt, combined));
    for (size_t k = 0; k < count; ++k) arguments.push_back(slice(*current[k], axis, laterAt, combined));
    std::vector<TileRef> values = runCombine(executor, combine, arguments, frame);
    results.clear();
    for (size_t k = 0; k < count; ++k) {
      Type expected = arguments[k]->type().withElement(values[k]->elementType());
      TileRef value = values[k]->size() == expected.numElements() ? values[k] : ops::broadcastTo(*values[k], expected);
      MutableTileRef next = makeTile(op.result(k)->type);
      const int64_t keptAt = reverse ? combined : 0;  // the lanes that keep their value
      scatterSlice(*next, *slice(*current[k], axis, keptAt, distance), axis, keptAt, distance);
      scatterSlice(*next, *value, axis, laterAt, combined);
      results.push_back(next);
    }
    current.assign(results.begin(), results.end());
  }
  if (results.empty())  // extent 1: the scan is the input
    for (size_t k = 0; k < count; ++k) {
      MutableTileRef copy = makeTile(op.result(k)->type);
      scatterSlice(*copy, *inputs[k], axis, 0, extent);
      results.push_back(copy);
    }
  if (executor.context().options.profile == FloatProfile::Triton && reordersRounding(combine)) {
    for (size_t k = 0; k < count; ++k) {
      if (!results[k]->type().isFloat()) continue;
      const Tile& input = *inputs[k];
      AxisGeometry g = geometry(input.shape(), axis);
      const double u = unitRoundoff(input.elementType());
      const FloatRange range = floatRange(input.elementType().scalarKind());
      const CombineKind kind = combineKind(combine);
      const double* inputBounds = input.errorBounds();
      double* bounds = results[k]->mutableErrorBounds();
      for (int64_t o = 0; o < g.outer; ++o)
        for (int64_t i = 0; i < g.inner; ++i) {
          OrderTerms terms;
          for (int64_t step = 0; step < g.extent; ++step) {
            int64_t a = reverse ? g.extent - 1 - step : step;
            int64_t lane = (o * g.extent + a) * g.inner + i;
            accumulate(terms, kind, doubleFromFloatBits(input.bitsAt(lane), input.elementType().scalarKind()),
                       inputBounds ? inputBounds[lane] : 0.0, step == 0);
            // Kogge-Stone: prefix `step` went through log2(step + 1) (rounded up) combines.
            bounds[lane] += orderBound(kind, terms, step + 1, log2Ceil(step + 1), u, range);
          }
        }
    }
  }
  for (size_t k = 0; k < count; ++k) executor.set(frame, op.result(k), results[k]);
}

}  // namespace

void executeReduceScan(Executor& executor, const Operation& op, Executor::Frame& frame) {
  switch (familyOp<ReduceScanOp>(op.kind)) {
    case ReduceScanOp::TTReduce: executeReduce(executor, op, frame); return;
    case ReduceScanOp::TTScan: executeScan(executor, op, frame); return;
  }
}

}  // namespace tilesim

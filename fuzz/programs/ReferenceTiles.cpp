// The reference's tile ops (see ReferenceState.h): data movement within a tile (splat, broadcast, expand_dims,
// reshape, trans, join, split, cat), reductions and scans in the orders docs/semantics.md gives, tt.dot as a
// sequential fma, tt.histogram and tt.gather. Each output lane is computed from input lanes found by index
// arithmetic; undefined lanes propagate to the lanes computed from them.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "fuzz/programs/OracleScalar.h"
#include "fuzz/programs/ReferenceLanes.h"
#include "fuzz/programs/ReferenceState.h"
#include "ir/OpAttributes.h"

namespace tilesim::fuzz::reference {

// splat, broadcast, expand_dims, reshape, trans: each output lane reads one input lane: the same row-major
// position (expand_dims, reshape), the same index with size-1 input dims pinned to 0 (broadcast; a splat's
// input is one lane), or the index permuted by `order` (trans: result dim d is input dim order[d]).
void Reference::moveLanes(const Operation& op) {
  const Lanes& input = get(op.operand(0));
  Lanes& result = fresh(op.result(), op.result()->type);
  result.buffer = input.buffer;
  const std::optional<std::span<const int64_t>> order = op.kind == OpKind::TTTrans ? OrderView{op}.order() : std::nullopt;
  std::vector<int64_t> index, source;
  for (int64_t i = 0; i < result.size(); ++i) {
    int64_t from = 0;
    if (op.kind == OpKind::TTExpandDims || op.kind == OpKind::TTReshape || op.kind == OpKind::TTUnsplat) {
      from = i;
    } else if (op.kind == OpKind::TTTrans) {
      multiIndex(i, result.shape, index);
      source.resize(index.size());
      for (size_t d = 0; d < index.size(); ++d) source[(*order)[d]] = index[d];
      from = linearIndex(source, input.shape);
    } else if (op.kind == OpKind::TTBroadcast) {
      multiIndex(i, result.shape, index);
      for (size_t d = 0; d < index.size(); ++d)
        if (input.shape[d] == 1) index[d] = 0;
      from = linearIndex(index, input.shape);
    }
    result.bits[i] = input.bits[from];
    result.undefined[i] = input.undefined[from];
  }
}

// join: out[i..., k] = (k ? b : a)[i...]; split: out_k[i...] = in[i..., k]; cat (1-D): a then b.
void Reference::joinSplitCat(const Operation& op) {
  for (size_t r = 0; r < op.numResults(); ++r) {
    Lanes& result = fresh(op.result(r), op.result(r)->type);
    for (int64_t i = 0; i < result.size(); ++i) {
      const Lanes* from = &get(op.operand(0));
      int64_t lane = i;
      if (op.kind == OpKind::TTJoin) {
        from = &get(op.operand(i % 2));
        lane = i / 2;
      } else if (op.kind == OpKind::TTSplit) {
        lane = i * 2 + static_cast<int64_t>(r);
      } else if (i >= from->size()) {
        lane = i - from->size();
        from = &get(op.operand(1));
      }
      result.bits[i] = from->bits[lane];
      result.undefined[i] = from->undefined[lane];
    }
  }
}

// out = combine(left, right); `out` may be `left` or `right` (both are bound to the region first).
void Reference::combine(const Block& region, const Scalars& left, const Scalars& right, Scalars& out) {
  for (size_t k = 0; k < left.size() + right.size(); ++k) {
    const auto& [bits, undefined] = k < left.size() ? left[k] : right[k - left.size()];
    Lanes& lanes = fresh(region.argument(k), region.argument(k)->type);
    lanes.bits[0] = bits;
    lanes.undefined[0] = undefined;
  }
  const size_t expected = left.size();
  out.clear();
  if (const Operation* terminator = runOps(region))
    for (const Value* v : terminator->operands) {
      const Lanes& lanes = env_.at(v);
      out.push_back({lanes.bits[0], lanes.undefined[0]});
    }
  if (out.size() != expected) fail("reference: combine region yields the wrong number of values");
}

Reference::Geometry Reference::geometryOf(const std::vector<int64_t>& shape, int axis) {
  Geometry g;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) (d < axis ? g.outer : d == axis ? g.extent : g.inner) *= shape[d];
  return g;
}

// The lanes of every operand along the axis at (outer, inner).
std::vector<Reference::Scalars> Reference::column(const Operation& op, const Geometry& g, int64_t o, int64_t i) {
  std::vector<Scalars> values(static_cast<size_t>(g.extent));
  for (int64_t a = 0; a < g.extent; ++a)
    for (const Value* v : op.operands) {
      const Lanes& input = get(v);
      int64_t lane = (o * g.extent + a) * g.inner + i;
      values[a].push_back({input.bits[lane], input.undefined[lane]});
    }
  return values;
}

// One Lanes per result of a tt.reduce or tt.scan, for the caller to fill column by column.
static std::vector<Lanes> resultLanes(const Operation& op) {
  std::vector<Lanes> results;
  for (size_t k = 0; k < op.numResults(); ++k) results.push_back(makeLanes(op.result(k)->type));
  return results;
}

// Lowest index bit first: for width w = 1, 2, 4, ..., S/2: x[j] = combine(x[j], x[j + w]) for every j that is a
// multiple of 2w (x[j] then holds the combination of the block [j, j + 2w), left to right).
void Reference::reduce(const Operation& op) {
  const int axis = AxisView{op}.axis();
  const Geometry g = geometryOf(get(op.operand(0)).shape, axis);
  std::vector<Lanes> results = resultLanes(op);
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i) {
      std::vector<Scalars> values = column(op, g, o, i);
      for (int64_t w = 1; w < g.extent; w *= 2)
        for (int64_t j = 0; j + w < g.extent; j += 2 * w) combine(op.region(0).front(), values[j], values[j + w], values[j]);
      if (!outcome_.error.empty()) return;
      for (size_t k = 0; k < results.size(); ++k) {
        results[k].bits[o * g.inner + i] = values[0][k].first;
        results[k].undefined[o * g.inner + i] = values[0][k].second;
      }
    }
  for (size_t k = 0; k < results.size(); ++k) env_[op.result(k)] = std::move(results[k]);
}

// Kogge-Stone: for d = 1, 2, 4, ... < S, every j >= d at once: x[j] = combine(x[j - d], x[j]) (computed from the
// previous step's values, so walk j downwards); `reverse` runs the same on the mirrored index.
void Reference::scan(const Operation& op) {
  const int axis = AxisView{op}.axis();
  const Geometry g = geometryOf(get(op.operand(0)).shape, axis);
  std::vector<Lanes> results = resultLanes(op);
  const bool reverse = ScanView{op}.reverse();
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i) {
      std::vector<Scalars> values = column(op, g, o, i);
      if (reverse) std::reverse(values.begin(), values.end());
      for (int64_t d = 1; d < g.extent; d *= 2)
        for (int64_t j = g.extent - 1; j >= d; --j) combine(op.region(0).front(), values[j - d], values[j], values[j]);
      if (!outcome_.error.empty()) return;
      for (int64_t step = 0; step < g.extent; ++step) {
        int64_t at = reverse ? g.extent - 1 - step : step;
        for (size_t k = 0; k < results.size(); ++k) {
          results[k].bits[(o * g.extent + at) * g.inner + i] = values[step][k].first;
          results[k].undefined[(o * g.extent + at) * g.inner + i] = values[step][k].second;
        }
      }
    }
  for (size_t k = 0; k < results.size(); ++k) env_[op.result(k)] = std::move(results[k]);
}

// ---- tt.dot as docs/semantics.md "Dot" writes it: per output a sequential fma over k from c ----
void Reference::dot(const Operation& op) {
  const Lanes& a = get(op.operand(0));
  const Lanes& b = get(op.operand(1));
  const Lanes& c = get(op.operand(2));
  const ScalarKind ak = op.operand(0)->type.scalarKind(), bk = op.operand(1)->type.scalarKind();
  const ScalarKind rk = op.result()->type.scalarKind();
  if (a.shape.size() != 2) return fail("reference: batched tt.dot");
  const int64_t m = a.shape[0], kk = a.shape[1], n = b.shape[1];
  const bool tf32 = DotView{op}.inputPrecision() == InputPrecision::TF32 && ak == ScalarKind::F32;
  auto asFloat = [&](uint64_t bits, ScalarKind kind) {
    float f = static_cast<float>(oracle::decodeFloat(bits, kind));  // exact: every dot input fits f32
    if (tf32) {
      uint32_t u = static_cast<uint32_t>(bits);
      if ((u & 0x7F800000u) != 0x7F800000u) u &= 0xFFFFE000u;
      std::memcpy(&f, &u, 4);
    }
    return f;
  };
  Lanes result = makeLanes(op.result()->type);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      uint8_t undefined = c.undefined[i * n + j];
      for (int64_t k = 0; k < kk; ++k) undefined |= a.undefined[i * kk + k] | b.undefined[k * n + j];
      uint64_t bits = 0;
      if (isFloatKind(ak) && rk == ScalarKind::F64) {
        double acc = oracle::decodeFloat(c.bits[i * n + j], rk);
        for (int64_t k = 0; k < kk; ++k)
          acc = std::fma(oracle::decodeFloat(a.bits[i * kk + k], ak), oracle::decodeFloat(b.bits[k * n + j], bk), acc);
        bits = oracle::encodeFloat(acc, rk);
      } else if (isFloatKind(ak)) {
        float acc = static_cast<float>(oracle::decodeFloat(c.bits[i * n + j], rk));
        for (int64_t k = 0; k < kk; ++k) acc = std::fma(asFloat(a.bits[i * kk + k], ak), asFloat(b.bits[k * n + j], bk), acc);
        bits = oracle::encodeFloat(static_cast<double>(acc), rk);  // f16 results: rounded once
      } else {
        uint32_t acc = static_cast<uint32_t>(c.bits[i * n + j]);
        for (int64_t k = 0; k < kk; ++k)
          acc += static_cast<uint32_t>(signExtendLane(a.bits[i * kk + k], ak) * signExtendLane(b.bits[k * n + j], bk));
        bits = maskToWidth(acc, rk);
      }
      result.bits[i * n + j] = bits;
      result.undefined[i * n + j] = undefined;
    }
  env_[op.result()] = std::move(result);
}

void Reference::histogram(const Operation& op) {
  const Lanes& values = get(op.operand(0));
  const Lanes* mask = op.numOperands() > 1 ? &get(op.operand(1)) : nullptr;
  Lanes result = makeLanes(op.result()->type);
  const ScalarKind kind = op.operand(0)->type.scalarKind();
  bool anyUndefined = false;  // an undefined value (or mask lane) counted: which bin it lands in is unspecified
  for (int64_t i = 0; i < values.size(); ++i) {
    if (mask && mask->undefined[i]) anyUndefined = true;
    if (mask && !(mask->bits[i] & 1)) continue;
    if (values.undefined[i]) {
      outcome_.undefinedReachesMemory = true;  // an undefined value is counted
      anyUndefined = true;
    }
    const int64_t v = signExtendLane(values.bits[i], kind);
    if (v >= 0 && v < result.size()) result.bits[v] = maskToWidth(result.bits[v] + 1, ScalarKind::I32);
  }
  // Every bin's count depends on the undefined lanes' values, so every bin is undefined.
  if (anyUndefined) std::fill(result.undefined.begin(), result.undefined.end(), uint8_t{1});
  env_[op.result()] = std::move(result);
}

void Reference::gather(const Operation& op) {
  const Lanes& source = get(op.operand(0));
  const Lanes& index = get(op.operand(1));
  const int axis = AxisView{op}.axis();
  const ScalarKind indexKind = op.operand(1)->type.scalarKind();
  Lanes result = makeLanes(op.result()->type);
  for (int64_t i = 0; i < result.size(); ++i) {
    std::vector<int64_t> at = multiIndex(i, index.shape);
    const int64_t position = signExtendLane(index.bits[i], indexKind);
    if (position < 0 || position >= source.shape[axis]) return fail("reference: gather index out of range (generator bug)");
    at[axis] = position;
    const int64_t from = linearIndex(at, source.shape);
    result.bits[i] = source.bits[from];
    result.undefined[i] = source.undefined[from] | index.undefined[i];
  }
  env_[op.result()] = std::move(result);
}

}  // namespace tilesim::fuzz::reference

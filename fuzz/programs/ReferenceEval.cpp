// The fuzzer's reference evaluator (see ReferenceEval.h): every value is a plain vector of lane bits with an
// undefined flag per lane; every op is a loop over output lanes that computes each lane from operand lanes found
// by index arithmetic. Pointers are (buffer, element index) pairs, not addresses.
#include "fuzz/programs/ReferenceEval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "fuzz/programs/ReferenceLanes.h"
#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"
#include "ir/launch/ParameterName.h"

namespace tilesim::fuzz {
namespace {

struct Lanes {
  Type type;
  std::vector<int64_t> shape;
  std::vector<uint64_t> bits;      // pointers: the element index (two's complement)
  std::vector<uint8_t> undefined;
  int buffer = -1;                 // pointers: which buffer argument
  // Block pointers (tt.make_tensor_ptr): one lane holding the base element index in `bits`, plus these.
  std::vector<int64_t> blockShape, blockStrides, blockOffsets;

  int64_t size() const { return static_cast<int64_t>(bits.size()); }
};

bool canBeUndefinedBehaviour(OpKind kind) {
  switch (kind) {
    case OpKind::ArithDivSI: case OpKind::ArithDivUI: case OpKind::ArithRemSI: case OpKind::ArithRemUI:
    case OpKind::ArithShLI: case OpKind::ArithShRSI: case OpKind::ArithShRUI:
    case OpKind::ArithFPToSI: case OpKind::ArithFPToUI: return true;
    default: return false;
  }
}

Lanes makeLanes(Type type) {
  Lanes lanes;
  lanes.type = type;
  auto shape = type.shape();
  lanes.shape.assign(shape.begin(), shape.end());
  lanes.bits.assign(static_cast<size_t>(type.numElements()), 0);
  lanes.undefined.assign(lanes.bits.size(), 0);
  return lanes;
}

void multiIndex(int64_t linear, const std::vector<int64_t>& shape, std::vector<int64_t>& index) {
  index.resize(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
}
std::vector<int64_t> multiIndex(int64_t linear, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index;
  multiIndex(linear, shape, index);
  return index;
}

int64_t linearIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + index[d];
  return linear;
}

struct Buffer {
  ScalarKind kind;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> undefined;  // per element
  int64_t count() const { return static_cast<int64_t>(bytes.size()) / storageBytes(kind); }
};

class Reference {
 public:
  Reference(const Function& kernel, const std::vector<LaunchArgument>& arguments, std::array<int64_t, 3> grid,
            FloatProfile profile, const Module* module)
      : kernel_(kernel), arguments_(arguments), grid_(grid), exactMath_(profile == FloatProfile::Exact), module_(module) {}

  ReferenceOutcome run() {
    for (const LaunchArgument& argument : arguments_)
      if (argument.kind == LaunchArgument::Kind::Buffer) buffers_.push_back({argument.elementKind, argument.bytes,
                                                                                   std::vector<uint8_t>(argument.bytes.size() / storageBytes(argument.elementKind))});
    for (int64_t z = 0; z < grid_[2] && outcome_.error.empty(); ++z)
      for (int64_t y = 0; y < grid_[1] && outcome_.error.empty(); ++y)
        for (int64_t x = 0; x < grid_[0] && outcome_.error.empty(); ++x) runProgram({x, y, z});
    for (Buffer& buffer : buffers_) {
      outcome_.buffers.push_back(std::move(buffer.bytes));
      outcome_.undefinedElements.push_back(std::move(buffer.undefined));
    }
    return std::move(outcome_);
  }

 private:
  void fail(const std::string& message) {
    if (outcome_.error.empty()) outcome_.error = message;
  }

  void runProgram(std::array<int64_t, 3> program) {
    program_ = program;
    env_.clear();
    Block& body = kernel_.body();
    for (size_t i = 0; i < kernel_.numArguments(); ++i) bindArgument(kernel_.argument(i), parameterBindingName(kernel_, i));
    runBlock(body);
  }

  void bindArgument(const Value* parameter, const std::string& name) {
    int bufferIndex = 0;
    for (const LaunchArgument& argument : arguments_) {
      bool isBuffer = argument.kind == LaunchArgument::Kind::Buffer;
      if (argument.name == name) {
        Lanes lanes = makeLanes(parameter->type);
        if (isBuffer) {
          lanes.buffer = bufferIndex;
        } else if (parameter->type.isFloat()) {
          lanes.bits[0] = floatBitsFromDouble(argument.scalarIsFloat ? argument.floatValue : static_cast<double>(argument.intValue),
                                              parameter->type.scalarKind());
        } else {
          lanes.bits[0] = maskToWidth(static_cast<uint64_t>(argument.intValue), parameter->type.scalarKind());
        }
        env_[parameter] = std::move(lanes);
        return;
      }
      if (isBuffer) ++bufferIndex;
    }
    fail("reference: no argument named " + name);
  }

  // Runs the ops of `block`; returns its terminator (null on an error or without one).
  const Operation* runOps(const Block& block) {
    for (const auto& op : block.operations) {
      if (!outcome_.error.empty()) return nullptr;
      if (hasTrait(op->kind, kTerminator)) return op.get();
      evalOp(*op);
    }
    return nullptr;
  }

  // Runs the ops of `block`; returns the terminator's operands.
  std::vector<Lanes> runBlock(const Block& block) {
    std::vector<Lanes> results;
    if (const Operation* terminator = runOps(block))
      for (const Value* v : terminator->operands) results.push_back(env_.at(v));
    return results;
  }

  // The value's lanes as makeLanes(type) makes them (zero bits, all defined, no buffer), reusing the storage the
  // value had (a region runs many times: each combine of a reduction, each loop iteration).
  Lanes& fresh(const Value* value, Type type) {
    Lanes& lanes = env_[value];
    lanes.type = type;
    auto shape = type.shape();
    lanes.shape.assign(shape.begin(), shape.end());
    const size_t count = static_cast<size_t>(type.numElements());
    lanes.bits.assign(count, 0);
    lanes.undefined.assign(count, 0);
    lanes.buffer = -1;
    lanes.blockShape.clear();
    lanes.blockStrides.clear();
    lanes.blockOffsets.clear();
    return lanes;
  }

  const Lanes& get(const Value* value) { return env_.at(value); }

  void evalOp(const Operation& op) {
    Type type = op.numResults() ? op.result()->type : Type();
    switch (op.kind) {
      case OpKind::TTGetProgramId: {
        Lanes& lanes = fresh(op.result(), type);
        lanes.bits[0] = static_cast<uint64_t>(program_[ProgramAxisView{op}.index()]);
        return;
      }
      case OpKind::TTMakeRange: {
        Lanes& lanes = fresh(op.result(), type);
        for (int64_t i = 0; i < lanes.size(); ++i) lanes.bits[i] = maskToWidth(static_cast<uint64_t>(op.intAttr("start") + i), ScalarKind::I32);
        return;
      }
      case OpKind::ArithConstant: {
        Lanes& lanes = fresh(op.result(), type);
        const Attribute* value = op.attr("value");
        ScalarKind kind = type.scalarKind();
        for (int64_t i = 0; i < lanes.size(); ++i) {
          uint64_t bits = value->kind() == Attribute::Kind::Dense   ? value->denseBitsAt(i)
                          : value->kind() == Attribute::Kind::Float ? value->bits()
                                                                     : static_cast<uint64_t>(value->intValue());
          lanes.bits[i] = maskToWidth(bits, kind);
        }
        return;
      }
      case OpKind::TTGetNumPrograms: {
        Lanes& lanes = fresh(op.result(), type);
        lanes.bits[0] = static_cast<uint64_t>(grid_[ProgramAxisView{op}.index()]);
        return;
      }
      case OpKind::TTUnsplat:
      case OpKind::TTSplat:
      case OpKind::TTBroadcast:
      case OpKind::TTExpandDims:
      case OpKind::TTReshape:
      case OpKind::TTTrans: return moveLanes(op);
      case OpKind::TTJoin:
      case OpKind::TTCat:
      case OpKind::TTSplit: return joinSplitCat(op);
      case OpKind::TTAddPtr: return addPointer(op);
      case OpKind::TTMakeTensorPtr: return makeBlockPointer(op);
      case OpKind::TTPtrToInt: return pointerToInt(op);
      case OpKind::TTIntToPtr: return intToPointer(op);
      case OpKind::TTAdvance: return advanceBlockPointer(op);
      case OpKind::TTLoad:
        if (op.operand(0)->type.isBlockPointer()) return blockLoad(op);
        return load(op);
      case OpKind::TTStore: return store(op);
      case OpKind::ArithSelect: return select(op);
      case OpKind::TTReduce: return reduce(op);
      case OpKind::TTScan: return scan(op);
      case OpKind::SCFFor: return forLoop(op);
      case OpKind::SCFWhile: return whileLoop(op);
      case OpKind::SCFIf: return ifThenElse(op);
      case OpKind::TTCall: return call(op);
      case OpKind::TTAtomicRMW:
      case OpKind::TTAtomicCAS: return atomic(op);
      case OpKind::TTDot: return dot(op);
      case OpKind::TTHistogram: return histogram(op);
      case OpKind::TTGather: return gather(op);
      case OpKind::TTAssert: return assertion(op);
      case OpKind::GPUBarrier: return;  // orders nothing here: one program's ops run in order
      default: break;
    }
    if (!hasTrait(op.kind, kElementwise)) return fail("reference: unsupported op " + std::string(op.name()));
    ScalarKind operandKind = op.operand(0)->type.scalarKind();
    ScalarKind resultKind = type.scalarKind();
    // At most 3 operands (select, fma, clamp); looked up once, not per lane.
    std::array<const Lanes*, 4> operands{};
    const size_t numOperands = op.numOperands();
    if (numOperands > operands.size()) return fail("reference: too many operands for " + std::string(op.name()));
    for (size_t k = 0; k < numOperands; ++k) operands[k] = &get(op.operand(k));
    Lanes& result = fresh(op.result(), type);
    std::array<uint64_t, 4> lanes{};
    const std::span<const uint64_t> laneSpan(lanes.data(), numOperands);
    std::string error;
    for (int64_t i = 0; i < result.size(); ++i) {
      for (size_t k = 0; k < numOperands; ++k) {
        lanes[k] = operands[k]->bits[i];
        result.undefined[i] |= operands[k]->undefined[i];
      }
      bool undefinedBehaviour = false;
      std::optional<uint64_t> value = evalLane(op, laneSpan, operandKind, resultKind, exactMath_, &error, &undefinedBehaviour);
      if (!value) return fail(error);
      // An undefined lane's value is unspecified, so whether it is UB is too.
      if (result.undefined[i]) outcome_.undefinedBehaviourPossible |= canBeUndefinedBehaviour(op.kind);
      else outcome_.undefinedBehaviour |= undefinedBehaviour;
      result.bits[i] = *value;
    }
  }

  // splat, broadcast, expand_dims, reshape, trans: each output lane reads one input lane: the same row-major
  // position (expand_dims, reshape), the same index with size-1 input dims pinned to 0 (broadcast; a splat's
  // input is one lane), or the index permuted by `order` (trans: result dim d is input dim order[d]).
  void moveLanes(const Operation& op) {
    const Lanes& input = get(op.operand(0));
    Lanes& result = fresh(op.result(), op.result()->type);
    result.buffer = input.buffer;
    const Attribute* order = op.kind == OpKind::TTTrans ? op.attr("order") : nullptr;
    if (op.kind == OpKind::TTTrans && !order) return fail("reference: tt.trans without order");
    std::vector<int64_t> index, source;
    for (int64_t i = 0; i < result.size(); ++i) {
      int64_t from = 0;
      if (op.kind == OpKind::TTExpandDims || op.kind == OpKind::TTReshape || op.kind == OpKind::TTUnsplat) {
        from = i;
      } else if (op.kind == OpKind::TTTrans) {
        multiIndex(i, result.shape, index);
        source.resize(index.size());
        for (size_t d = 0; d < index.size(); ++d) source[order->arrayValues()[d]] = index[d];
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
  void joinSplitCat(const Operation& op) {
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

  void addPointer(const Operation& op) {
    const Lanes& pointer = get(op.operand(0));
    const Lanes& offset = get(op.operand(1));
    Lanes& result = fresh(op.result(), op.result()->type);
    result.buffer = pointer.buffer;
    ScalarKind offsetKind = op.operand(1)->type.scalarKind();
    for (int64_t i = 0; i < result.size(); ++i) {
      result.bits[i] = static_cast<uint64_t>(static_cast<int64_t>(pointer.bits[i]) + signExtendLane(offset.bits[i], offsetKind));
      result.undefined[i] = pointer.undefined[i] | offset.undefined[i];
    }
  }

  // Whether lane i is active; an undefined mask lane that decides an access must be reported.
  bool active(const Operation& op, int64_t lane) {
    if (op.numOperands() < (op.kind == OpKind::TTLoad ? 2u : 3u)) return true;
    const Lanes& mask = get(op.operand(op.kind == OpKind::TTLoad ? 1 : 2));
    if (mask.undefined[lane]) outcome_.undefinedReachesMemory = true;
    return mask.bits[lane] & 1;
  }
  // A lane whose mask is undefined has an unspecified outcome (the access may or may not happen).
  bool maskUndefined(const Operation& op, int64_t lane) {
    if (op.numOperands() < (op.kind == OpKind::TTLoad ? 2u : 3u)) return false;
    return get(op.operand(op.kind == OpKind::TTLoad ? 1 : 2)).undefined[lane];
  }

  // The buffer element a pointer lane names, or nullptr (and a noted out-of-bounds access) outside the buffer.
  uint8_t* element(const Lanes& pointer, int64_t lane) {
    if (pointer.undefined[lane]) outcome_.undefinedReachesMemory = true;
    Buffer& buffer = buffers_.at(static_cast<size_t>(pointer.buffer));
    int64_t index = static_cast<int64_t>(pointer.bits[lane]);
    if (index < 0 || index >= buffer.count()) {
      outcome_.outOfBounds = true;
      return nullptr;
    }
    return buffer.bytes.data() + index * storageBytes(buffer.kind);
  }

  void load(const Operation& op) {
    const Lanes& pointer = get(op.operand(0));
    Lanes& result = fresh(op.result(), op.result()->type);
    ScalarKind kind = result.type.scalarKind();
    for (int64_t i = 0; i < result.size(); ++i) {
      if (active(op, i)) {
        uint64_t bits = 0;
        if (const uint8_t* at = element(pointer, i)) std::memcpy(&bits, at, static_cast<size_t>(storageBytes(kind)));
        result.bits[i] = maskToWidth(bits, kind);
        result.undefined[i] = pointer.undefined[i];
      } else if (op.numOperands() > 2) {
        const Lanes& other = get(op.operand(2));
        result.bits[i] = other.bits[i];
        result.undefined[i] = other.undefined[i];
      } else {
        result.undefined[i] = 1;  // masked off without `other`: 0, undefined
      }
      result.undefined[i] |= maskUndefined(op, i);
    }
  }

  void store(const Operation& op) {
    const Lanes& pointer = get(op.operand(0));
    const Lanes& value = get(op.operand(1));
    ScalarKind kind = op.operand(1)->type.scalarKind();
    for (int64_t i = 0; i < value.size(); ++i) {
      if (maskUndefined(op, i) && !pointer.undefined[i]) {
        if (uint8_t* at = element(pointer, i)) {
          Buffer& buffer = buffers_[static_cast<size_t>(pointer.buffer)];
          buffer.undefined[(at - buffer.bytes.data()) / storageBytes(kind)] = 1;
        }
      }
      if (!active(op, i)) continue;
      if (value.undefined[i]) outcome_.undefinedReachesMemory = true;
      if (uint8_t* at = element(pointer, i)) {
        std::memcpy(at, &value.bits[i], static_cast<size_t>(storageBytes(kind)));
        Buffer& buffer = buffers_[static_cast<size_t>(pointer.buffer)];
        buffer.undefined[(at - buffer.bytes.data()) / storageBytes(kind)] = value.undefined[i] | pointer.undefined[i];
      }
    }
  }

  void select(const Operation& op) {
    const Lanes& condition = get(op.operand(0));
    const Lanes& whenTrue = get(op.operand(1));
    const Lanes& whenFalse = get(op.operand(2));
    Lanes& result = fresh(op.result(), op.result()->type);
    result.buffer = whenTrue.buffer;
    for (int64_t i = 0; i < result.size(); ++i) {
      int64_t c = condition.size() == 1 ? 0 : i;
      const Lanes& side = (condition.bits[c] & 1) ? whenTrue : whenFalse;
      result.bits[i] = side.bits[i];
      result.undefined[i] = condition.undefined[c] | side.undefined[i];
    }
  }

  // One scalar per value: a lane of each reduce/scan operand, as the combine region's block arguments.
  using Scalars = std::vector<std::pair<uint64_t, uint8_t>>;

  // out = combine(left, right); `out` may be `left` or `right` (both are bound to the region first).
  void combine(const Block& region, const Scalars& left, const Scalars& right, Scalars& out) {
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

  struct Geometry {
    int64_t outer = 1, extent = 1, inner = 1;
  };
  static Geometry geometryOf(const std::vector<int64_t>& shape, int axis) {
    Geometry g;
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) (d < axis ? g.outer : d == axis ? g.extent : g.inner) *= shape[d];
    return g;
  }

  // The lanes of every operand along the axis at (outer, inner).
  std::vector<Scalars> column(const Operation& op, const Geometry& g, int64_t o, int64_t i) {
    std::vector<Scalars> values(static_cast<size_t>(g.extent));
    for (int64_t a = 0; a < g.extent; ++a)
      for (const Value* v : op.operands) {
        const Lanes& input = get(v);
        int64_t lane = (o * g.extent + a) * g.inner + i;
        values[a].push_back({input.bits[lane], input.undefined[lane]});
      }
    return values;
  }

  // Lowest index bit first: for width w = 1, 2, 4, ..., S/2: x[j] = combine(x[j], x[j + w]) for every j that is a
  // multiple of 2w (x[j] then holds the combination of the block [j, j + 2w), left to right).
  void reduce(const Operation& op) {
    const int axis = static_cast<int>(op.intAttr("axis"));
    const Geometry g = geometryOf(get(op.operand(0)).shape, axis);
    std::vector<Lanes> results;
    for (size_t k = 0; k < op.numResults(); ++k) results.push_back(makeLanes(op.result(k)->type));
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
  void scan(const Operation& op) {
    const int axis = static_cast<int>(op.intAttr("axis"));
    const bool reverse = op.intAttr("reverse", 0) != 0;
    const Geometry g = geometryOf(get(op.operand(0)).shape, axis);
    std::vector<Lanes> results;
    for (size_t k = 0; k < op.numResults(); ++k) results.push_back(makeLanes(op.result(k)->type));
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




  // ---- tt.ptr_to_int / tt.int_to_ptr: a made-up address space, buffer b at (b + 1) << 40, so that integer
  // arithmetic on addresses round-trips (the generator only adds whole elements) ----
  static constexpr int kAddressShift = 40;
  void pointerToInt(const Operation& op) {
    const Lanes& pointer = get(op.operand(0));
    const int bytes = storageBytes(op.operand(0)->type.element().pointee().scalarKind());
    Lanes result = makeLanes(op.result()->type);
    for (int64_t i = 0; i < result.size(); ++i) {
      result.bits[i] = (static_cast<uint64_t>(pointer.buffer + 1) << kAddressShift) + pointer.bits[i] * static_cast<uint64_t>(bytes);
      result.undefined[i] = pointer.undefined[i];
    }
    env_[op.result()] = std::move(result);
  }
  void intToPointer(const Operation& op) {
    const Lanes& address = get(op.operand(0));
    const int bytes = storageBytes(op.result()->type.element().pointee().scalarKind());
    Lanes result = makeLanes(op.result()->type);
    for (int64_t i = 0; i < result.size(); ++i) {
      const int buffer = static_cast<int>(address.bits[i] >> kAddressShift) - 1;
      if (result.buffer >= 0 && buffer != result.buffer) return fail("reference: tt.int_to_ptr lanes in different buffers");
      result.buffer = buffer;
      result.bits[i] = (address.bits[i] & ((uint64_t{1} << kAddressShift) - 1)) / static_cast<uint64_t>(bytes);
      result.undefined[i] = address.undefined[i];
    }
    if (result.buffer < 0 || result.buffer >= static_cast<int>(buffers_.size())) return fail("reference: tt.int_to_ptr of a non-address");
    env_[op.result()] = std::move(result);
  }

  // ---- block pointers: the element of block lane idx is base + sum((offsets + idx) * strides) ----
  void makeBlockPointer(const Operation& op) {
    const Lanes& base = get(op.operand(0));
    const size_t rank = (op.numOperands() - 1) / 3;
    Lanes result = makeLanes(op.result()->type);
    result.buffer = base.buffer;
    result.bits = {base.bits[0]};
    result.undefined = {base.undefined[0]};
    for (size_t d = 0; d < rank; ++d) {
      auto scalar = [&](size_t i) {
        const Lanes& v = get(op.operand(i));
        if (v.undefined[0]) outcome_.undefinedReachesMemory = true;
        return signExtendLane(v.bits[0], op.operand(i)->type.scalarKind());
      };
      result.blockShape.push_back(scalar(1 + d));
      result.blockStrides.push_back(scalar(1 + rank + d));
      result.blockOffsets.push_back(scalar(1 + 2 * rank + d));
    }
    env_[op.result()] = std::move(result);
  }

  void advanceBlockPointer(const Operation& op) {
    Lanes result = get(op.operand(0));
    for (size_t d = 0; d + 1 < op.numOperands(); ++d) {
      const Lanes& v = get(op.operand(1 + d));
      if (v.undefined[0]) outcome_.undefinedReachesMemory = true;
      result.blockOffsets[d] = static_cast<int32_t>(result.blockOffsets[d] + signExtendLane(v.bits[0], op.operand(1 + d)->type.scalarKind()));
    }
    env_[op.result()] = std::move(result);
  }

  void blockLoad(const Operation& op) {
    const Lanes& pointer = get(op.operand(0));
    Lanes result = makeLanes(op.result()->type);
    const ScalarKind kind = result.type.scalarKind();
    std::vector<bool> checked(pointer.blockShape.size(), false);
    if (const Attribute* boundary = op.attr("boundaryCheck"))
      for (int64_t d : boundary->arrayValues()) checked[static_cast<size_t>(d)] = true;
    const int padding = static_cast<int>(op.intAttr("padding", 0));
    for (int64_t i = 0; i < result.size(); ++i) {
      std::vector<int64_t> index = multiIndex(i, result.shape);
      bool inside = true;
      int64_t element = static_cast<int64_t>(pointer.bits[0]);
      for (size_t d = 0; d < index.size(); ++d) {
        const int64_t position = pointer.blockOffsets[d] + index[d];
        if (checked[d] && (position < 0 || position >= pointer.blockShape[d])) inside = false;
        element += position * pointer.blockStrides[d];
      }
      if (inside) {
        Lanes one;
        one.bits = {static_cast<uint64_t>(element)};
        one.undefined = {pointer.undefined[0]};
        one.buffer = pointer.buffer;
        uint64_t bits = 0;
        if (const uint8_t* at = this->element(one, 0)) std::memcpy(&bits, at, static_cast<size_t>(storageBytes(kind)));
        result.bits[i] = maskToWidth(bits, kind);
        result.undefined[i] = pointer.undefined[0];
      } else if (padding == 2 && isFloatKind(kind)) {
        // docs/semantics.md: the format's quiet NaN (0x7FC00000 for f32, as the GPU pads), not the canonical NaN
        // ops produce (0x7FFFFFFF); visible through a bitcast. Formats without infinities have one NaN.
        const FloatFormat format = floatFormat(kind);
        result.bits[i] = !format.hasInfinity ? canonicalNaNBits(kind)
                                             : (((uint64_t{1} << format.exponentBits) - 1) << format.mantissaBits) |
                                                   (uint64_t{1} << (format.mantissaBits - 1));
      } else if (padding == 0) {
        result.undefined[i] = 1;  // no padding option: the lanes outside are undefined
      }
    }
    env_[op.result()] = std::move(result);
  }

  // ---- control flow: scf.for / scf.while / scf.if / tt.call, each region run by runBlock ----
  void bindResults(const Operation& op, std::vector<Lanes> values) {
    if (values.size() != op.numResults()) return fail("reference: " + std::string(op.name()) + " yields the wrong number of values");
    for (size_t i = 0; i < values.size(); ++i) env_[op.result(i)] = std::move(values[i]);
  }
  // A scalar that decides control flow; an undefined one must be reported by the interpreter.
  uint64_t controlScalar(const Value* value) {
    const Lanes& lanes = get(value);
    if (lanes.undefined[0]) outcome_.undefinedReachesMemory = true;
    return lanes.bits[0];
  }
  static constexpr int64_t kMaxIterations = 1 << 16;  // generated loops run 0..4 times

  void forLoop(const Operation& op) {
    ScalarKind kind = op.operand(0)->type.scalarKind();
    const bool isUnsigned = op.hasAttr("unsignedCmp");
    auto value = [&](uint64_t bits) { return isUnsigned ? static_cast<int64_t>(maskToWidth(bits, kind)) : signExtendLane(bits, kind); };
    int64_t lower = value(controlScalar(op.operand(0))), upper = value(controlScalar(op.operand(1))),
            step = value(controlScalar(op.operand(2)));
    std::vector<Lanes> carried;
    for (size_t i = 3; i < op.numOperands(); ++i) carried.push_back(get(op.operand(i)));
    const Block& body = op.region(0).front();
    int64_t iterations = 0;
    for (int64_t iv = lower; iv < upper; iv += step) {
      if (++iterations > kMaxIterations || step <= 0) return fail("reference: scf.for runs too long");
      Lanes ivLanes = makeLanes(body.argument(0)->type);
      ivLanes.bits[0] = maskToWidth(static_cast<uint64_t>(iv), kind);
      env_[body.argument(0)] = std::move(ivLanes);
      for (size_t i = 0; i < carried.size(); ++i) env_[body.argument(i + 1)] = carried[i];
      carried = runBlock(body);
      if (!outcome_.error.empty()) return;
    }
    bindResults(op, std::move(carried));
  }

  void whileLoop(const Operation& op) {
    std::vector<Lanes> carried;
    for (const Value* v : op.operands) carried.push_back(get(v));
    const Block& before = op.region(0).front();
    const Block& after = op.region(1).front();
    for (int64_t iteration = 0;; ++iteration) {
      if (iteration > kMaxIterations) return fail("reference: scf.while runs too long");
      for (size_t i = 0; i < carried.size(); ++i) env_[before.argument(i)] = carried[i];
      std::vector<Lanes> condition = runBlock(before);
      if (!outcome_.error.empty()) return;
      if (condition.empty()) return fail("reference: scf.while without scf.condition");
      if (condition[0].undefined[0]) outcome_.undefinedReachesMemory = true;
      std::vector<Lanes> forwarded(condition.begin() + 1, condition.end());
      if (!(condition[0].bits[0] & 1)) return bindResults(op, std::move(forwarded));
      for (size_t i = 0; i < forwarded.size(); ++i) env_[after.argument(i)] = forwarded[i];
      carried = runBlock(after);
      if (!outcome_.error.empty()) return;
    }
  }

  void ifThenElse(const Operation& op) {
    const bool taken = controlScalar(op.operand(0)) & 1;
    const Region& region = op.region(taken ? 0 : 1);
    if (region.empty()) return bindResults(op, {});
    bindResults(op, runBlock(region.front()));
  }

  void call(const Operation& op) {
    const Attribute* callee = op.attr("callee");
    std::optional<Function> function = module_ && callee ? module_->findFunction(callee->text()) : std::nullopt;
    if (!function) return fail("reference: tt.call of an unknown function (no module given?)");
    for (size_t i = 0; i < op.numOperands(); ++i) env_[function->argument(i)] = get(op.operand(i));
    bindResults(op, runBlock(function->body()));
  }

  // ---- atomics: lanes in order, each a read-modify-write of its element ----
  void atomic(const Operation& op) {
    const Lanes& pointer = get(op.operand(0));
    const bool cas = op.kind == OpKind::TTAtomicCAS;
    const Lanes& value = get(op.operand(cas ? 2 : 1));
    const Lanes* compare = cas ? &get(op.operand(1)) : nullptr;
    const Lanes* mask = !cas && op.numOperands() > 2 ? &get(op.operand(2)) : nullptr;
    const ScalarKind kind = op.operand(cas ? 2 : 1)->type.scalarKind();
    const std::string rmw = cas ? "cas" : op.keywordAttr("atomic_rmw_op");
    Lanes result = makeLanes(op.result()->type);
    for (int64_t i = 0; i < result.size(); ++i) {
      if (mask) {
        if (mask->undefined[i]) outcome_.undefinedReachesMemory = true;
        if (!(mask->bits[i] & 1)) continue;  // masked off: 0
      }
      uint8_t* at = element(pointer, i);
      if (!at) continue;
      Buffer& buffer = buffers_[static_cast<size_t>(pointer.buffer)];
      const int64_t index = (at - buffer.bytes.data()) / storageBytes(kind);
      uint64_t old = 0;
      std::memcpy(&old, at, static_cast<size_t>(storageBytes(kind)));
      old = maskToWidth(old, kind);
      const uint64_t v = value.bits[i];
      uint64_t next = old;
      const int64_t so = signExtendLane(old, kind), sv = signExtendLane(v, kind);
      if (rmw == "cas") next = old == compare->bits[i] ? v : old;
      else if (rmw == "add") next = maskToWidth(old + v, kind);
      else if (rmw == "fadd") {
        // Triton's atom.add.f32 flushes subnormal inputs and results (PTX ISA; docs/findings.md G1); exact keeps them.
        const bool ftz = !exactMath_ && kind == ScalarKind::F32;
        auto flush = [&](double x) { return ftz && x != 0 && std::fabs(x) < 0x1p-126 ? std::copysign(0.0, x) : x; };
        next = floatBitsFromDouble(flush(flush(doubleFromFloatBits(old, kind)) + flush(doubleFromFloatBits(v, kind))), kind);
      }
      else if (rmw == "max") next = so >= sv ? old : v;
      else if (rmw == "min") next = so <= sv ? old : v;
      else if (rmw == "umax") next = old >= v ? old : v;
      else if (rmw == "umin") next = old <= v ? old : v;
      else if (rmw == "and") next = old & v;
      else if (rmw == "or") next = old | v;
      else if (rmw == "xor") next = old ^ v;
      else if (rmw == "exch") next = v;
      else return fail("reference: atomic kind " + rmw);
      std::memcpy(at, &next, static_cast<size_t>(storageBytes(kind)));
      const bool undefinedInput = value.undefined[i] || (compare && compare->undefined[i]);
      if (undefinedInput) outcome_.undefinedReachesMemory = true;
      buffer.undefined[static_cast<size_t>(index)] |= undefinedInput ? 1 : 0;
      result.bits[i] = old;
      result.undefined[i] = buffer.undefined[static_cast<size_t>(index)] && !undefinedInput ? 1 : 0;
    }
    env_[op.result()] = std::move(result);
  }

  // ---- tt.dot as docs/semantics.md "Dot" writes it: per output a sequential fma over k from c ----
  void dot(const Operation& op) {
    const Lanes& a = get(op.operand(0));
    const Lanes& b = get(op.operand(1));
    const Lanes& c = get(op.operand(2));
    const ScalarKind ak = op.operand(0)->type.scalarKind(), bk = op.operand(1)->type.scalarKind();
    const ScalarKind rk = op.result()->type.scalarKind();
    if (a.shape.size() != 2) return fail("reference: batched tt.dot");
    const int64_t m = a.shape[0], kk = a.shape[1], n = b.shape[1];
    const bool tf32 = op.keywordAttr("inputPrecision", "ieee") == "tf32" && ak == ScalarKind::F32;
    auto asFloat = [&](uint64_t bits, ScalarKind kind) {
      float f = static_cast<float>(doubleFromFloatBits(bits, kind));  // exact: every dot input fits f32
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
          double acc = doubleFromFloatBits(c.bits[i * n + j], rk);
          for (int64_t k = 0; k < kk; ++k)
            acc = std::fma(doubleFromFloatBits(a.bits[i * kk + k], ak), doubleFromFloatBits(b.bits[k * n + j], bk), acc);
          bits = floatBitsFromDouble(acc, rk);
        } else if (isFloatKind(ak)) {
          float acc = static_cast<float>(doubleFromFloatBits(c.bits[i * n + j], rk));
          for (int64_t k = 0; k < kk; ++k) acc = std::fma(asFloat(a.bits[i * kk + k], ak), asFloat(b.bits[k * n + j], bk), acc);
          bits = floatBitsFromDouble(static_cast<double>(acc), rk);  // f16 results: rounded once
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

  void histogram(const Operation& op) {
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

  void gather(const Operation& op) {
    const Lanes& source = get(op.operand(0));
    const Lanes& index = get(op.operand(1));
    const int axis = static_cast<int>(op.intAttr("axis"));
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

  void assertion(const Operation& op) {
    const Lanes& condition = get(op.operand(0));
    for (int64_t i = 0; i < condition.size(); ++i) {
      if (condition.undefined[i]) outcome_.undefinedReachesMemory = true;
      else if (!(condition.bits[i] & 1)) outcome_.assertFails = true;
    }
  }

  const Function& kernel_;
  const std::vector<LaunchArgument>& arguments_;
  std::array<int64_t, 3> grid_;
  bool exactMath_;
  std::array<int64_t, 3> program_{};
  std::vector<Buffer> buffers_;
  std::unordered_map<const Value*, Lanes> env_;
  ReferenceOutcome outcome_;
  const Module* module_;
};

}  // namespace

bool referenceDependsOnProfile(const Module& module) {
  // Keep in step with every read of Reference::exactMath_ (evalLane's math functions, atomic fadd).
  bool depends = false;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      switch (op.kind) {
        case OpKind::MathExp: case OpKind::MathExp2: case OpKind::MathLog: case OpKind::MathLog2:
        case OpKind::MathSin: case OpKind::MathCos: case OpKind::MathRsqrt: case OpKind::MathErf:
        case OpKind::TTAtomicRMW: depends = true; break;
        default: break;
      }
    });
  return depends;
}

ReferenceOutcome runReference(const Function& kernel, const std::vector<LaunchArgument>& arguments,
                              std::array<int64_t, 3> grid, FloatProfile profile, const Module* module) {
  return Reference(kernel, arguments, grid, profile, module).run();
}

}  // namespace tilesim::fuzz

// Building random kernels from plans (see KernelGen.h; the plans themselves come from KernelPlan.cpp). The plan
// only picks numbers; every typing decision is the builder's (Triton 3.6's rules), and the few operand fixes
// below keep programs well defined or avoid compile errors that would only waste a node.
#include "fuzz/programs/KernelGen.h"

#include <cmath>
#include <random>

#include "ir/builder/KernelBuilder.h"

namespace tilesim::fuzz {

using builder::DType;
using builder::KernelBuilder;
using builder::Literal;
using builder::Operand;
using builder::Tensor;

namespace {

// Literals stress the weak/strong rules: negative with unsigned, out of range for narrow types (the builder's
// error drops the node), values that make to_tensor pick int64/uint32/fp64.
const long long kIntLiterals[] = {0, 1, 2, 3, 7, 31, 100, 127, -1, -128, 255, 300, 70000, 2147483648LL, 1099511627776LL, 5};
const double kFloatLiterals[] = {0.5, -2.25, 3.0, 1e-3, -0.0, 65504.0, 1.0e10, 0.1, 1e300, -1e-45, INFINITY, NAN};

Literal literalFor(int index, bool floating) {
  if (floating) return Literal(kFloatLiterals[index % std::size(kFloatLiterals)]);
  return Literal(kIntLiterals[index % std::size(kIntLiterals)]);
}

// Small literals for `other` and clamp bounds (in range for every dtype, so loads never fail to build).
Literal safeLiteral(int index, bool floating) {
  return floating ? Literal(kFloatLiterals[index % 8]) : Literal(kIntLiterals[index % 8]);
}

bool isFloat(const Tensor& t) { return builder::isFloating(t.dtype); }

// Triton's broadcasting: right-aligned dims equal or 1.
bool broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    int64_t x = a[a.size() - 1 - i], y = b[b.size() - 1 - i];
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}

class KernelWriter {
 public:
  KernelWriter(const KernelPlan& plan, const std::vector<bool>& skip) : plan_(plan), skip_(skip), kb_("fuzz_kernel") {}

  // Builds the kernel; returns the index of the node the builder rejected, -1 for none, -2 for an error outside
  // the nodes (loads, stores: a generator or builder bug).
  int build() {
    for (size_t i = 0; i < plan_.inputs.size(); ++i) inputs_.push_back(kb_.pointerArg("in" + std::to_string(i), plan_.inputs[i].dtype));
    pid_ = kb_.programId(0);
    indices_.push_back(pid_);
    Tensor offs = offsets(plan_.block);
    indices_.push_back(offs);
    for (size_t i = 0; i < plan_.inputs.size(); ++i) {
      const InputPlan& input = plan_.inputs[i];
      Tensor mask = kb_.lt(offs, Literal(static_cast<long long>(inputLength(i))));
      Tensor x = input.withOther
                     ? kb_.load(kb_.add(inputs_[i], offs), Operand(mask),
                                Operand(builder::isBool(input.dtype) ? Literal(false)
                                                                     : safeLiteral(input.otherIndex, builder::isFloating(input.dtype))))
                     : kb_.load(kb_.add(inputs_[i], offs), Operand(mask));
      if (!input.withOther && input.sanitize) x = kb_.where(mask, x, builder::isBool(input.dtype) ? Literal(false) : Literal(0));
      values_.push_back(x);
    }
    if (kb_.failed()) return -2;
    for (size_t n = 0; n < plan_.nodes.size(); ++n) {
      if (skip_[n]) continue;
      Tensor result = node(plan_.nodes[n]);
      if (kb_.failed()) return static_cast<int>(n);
      if (result.valid()) values_.push_back(result);
    }
    // Output pointers are parameters after the inputs: their pointee is the dtype of the value stored.
    for (size_t j = 0; j < plan_.outputs.size(); ++j) {
      const Tensor& value = values_[plan_.outputs[j] % values_.size()];  // never pid/offs
      stored_.push_back(value);
      Tensor out = kb_.pointerArg("out" + std::to_string(j), value.dtype);
      if (!value.isBlock()) {
        kb_.store(kb_.add(out, pid_), value);
      } else {
        Tensor o = offsets(value.shape);
        kb_.store(kb_.add(out, o), value, Operand(kb_.lt(o, Literal(static_cast<long long>(outputLength(j))))));
      }
    }
    kb_.ret();
    return kb_.failed() ? -2 : -1;
  }

  int64_t blockNumel(const std::vector<int64_t>& shape) const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  int64_t inputLength(size_t i) const {
    int64_t full = plan_.grid * blockNumel(plan_.block);
    return std::max<int64_t>(1, full - plan_.inputs[i].trim % full);
  }
  int64_t outputLength(size_t j) const {
    const Tensor& value = stored_[j];
    int64_t full = plan_.grid * (value.isBlock() ? blockNumel(value.shape) : 1);
    int64_t trim = j < plan_.outputTrims.size() ? plan_.outputTrims[j] : 0;
    return value.isBlock() ? std::max<int64_t>(1, full - trim % full) : full;
  }

  KernelBuilder& builder() { return kb_; }
  const std::vector<Tensor>& stored() const { return stored_; }

 private:
  // pid * numel(shape) + the row-major index of each lane: sum over dims of arange * stride, each arange
  // expanded to the full rank (rows[:, None] * C + cols[None, :] in 2-D).
  Tensor offsets(const std::vector<int64_t>& shape) {
    Tensor index;
    int64_t stride = 1;
    const int rank = static_cast<int>(shape.size());
    for (int d = rank - 1; d >= 0; --d) {
      Tensor term = kb_.arange(0, shape[d]);
      for (int k = 0; k < d; ++k) term = kb_.expandDims(term, 0);
      for (int k = d + 1; k < rank; ++k) term = kb_.expandDims(term, k);
      if (stride != 1) term = kb_.mul(term, Literal(static_cast<long long>(stride)));
      index = index.valid() ? kb_.add(term, index) : term;
      stride *= shape[d];
    }
    return kb_.add(kb_.mul(pid_, Literal(static_cast<long long>(blockNumel(shape)))), index);
  }

  // One operand in eight is pid or offs (the index values); the rest are loads and node results.
  const Tensor& pick(uint32_t index) const {
    if (index % 8 == 7) return indices_[(index / 8) % indices_.size()];
    return values_[index % values_.size()];
  }

  // Makes b's shape combine with a's: a 1-D [R] against a 2-D [R, C] becomes [R, 1].
  bool fitShapes(Tensor& a, Tensor& b) {
    if (broadcastable(a.shape, b.shape)) return true;
    if (a.rank() == 1 && b.rank() == 2 && a.shape[0] == b.shape[0]) a = kb_.expandDims(a, 1);
    else if (b.rank() == 1 && a.rank() == 2 && b.shape[0] == a.shape[0]) b = kb_.expandDims(b, 1);
    return broadcastable(a.shape, b.shape);
  }

  // `/ // %` on two integers of different signedness is a TypeError (bool counts as unsigned): cast b to a's
  // dtype (bools become int32 first).
  void matchSignedness(Tensor& a, Tensor& b) {
    if (isFloat(a) || isFloat(b)) return;
    if (a.dtype == DType::Int1) a = kb_.cast(a, DType::Int32);
    if (b.dtype != a.dtype && builder::isSignedInt(a.dtype) != builder::isSignedInt(b.dtype)) b = kb_.cast(b, a.dtype);
    if (b.dtype == DType::Int1) b = kb_.cast(b, DType::Int32);
  }

  Tensor toInt(const Tensor& t) { return isFloat(t) ? kb_.cast(t, DType::Int32) : t; }
  Tensor toFp32(const Tensor& t) {
    return t.dtype == DType::Fp32 || t.dtype == DType::Fp64 ? t : kb_.cast(t, DType::Fp32);
  }

  Tensor node(const Node& n) {
    Tensor a = pick(n.a);
    std::optional<Tensor> bTensor;
    if (!n.literalB) {
      bTensor = pick(n.b);
      if (!fitShapes(a, *bTensor)) bTensor.reset();
    }
    auto lit = [&](bool floating) { return literalFor(n.literalIndex, floating); };
    auto second = [&](bool floating) -> Operand { return bTensor ? Operand(*bTensor) : Operand(lit(floating)); };
    switch (n.op) {
      case NodeOp::Add: return kb_.add(a, second(isFloat(a)));
      case NodeOp::Sub: return kb_.sub(a, second(isFloat(a)));
      case NodeOp::Mul: return kb_.mul(a, second(isFloat(a)));
      case NodeOp::TrueDiv:
        if (bTensor) matchSignedness(a, *bTensor);
        return kb_.truediv(a, second(isFloat(a)));
      case NodeOp::FloorDiv:
      case NodeOp::Mod: {
        // Integers: `a // (b | 1)` avoids division by zero; mixed signedness is a TypeError, so b takes a's dtype.
        bool floorDiv = n.op == NodeOp::FloorDiv;
        if (floorDiv) a = toInt(a);
        if (!bTensor) return floorDiv ? kb_.floordiv(a, lit(false)) : kb_.mod(a, lit(isFloat(a)) );
        Tensor b = *bTensor;
        if (floorDiv) b = toInt(b);
        if (!isFloat(a) && !isFloat(b)) {
          matchSignedness(a, b);
          b = kb_.or_(b, 1);
        }
        return floorDiv ? kb_.floordiv(a, b) : kb_.mod(a, b);
      }
      case NodeOp::And: return kb_.and_(toInt(a), bTensor ? Operand(toInt(*bTensor)) : Operand(lit(false)));
      case NodeOp::Or: return kb_.or_(toInt(a), bTensor ? Operand(toInt(*bTensor)) : Operand(lit(false)));
      case NodeOp::Xor: return kb_.xor_(toInt(a), bTensor ? Operand(toInt(*bTensor)) : Operand(lit(false)));
      case NodeOp::Shl:
      case NodeOp::Shr: {
        // In-range amounts: b & (width(a) - 1).
        a = toInt(a);
        if (a.dtype == DType::Int1) a = kb_.cast(a, DType::Int8);
        int width = builder::primitiveBitWidth(a.dtype);
        Operand amount = bTensor ? Operand(kb_.and_(toInt(*bTensor), width - 1)) : Operand(Literal(((kIntLiterals[n.literalIndex % 16] % width) + width) % width));
        return n.op == NodeOp::Shl ? kb_.shl(a, amount) : kb_.shr(a, amount);
      }
      case NodeOp::Lt: return kb_.lt(a, second(isFloat(a)));
      case NodeOp::Le: return kb_.le(a, second(isFloat(a)));
      case NodeOp::Gt: return kb_.gt(a, second(isFloat(a)));
      case NodeOp::Ge: return kb_.ge(a, second(isFloat(a)));
      case NodeOp::Eq: return kb_.eq(a, second(isFloat(a)));
      case NodeOp::Ne: return kb_.ne(a, second(isFloat(a)));
      case NodeOp::Maximum:
        return kb_.maximum(a, second(isFloat(a)), n.variant % 2 ? builder::PropagateNan::All : builder::PropagateNan::None);
      case NodeOp::Minimum:
        return kb_.minimum(a, second(isFloat(a)), n.variant % 2 ? builder::PropagateNan::All : builder::PropagateNan::None);
      case NodeOp::Where: {
        Tensor condition = pick(n.c);
        if (condition.dtype != DType::Int1) condition = kb_.ne(condition, 0);
        if (!fitShapes(condition, a)) return Tensor{};
        if (bTensor && !fitShapes(condition, *bTensor)) bTensor.reset();
        if (bTensor && !fitShapes(a, *bTensor)) bTensor.reset();
        return kb_.where(condition, a, second(isFloat(a)));
      }
      case NodeOp::Neg: return kb_.neg(a);
      case NodeOp::Invert: return a.dtype == DType::Int1 ? kb_.not_(a) : kb_.invert(toInt(a));
      case NodeOp::Abs: return kb_.abs(a);
      case NodeOp::Cast:
        // Float downcasts sometimes round toward zero (tt.fp_to_fp rtz), as fp_downcast_rounding="rtz" asks.
        if (n.variant % 3 == 0 && isFloat(a) && builder::isFloating(n.castTo) &&
            builder::primitiveBitWidth(n.castTo) < builder::primitiveBitWidth(a.dtype))
          return kb_.cast(a, n.castTo, false, std::string("rtz"));
        return kb_.cast(a, n.castTo);
      case NodeOp::Bitcast: {
        if (builder::primitiveBitWidth(a.dtype) != builder::primitiveBitWidth(n.castTo)) return kb_.cast(a, n.castTo);
        return kb_.cast(a, n.castTo, /*bitcast=*/true);
      }
      case NodeOp::Math: {
        a = toFp32(a);
        switch (n.variant % 12) {
          case 0: return kb_.exp(a);
          case 1: return kb_.exp2(a);
          case 2: return kb_.log(a);
          case 3: return kb_.log2(a);
          case 4: return kb_.sin(a);
          case 5: return kb_.cos(a);
          case 6: return kb_.sqrt(a);
          case 7: return kb_.rsqrt(a);
          case 8: return kb_.floor(a);
          case 9: return kb_.ceil(a);
          case 10: return kb_.abs(a);
          default: return kb_.neg(a);
        }
      }
      case NodeOp::Fma: {
        Tensor c = pick(n.c);
        a = toFp32(a);
        if (!fitShapes(a, c)) return Tensor{};
        c = toFp32(c);
        return kb_.fma(a, bTensor ? Operand(toFp32(*bTensor)) : Operand(lit(true)), c);
      }
      case NodeOp::Clamp: {
        a = toFp32(a);
        double lo = kFloatLiterals[n.literalIndex % 8], hi = kFloatLiterals[(n.literalIndex + n.variant) % 8];
        return kb_.clamp(a, std::min(lo, hi), std::max(lo, hi),
                         n.variant % 2 ? builder::PropagateNan::All : builder::PropagateNan::None);
      }
      case NodeOp::Umulhi: {
        auto fix = [&](Tensor t) {
          t = toInt(t);
          bool ok = t.dtype == DType::Int32 || t.dtype == DType::Int64 || t.dtype == DType::UInt32 || t.dtype == DType::UInt64;
          return ok ? t : kb_.cast(t, DType::Int32);
        };
        a = fix(a);
        return kb_.umulhi(a, bTensor ? Operand(fix(*bTensor)) : Operand(lit(false)));
      }
      case NodeOp::Gather: {
        // A data-dependent load: index = int(a) & (2^k - 1), masked to the buffer, from any program's part.
        size_t k = n.b % inputs_.size();
        int64_t length = inputLength(k), span = 1;
        while (span < length) span *= 2;
        Tensor index = kb_.and_(kb_.cast(toInt(a), DType::Int32), static_cast<int>(span - 1));
        Tensor mask = kb_.lt(index, Literal(static_cast<long long>(length)));
        DType dtype = plan_.inputs[k].dtype;
        if (n.variant % 3 == 0) return kb_.load(kb_.add(inputs_[k], index), Operand(mask));
        return kb_.load(kb_.add(inputs_[k], index), Operand(mask),
                        Operand(builder::isBool(dtype) ? Literal(false) : safeLiteral(n.literalIndex, builder::isFloating(dtype))));
      }
      case NodeOp::ReduceProduct: {
        // A user combine region: products round differently in every order, so this pins the documented tree.
        if (!a.isBlock()) return Tensor{};
        if (a.dtype == DType::Int1) a = kb_.cast(a, DType::Int32);
        bool useXor = !isFloat(a) && n.variant % 2;
        std::vector<Tensor> reduced = kb_.reduce({a}, n.axis % a.rank(), [useXor](KernelBuilder& kb, const std::vector<Tensor>& l, const std::vector<Tensor>& r) {
          return std::vector<Tensor>{useXor ? kb.xor_(l[0], r[0]) : kb.mul(l[0], r[0])};
        });
        return reduced.empty() ? Tensor{} : reduced[0];
      }
      case NodeOp::Join: {
        if (!bTensor || a.rank() > 2) return Tensor{};
        Tensor b = bTensor->dtype == a.dtype ? *bTensor : kb_.cast(*bTensor, a.dtype);
        return kb_.join(a, b);
      }
      case NodeOp::Split: {
        if (!a.isBlock() || a.shape.back() != 2) return Tensor{};
        auto [first, second] = kb_.split(a);
        return n.variant % 2 ? second : first;
      }
      case NodeOp::Cat: {
        if (!bTensor || a.rank() != 1 || bTensor->shape != a.shape) return Tensor{};
        Tensor b = bTensor->dtype == a.dtype ? *bTensor : kb_.cast(*bTensor, a.dtype);
        return kb_.cat(a, b, /*canReorder=*/true);
      }
      case NodeOp::Trans:
        return a.rank() == 2 ? kb_.trans(a, {1, 0}) : Tensor{};
      case NodeOp::Reshape:
        if (a.rank() == 2) return kb_.reshape(a, {a.shape[0] * a.shape[1]});
        if (a.rank() == 1 && a.shape[0] >= 2) return kb_.reshape(a, {a.shape[0] / 2, 2});
        return Tensor{};
      case NodeOp::Sum:
      case NodeOp::Max:
      case NodeOp::Min:
      case NodeOp::Argmax:
      case NodeOp::Argmin:
      case NodeOp::Cumsum: {
        if (!a.isBlock()) return Tensor{};
        int axis = n.axis % a.rank();
        bool keepDims = n.variant % 2;
        switch (n.op) {
          case NodeOp::Sum: return kb_.sum(a, axis, keepDims);
          case NodeOp::Max: return kb_.max(a, axis, keepDims);
          case NodeOp::Min: return kb_.min(a, axis, keepDims);
          case NodeOp::Argmax: return kb_.argmax(a, axis, keepDims);
          case NodeOp::Argmin: return kb_.argmin(a, axis, keepDims);
          default: return kb_.cumsum(a, axis, keepDims);
        }
      }
      case NodeOp::kCount: break;
    }
    return Tensor{};
  }

  const KernelPlan& plan_;
  const std::vector<bool>& skip_;
  KernelBuilder kb_;
  Tensor pid_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> indices_;  // pid, offs
  std::vector<Tensor> values_;
  std::vector<Tensor> stored_;
};

}  // namespace

BuiltKernel buildKernel(const KernelPlan& plan) {
  BuiltKernel built;
  std::vector<bool> skip(plan.nodes.size(), false);
  for (;;) {
    KernelWriter writer(plan, skip);
    int failed = writer.build();
    if (failed >= 0) {
      skip[static_cast<size_t>(failed)] = true;
      built.droppedNodes.push_back(std::string(nodeOpName(plan.nodes[failed].op)) + ": " + writer.builder().error()->str());
      continue;
    }
    if (failed == -2) {
      built.error = "builder failed outside a node: " + writer.builder().error()->str();
      return built;
    }
    builder::BuildResult result = writer.builder().finish();
    if (result.error) {
      built.error = "builder finish failed: " + result.error->str();
      return built;
    }
    built.module = std::move(result.module);
    std::mt19937_64 rng(plan.dataSeed);
    for (size_t i = 0; i < plan.inputs.size(); ++i) {
      DType dtype = plan.inputs[i].dtype;
      built.arguments.push_back(LaunchArgument::buffer("in" + std::to_string(i), builder::scalarKindOf(dtype),
                                                       randomBuffer(dtype, writer.inputLength(i), rng)));
      built.argumentDTypes.push_back(dtype);
    }
    for (size_t j = 0; j < writer.stored().size(); ++j) {
      DType dtype = writer.stored()[j].dtype;
      built.arguments.push_back(LaunchArgument::buffer("out" + std::to_string(j), builder::scalarKindOf(dtype),
                                                       randomBuffer(dtype, writer.outputLength(j), rng)));
      built.argumentDTypes.push_back(dtype);
    }
    built.grid = {plan.grid, 1, 1};
    built.numWarps = plan.numWarps;
    built.summary = describePlan(plan);
    return built;
  }
}


}  // namespace tilesim::fuzz

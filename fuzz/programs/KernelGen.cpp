// Building random kernels from plans (see KernelGen.h; the plans themselves come from KernelPlan.cpp). The plan
// only picks numbers; every typing decision is the builder's (Triton 3.6's rules), and the few operand fixes
// below keep programs well defined or avoid compile errors that would only waste a node.
#include "fuzz/programs/KernelGen.h"

#include <cmath>
#include <random>

#include "ir/builder/KernelBuilder.h"
#include "ir/Attribute.h"

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
      const uint32_t feature = featureOf(plan_.nodes[n].op);
      if (feature && !(plan_.features & feature)) continue;  // swarm: this program has the feature off
      currentNode_ = n;
      Tensor result = node(plan_.nodes[n]);
      if (kb_.failed()) return static_cast<int>(n);
      if (result.valid()) values_.push_back(result);
      madeValue_[n] = result.valid() ? 1 : 0;
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

  // Buffers of the atomic nodes (parameters atom0, atom1, ... between the inputs and the outputs).
  struct AtomicBuffer {
    DType dtype;
    int64_t length;
  };
  const std::vector<AtomicBuffer>& atomics() const { return atomics_; }

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
  // fp8 values only get stored and converted: Triton has no fp8 arithmetic, so an operand that is fp8 is read
  // as fp32 (exact).
  Tensor pick(uint32_t index) {
    if (index % 8 == 7) return indices_[(index / 8) % indices_.size()];
    const Tensor& value = values_[index % values_.size()];
    return builder::isFp8(value.dtype) ? kb_.cast(value, DType::Fp32) : value;
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

  bool allowUB() const { return plan_.features & kFeatureUB; }

  // float -> int: without the UB feature, NaN becomes 0 and the value is clamped into the target's range first
  // (fptosi/fptoui of NaN or an out-of-range value is undefined behaviour for LLVM).
  Tensor floatToInt(Tensor x, DType to) {
    if (allowUB() || !isFloat(x)) return kb_.cast(x, to);
    if (x.dtype != DType::Fp64) x = kb_.cast(x, DType::Fp32);
    double lo = 0, hi = 0;
    switch (to) {
      case DType::Int1: lo = 0; hi = 1; break;
      case DType::Int8: lo = -128; hi = 127; break;
      case DType::Int16: lo = -32768; hi = 32767; break;
      case DType::Int32: lo = -2147483520.0; hi = 2147483520.0; break;  // representable in fp32, inside int32
      case DType::Int64: lo = -4611686018427387904.0; hi = 4611686018427387904.0; break;
      case DType::UInt8: lo = 0; hi = 255; break;
      case DType::UInt16: lo = 0; hi = 65535; break;
      case DType::UInt32: lo = 0; hi = 4294967040.0; break;
      case DType::UInt64: lo = 0; hi = 9223372036854775808.0; break;
      default: return kb_.cast(x, to);
    }
    Tensor y = kb_.where(kb_.ne(x, x), Literal(0.0), x);
    y = kb_.clamp(y, Literal(lo), Literal(hi));
    return kb_.cast(y, to);
  }
  Tensor toInt(const Tensor& t) { return isFloat(t) ? floatToInt(t, DType::Int32) : t; }
  Tensor toFp32(const Tensor& t) {
    return t.dtype == DType::Fp32 || t.dtype == DType::Fp64 ? t : kb_.cast(t, DType::Fp32);
  }


  // A value of a's dtype and shape made from b (or a): what loop, branch and helper bodies combine with.
  Tensor sameTypeAs(const Tensor& a, const Tensor& value) {
    Tensor v = value;
    if (v.shape != a.shape) {
      if (!broadcastable(a.shape, v.shape) || v.rank() > a.rank()) return a;
      for (int k = 0; k < v.rank(); ++k)
        if (v.shape[v.rank() - 1 - k] != a.shape[a.rank() - 1 - k] && v.shape[v.rank() - 1 - k] != 1) return a;
      if (v.isBlock() || a.isBlock()) v = kb_.broadcastTo(v.isBlock() ? v : kb_.add(kb_.zeros(a.shape, v.dtype), v), a.shape);
    }
    if (v.dtype != a.dtype) v = isFloat(v) && !isFloat(a) ? floatToInt(v, a.dtype) : kb_.cast(v, a.dtype);
    return v;
  }
  // One step of the loop/branch bodies: a OP b in a's type.
  Tensor step(KernelBuilder& kb, int variant, const Tensor& x, const Tensor& y) {
    Tensor r;
    switch (variant % 4) {
      case 0: r = kb.add(x, y); break;
      case 1: r = kb.maximum(x, y); break;
      case 2: r = isFloat(x) ? kb.mul(x, y) : kb.xor_(x, y); break;
      default: r = kb.sub(x, y); break;
    }
    if (r.valid() && r.dtype != x.dtype) r = kb.cast(r, x.dtype);
    return r;
  }

  Tensor controlFlow(const Node& n, Tensor a, const std::optional<Tensor>& bTensor) {
    if (a.dtype == DType::Int1 || builder::isFp8(a.dtype)) a = kb_.cast(a, a.dtype == DType::Int1 ? DType::Int32 : DType::Fp32);
    Tensor b = sameTypeAs(a, bTensor ? *bTensor : a);
    switch (n.op) {
      case NodeOp::ForLoop: {
        // A runtime trip count of 0..4 (pid % 3 + 0..2) with step 1 or 2.
        Tensor upper = kb_.add(kb_.mod(pid_, Literal(3LL)), Literal(static_cast<long long>(n.variant % 3)));
        std::vector<Tensor> out = kb_.forLoop(Literal(0LL), upper, Literal(static_cast<long long>(1 + n.literalIndex % 2)), {a},
            [&](KernelBuilder& kb, const Tensor& iv, const std::vector<Tensor>& carried) {
              Tensor addend = n.variant % 5 == 4 ? kb.cast(iv, carried[0].dtype) : b;
              if (addend.shape != carried[0].shape) addend = kb.add(kb.zeros(carried[0].shape, carried[0].dtype), addend);
              return std::vector<Tensor>{step(kb, n.variant, carried[0], addend)};
            });
        return out.empty() ? Tensor{} : out[0];
      }
      case NodeOp::WhileLoop: {
        // 1..3 iterations: while i < pid % 3 + 1.
        Tensor limit = kb_.add(kb_.mod(pid_, Literal(3LL)), Literal(1LL));
        std::vector<Tensor> out = kb_.whileLoop({a, kb_.toTensor(Literal(0LL))},
            [&](KernelBuilder& kb, const std::vector<Tensor>& c) { return kb.lt(c[1], limit); },
            [&](KernelBuilder& kb, const std::vector<Tensor>& c) {
              return std::vector<Tensor>{step(kb, n.variant, c[0], b), kb.add(c[1], Literal(1LL))};
            });
        return out.empty() ? Tensor{} : out[0];
      }
      case NodeOp::IfElse: {
        Tensor condition = !a.isBlock() && n.variant % 3 == 2 ? kb_.ne(toInt(a), Literal(0LL))
                                                              : kb_.eq(kb_.mod(pid_, Literal(2LL)), Literal(static_cast<long long>(n.variant % 2)));
        std::vector<Tensor> out = kb_.ifThenElse(condition,
            [&](KernelBuilder& kb) { return std::vector<Tensor>{step(kb, n.variant, a, b)}; },
            [&](KernelBuilder& kb) { return std::vector<Tensor>{step(kb, n.variant + 1, a, b)}; });
        return out.empty() ? Tensor{} : out[0];
      }
      default: {
        // A private helper per node (its own argument types), called once or twice.
        const std::string name = "fuzz_helper_" + std::to_string(currentNode_);
        auto body = [&](KernelBuilder& kb, const std::vector<Tensor>& p) { return std::vector<Tensor>{step(kb, n.variant, p[0], p[1])}; };
        std::vector<Tensor> out = kb_.call(name, {a, b}, body);
        if (!out.empty() && n.variant % 2) out = kb_.call(name, {out[0], b}, body);
        return out.empty() ? Tensor{} : out[0];
      }
    }
  }

  // Atomics on a buffer of their own. AtomicOwn: each lane its own element (pid * numel + index), so the old
  // values returned are the buffer's initial contents and usable; AtomicShared: integer add/max/min/and/or/xor of
  // every lane of every program into element 0 or 1, whose final value does not depend on the order; the old
  // values depend on it and are not used.
  Tensor atomicNode(const Node& n, const Tensor& a) {
    if (!a.isBlock()) return Tensor{};
    const bool own = n.op == NodeOp::AtomicOwn;
    static const DType kOwnTypes[] = {DType::Int32, DType::UInt32, DType::Int64, DType::Fp32};
    static const DType kSharedTypes[] = {DType::Int32, DType::UInt32, DType::Int64};
    DType dtype = own ? kOwnTypes[n.variant % 4] : kSharedTypes[n.variant % 3];
    Tensor v = isFloat(a) && !builder::isFloating(dtype) ? floatToInt(a, dtype) : kb_.cast(a, dtype);
    Tensor buffer = kb_.pointerArg("atom" + std::to_string(atomics_.size()), dtype);
    const int64_t length = plan_.grid * blockNumel(a.shape);
    atomics_.push_back({dtype, length});
    Tensor o = offsets(a.shape);
    if (!own) {
      static const builder::AtomicOp kShared[] = {builder::AtomicOp::Add, builder::AtomicOp::Max, builder::AtomicOp::Min,
                                                  builder::AtomicOp::And, builder::AtomicOp::Or, builder::AtomicOp::Xor};
      Tensor where = kb_.and_(o, Literal(1LL));
      kb_.atomic(kShared[n.literalIndex % 6], kb_.add(buffer, where), v, Operand(kb_.lt(o, Literal(static_cast<long long>(length - n.literalIndex % 3)))));
      return Tensor{};
    }
    Tensor pointer = kb_.add(buffer, o);
    Tensor mask = kb_.lt(o, Literal(static_cast<long long>(length - n.literalIndex % 3)));
    Tensor old;
    if (n.variant % 9 == 8) {
      old = kb_.atomicCas(pointer, v, kb_.add(v, Literal(1LL)));  // compare with the lane's value: sometimes equal
    } else {
      static const builder::AtomicOp kInt[] = {builder::AtomicOp::Add, builder::AtomicOp::Max, builder::AtomicOp::Min,
                                               builder::AtomicOp::And, builder::AtomicOp::Or, builder::AtomicOp::Xor,
                                               builder::AtomicOp::Xchg};
      builder::AtomicOp op = builder::isFloating(dtype) ? (n.literalIndex % 2 ? builder::AtomicOp::Add : builder::AtomicOp::Xchg)
                                                        : kInt[n.literalIndex % 7];
      old = kb_.atomic(op, pointer, v, Operand(mask));
    }
    // Masked-off lanes' old values are unspecified on a GPU: only the active lanes' are kept.
    return kb_.where(mask, old, isFloat(old) ? Literal(0.0) : Literal(0LL));
  }

  // a [R, C] (both >= 16) as one of the dot dtypes, times its transpose: [R, C] x [C, R] -> [R, R].
  Tensor dotNode(const Node& n, const Tensor& a) {
    // Tensor-core shapes (every dim >= 16) from whatever a is: a 1-D value becomes rows, a scalar a 16x16 tile.
    Tensor source = a;
    if (source.rank() == 1 && source.shape[0] >= 256) source = kb_.reshape(source, {16, source.shape[0] / 16});
    else if (source.rank() == 1 && source.shape[0] >= 16) source = kb_.broadcastTo(kb_.expandDims(source, 0), {16, source.shape[0]});
    else if (!source.isBlock()) source = kb_.add(kb_.zeros({16, 16}, source.dtype == DType::Int1 ? DType::Int32 : source.dtype), source);
    const Tensor& a2 = source;
    if (a2.rank() != 2 || a2.shape[0] < 16 || a2.shape[1] < 16) return Tensor{};
    static const DType kTypes[] = {DType::Fp16, DType::BF16, DType::Fp32, DType::Fp32, DType::Int8,
                                   DType::Fp8E4Nv, DType::Fp8E5, DType::Fp64};
    const int pick = n.variant % 8;
    const DType dtype = kTypes[pick];
    Tensor x = a2;
    if (builder::isFloating(dtype) && !isFloat(x)) x = kb_.cast(x, DType::Fp32);
    x = builder::isFloating(dtype) ? kb_.cast(x, dtype) : (isFloat(x) ? floatToInt(x, dtype) : kb_.cast(x, dtype));
    Tensor y = kb_.trans(x, {1, 0});
    DType out = dtype == DType::Fp64 ? DType::Fp64 : (dtype == DType::Fp16 && n.literalIndex % 3 == 0 ? DType::Fp16 : DType::Fp32);
    return kb_.dot(x, y, std::nullopt, pick == 3 ? "tf32" : "ieee", out);
  }

  Tensor node(const Node& n) {
    Tensor a = pick(n.a);
    std::optional<Tensor> bTensor;
    if (!n.literalB) {
      bTensor = pick(n.b);
      if (!fitShapes(a, *bTensor)) bTensor.reset();
    }
    auto lit = [&](bool floating) {
      // Literal 0 divides by zero (UB for integers): only with the UB feature.
      if (!allowUB() && !floating && kIntLiterals[n.literalIndex % std::size(kIntLiterals)] == 0) return Literal(1LL);
      return literalFor(n.literalIndex, floating);
    };
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
        if (isFloat(a) && !builder::isFloating(n.castTo)) return floatToInt(a, n.castTo);
        return kb_.cast(a, n.castTo);
      case NodeOp::Bitcast: {
        if (builder::primitiveBitWidth(a.dtype) != builder::primitiveBitWidth(n.castTo))
          return isFloat(a) && !builder::isFloating(n.castTo) ? floatToInt(a, n.castTo) : kb_.cast(a, n.castTo);
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
      case NodeOp::ForLoop:
      case NodeOp::WhileLoop:
      case NodeOp::IfElse:
      case NodeOp::Call: return controlFlow(n, a, bTensor);
      case NodeOp::AtomicOwn:
      case NodeOp::AtomicShared: return atomicNode(n, a);
      case NodeOp::Dot: return dotNode(n, a);
      case NodeOp::Histogram: {
        if (a.rank() != 1) return Tensor{};
        // Values outside [0, bins) are unspecified: Triton 3.6's lowering (HistogramOpToLLVM.cpp) counts a value by
        // its low log2(bins) bits (so it wraps), tilesim drops it; docs/findings.md T6. Keep every value in range.
        const int64_t bins = int64_t{1} << (1 + n.variant % 6);
        Tensor x = kb_.and_(a.dtype == DType::Int32 ? a : kb_.cast(toInt(a), DType::Int32), static_cast<int>(bins - 1));
        return kb_.rawOp(OpKind::TTHistogram, {x}, DType::Int32, {bins});
      }
      case NodeOp::TileGather: {
        if (!a.isBlock()) return Tensor{};
        const int axis = n.axis % a.rank();
        Tensor source = bTensor && bTensor->shape == a.shape ? *bTensor : a;
        Tensor index = kb_.and_(kb_.cast(toInt(source), DType::Int32), static_cast<int>(a.shape[axis] - 1));
        return kb_.rawOp(OpKind::TTGather, {a, index}, a.dtype, a.shape, {{"axis", Attribute::integer(axis, Type::i32())}});
      }
      case NodeOp::Fp8: {
        Tensor x = isFloat(a) ? a : kb_.cast(a, DType::Fp32);
        if (builder::isFp8(x.dtype)) return kb_.cast(x, DType::Fp32);
        Tensor f8 = kb_.cast(x, n.variant % 2 ? DType::Fp8E4Nv : DType::Fp8E5);
        return n.variant % 3 == 0 ? f8 : kb_.cast(f8, n.variant % 4 == 1 ? DType::Fp16 : DType::Fp32);
      }
      case NodeOp::Library: {
        Tensor x = a.dtype == DType::Fp32 ? a : kb_.cast(a, DType::Fp32);
        switch (n.variant % 5) {
          case 0: {
            Tensor y = bTensor && bTensor->shape == a.shape ? *bTensor : a;
            if (y.dtype != DType::Fp32) y = kb_.cast(y, DType::Fp32);
            return kb_.rawOp(OpKind::TTPreciseDivF, {x, y}, DType::Fp32, x.shape);
          }
          case 1: return kb_.rawOp(OpKind::TTPreciseSqrt, {x}, DType::Fp32, x.shape);
          case 2: return kb_.rawOp(OpKind::MathErf, {x}, DType::Fp32, x.shape);
          case 3: {
            Tensor f = isFloat(a) && !builder::isFp8(a.dtype) ? a : x;
            return kb_.rawOp(OpKind::ArithNegF, {f}, f.dtype, f.shape);
          }
          default: return kb_.rawOp(OpKind::ArithBitcast, {x}, DType::Int32, x.shape);
        }
      }
      case NodeOp::Assert:
        // Always true, so it passes everywhere (a failing assert is a trap, not a value to compare).
        kb_.deviceAssert(n.variant % 2 ? kb_.ge(indices_[1], Literal(0)) : kb_.ge(pid_, Literal(0)), "fuzz: always true");
        return Tensor{};
      case NodeOp::Barrier:
        kb_.debugBarrier();
        return Tensor{};
      case NodeOp::NumPrograms: return kb_.numPrograms(0);
      case NodeOp::Unsplat: {
        if (!a.isBlock()) return Tensor{};
        Tensor x = a;
        if (x.rank() > 1) x = kb_.reshape(x, {blockNumel(x.shape)});
        if (x.shape[0] > 1) x = kb_.max(x, 0, /*keepDims=*/true);
        return kb_.rawOp(OpKind::TTUnsplat, {x}, x.dtype, {});
      }
      case NodeOp::BlockLoad: {
        // A tile of the plan's block shape from input k viewed as a row-major matrix (rows x cols, cols not always a
        // power of two) through a block pointer, every dim boundary-checked (so lanes outside are padding, never an
        // out-of-bounds access), sometimes advanced by one row/element first.
        const size_t k = n.b % inputs_.size();
        const DType dtype = plan_.inputs[k].dtype;
        if (dtype == DType::Int1) return Tensor{};
        const int64_t length = inputLength(k);
        const std::vector<int64_t>& blockShape = plan_.block;
        std::vector<int64_t> shape, strides;
        std::vector<Tensor> offsets, advance;
        const long long shift = n.variant % 2;
        if (blockShape.size() == 1) {
          shape = {length};
          strides = {1};
          offsets = {kb_.add(kb_.mul(pid_, Literal(static_cast<long long>(blockShape[0]))), Literal(shift))};
        } else {
          const int64_t cols = blockShape[1] + n.variant % 3;
          const int64_t rows = length / cols;
          if (rows < 1) return Tensor{};
          shape = {rows, cols};
          strides = {cols, 1};
          offsets = {kb_.add(kb_.mul(pid_, Literal(static_cast<long long>(blockShape[0]))), Literal(shift)),
                     kb_.toTensor(Literal(static_cast<long long>(n.c % 2)))};
        }
        if (n.literalIndex % 2)
          for (size_t d = 0; d < blockShape.size(); ++d) advance.push_back(kb_.toTensor(Literal(d == 0 ? 1LL : 0LL)));
        const int padding = builder::isFloating(dtype) && n.variant % 4 >= 2 ? 2 : 1;
        return kb_.blockLoad(inputs_[k], shape, strides, offsets, blockShape, advance, padding);
      }
      case NodeOp::PointerRoundTrip: {
        // q = int_to_ptr(ptr_to_int(in_k) + s * bytes): in_k + s; then a masked load of q + offs (elements s..).
        const size_t k = n.b % inputs_.size();
        const DType dtype = plan_.inputs[k].dtype;
        const long long shift = n.variant % 3;
        const long long bytes = std::max(1, builder::primitiveBitWidth(dtype) / 8);
        Tensor address = kb_.add(kb_.pointerToInt(inputs_[k]), Literal(shift * bytes));
        Tensor q = kb_.intToPointer(address, dtype);
        Tensor offs = indices_[1];
        Tensor mask = kb_.lt(kb_.add(offs, Literal(shift)), Literal(static_cast<long long>(inputLength(k))));
        return kb_.load(kb_.add(q, offs), Operand(mask),
                        Operand(builder::isBool(dtype) ? Literal(false) : safeLiteral(n.literalIndex, builder::isFloating(dtype))));
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
  std::vector<AtomicBuffer> atomics_;
  size_t currentNode_ = 0;

 public:
  std::vector<uint8_t> madeValue_ = std::vector<uint8_t>(plan_.nodes.size(), 0);
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
    for (size_t k = 0; k < writer.atomics().size(); ++k) {
      DType dtype = writer.atomics()[k].dtype;
      built.arguments.push_back(LaunchArgument::buffer("atom" + std::to_string(k), builder::scalarKindOf(dtype),
                                                       randomBuffer(dtype, writer.atomics()[k].length, rng)));
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
    built.nodeMadeValue = writer.madeValue_;
    built.summary = describePlan(plan);
    return built;
  }
}


}  // namespace tilesim::fuzz

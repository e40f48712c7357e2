// The nodes of the swarm features (see KernelWriter.h, KernelGen.h's Feature bits): control flow and calls,
// atomics, tt.dot at tensor-core shapes, data-dependent and block-pointer loads, histogram, tile gather, fp8
// casts, library ops, asserts, unsplat and pointer round trips. Each keeps its program well defined: atomics on
// buffers of their own, indices masked into range, asserts that always hold.
#include <algorithm>

#include "fuzz/programs/KernelWriter.h"
#include "ir/Attribute.h"

namespace tilesim::fuzz::kernelgen {

// One step of the loop/branch bodies: a OP b in a's type.
Tensor KernelWriter::step(KernelBuilder& kb, int variant, const Tensor& x, const Tensor& y) {
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

std::pair<Tensor, Tensor> KernelWriter::controlFlowOperands(Tensor a, const std::optional<Tensor>& bTensor) {
  if (a.dtype == DType::Int1 || builder::isFp8(a.dtype)) a = kb_.cast(a, a.dtype == DType::Int1 ? DType::Int32 : DType::Fp32);
  Tensor b = sameTypeAs(a, bTensor ? *bTensor : a);
  return {a, b};
}

// A runtime trip count of 0..4 (pid % 3 + 0..2) with step 1 or 2.
Tensor KernelWriter::forLoopNode(const Node& n, const std::pair<Tensor, Tensor>& operands) {
  const Tensor &a = operands.first, &b = operands.second;
  Tensor upper = kb_.add(kb_.mod(pid_, Literal(3LL)), Literal(static_cast<long long>(n.variant % 3)));
  std::vector<Tensor> out = kb_.forLoop(Literal(0LL), upper, Literal(static_cast<long long>(1 + n.literalIndex % 2)), {a},
      [&](KernelBuilder& kb, const Tensor& iv, const std::vector<Tensor>& carried) {
        Tensor addend = n.variant % 5 == 4 ? kb.cast(iv, carried[0].dtype) : b;
        if (addend.shape != carried[0].shape) addend = kb.add(kb.zeros(carried[0].shape, carried[0].dtype), addend);
        return std::vector<Tensor>{step(kb, n.variant, carried[0], addend)};
      });
  return out.empty() ? Tensor{} : out[0];
}

// 1..3 iterations: while i < pid % 3 + 1.
Tensor KernelWriter::whileLoopNode(const Node& n, const std::pair<Tensor, Tensor>& operands) {
  const Tensor &a = operands.first, &b = operands.second;
  Tensor limit = kb_.add(kb_.mod(pid_, Literal(3LL)), Literal(1LL));
  std::vector<Tensor> out = kb_.whileLoop({a, kb_.toTensor(Literal(0LL))},
      [&](KernelBuilder& kb, const std::vector<Tensor>& c) { return kb.lt(c[1], limit); },
      [&](KernelBuilder& kb, const std::vector<Tensor>& c) {
        return std::vector<Tensor>{step(kb, n.variant, c[0], b), kb.add(c[1], Literal(1LL))};
      });
  return out.empty() ? Tensor{} : out[0];
}

Tensor KernelWriter::ifElseNode(const Node& n, const std::pair<Tensor, Tensor>& operands) {
  const Tensor &a = operands.first, &b = operands.second;
  Tensor condition = !a.isBlock() && n.variant % 3 == 2 ? kb_.ne(toInt(a), Literal(0LL))
                                                        : kb_.eq(kb_.mod(pid_, Literal(2LL)), Literal(static_cast<long long>(n.variant % 2)));
  std::vector<Tensor> out = kb_.ifThenElse(condition,
      [&](KernelBuilder& kb) { return std::vector<Tensor>{step(kb, n.variant, a, b)}; },
      [&](KernelBuilder& kb) { return std::vector<Tensor>{step(kb, n.variant + 1, a, b)}; });
  return out.empty() ? Tensor{} : out[0];
}

// A private helper per node (its own argument types), called once or twice.
Tensor KernelWriter::callNode(const Node& n, const std::pair<Tensor, Tensor>& operands) {
  const Tensor &a = operands.first, &b = operands.second;
  const std::string name = "fuzz_helper_" + std::to_string(currentNode_);
  auto body = [&](KernelBuilder& kb, const std::vector<Tensor>& p) { return std::vector<Tensor>{step(kb, n.variant, p[0], p[1])}; };
  std::vector<Tensor> out = kb_.call(name, {a, b}, body);
  if (!out.empty() && n.variant % 2) out = kb_.call(name, {out[0], b}, body);
  return out.empty() ? Tensor{} : out[0];
}

// Atomics on a buffer of their own. AtomicOwn: each lane its own element (pid * numel + index), so the old
// values returned are the buffer's initial contents and usable; AtomicShared: integer add/max/min/and/or/xor of
// every lane of every program into element 0 or 1, whose final value does not depend on the order; the old
// values depend on it and are not used.
Tensor KernelWriter::atomicNode(const Node& n, const Tensor& a) {
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
Tensor KernelWriter::dotNode(const Node& n, const Tensor& a) {
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

// A data-dependent load: index = int(a) & (2^k - 1), masked to the buffer, from any program's part.
Tensor KernelWriter::gatherNode(const Node& n, const Tensor& a) {
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

Tensor KernelWriter::histogramNode(const Node& n, const Tensor& a) {
  if (a.rank() != 1) return Tensor{};
  // Values outside [0, bins) are unspecified: Triton 3.6's lowering (HistogramOpToLLVM.cpp) counts a value by
  // its low log2(bins) bits (so it wraps), tilesim drops it; docs/findings.md T6. Keep every value in range.
  const int64_t bins = int64_t{1} << (1 + n.variant % 6);
  Tensor x = kb_.and_(a.dtype == DType::Int32 ? a : kb_.cast(toInt(a), DType::Int32), static_cast<int>(bins - 1));
  return kb_.rawOp(OpKind::TTHistogram, {x}, DType::Int32, {bins});
}

Tensor KernelWriter::tileGatherNode(const Node& n, const Tensor& a, const std::optional<Tensor>& bTensor) {
  if (!a.isBlock()) return Tensor{};
  const int axis = n.axis % a.rank();
  Tensor source = bTensor && bTensor->shape == a.shape ? *bTensor : a;
  Tensor index = kb_.and_(kb_.cast(toInt(source), DType::Int32), static_cast<int>(a.shape[axis] - 1));
  return kb_.rawOp(OpKind::TTGather, {a, index}, a.dtype, a.shape, {{"axis", Attribute::integer(axis, Type::i32())}});
}

Tensor KernelWriter::fp8Node(const Node& n, const Tensor& a) {
  Tensor x = isFloat(a) ? a : kb_.cast(a, DType::Fp32);
  if (builder::isFp8(x.dtype)) return kb_.cast(x, DType::Fp32);
  Tensor f8 = kb_.cast(x, n.variant % 2 ? DType::Fp8E4Nv : DType::Fp8E5);
  return n.variant % 3 == 0 ? f8 : kb_.cast(f8, n.variant % 4 == 1 ? DType::Fp16 : DType::Fp32);
}

Tensor KernelWriter::libraryNode(const Node& n, const Tensor& a, const std::optional<Tensor>& bTensor) {
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

// Always true, so it passes everywhere (a failing assert is a trap, not a value to compare).
Tensor KernelWriter::assertNode(const Node& n) {
  kb_.deviceAssert(n.variant % 2 ? kb_.ge(indices_[1], Literal(0)) : kb_.ge(pid_, Literal(0)), "fuzz: always true");
  return Tensor{};
}

Tensor KernelWriter::unsplatNode(const Tensor& a) {
  if (!a.isBlock()) return Tensor{};
  Tensor x = a;
  if (x.rank() > 1) x = kb_.reshape(x, {blockNumel(x.shape)});
  if (x.shape[0] > 1) x = kb_.max(x, 0, /*keepDims=*/true);
  return kb_.rawOp(OpKind::TTUnsplat, {x}, x.dtype, {});
}

// A tile of the plan's block shape from input k viewed as a row-major matrix (rows x cols, cols not always a
// power of two) through a block pointer, every dim boundary-checked (so lanes outside are padding, never an
// out-of-bounds access), sometimes advanced by one row/element first.
Tensor KernelWriter::blockLoadNode(const Node& n) {
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

// q = int_to_ptr(ptr_to_int(in_k) + s * bytes): in_k + s; then a masked load of q + offs (elements s..).
Tensor KernelWriter::pointerRoundTripNode(const Node& n) {
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

}  // namespace tilesim::fuzz::kernelgen

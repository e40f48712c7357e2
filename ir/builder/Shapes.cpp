// Shape functions of triton.language: expand_dims, broadcast_to, reshape, trans, join, split.
#include "ir/builder/KernelBuilder.h"
#include "ir/builder/Semantic.h"

namespace tilesim::builder {

Tensor KernelBuilder::expandDims(const Tensor& x, int axis) {
  return guarded([&] {
    int rank = x.rank() + 1;
    int wrapped = axis < 0 ? axis + rank : axis;
    if (wrapped < 0 || wrapped >= rank)
      throwFrontendError(FrontendError::Kind::ValueError, "invalid axis " + std::to_string(axis) + ". Expected 0 <= axis < " + std::to_string(rank));
    if (!x.isBlock()) return emitter_->splat(x, {1});
    return emitter_->expandDims(x, wrapped);
  });
}

Tensor KernelBuilder::broadcastTo(const Tensor& x, std::vector<int64_t> shape) {
  return guarded([&] {
    if (!x.isBlock()) return emitter_->splat(x, shape);
    if (x.rank() != static_cast<int>(shape.size()))
      throwFrontendError(FrontendError::Kind::ValueError, "Cannot broadcast, rank mismatch: " + std::to_string(x.rank()) + ", " + std::to_string(shape.size()));
    for (size_t i = 0; i < shape.size(); ++i)
      if (x.shape[i] != shape[i] && x.shape[i] != 1)
        throwFrontendError(FrontendError::Kind::ValueError, "Cannot broadcast, the expanded size of the tensor (" + std::to_string(shape[i]) +
                                                                ") must match the existing size (" + std::to_string(x.shape[i]) +
                                                                ") at non-singleton dimension " + std::to_string(i));
    return emitter_->broadcast(x, shape);
  });
}

Tensor KernelBuilder::reshape(const Tensor& x, std::vector<int64_t> shape, bool canReorder) {
  return guarded([&] {
    checkBlockShape(shape);
    int64_t numel = 1;
    for (int64_t size : shape) numel *= size;
    if (numel != x.numel()) throwFrontendError(FrontendError::Kind::ValueError, "reshape() cannot change total number of elements in tensor");
    std::vector<NamedAttribute> attributes;
    if (canReorder) attributes.push_back({"allow_reorder", Attribute::unit()});
    Value* result = emitter_->createValue(OpKind::TTReshape, {x.value}, Emitter::typeOf(x.dtype, x.pointer, shape), attributes);
    return Emitter::tensorOf(result, x.dtype, x.pointer, shape);
  });
}

Tensor KernelBuilder::trans(const Tensor& x, std::vector<int32_t> order) {
  return guarded([&] {
    if (order.empty()) {
      if (x.rank() < 2) throwFrontendError(FrontendError::Kind::ValueError, "tl.trans invoked with a 0- or 1-dimensional tensor");
      for (int i = 0; i < x.rank(); ++i) order.push_back(i);
      std::swap(order[order.size() - 1], order[order.size() - 2]);
    }
    if (static_cast<int>(order.size()) != x.rank())
      throwFrontendError(FrontendError::Kind::ValueError, "permute dims must have the same length as input shape");
    std::vector<int64_t> shape;
    for (int32_t dim : order) shape.push_back(x.shape[dim]);
    Value* result = emitter_->createValue(OpKind::TTTrans, {x.value}, Emitter::typeOf(x.dtype, x.pointer, shape),
                                          {{"order", Attribute::denseArray(Type::i32(), std::vector<int64_t>(order.begin(), order.end()))}});
    return Emitter::tensorOf(result, x.dtype, x.pointer, shape);
  });
}

Tensor KernelBuilder::cat(const Tensor& a, const Tensor& b, bool canReorder) {
  return guarded([&] {
    // semantic.cat: two bare asserts, then a 1-D result of both lengths. tt.cat also needs one operand type.
    if (!canReorder)
      throwFrontendError(FrontendError::Kind::AssertionError, "current implementation of `cat` always may reorder elements");
    if (a.rank() != 1) throwFrontendError(FrontendError::Kind::AssertionError, "");
    if (a.value->type != b.value->type)
      throwFrontendError(FrontendError::Kind::TypeError, "tt.cat needs operands of one type, got " + a.value->type.str() +
                                                             " and " + b.value->type.str());
    Value* result = emitter_->createValue(OpKind::TTCat, {a.value, b.value},
                                          Emitter::typeOf(a.dtype, a.pointer, {a.shape[0] + b.shape[0]}));
    return Emitter::tensorOf(result, a.dtype, a.pointer, {a.shape[0] + b.shape[0]});
  });
}

Tensor KernelBuilder::join(const Operand& a, const Operand& b) {
  return guarded([&] {
    Tensor lhs = semantic::toTensor(*emitter_, a), rhs = semantic::toTensor(*emitter_, b);
    if (lhs.dtype != rhs.dtype || lhs.pointer != rhs.pointer)
      throwFrontendError(FrontendError::Kind::ValueError, "join() requires both tensors to have the same dtype");
    std::tie(lhs, rhs) = emitter_->broadcastPair(lhs, rhs);
    if (!lhs.isBlock()) {
      lhs = emitter_->splat(lhs, {1});
      rhs = emitter_->splat(rhs, {1});
      std::vector<int64_t> shape{2};
      Value* joined = emitter_->createValue(OpKind::TTJoin, {lhs.value, rhs.value}, Emitter::typeOf(lhs.dtype, lhs.pointer, {1, 2}));
      Value* result = emitter_->createValue(OpKind::TTReshape, {joined}, Emitter::typeOf(lhs.dtype, lhs.pointer, shape));
      return Emitter::tensorOf(result, lhs.dtype, lhs.pointer, shape);
    }
    std::vector<int64_t> shape = lhs.shape;
    shape.push_back(2);
    Value* result = emitter_->createValue(OpKind::TTJoin, {lhs.value, rhs.value}, Emitter::typeOf(lhs.dtype, lhs.pointer, shape));
    return Emitter::tensorOf(result, lhs.dtype, lhs.pointer, shape);
  });
}

std::pair<Tensor, Tensor> KernelBuilder::split(const Tensor& x) {
  return guarded([&] {
    if (!x.isBlock() || x.shape.back() != 2)
      throwFrontendError(FrontendError::Kind::ValueError, "split() requires the last dimension to be 2");
    // A 1-D split is written the way Triton 3.6's frontend writes it: expand_dims to tensor<1x2xT>, split to
    // tensor<1xT>, tt.unsplat to scalars. tt.split itself has tensor results (Triton's parser rejects
    // `tt.split %x : tensor<2xT> -> T`; docs/findings.md, F3).
    if (x.rank() == 1) {
      Tensor wide = emitter_->expandDims(x, 0);
      Type half = Emitter::typeOf(x.dtype, x.pointer, {1});
      Operation* op = emitter_->create(OpKind::TTSplit, {wide.value}, {half, half});
      Type scalar = Emitter::typeOf(x.dtype, x.pointer, {});
      Value* lhs = emitter_->createValue(OpKind::TTUnsplat, {op->result(0)}, scalar);
      Value* rhs = emitter_->createValue(OpKind::TTUnsplat, {op->result(1)}, scalar);
      return std::make_pair(Emitter::tensorOf(lhs, x.dtype, x.pointer, {}), Emitter::tensorOf(rhs, x.dtype, x.pointer, {}));
    }
    std::vector<int64_t> shape(x.shape.begin(), x.shape.end() - 1);
    Type type = Emitter::typeOf(x.dtype, x.pointer, shape);
    Operation* op = emitter_->create(OpKind::TTSplit, {x.value}, {type, type});
    return std::make_pair(Emitter::tensorOf(op->result(0), x.dtype, x.pointer, shape),
                          Emitter::tensorOf(op->result(1), x.dtype, x.pointer, shape));
  });
}

}  // namespace tilesim::builder

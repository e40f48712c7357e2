// Verifier checks for tt ops on pointers and memory (invariants T4, T5) and the numeric tt ops (T6 and the
// elementwise tt casts) in Verifier.cpp.
#include <algorithm>

#include "ir/verify/VerifyContext.h"

namespace tilesim::verify {
namespace {

// The mask (i1 of the pointer's shape) at operand `index`, if present.
bool verifyMask(VerifyContext& ctx, const Operation& op, size_t index, Type pointer) {
  if (op.numOperands() <= index) return true;
  Type mask = op.operand(index)->type;
  if (!isI1(mask) || !sameShape(mask, pointer))
    return ctx.fail(op, "mask has type " + typeName(mask) + ", expected " + typeName(pointer.withElement(Type::i1())));
  return true;
}

// The pointer operand of a load/store/atomic: a pointer or tensor of pointers to scalars (block pointers
// only where `allowBlock`). Returns the type it gives access to.
std::optional<Type> accessedType(VerifyContext& ctx, const Operation& op, bool allowBlock) {
  Type pointer = op.operand(0)->type;
  std::optional<Type> accessed = loadedType(pointer);
  if (!accessed || (!allowBlock && pointer.isBlockPointer())) {
    ctx.fail(op, "operand #0 has type " + typeName(pointer) + ", expected a pointer or a tensor of pointers");
    return std::nullopt;
  }
  return accessed;
}

bool verifyLoadStore(VerifyContext& ctx, const Operation& op) {
  Type pointer = op.operand(0)->type;
  std::optional<Type> accessed = accessedType(ctx, op, true);
  if (!accessed) return false;
  bool load = op.kind == OpKind::TTLoad;
  size_t maskIndex = load ? 1 : 2;
  if (pointer.isBlockPointer() && op.numOperands() > maskIndex)
    return ctx.fail(op, "a block pointer takes no mask or other (use boundaryCheck)");
  Type value = load ? op.result()->type : op.operand(1)->type;
  if (value != *accessed)
    return ctx.fail(op, std::string(load ? "result" : "value") + " has type " + typeName(value) + ", expected " + typeName(*accessed));
  if (!verifyMask(ctx, op, maskIndex, pointer)) return false;
  if (load && op.numOperands() == 3 && op.operand(2)->type != *accessed)
    return ctx.fail(op, "other has type " + typeName(op.operand(2)->type) + ", expected " + typeName(*accessed));
  return true;
}

bool verifyAtomic(VerifyContext& ctx, const Operation& op) {
  Type pointer = op.operand(0)->type;
  std::optional<Type> accessed = accessedType(ctx, op, false);
  if (!accessed) return false;
  size_t values = op.kind == OpKind::TTAtomicCAS ? 3 : 2;
  for (size_t i = 1; i < values; ++i)
    if (op.operand(i)->type != *accessed)
      return ctx.fail(op, "operand #" + std::to_string(i) + " has type " + typeName(op.operand(i)->type) + ", expected " + typeName(*accessed));
  if (op.result()->type != *accessed)
    return ctx.fail(op, "result has type " + typeName(op.result()->type) + ", expected " + typeName(*accessed));
  return op.kind == OpKind::TTAtomicCAS || verifyMask(ctx, op, 2, pointer);
}

bool verifyBlockPointerOp(VerifyContext& ctx, const Operation& op) {
  Type result = op.result()->type;
  if (!result.isBlockPointer()) return ctx.fail(op, "result " + typeName(result) + " is not a block pointer");
  size_t rank = static_cast<size_t>(result.pointee().rank());
  if (op.kind == OpKind::TTAdvance) {
    if (op.operand(0)->type != result) return ctx.fail(op, "operand " + typeName(op.operand(0)->type) + " differs from the result " + typeName(result));
    if (op.numOperands() != 1 + rank) return ctx.fail(op, "has " + std::to_string(op.numOperands() - 1) + " offsets for a rank-" + std::to_string(rank) + " block");
    for (size_t i = 1; i < op.numOperands(); ++i)
      if (op.operand(i)->type != Type::i32()) return ctx.fail(op, "offset #" + std::to_string(i - 1) + " has type " + typeName(op.operand(i)->type) + ", expected i32");
    return true;
  }
  Type base = op.operand(0)->type;
  if (!base.isPointer() || base.pointee() != result.pointee().element())
    return ctx.fail(op, "base " + typeName(base) + " does not point to the block's element type " + typeName(result.pointee().element()));
  if (op.numOperands() != 1 + 3 * rank)
    return ctx.fail(op, "has " + std::to_string(op.numOperands() - 1) + " shape/stride/offset operands, expected " + std::to_string(3 * rank));
  for (size_t i = 1; i < op.numOperands(); ++i) {
    Type expected = i <= 2 * rank ? Type::i64() : Type::i32();
    if (op.operand(i)->type != expected)
      return ctx.fail(op, "operand #" + std::to_string(i) + " has type " + typeName(op.operand(i)->type) + ", expected " + typeName(expected));
  }
  return true;
}

bool verifyDot(VerifyContext& ctx, const Operation& op) {
  Type a = op.operand(0)->type, b = op.operand(1)->type, c = op.operand(2)->type, d = op.result()->type;
  std::string types = typeName(a) + " * " + typeName(b) + " + " + typeName(c);
  if (!a.isTensor() || (a.rank() != 2 && a.rank() != 3) || b.rank() != a.rank() || c.rank() != a.rank())
    return ctx.fail(op, "operands must be tensors of rank 2 or 3, got " + types);
  size_t batch = static_cast<size_t>(a.rank()) - 2;
  auto as = a.shape(), bs = b.shape(), cs = c.shape();
  if (as[batch + 1] != bs[batch] || cs[batch] != as[batch] || cs[batch + 1] != bs[batch + 1] ||
      (batch == 1 && (as[0] != bs[0] || as[0] != cs[0])))
    return ctx.fail(op, "shapes do not form [M,K] x [K,N] + [M,N]: " + types);
  if (d != c) return ctx.fail(op, "result " + typeName(d) + " differs from the accumulator " + typeName(c));
  if (a.isInteger() != b.isInteger() || (!a.isInteger() && !a.isFloat()) || (!b.isInteger() && !b.isFloat()))
    return ctx.fail(op, "inputs must be both integer or both floating-point: " + types);
  if (a.isInteger() != c.isInteger()) return ctx.fail(op, "accumulator " + typeName(c) + " does not match the inputs' kind: " + types);
  return true;
}

bool verifyElementwiseTT(VerifyContext& ctx, const Operation& op) {
  Type in = op.numOperands() > 0 ? op.operand(0)->type : Type();
  Type out = op.numResults() > 0 ? op.result()->type : Type();
  std::string fromTo = typeName(in) + " to " + typeName(out);
  if (op.kind == OpKind::TTFpToFp) {
    if (!sameShape(in, out) || !in.isFloat() || !out.isFloat()) return ctx.fail(op, "must convert floats of one shape, got " + fromTo);
    return true;
  }
  if (op.kind == OpKind::TTBitcast) {
    if (!sameShape(in, out) || in.bitWidth() != out.bitWidth()) return ctx.fail(op, "must keep the shape and bit width, got " + fromTo);
    return true;
  }
  if (op.kind == OpKind::TTClampF) {
    for (size_t i = 0; i < 3; ++i)
        if (op.operand(i)->type != out) return ctx.fail(op, "operand types " + typeList(typesOf(op.operands)) + " and result " + typeName(out) + " differ");
    if (!out.isFloat()) return ctx.fail(op, "expects floating-point operands, got " + typeName(out));
    return true;
  }
  // extern_elementwise, elementwise_inline_asm: any element types, one shape
  for (const Value* operand : op.operands)
    if (operand->type.isTensor() && out.isValid() && !sameShape(operand->type, out))
      return ctx.fail(op, "operand " + typeName(operand->type) + " does not have the result's shape " + typeName(out));
  return true;
}

// T9: the block a descriptor access moves: the block shape, or that shape without its leading 1s; its element is
// the block's, signless (a descriptor of si32 moves i32).
bool matchesBlock(Type value, Type block) {
  if (!value.isTensor() || value.element() != block.element().signless()) return false;
  std::span<const int64_t> shape = block.shape(), got = value.shape();
  while (shape.size() > got.size() && shape.front() == 1) shape = shape.subspan(1);
  return std::equal(shape.begin(), shape.end(), got.begin(), got.end());
}

bool verifyDescriptorOp(VerifyContext& ctx, const Operation& op) {
  if (op.kind == OpKind::TTMakeTensorDescriptor) {
    Type result = op.result()->type;
    if (!result.isTensorDesc()) return ctx.fail(op, "result " + typeName(result) + " is not a tensor descriptor");
    Type block = result.descBlock();
    const size_t rank = static_cast<size_t>(block.rank());
    if (rank < 1 || rank > 5) return ctx.fail(op, "a tensor descriptor has rank 1 to 5, not " + std::to_string(rank));
    if (op.numOperands() != 1 + 2 * rank)
      return ctx.fail(op, "needs a base, " + std::to_string(rank) + " shape and " + std::to_string(rank) +
                              " stride operands for block " + typeName(block));
    Type base = op.operand(0)->type;
    if (!base.isPointer() || base.pointee() != block.element().signless())
      return ctx.fail(op, "base " + typeName(base) + " must be a pointer to the block's element type " + typeName(block.element().signless()));
    for (size_t d = 0; d < rank; ++d) {
      if (op.operand(1 + d)->type != Type::i32())
        return ctx.fail(op, "shape operand " + std::to_string(d) + " has type " + typeName(op.operand(1 + d)->type) + ", expected i32");
      if (op.operand(1 + rank + d)->type != Type::i64())
        return ctx.fail(op, "stride operand " + std::to_string(d) + " has type " + typeName(op.operand(1 + rank + d)->type) + ", expected i64");
    }
    const int64_t padding = op.intAttr("padding", 1);
    if (padding != 1 && padding != 2) return ctx.fail(op, "padding is 1 (zero) or 2 (NaN), not " + std::to_string(padding));
    return true;
  }
  Type desc = op.operand(0)->type;
  if (!desc.isTensorDesc()) return ctx.fail(op, "operand #0 has type " + typeName(desc) + ", expected a tensor descriptor");
  Type block = desc.descBlock().signless();  // compared with signless values: si32 moves i32
  const bool stores = op.kind == OpKind::TTDescriptorStore || op.kind == OpKind::TTDescriptorScatter;
  Type value = stores ? op.operand(op.numOperands() - 1)->type : op.result()->type;
  const char* what = stores ? "value" : "result";
  if (op.kind == OpKind::TTDescriptorGather || op.kind == OpKind::TTDescriptorScatter) {
    if (block.rank() != 2 || block.shape()[0] != 1)
      return ctx.fail(op, "gather and scatter need a descriptor of a [1, W] block, not " + typeName(block));
    Type rows = op.operand(1)->type;
    if (!rows.isTensor() || rows.rank() != 1 || rows.element() != Type::i32())
      return ctx.fail(op, "x offsets " + typeName(rows) + " must be a 1-D tensor of i32");
    if (op.operand(2)->type != Type::i32()) return ctx.fail(op, "y offset " + typeName(op.operand(2)->type) + " must be i32");
    const int64_t want[2] = {rows.shape()[0], block.shape()[1]};
    if (!value.isTensor() || value.element() != block.element() || value.rank() != 2 || value.shape()[0] != want[0] ||
        value.shape()[1] != want[1])
      return ctx.fail(op, std::string(what) + " " + typeName(value) + " must be " +
                              typeName(Type::tensor(std::span<const int64_t>(want, 2), block.element())));
    return true;
  }
  const size_t indices = op.numOperands() - (stores ? 2 : 1);
  if (indices != static_cast<size_t>(block.rank()))
    return ctx.fail(op, "takes " + std::to_string(block.rank()) + " indices for " + typeName(desc) + ", got " + std::to_string(indices));
  for (size_t d = 0; d < indices; ++d)
    if (op.operand(1 + d)->type != Type::i32())
      return ctx.fail(op, "index " + std::to_string(d) + " has type " + typeName(op.operand(1 + d)->type) + ", expected i32");
  if (!matchesBlock(value, block))
    return ctx.fail(op, std::string(what) + " " + typeName(value) + " does not match the descriptor's block " + typeName(block));
  return true;
}

}  // namespace

bool verifyMemoryOp(VerifyContext& ctx, const Operation& op) {
  if (op.kind == OpKind::TTMakeTensorDescriptor || op.kind == OpKind::TTDescriptorLoad ||
      op.kind == OpKind::TTDescriptorStore || op.kind == OpKind::TTDescriptorGather ||
      op.kind == OpKind::TTDescriptorScatter)
    return verifyDescriptorOp(ctx, op);
  if (op.kind == OpKind::TTLoad || op.kind == OpKind::TTStore) return verifyLoadStore(ctx, op);
  if (op.kind == OpKind::TTAtomicRMW || op.kind == OpKind::TTAtomicCAS) return verifyAtomic(ctx, op);
  if (op.kind == OpKind::TTMakeTensorPtr || op.kind == OpKind::TTAdvance) return verifyBlockPointerOp(ctx, op);
  if (op.kind == OpKind::TTIntToPtr || op.kind == OpKind::TTPtrToInt) {
    Type in = op.operand(0)->type, out = op.result()->type;
    bool toPointer = op.kind == OpKind::TTIntToPtr;
    Type integer = toPointer ? in : out, pointer = toPointer ? out : in;
    if (!sameShape(in, out) || integer.element() != Type::i64() || !pointer.element().isPointer())
      return ctx.fail(op, "must convert between i64 and pointers of one shape, got " + typeName(in) + " to " + typeName(out));
    return true;
  }
  // tt.addptr
  Type pointer = op.operand(0)->type, offset = op.operand(1)->type;
  if (!pointer.isPointerLike() || pointer.element().pointee().isTensor())
    return ctx.fail(op, "operand #0 has type " + typeName(pointer) + ", expected a pointer or a tensor of pointers");
  if (!offset.isInteger() || !sameShape(pointer, offset))
    return ctx.fail(op, "offset " + typeName(offset) + " must be integers of the pointer's shape " + typeName(pointer));
  if (op.result()->type != pointer) return ctx.fail(op, "result " + typeName(op.result()->type) + " differs from the pointer type " + typeName(pointer));
  return true;
}

bool verifyNumericOp(VerifyContext& ctx, const Operation& op) {
  if (op.kind == OpKind::TTDot) return verifyDot(ctx, op);
  return verifyElementwiseTT(ctx, op);
}

}  // namespace tilesim::verify

// The builder's low-level half: creates ops in the current block with valid result types and SSA names, and
// implements the shape and conversion machinery every triton.language function relies on (constants,
// splat/expand_dims/broadcast, broadcast_impl_value, cast). The typing rules that choose *which* op to emit
// live in Semantic.h; the public API with its error boundary is KernelBuilder.h.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/builder/DType.h"
#include "ir/builder/Tensor.h"

namespace tilesim::builder {

class Emitter {
 public:
  explicit Emitter(const std::string& kernelName);

  Module& module() { return *module_; }
  Operation& function() { return *function_; }
  std::unique_ptr<Module> takeModule();
  Block& block() { return *blocks_.back(); }
  void pushBlock(Block* block) { blocks_.push_back(block); }
  void popBlock() { blocks_.pop_back(); }
  void setNameHint(std::string hint) { nameHint_ = std::move(hint); }
  const std::string& nameHint() const { return nameHint_; }

  Value* addArgument(Type type, const std::string& name, std::vector<NamedAttribute> attributes);
  void finishSignature();  // writes function_type and arg_attrs
  // Appends an op to the current block; results get the current name hint.
  Operation* create(OpKind kind, std::vector<Value*> operands, std::vector<Type> resultTypes,
                    std::vector<NamedAttribute> attributes = {});
  Value* createValue(OpKind kind, std::vector<Value*> operands, Type resultType,
                     std::vector<NamedAttribute> attributes = {}) {
    return create(kind, std::move(operands), {resultType}, std::move(attributes))->result(0);
  }
  void nameValue(Value* value);
  void nameValue(Value* value, const std::string& hint);  // names after `hint` (unique), not the current hint

  static Type typeOf(DType dtype, bool pointer, const std::vector<int64_t>& shape);
  static Tensor tensorOf(Value* value, DType dtype, bool pointer, std::vector<int64_t> shape) {
    return Tensor{value, dtype, pointer, std::move(shape)};
  }

  // A constant of `dtype` (the literal converted: floats rounded to the format, ints wrapped), 0-d or splat.
  Tensor constant(const Literal& value, DType dtype, const std::vector<int64_t>& shape = {});
  Tensor splat(const Tensor& scalar, const std::vector<int64_t>& shape);
  Tensor expandDims(const Tensor& x, int axis);
  Tensor broadcast(const Tensor& x, const std::vector<int64_t>& shape);
  // broadcast_impl_value: splat a scalar against a block; prepend size-1 dims; tt.broadcast size-1 dims.
  std::pair<Tensor, Tensor> broadcastPair(const Tensor& a, const Tensor& b);
  // semantic.cast (Cast.cpp): no-op for equal dtypes; the op sequence Triton 3.6 emits otherwise.
  Tensor cast(const Tensor& x, DType to, std::optional<std::string> fpDowncastRounding = std::nullopt);
  Tensor bitcast(const Tensor& x, DType to);
  // Drops arith.constant ops whose results are never used (Triton's canonicalizer does the same).
  void removeDeadConstants();

 private:
  std::unique_ptr<Module> module_;
  Operation* function_ = nullptr;
  std::vector<Block*> blocks_;
  std::string nameHint_;
  std::set<std::string> usedNames_;
  int nameCounter_ = 0;
};

// Checks Triton enforces when a block type is built: powers of 2 and at most 2^20 elements.
void checkBlockShape(const std::vector<int64_t>& shape);

}  // namespace tilesim::builder

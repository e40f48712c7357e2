// A C++ front end in the spirit of triton.language: it builds a Module holding one public tt.func by Triton
// 3.6's typing rules (implicit casts, weak/strong literals, broadcasting, the op each dtype selects) and
// Triton's compile errors. Usage:
//   KernelBuilder kb("add_kernel");
//   Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
//   Tensor offs = kb.add(kb.mul(kb.programId(0), 1024), kb.arange(0, 1024));
//   kb.store(kb.add(x, offs), kb.add(kb.load(kb.add(x, offs)), 1.0));
//   BuildResult result = kb.finish();
// Errors are values: the first failing call records a FrontendError (Triton's exception kind and message);
// later calls do nothing and return an invalid Tensor; finish() returns the error instead of a module.
// Each call's values are named after the current name hint (setNameHint), as Triton names values after the
// Python variable they are assigned to. Splats of constants are emitted as dense constants (what Triton's
// canonicalizer leaves), and unused constants are dropped by finish().
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/OpAttributes.h"
#include "ir/IR.h"
#include "ir/builder/DType.h"
#include "ir/builder/Emitter.h"
#include "ir/builder/Promotion.h"
#include "ir/builder/Tensor.h"

namespace tilesim::builder {

struct BuildResult {
  std::unique_ptr<Module> module;      // null when error is set
  std::optional<FrontendError> error;
};

using ::tilesim::PropagateNan;  // ir/OpAttributes.h
enum class AtomicOp : uint8_t { Add, Max, Min, And, Or, Xor, Xchg };

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string kernelName);
  ~KernelBuilder();

  // ---- signature ----
  Tensor pointerArg(const std::string& name, DType pointee, bool divisibleBy16 = true);
  // A pointer parameter with `tt.divisibility = divisibility` (a power of two; 0 or 1: no claim). Triton itself
  // only claims 16; smaller honest claims describe views that start mid-buffer (the fuzzer's offset views).
  Tensor pointerArgWithDivisibility(const std::string& name, DType pointee, int divisibility);
  Tensor scalarArg(const std::string& name, DType dtype);

  // ---- naming and errors ----
  void setNameHint(std::string hint);
  const std::optional<FrontendError>& error() const { return error_; }
  bool failed() const { return error_.has_value(); }

  // ---- programs, ranges, constants ----
  Tensor programId(int axis);
  Tensor numPrograms(int axis);
  Tensor arange(int64_t start, int64_t end);
  Tensor full(std::vector<int64_t> shape, const Literal& value, DType dtype);
  Tensor zeros(std::vector<int64_t> shape, DType dtype) { return full(std::move(shape), Literal(0), dtype); }
  Tensor toTensor(const Operand& operand);  // a literal becomes a strong 0-d constant

  // ---- memory ----
  Tensor load(const Tensor& pointer, std::optional<Operand> mask = std::nullopt, std::optional<Operand> other = std::nullopt);
  void store(const Tensor& pointer, const Operand& value, std::optional<Operand> mask = std::nullopt);
  Tensor atomic(AtomicOp op, const Tensor& pointer, const Operand& value, std::optional<Operand> mask = std::nullopt);
  Tensor atomicAdd(const Tensor& p, const Operand& v, std::optional<Operand> m = std::nullopt) { return atomic(AtomicOp::Add, p, v, m); }
  Tensor atomicMax(const Tensor& p, const Operand& v, std::optional<Operand> m = std::nullopt) { return atomic(AtomicOp::Max, p, v, m); }
  Tensor atomicMin(const Tensor& p, const Operand& v, std::optional<Operand> m = std::nullopt) { return atomic(AtomicOp::Min, p, v, m); }
  Tensor atomicCas(const Tensor& pointer, const Operand& compare, const Operand& value);

  // ---- arithmetic (weak literals) ----
  Tensor add(const Operand& a, const Operand& b);
  Tensor sub(const Operand& a, const Operand& b);
  Tensor mul(const Operand& a, const Operand& b);
  Tensor truediv(const Operand& a, const Operand& b);
  Tensor floordiv(const Operand& a, const Operand& b);
  Tensor mod(const Operand& a, const Operand& b);
  Tensor and_(const Operand& a, const Operand& b);
  Tensor or_(const Operand& a, const Operand& b);
  Tensor xor_(const Operand& a, const Operand& b);
  Tensor shl(const Operand& a, const Operand& b);
  Tensor shr(const Operand& a, const Operand& b);
  Tensor neg(const Tensor& x);     // -x = 0 - x
  Tensor invert(const Tensor& x);  // ~x = x ^ all ones
  Tensor not_(const Tensor& x);    // `not x` (int1 only)
  Tensor where(const Operand& condition, const Operand& x, const Operand& y);

  // ---- comparisons, maximum/minimum (strong literals) ----
  Tensor lt(const Operand& a, const Operand& b);
  Tensor le(const Operand& a, const Operand& b);
  Tensor gt(const Operand& a, const Operand& b);
  Tensor ge(const Operand& a, const Operand& b);
  Tensor eq(const Operand& a, const Operand& b);
  Tensor ne(const Operand& a, const Operand& b);
  Tensor maximum(const Operand& a, const Operand& b, PropagateNan nan = PropagateNan::None);
  Tensor minimum(const Operand& a, const Operand& b, PropagateNan nan = PropagateNan::None);

  // ---- casts and math ----
  Tensor cast(const Tensor& x, DType to, bool bitcast = false, std::optional<std::string> fpDowncastRounding = std::nullopt);
  Tensor exp(const Tensor& x);
  Tensor exp2(const Tensor& x);
  Tensor log(const Tensor& x);
  Tensor log2(const Tensor& x);
  Tensor sin(const Tensor& x);
  Tensor cos(const Tensor& x);
  Tensor sqrt(const Tensor& x);
  Tensor rsqrt(const Tensor& x);
  Tensor floor(const Tensor& x);
  Tensor ceil(const Tensor& x);
  Tensor abs(const Tensor& x);
  // Strong literals (to_tensor first). clamp: floats only, min(max(x, lo), hi); umulhi: int32/int64/uint32/uint64,
  // the high half of the unsigned product.
  Tensor clamp(const Operand& x, const Operand& lo, const Operand& hi, PropagateNan nan = PropagateNan::None);
  Tensor fma(const Operand& x, const Operand& y, const Operand& z);
  Tensor umulhi(const Operand& x, const Operand& y);

  // ---- shapes ----
  Tensor expandDims(const Tensor& x, int axis);
  Tensor broadcastTo(const Tensor& x, std::vector<int64_t> shape);
  Tensor reshape(const Tensor& x, std::vector<int64_t> shape, bool canReorder = false);
  Tensor trans(const Tensor& x, std::vector<int32_t> order = {});
  Tensor permute(const Tensor& x, std::vector<int32_t> dims) { return trans(x, std::move(dims)); }
  // tl.cat: 1-D operands of one type; Triton requires canReorder = true (the element order is unspecified).
  Tensor cat(const Tensor& a, const Tensor& b, bool canReorder = false);
  Tensor join(const Operand& a, const Operand& b);
  std::pair<Tensor, Tensor> split(const Tensor& x);

  // ---- reductions, scans, dot ----
  // Combine: builds the combine region from the block's arguments (first the accumulators, then the new values).
  using Combine = std::function<std::vector<Tensor>(KernelBuilder&, const std::vector<Tensor>& lhs, const std::vector<Tensor>& rhs)>;
  std::vector<Tensor> reduce(const std::vector<Tensor>& inputs, int axis, const Combine& combine, bool keepDims = false);
  Tensor sum(const Tensor& x, int axis, bool keepDims = false);
  Tensor max(const Tensor& x, int axis, bool keepDims = false);
  Tensor min(const Tensor& x, int axis, bool keepDims = false);
  Tensor argmax(const Tensor& x, int axis, bool keepDims = false);
  Tensor argmin(const Tensor& x, int axis, bool keepDims = false);
  Tensor cumsum(const Tensor& x, int axis, bool reverse = false);
  Tensor dot(const Tensor& a, const Tensor& b, std::optional<Tensor> acc = std::nullopt,
             std::string inputPrecision = "tf32", DType outDType = DType::Fp32);

  // ---- structured control flow (ControlFlow.cpp) ----
  // `for i in range(lower, upper, step)` over runtime values: scf.for with iter_args. Bounds are int scalars or
  // literals (to_tensor); the induction variable is their integer_promote_impl type (int32, or int64 when any
  // bound is int64). `body` receives the induction variable and the loop-carried values and returns their next
  // values, whose types must equal the initial ones (Triton's AssertionError otherwise). A negative literal step
  // counts down as Triton does (the loop runs over the swapped range; iv = upper + lower - i). `names`: the
  // induction variable's name, then the carried variables' names (empty or short: "i", "arg<k>").
  // Returns the values after the loop.
  using LoopBody = std::function<std::vector<Tensor>(KernelBuilder&, const Tensor& iv, const std::vector<Tensor>& carried)>;
  std::vector<Tensor> forLoop(const Operand& lower, const Operand& upper, const Operand& step,
                              const std::vector<Tensor>& initialValues, const LoopBody& body,
                              const std::vector<std::string>& names = {});
  // `if condition:` on a runtime scalar: scf.if whose results are what both branches return (same count and
  // types, Triton's AssertionError otherwise). The condition is converted to int1 (`!= 0` for ints); a block
  // condition is an error. `names` name the results (as the variables assigned in both branches).
  using Branch = std::function<std::vector<Tensor>(KernelBuilder&)>;
  std::vector<Tensor> ifThenElse(const Operand& condition, const Branch& thenBody, const Branch& elseBody,
                                 const std::vector<std::string>& names = {});

  // `while cond(carried): carried = body(carried)` on runtime values: scf.while whose before region computes the
  // condition (an int1 scalar) from the carried values and forwards them unchanged, and whose after region runs
  // `body`, which must return values of the carried types (Triton's visit_While). Returns the values at exit.
  using WhileCondition = std::function<Tensor(KernelBuilder&, const std::vector<Tensor>& carried)>;
  using WhileBody = std::function<std::vector<Tensor>(KernelBuilder&, const std::vector<Tensor>& carried)>;
  std::vector<Tensor> whileLoop(const std::vector<Tensor>& initialValues, const WhileCondition& condition,
                                const WhileBody& body);
  // A call of a non-inlined @jit helper: a private tt.func `name` (made on the first call with these argument
  // types) whose body `body` builds from its parameters; returns tt.call's results (Triton's call_JitFunction).
  using FunctionBody = std::function<std::vector<Tensor>(KernelBuilder&, const std::vector<Tensor>& parameters)>;
  std::vector<Tensor> call(const std::string& name, const std::vector<Tensor>& arguments, const FunctionBody& body);
  // tl.make_block_ptr(base, shape, strides, offsets, block_shape, order) [+ tl.advance(p, advance)] + tl.load(p,
  // boundary_check=every dim, padding_option="zero" (padding 1) or "nan" (2)): a tile of `blockShape` from the
  // row-major view of `base` (shape and strides are i64 constants; offsets and advance are i32 scalars).
  Tensor blockLoad(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                   const std::vector<Tensor>& offsets, const std::vector<int64_t>& blockShape,
                   const std::vector<Tensor>& advance, int padding);
  // tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option) then desc.load(offsets) or
  // desc.store(offsets, value): shape as i32 and strides as i64 constants (the last stride 1), offsets i32
  // scalars; elements outside [0, shape) load the padding (1 zero, 2 NaN) and are not stored.
  Tensor descriptorLoad(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                        const std::vector<int64_t>& blockShape, const std::vector<Tensor>& offsets, int padding);
  void descriptorStore(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                       const std::vector<Tensor>& offsets, const Tensor& value);
  // tt.ptr_to_int / tt.int_to_ptr of scalars (what `ptr.to(tl.int64, bitcast=True)` and back lower to).
  Tensor pointerToInt(const Tensor& pointer);
  Tensor intToPointer(const Tensor& address, DType pointee);
  void deviceAssert(const Tensor& condition, const std::string& message);  // tl.device_assert
  void debugBarrier();                                                       // tl.debug_barrier: gpu.barrier
  // Escape hatch for the program fuzzer: one op of `kind` with these operands, attributes and result type, no
  // frontend typing rules (ops that only Triton's own passes make, like arith.negf, arith.bitcast, tt.unsplat, or
  // library calls: tt.precise_divf, tt.precise_sqrt, math.erf, tt.histogram, tt.gather). The caller is
  // responsible for the types; the verifier checks them.
  Tensor rawOp(OpKind kind, const std::vector<Tensor>& operands, DType dtype, std::vector<int64_t> shape,
               std::vector<NamedAttribute> attributes = {});

  void ret();
  BuildResult finish();

 private:
  // tt.make_tensor_descriptor of `base` (throws a FrontendException on bad arguments).
  Value* makeTensorDescriptor(const Tensor& base, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& blockShape, int padding);
  // The error boundary: skips the call after an error; records a FrontendException thrown inside.
  template <typename Fn>
  auto guarded(Fn&& fn) -> decltype(fn()) {
    using Result = decltype(fn());
    if (error_) return Result{};
    try {
      return fn();
    } catch (const FrontendException& exception) {
      error_ = exception.error;
      return Result{};
    }
  }

  std::unique_ptr<Emitter> emitter_;
  std::optional<FrontendError> error_;
  std::map<std::string, std::vector<Tensor>> helperResults_;  // call(): each helper's returned values (types)
};

}  // namespace tilesim::builder

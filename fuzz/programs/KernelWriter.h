// The kernel writer behind buildKernel (KernelGen.h), internal to fuzz/programs: it turns a plan into builder
// calls, the way a kernel author writes triton.language. Its members are written in three files by purpose:
//   KernelGen.cpp          the frame: parameters, offsets, loads and stores, operand choice and legalisation;
//   KernelNodes.cpp        one node: the dispatch over NodeOp and the base ops (arithmetic, compares, casts,
//                          math, shape ops, reductions);
//   KernelFeatureNodes.cpp the swarm features' nodes (control flow, calls, atomics, dot, memory, fp8, misc);
//   KernelPointers.cpp     how inputs and outputs are addressed: views into larger storage with honest
//                          tt.divisibility claims, shared storage, i64 offsets, strides, non-prefix masks.
// The plan only picks numbers; every typing decision is the builder's (Triton 3.6's rules).
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/programs/KernelGen.h"
#include "ir/builder/KernelBuilder.h"

namespace tilesim::fuzz::kernelgen {

using builder::DType;
using builder::KernelBuilder;
using builder::Literal;
using builder::Operand;
using builder::Tensor;

// Literals stress the weak/strong rules: negative with unsigned, out of range for narrow types (the builder's
// error drops the node), values that make to_tensor pick int64/uint32/fp64.
inline const long long kIntLiterals[] = {0, 1, 2, 3, 7, 31, 100, 127, -1, -128, 255, 300, 70000, 2147483648LL, 1099511627776LL, 5};
inline const double kFloatLiterals[] = {0.5, -2.25, 3.0, 1e-3, -0.0, 65504.0, 1.0e10, 0.1, 1e300, -1e-45, INFINITY, NAN};

Literal literalFor(int index, bool floating);
// Small literals for `other` and clamp bounds (in range for every dtype, so loads never fail to build).
Literal safeLiteral(int index, bool floating);
inline bool isFloat(const Tensor& t) { return builder::isFloating(t.dtype); }
// Triton's broadcasting: right-aligned dims equal or 1.
bool broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

class KernelWriter {
 public:
  KernelWriter(const KernelPlan& plan, const std::vector<bool>& skip) : plan_(plan), skip_(skip), kb_("fuzz_kernel") {}

  // Builds the kernel; returns the index of the node the builder rejected, -1 for none, -2 for an error outside
  // the nodes (loads, stores: a generator or builder bug).
  int build();

  int64_t blockNumel(const std::vector<int64_t>& shape) const;
  // Elements of input i's buffer (its view, when it is one): what every access to it must stay inside.
  int64_t inputLength(size_t i) const;
  int64_t rebaseElements(size_t i) const;
  Tensor rowStarts(const std::vector<int64_t>& shape);
  int64_t outputLength(size_t j) const;

  // Views (KernelPointers.cpp): a buffer whose pointer starts `offset` elements into a storage buffer of its
  // own or shared with other inputs' views (storage -1: the buffer owns its storage).
  struct Storage {
    DType dtype;
    int64_t length;
    std::string name;
    DType convertsTo = DType::Int1;  // what its first view's values are converted to (randomBuffer's ties)
  };
  struct View {
    int storage = -1;
    int64_t offset = 0;
  };
  const std::vector<Storage>& storages() const { return storages_; }
  const View& inputView(size_t i) const { return inputViews_.at(i); }
  const View& outputView(size_t j) const { return outputViews_.at(j); }

  KernelBuilder& builder() { return kb_; }
  const KernelPlan& plan() const { return plan_; }
  // What input i's values are converted to first (DType::Int1: nothing), for randomBuffer's tie values.
  DType inputConvertsTo(size_t i) const;
  const std::vector<Tensor>& stored() const { return stored_; }

  // Buffers of the atomic nodes (parameters atom0, atom1, ... between the inputs and the outputs).
  struct AtomicBuffer {
    DType dtype;
    int64_t length;
  };
  const std::vector<AtomicBuffer>& atomics() const { return atomics_; }
  const std::vector<uint8_t>& madeValue() const { return madeValue_; }

 private:
  // ---- KernelGen.cpp: the frame and operand legalisation ----
  // pid * numel(shape) + the row-major index of each lane: sum over dims of arange * stride, each arange
  // expanded to the full rank (rows[:, None] * C + cols[None, :] in 2-D).
  Tensor offsets(const std::vector<int64_t>& shape);
  // One operand in eight is pid or offs (the index values); the rest are loads and node results.
  // fp8 values only get stored and converted: Triton has no fp8 arithmetic, so an operand that is fp8 is read
  // as fp32 (exact).
  Tensor pick(uint32_t index);
  // Makes b's shape combine with a's: a 1-D [R] against a 2-D [R, C] becomes [R, 1].
  bool fitShapes(Tensor& a, Tensor& b);
  // `/ // %` on two integers of different signedness is a TypeError (bool counts as unsigned): cast b to a's
  // dtype (bools become int32 first).
  void matchSignedness(Tensor& a, Tensor& b);
  bool allowUB() const { return plan_.features & kFeatureUB; }
  // float -> int: without the UB feature, NaN becomes 0 and the value is clamped into the target's range first
  // (fptosi/fptoui of NaN or an out-of-range value is undefined behaviour for LLVM).
  Tensor floatToInt(Tensor x, DType to);
  Tensor toInt(const Tensor& t) { return isFloat(t) ? floatToInt(t, DType::Int32) : t; }
  Tensor toFp32(const Tensor& t);
  // A value of a's dtype and shape made from b (or a): what loop, branch and helper bodies combine with.
  Tensor sameTypeAs(const Tensor& a, const Tensor& value);

  // ---- KernelPointers.cpp: addressing the inputs and outputs ----
  // Lanes of input i that the mask lets through at the start (the trim's tail is masked off).
  int64_t inputLanes(size_t i) const;
  const PointerPlan& outputPointer(size_t j) const;
  // Input views and their storage, before the parameters are made (a view's divisibility claim depends on it).
  void planInputViews();
  // The output view of output j (its length known once the stored value is).
  void planOutputView(size_t j);
  // The tt.divisibility the pointer claims: the largest power of two (at most 16) dividing its byte offset in
  // storage aligned beyond 16, or 0 (no claim).
  int claimedDivisibility(const PointerPlan& pointer, int64_t offsetElements, DType dtype) const;
  // The element index `offs * stride + shift` (in i64 with offsets64) and its mask `index < length` [and the
  // non-prefix part], for a load or store of `offs`.
  std::pair<Tensor, Tensor> addressing(const PointerPlan& pointer, const Tensor& offs, int64_t length);
  Tensor loadInput(size_t i, const Tensor& offs);
  // The input's conversion right after its load (InputPlan::convert), or an invalid tensor for none.
  Tensor convertInput(size_t i, const Tensor& x);
  Tensor descriptorLoadNode(const Node& n);
  void storeOutput(size_t j, const Tensor& value);

  // ---- KernelNodes.cpp: one node of the plan ----
  Tensor node(const Node& n);
  // The node's second operand as a literal: literal 0 divides by zero (UB for integers), so only with the UB
  // feature.
  Literal literalOperand(const Node& n, bool floating) const;
  // The second operand: the picked tensor when there is one, else the literal.
  Operand secondOperand(const Node& n, const std::optional<Tensor>& b, bool floating) const;
  Tensor trueDivNode(const Node& n, Tensor a, std::optional<Tensor> b);
  Tensor floorDivOrModNode(const Node& n, Tensor a, const std::optional<Tensor>& b);
  Tensor bitwiseNode(const Node& n, const Tensor& a, const std::optional<Tensor>& b);
  Tensor shiftNode(const Node& n, Tensor a, const std::optional<Tensor>& b);
  Tensor whereNode(const Node& n, const Tensor& a, std::optional<Tensor> b);
  Tensor castNode(const Node& n, const Tensor& a);
  Tensor bitcastNode(const Node& n, const Tensor& a);
  Tensor mathNode(const Node& n, Tensor a);
  Tensor fmaNode(const Node& n, Tensor a, const std::optional<Tensor>& b);
  Tensor clampNode(const Node& n, Tensor a);
  Tensor umulhiNode(const Node& n, Tensor a, const std::optional<Tensor>& b);
  Tensor reduceProductNode(const Node& n, Tensor a);
  Tensor joinNode(const Tensor& a, const std::optional<Tensor>& b);
  Tensor splitNode(const Node& n, const Tensor& a);
  Tensor catNode(const Tensor& a, const std::optional<Tensor>& b);
  Tensor reshapeNode(const Tensor& a);
  // sum, max, min, argmax, argmin, cumsum along the node's axis (keep_dims or reverse from its variant).
  using Reduction = Tensor (KernelBuilder::*)(const Tensor&, int, bool);
  Tensor reductionNode(const Node& n, const Tensor& a, Reduction reduction);

  // ---- KernelFeatureNodes.cpp: the swarm features ----
  // One step of the loop/branch bodies: a OP b in a's type.
  Tensor step(KernelBuilder& kb, int variant, const Tensor& x, const Tensor& y);
  // What loop, branch and helper bodies start from: a (no i1, no fp8) and b in a's type.
  std::pair<Tensor, Tensor> controlFlowOperands(Tensor a, const std::optional<Tensor>& bTensor);
  // Each takes (a, b) from controlFlowOperands.
  Tensor forLoopNode(const Node& n, const std::pair<Tensor, Tensor>& operands);
  Tensor whileLoopNode(const Node& n, const std::pair<Tensor, Tensor>& operands);
  Tensor ifElseNode(const Node& n, const std::pair<Tensor, Tensor>& operands);
  Tensor callNode(const Node& n, const std::pair<Tensor, Tensor>& operands);
  // Atomics on a buffer of their own. AtomicOwn: each lane its own element (pid * numel + index), so the old
  // values returned are the buffer's initial contents and usable; AtomicShared: integer add/max/min/and/or/xor of
  // every lane of every program into element 0 or 1, whose final value does not depend on the order; the old
  // values depend on it and are not used.
  Tensor atomicNode(const Node& n, const Tensor& a);
  // a [R, C] (both >= 16) as one of the dot dtypes, times its transpose: [R, C] x [C, R] -> [R, R].
  Tensor dotNode(const Node& n, const Tensor& a);
  Tensor gatherNode(const Node& n, const Tensor& a);
  Tensor histogramNode(const Node& n, const Tensor& a);
  Tensor tileGatherNode(const Node& n, const Tensor& a, const std::optional<Tensor>& b);
  Tensor fp8Node(const Node& n, const Tensor& a);
  Tensor libraryNode(const Node& n, const Tensor& a, const std::optional<Tensor>& b);
  Tensor assertNode(const Node& n);
  Tensor unsplatNode(const Tensor& a);
  Tensor blockLoadNode(const Node& n);
  Tensor pointerRoundTripNode(const Node& n);

  const KernelPlan& plan_;
  const std::vector<bool>& skip_;
  KernelBuilder kb_;
  Tensor pid_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> indices_;  // pid, offs
  std::vector<Tensor> values_;
  std::vector<Tensor> stored_;
  std::vector<AtomicBuffer> atomics_;
  std::vector<Storage> storages_;
  std::vector<View> inputViews_, outputViews_;
  size_t currentNode_ = 0;
  std::vector<uint8_t> madeValue_ = std::vector<uint8_t>(plan_.nodes.size(), 0);  // per node: 1 when it made a value
};

}  // namespace tilesim::fuzz::kernelgen

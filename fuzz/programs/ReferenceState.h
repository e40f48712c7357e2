// The fuzzer's reference evaluator from the inside (ReferenceEval.h is its interface): the lane values, the
// buffers, and the Reference class whose members are written in three files by purpose:
//   ReferenceEval.cpp   the walk over a kernel: programs, blocks, the dispatch over op families, elementwise
//                       lanes, select, control flow, calls, asserts;
//   ReferenceMemory.cpp pointers, masked loads and stores, block pointers, atomics;
//   ReferenceTiles.cpp  data movement within a tile, reductions, scans, dot, histogram, gather.
// Internal to fuzz/programs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fuzz/programs/ReferenceEval.h"
#include "ir/IR.h"

namespace tilesim::fuzz::reference {

struct Lanes {
  Type type;
  std::vector<int64_t> shape;
  std::vector<uint64_t> bits;      // pointers: the element index (two's complement)
  std::vector<uint8_t> undefined;
  int buffer = -1;                 // pointers: which buffer argument
  // Block pointers (tt.make_tensor_ptr): one lane holding the base element index in `bits`, plus these.
  std::vector<int64_t> blockShape, blockStrides, blockOffsets;
  // Tensor descriptors (tt.make_tensor_descriptor): base in `bits`, shape and strides in blockShape/blockStrides.
  int padding = 1;  // 1 zero, 2 NaN

  int64_t size() const { return static_cast<int64_t>(bits.size()); }
};

Lanes makeLanes(Type type);
// The row-major multi-index of `linear` in `shape` (into `index`, reusing its storage), and back.
void multiIndex(int64_t linear, const std::vector<int64_t>& shape, std::vector<int64_t>& index);
std::vector<int64_t> multiIndex(int64_t linear, const std::vector<int64_t>& shape);
int64_t linearIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& shape);

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

  ReferenceOutcome run();

 private:
  // ---- ReferenceEval.cpp: the walk ----
  void fail(const std::string& message);
  // Binds the arguments (bindLaunch) into parameters_, buffers_ and views_; false (and an error) when it cannot.
  bool bindParameters();
  void runProgram(std::array<int64_t, 3> program);
  // Runs the ops of `block`; returns its terminator (null on an error or without one).
  const Operation* runOps(const Block& block);
  // Runs the ops of `block`; returns the terminator's operands.
  std::vector<Lanes> runBlock(const Block& block);
  // The value's lanes as makeLanes(type) makes them (zero bits, all defined, no buffer), reusing the storage the
  // value had (a region runs many times: each combine of a reduction, each loop iteration).
  Lanes& fresh(const Value* value, Type type);
  const Lanes& get(const Value* value) { return env_.at(value); }
  void unsupported(const Operation& op);

  // One function per op family, each a switch over the family's enum (no default: a new op does not compile
  // until the reference handles it, or says here that it cannot).
  void evalOp(const Operation& op);
  void evalConstant(const Operation& op);
  void evalProgram(const Operation& op);
  void evalShape(const Operation& op);
  void evalPointer(const Operation& op);
  void evalMemory(const Operation& op);
  void evalCompare(const Operation& op);
  void evalControlFlow(const Operation& op);
  void evalDebug(const Operation& op);
  // Lane by lane through evalLane (ReferenceLanes.h): integer and float arithmetic, math, compares, casts.
  void elementwise(const Operation& op);
  void select(const Operation& op);

  // ---- control flow: scf.for / scf.while / scf.if / tt.call, each region run by runBlock ----
  void bindResults(const Operation& op, std::vector<Lanes> values);
  // A scalar that decides control flow; an undefined one must be reported by the interpreter.
  uint64_t controlScalar(const Value* value);
  static constexpr int64_t kMaxIterations = 1 << 16;  // generated loops run 0..4 times
  void forLoop(const Operation& op);
  void whileLoop(const Operation& op);
  void ifThenElse(const Operation& op);
  void call(const Operation& op);
  void assertion(const Operation& op);

  // ---- ReferenceMemory.cpp ----
  void addPointer(const Operation& op);
  // Whether lane i is active; an undefined mask lane that decides an access must be reported.
  bool active(const Operation& op, int64_t lane);
  // A lane whose mask is undefined has an unspecified outcome (the access may or may not happen).
  bool maskUndefined(const Operation& op, int64_t lane);
  // The buffer element a pointer lane names, or nullptr (and a noted out-of-bounds access) outside the buffer.
  uint8_t* element(const Lanes& pointer, int64_t lane);
  void load(const Operation& op);
  void store(const Operation& op);
  // ---- tt.ptr_to_int / tt.int_to_ptr: a made-up address space, buffer b at (b + 1) << 40, so that integer
  // arithmetic on addresses round-trips (the generator only adds whole elements) ----
  static constexpr int kAddressShift = 40;
  void pointerToInt(const Operation& op);
  void intToPointer(const Operation& op);
  // ---- block pointers: the element of block lane idx is base + sum((offsets + idx) * strides) ----
  void makeBlockPointer(const Operation& op);
  void advanceBlockPointer(const Operation& op);
  void blockLoad(const Operation& op);
  // ---- tensor descriptors: block element idx is at indices + idx, accessed when every coordinate lies in
  // [0, shape); outside, a load gives the padding and a store drops it ----
  void makeTensorDescriptor(const Operation& op);
  void descriptorAccess(const Operation& op);
  // ---- atomics: lanes in order, each a read-modify-write of its element ----
  void atomic(const Operation& op);

  // ---- ReferenceTiles.cpp ----
  // splat, broadcast, expand_dims, reshape, trans: each output lane reads one input lane: the same row-major
  // position (expand_dims, reshape), the same index with size-1 input dims pinned to 0 (broadcast; a splat's
  // input is one lane), or the index permuted by `order` (trans: result dim d is input dim order[d]).
  void moveLanes(const Operation& op);
  // join: out[i..., k] = (k ? b : a)[i...]; split: out_k[i...] = in[i..., k]; cat (1-D): a then b.
  void joinSplitCat(const Operation& op);
  // One scalar per value: a lane of each reduce/scan operand, as the combine region's block arguments.
  using Scalars = std::vector<std::pair<uint64_t, uint8_t>>;
  // out = combine(left, right); `out` may be `left` or `right` (both are bound to the region first).
  void combine(const Block& region, const Scalars& left, const Scalars& right, Scalars& out);
  struct Geometry {
    int64_t outer = 1, extent = 1, inner = 1;
  };
  static Geometry geometryOf(const std::vector<int64_t>& shape, int axis);
  // The lanes of every operand along the axis at (outer, inner).
  std::vector<Scalars> column(const Operation& op, const Geometry& g, int64_t o, int64_t i);
  // Lowest index bit first: for width w = 1, 2, 4, ..., S/2: x[j] = combine(x[j], x[j + w]) for every j that is a
  // multiple of 2w (x[j] then holds the combination of the block [j, j + 2w), left to right).
  void reduce(const Operation& op);
  // Kogge-Stone: for d = 1, 2, 4, ... < S, every j >= d at once: x[j] = combine(x[j - d], x[j]) (computed from the
  // previous step's values, so walk j downwards); `reverse` runs the same on the mirrored index.
  void scan(const Operation& op);
  // ---- tt.dot as docs/semantics.md "Dot" writes it: per output a sequential fma over k from c ----
  void dot(const Operation& op);
  void histogram(const Operation& op);
  void gather(const Operation& op);

  const Function& kernel_;
  const std::vector<LaunchArgument>& arguments_;
  std::array<int64_t, 3> grid_;
  bool exactMath_;
  std::array<int64_t, 3> program_{};
  std::vector<Buffer> buffers_;
  // A view (alias_of argument): its buffer, its storage's buffer, and its byte offset there.
  struct View {
    size_t buffer, storage;
    uint64_t offset;
  };
  std::vector<View> views_;
  std::vector<Lanes> parameters_;  // each kernel parameter's lanes, bound once per launch
  std::unordered_map<const Value*, Lanes> env_;
  ReferenceOutcome outcome_;
  const Module* module_;
};

}  // namespace tilesim::fuzz::reference

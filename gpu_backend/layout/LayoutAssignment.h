// LayoutAssignment: the analysis that gives every tensor value of a kernel its distributed layout (a
// LinearLayout over warp, lane, register). The lowering asks it, never decides a layout itself.
//
// Rules (first matching):
//  - tt.expand_dims: the operand's layout with a size-1 dimension inserted (no data moves);
//  - tt.reduce: the slice layout of its first operand's layout (DistributedLayouts.h);
//  - tt.reshape: the operand's layout with the output dimensions relabelled (row-major order is kept, so the
//    flat index bits are the same); tt.trans: the operand's layout composed with the dimension permutation;
//  - scf.for results and iter_args: the layout of the init value; under the tensor-core rules below, a value the
//    body computes from tensor cores takes the layout the body yields it in (a second assignment, after the
//    first has shown that layout), so it is converted once at the loop's entry instead of at every iteration;
//  - a value computed only from make_range / splat / constants through elementwise ops and expand_dims that feeds
//    a tt.broadcast (the `offs_m[:, None]` pattern): the broadcast result's layout sliced along the broadcast
//    dimensions (Triton's SliceEncoding), found by a backward pass from each broadcast. Then the broadcast is a
//    register copy instead of a trip through shared memory;
//  - everything else: the default blocked layout of its shape, one per shape in the kernel, with
//    sizePerThread along the fastest dimension chosen as Triton's coalesce pass does: for each tt.load/tt.store
//    of that shape, min(16 bytes / element size, the pointer's contiguity, its alignment in elements) from
//    AxisInfo (`accessVectorElements`), the widest over the shape's accesses; 16-byte accesses of the narrowest
//    element when there is no AxisInfo (32-bit when no access has the shape).
//  - a tt.load whose pointers are contiguous along another dimension than the last, wider than along the last
//    (coalescedDimension: attention's k loaded as [d][n] with d contiguous): the blocked layout fastest along that
//    dimension (coalescedLayout), as Triton's coalesce pass gives each load its own order. Its address and mask
//    arithmetic is rematerialized in that layout by the lowering; its other users convert it as usual. When its
//    pointers are an scf.for iter_arg that the body advances (`b_ptrs += BLOCK_K * stride_bk`), the iter_arg, the
//    advanced pointers and the loop's result take that layout too: the init is converted once, at the entry.
//  - the triton profile's tensor-core dots: the result takes the mma accumulator layout, and so does what is
//    computed from it in the same loop body (Triton's RemoveLayoutConversions, forward): an elementwise op with
//    an operand in such a layout takes that operand's layout, a reduction its slice, expand_dims its own rule,
//    and a tt.broadcast whose operand is the broadcast-source of a dot's layout of the result's shape (the
//    `qk - m[:, None]` of attention) takes that layout. So attention's softmax and rescaling stay in the
//    registers the mma produced; only the loop's exit values (the epilogue) go back to blocked layouts.
// Operands in another layout than an op wants are converted by the lowering (lowering/Conversion.cpp).
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/TargetLimits.h"
#include "ir/Diagnostic.h"
#include "ir/IR.h"
#include "ir/analysis/AxisInfo.h"

namespace tilesim::gpu {

// The widest vector, in elements (a power of two), that an access of `elementBytes`-byte elements through a
// tensor of pointers with these AxisInfo claims may use along its fastest (last) dimension: at most 16 bytes,
// at most the pointer's contiguity there, and each vector's first address a multiple of the vector's size.
// (A masked access also needs the mask constant over the vector: the lowering checks that.)
// `dim` (-1: the last) is the dimension the vector runs along.
int accessVectorElements(const analysis::AxisInfo& pointer, int elementBytes, int dim = -1);
// The dimension an access through these pointers vectorises best along (Triton's coalesce order): the one with
// the widest accessVectorElements, the last on a tie.
int coalescedDimension(const analysis::AxisInfo& pointer, int elementBytes);

class LayoutAssignment {
 public:
  // Assigns layouts to every tensor value of `kernel` (nested regions included). Shapes that are not powers of
  // two are a diagnostic (the GPU engine needs power-of-two tensors, as Triton does).
  // With `axisInfo`, sizePerThread follows what each access can vectorise (see above).
  // `callee`: the function is lowered inline at a tt.call (gpu_backend/lowering/Calls.cpp), so its tensor
  // parameters are allowed and take the default layout of their shape (the call converts its operands into it);
  // a kernel's tensor parameter is a diagnostic.
  // `tensorCores` (the triton profile): a tt.dot that runs on tensor cores (TensorCoreDots.h) gets the mma
  // accumulator layout, and so does an scf.for iter_arg that such a dot yields (Triton's accumulator stays in
  // its #mma layout through the k loop: no conversion per iteration). The epilogue's `acc.to(tl.float16)` takes
  // its usual layout, after the conversion: Triton truncates in #mma, and InstCombine then moves the truncation
  // of the loop's exit value into the loop body (32 cvt per k step in Triton 3.6's PTX of golden/matmul_f16).
  static LayoutAssignment assign(const Function& kernel, int numWarps, Diagnostics& diagnostics,
                                 const analysis::AxisInfoAnalysis* axisInfo = nullptr, bool callee = false,
                                 bool tensorCores = false, int64_t sharedBytes = sharedBytesPerBlock(kDefaultSm));

  // The layout of a tensor value; null for scalars (every thread holds the value).
  const LinearLayout* layoutOf(const Value* value) const;
  const LinearLayout& defaultLayout(std::span<const int64_t> shape) const;
  int numWarps() const { return numWarps_; }
  // `--emit=layout`: each distinct layout once, then every tensor value with its layout's number.
  std::string print(const Function& kernel) const;

 private:
  void assignOp(const Operation& op, Diagnostics& diagnostics);
  // scf.for: each tensor result and its body argument share its init's layout (a tensor-core accumulator's mma one).
  void assignForLoop(const Operation& op);
  void preferSlicesForBroadcasts(const Function& kernel);
  // After a first assignment: records in loopCarried_ each scf.for body argument whose yielded value is a
  // tensor-core value in another layout than the argument's; true when there is one (assign runs again).
  bool carryYieldedLayouts(const Function& kernel);
  const LinearLayout& remember(const Value* value, LinearLayout layout);

  int numWarps_ = 4;
  bool tensorCores_ = false;
  int64_t sharedBytes_ = kSharedBytesWithoutOptIn;  // the target's shared memory per block (TargetLimits.h)
  std::map<std::vector<int64_t>, int> vectorElements_;             // per shape, from memory ops
  mutable std::map<std::vector<int64_t>, LinearLayout> defaults_;  // per shape
  mutable std::map<std::vector<int64_t>, BlockedParams> defaultParams_;
  std::unordered_map<const Value*, LinearLayout> layouts_;
  std::unordered_map<const Value*, LinearLayout> preferred_;  // from preferSlicesForBroadcasts
  std::unordered_map<const Value*, LinearLayout> loopCarried_;  // from carryYieldedLayouts
  std::unordered_map<const Operation*, LinearLayout> coalescedLoads_;  // tt.loads fastest along another dimension
  // scf.for iter_args of pointers such a load reads, and their advanced values (carryCoalescedPointers).
  std::unordered_map<const Value*, LinearLayout> coalescedValues_;
  void carryCoalescedPointers();
  // Values whose layout comes from a tensor-core dot's result (see the rules above), and the mma layouts of all the
  // kernel's dots, per result shape, collected before any op is assigned: a broadcast into the shape of a later
  // dot's accumulator (attention's alpha[:, None] * acc, where q k^T is [M, N] and acc [M, D]) finds that layout.
  std::unordered_set<const Value*> fromTensorCores_;
  std::map<std::vector<int64_t>, std::vector<LinearLayout>> tensorCoreLayouts_;
  void collectTensorCoreLayouts(const Function& kernel);
  bool takeTensorCoreLayout(const Operation& op);
};

}  // namespace tilesim::gpu

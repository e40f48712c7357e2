// The lowering's shared state, internal to gpu_backend/lowering/: how a TTIR value lives in LLVM IR (one LLVM
// value per register of its layout; scalars are one value every thread holds), the IR builder, the hardware
// indices (lane, warp), shared memory, and the entry points of each op family (one file each, mirroring
// interpreter/). The dispatch over OpFamily is KernelLowering.cpp's `lowerOp`.
//
// Failure: an op or type the backend cannot lower yet throws LoweringFailure with a Diagnostic ("the GPU engine
// does not support <op> yet (line:col)"); lowerKernel catches it, so no partial module ever reaches LLVM.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpu_backend/Pipeline.h"
#include "gpu_backend/layout/LayoutAssignment.h"
#include "gpu_backend/layout/SharedLayouts.h"
#include "gpu_backend/layout/WgmmaLayouts.h"
#include "gpu_backend/lowering/SharedMemory.h"
#include "ir/Diagnostic.h"
#include "ir/IR.h"

namespace tilesim::gpu {

struct LoweringFailure {
  Diagnostic diagnostic;
};

// A TTIR value in registers: regs[r] is the element the layout puts in register r of this thread.
struct Lowered {
  std::vector<llvm::Value*> regs;
  std::optional<LinearLayout> layout;  // tensors only
};

class KernelLowering {
 public:
  static constexpr int kRematerializeBudget = 24;  // ops copied at most per use (Rematerialize.cpp)
  KernelLowering(llvm::Module& module, const Function& kernel, const LayoutAssignment& layouts,
                 const CompileOptions& options);

  // Emits the kernel function; returns its shared-memory need in bytes.
  void lower();
  int sharedBytes() const { return static_cast<int>(sharedPlan_.peakBytes()); }
  int64_t sharedLimit() const { return sharedPlan_.maxBytes(); }

  // ---- values
  const Lowered& get(const Value* value) const;
  void set(const Value* value, Lowered lowered);
  // The value's registers in `layout` (converted when it lives in another one; scalars are splatted).
  std::vector<llvm::Value*> in(const Value* value, const LinearLayout* layout);
  // The layout an op result gets (null for scalars), and the number of registers that means.
  const LinearLayout* layoutOf(const Value* value) const {
    if (auto found = layoutOverrides_.find(value); found != layoutOverrides_.end()) return &found->second;
    if (const LinearLayout* layout = layouts_.layoutOf(value)) return layout;
    for (const auto& callee : calleeLayouts)
      if (const LinearLayout* layout = callee->layoutOf(value)) return layout;
    return nullptr;
  }
  static int registerCount(const LinearLayout* layout);

  // ---- types
  llvm::Type* scalarType(const Operation& op, Type type);  // element type of `type`; fails for fp8 etc.
  llvm::Type* storageType(const Operation& op, Type type);  // as stored in memory (i1 -> i8)

  // ---- blocks and regions
  // Lowers every op of `block` but its terminator (and those in `skip`), and returns the terminator.
  const Operation* lowerBlockBody(const Block& block, const std::unordered_set<const Operation*>* skip = nullptr);
  void lowerOp(const Operation& op);
  // Runs a combine region (tt.reduce) on scalars: binds the block arguments, returns the terminator's values.
  std::vector<llvm::Value*> inlineRegion(const Block& block, const std::vector<llvm::Value*>& arguments);

  // ---- hardware
  llvm::Value* threadId();  // i32, 0 .. 32 * num_warps - 1
  llvm::Value* laneId();
  llvm::Value* warpId();
  // The flat (row-major) index of register `reg` of `layout` in this thread, as i32.
  llvm::Value* elementIndex(const LinearLayout& layout, int reg);
  // The per-thread part of every element index of `layout`: XOR of the lane and warp bases of this thread.
  llvm::Value* threadPart(const LinearLayout& layout);
  // XOR of laneValues[b] over the set bits b of this thread's lane and warpValues[b] over its warp's (computed
  // once per kernel, in the entry block).
  llvm::Value* threadXor(const std::vector<uint64_t>& laneValues, const std::vector<uint64_t>& warpValues);
  // ---- shared memory (SharedMemory.h): each op's scratch buffer placed by live range, barriers by hazard
  struct SharedBuffer {
    llvm::Value* base = nullptr;  // i8 pointer in addrspace 3
    SharedRange range;
  };
  // A buffer of `bytes` for `op`, at an offset that is a multiple of `alignment` (16 or more, a power of two;
  // the kernel's shared memory is then declared as aligned); refused (naming `what`) over the target's limit.
  SharedBuffer sharedBuffer(int64_t bytes, const Operation* op, const std::string& what, int64_t alignment = 16);
  llvm::GlobalVariable* sharedGlobal();  // the kernel's dynamic shared memory, offset 0
  // Before this op's threads write / read `range`: a barrier first when another thread may still use it.
  void beforeSharedWrite(const SharedRange& range);
  void beforeSharedRead(const SharedRange& range);
  SharedRange placeShared(int64_t bytes, const Operation* op, const std::string& what, int64_t alignment = 16);
  void barrier();  // bar.sync 0
  // bar.sync 0 that leaves a wgmma group in flight (a pipelined loop's: lowering/PipelinedLoop.cpp).
  void barrierKeepingWgmma();
  // A buffer that lives across the ops lowered until releaseShared (SharedMemoryPlan::reserve): a barrier first when
  // earlier accesses may overlap it; nothing when it does not fit beside what is reserved already.
  std::optional<SharedBuffer> reserveShared(int64_t bytes, int64_t alignment);
  void releaseShared(const SharedRange& range);

  [[noreturn]] void unsupported(const Operation& op, const std::string& detail = "") const;

  llvm::IRBuilder<> builder;
  llvm::LLVMContext& context;
  llvm::Module& module;
  const CompileOptions& options;
  llvm::Function* function = nullptr;
  // The module's AxisInfo (set by the pipeline; null: nothing is known, so no access is vectorised).
  const analysis::AxisInfoAnalysis* axisInfo = nullptr;
  // tt.call (Calls.cpp): the module the callees are found in, and the callees' own layout assignments.
  const Module* sourceModule = nullptr;
  std::vector<std::unique_ptr<LayoutAssignment>> calleeLayouts;
  int callDepth = 0;
  // The PTX ISA version the emitted instructions need, as 10 * major + minor (0: LLVM's default, 8.0 for sm_90a);
  // the pipeline emits `.version` accordingly (fp8 mma.sync needs 8.4).
  int minimumPtxVersion = 0;
  // Loop-invariant values already converted into the layout a loop's dot reads them in, before the loop
  // (ControlFlow.cpp, hoistInvariantDotOperands): `in` takes them from here while the loop is lowered.
  struct Hoisted {
    const Value* value;
    LinearLayout layout;
    std::vector<llvm::Value*> regs;
  };
  std::vector<Hoisted> hoisted;
  // wgmma groups that may still be in flight (DotWgmma.cpp): a loop's accumulating wgmma dot (wgmmaCarriedAccumulator)
  // leaves its group running across the back edge, so the next iteration's global loads overlap it. Whatever
  // touches shared memory, a barrier and every control-flow region wait for it first (waitForWgmma); the loop's
  // exit waits on the accumulator itself.
  const Operation* deferredWgmmaDot = nullptr;  // the dot of the loop body being lowered that may stay in flight
  bool wgmmaInFlight = false;
  void waitForWgmma();  // wgmma.wait_group 0 when a group may be in flight
  // Dot operands already in shared memory (lowering/PipelinedLoop.cpp's staged loads, DotWgmma.cpp's pinned operands):
  // the value -> where this iteration's copy starts and how it is placed there. wgmma reads its NVMMA tile in
  // place; mma.sync loads its operand layout from it (loadPlaced), the second half of a layout conversion.
  struct SharedOperand {
    llvm::Value* base = nullptr;
    SharedPlacement placement;
  };
  std::unordered_map<const Value*, SharedOperand> sharedOperands;
  // Whether a loop was pipelined: a kernel that then fails to lower (shared memory) is compiled again without.
  bool pipelinedLoops = false;

 private:
  const Function& kernel_;
  const LayoutAssignment& layouts_;
  std::unordered_map<const Value*, Lowered> values_;
  llvm::GlobalVariable* shared_ = nullptr;
  // The entry block, before the body: thread-invariant values go there (threadXor), so they dominate every use.
  llvm::BasicBlock* prologue_ = nullptr;
  llvm::IRBuilder<> prologueBuilder();
  llvm::Value* threadId_ = nullptr;
  llvm::Value* laneId_ = nullptr;
  llvm::Value* warpId_ = nullptr;
  std::map<std::vector<uint64_t>, llvm::Value*> threadXors_;
  SharedMemoryPlan sharedPlan_;
  // Rematerialization (Rematerialize.cpp): a cheap value wanted in another layout is computed again in that
  // layout instead of moving through shared memory; meanwhile the value's layout is overridden.
  std::optional<std::vector<llvm::Value*>> rematerialize(const Value* value, const LinearLayout& layout, int& budget);
  std::unordered_map<const Value*, LinearLayout> layoutOverrides_;
  std::optional<SharedMemoryPlan::State> regionBefore_;  // the last control-flow region's, until settled
  void settleRegion();
};

// ---- op families: one entry point per family of ir/Ops.def, each switching over its family's enum with no
// default, in the file named as the interpreter's (KernelLowering.cpp's lowerOp dispatches on OpFamily; the
// families the interpreter runs in Executor.cpp, Constant, Program, External, Function, Terminator and Debug, are
// dispatched there too and call the helpers below).
void lowerIntArithOp(KernelLowering& lowering, const Operation& op);     // ElementwiseInt.cpp
void lowerFloatArithOp(KernelLowering& lowering, const Operation& op);   // ElementwiseFloat.cpp
void lowerMathOp(KernelLowering& lowering, const Operation& op);         // ElementwiseFloat.cpp
void lowerCompareOp(KernelLowering& lowering, const Operation& op);      // Elementwise.cpp
void lowerCastOp(KernelLowering& lowering, const Operation& op);         // ElementwiseCast.cpp
void lowerShapeOp(KernelLowering& lowering, const Operation& op);        // Movement.cpp
void lowerPointerOp(KernelLowering& lowering, const Operation& op);      // MemoryOps.cpp
void lowerMemoryOp(KernelLowering& lowering, const Operation& op);       // MemoryOps.cpp
void lowerAtomicOp(KernelLowering& lowering, const Operation& op);       // Atomics.cpp
void lowerDotOp(KernelLowering& lowering, const Operation& op);          // Dot.cpp
// How many consecutive registers one access of tt.load / tt.store `op` through a tensor of pointers laid out as
// `layout` moves at once, for elements of `bytes` (1: scalar accesses) (MemoryOps.cpp, its file comment).
int memoryVectorElements(KernelLowering& lowering, const Operation& op, const LinearLayout* layout, int bytes);
// The layouts a tensor-core tt.dot reads its a and b operands in; nothing when it takes the FMA path or wgmma
// (which reads them from shared memory) (Dot.cpp).
std::optional<std::array<LinearLayout, 2>> tensorCoreOperandLayouts(const KernelLowering& lowering, const Operation& dot);
// The top-level tt.dot of scf.for `loop`'s body that takes wgmma and only accumulates across iterations: its
// accumulator is carried value `*carriedIndex` (used by nothing else), its result only yielded back as that value,
// and both in the dot's accumulator layout and f32, so no instruction but the next wgmma reads the registers
// before the loop ends. Null when there is none (DotWgmma.cpp).
const Operation* wgmmaCarriedAccumulator(const KernelLowering& lowering, const Operation& loop, size_t* carriedIndex);
// The wgmma plan of tt.dot `dot` when it takes wgmma (the triton profile, the options' choice, the dot's shape).
std::optional<WgmmaPlan> wgmmaPlanFor(const KernelLowering& lowering, const Operation& dot);
// a wgmma operand in registers stored into shared memory at `base`, placed as wgmmaOperandPlacement says (DotWgmma.cpp).
void storeWgmmaOperand(KernelLowering& lowering, const Value* operand, SharedPlacement placement, llvm::Value* base);
// The operands of `body`'s wgmma dots that are defined before the loop (attention's q), stored once, before the
// loop, into shared memory reserved for it and read in place by every iteration (KernelLowering::sharedOperands),
// as Triton keeps a loop-invariant operand in shared memory; part of pipelining (num_stages 1: nothing is pinned)
// (DotWgmma.cpp). Nothing is pinned when the reservation does not fit. unpinWgmmaOperands after the loop.
struct PinnedOperands {
  std::vector<const Value*> values;
  std::optional<SharedRange> range;
};
PinnedOperands pinInvariantWgmmaOperands(KernelLowering& lowering, const Block& body);
void unpinWgmmaOperands(KernelLowering& lowering, const PinnedOperands& pinned);
// scf.for `loop` software-pipelined (PipelinedLoop.cpp): false, having emitted nothing, when the loop does not
// qualify; ControlFlow.cpp then lowers it as written.
bool lowerPipelinedFor(KernelLowering& lowering, const Operation& loop);
void lowerReduceScanOp(KernelLowering& lowering, const Operation& op);   // ReduceScan.cpp
void lowerControlFlowOp(KernelLowering& lowering, const Operation& op);  // ControlFlow.cpp
// Loop helpers of ControlFlow.cpp, shared with PipelinedLoop.cpp.
// Registers of every value `yield` passes, each in the layout of the matching target (results / iter_args).
std::vector<std::vector<llvm::Value*>> yieldedRegisters(KernelLowering& lowering, const Operation* yield,
                                                        const std::vector<const Value*>& targets);
Lowered loweredFromPhis(const std::vector<llvm::PHINode*>& phis, const LinearLayout* layout);
// A loop's blocks: where it is entered from, and its header, body and exit (created with the given names, in that
// order). openLoop branches into the header and leaves the builder there.
struct LoopBlocks {
  llvm::BasicBlock *preheader, *header, *body, *exit;
};
LoopBlocks openLoop(KernelLowering& lowering, const char* header, const char* body, const char* exit);
// One phi per register of each loop-carried value, entered from `preheader` with its initial value.
std::vector<std::vector<llvm::PHINode*>> carriedPhis(llvm::IRBuilder<>& b, const std::vector<std::vector<llvm::Value*>>& initial,
                                                     llvm::BasicBlock* preheader);

// ---- helpers of the families, by file
// Compare (Elementwise.cpp) and the float families share these: f16/bf16 are computed in f32.
bool isNarrowFloat(llvm::Type* type);
llvm::Value* widenFloat(llvm::IRBuilder<>& builder, llvm::Value* value);  // f16/bf16 to f32, others unchanged

// A reduce operand's axis laid out as Triton's blocked layouts lay it out: index bits [0, lowRegisterBits) in
// registers, the next ones on lanes (laneBits, ascending hardware bits), then on warps (warpBits, ascending), the
// rest in registers (the repeated tile); each held by exactly one hardware bit. Null for any other layout. The
// triton profile reduces such an axis in Triton's order (ReduceAxisLayout{2^lowRegisterBits, 2^|laneBits|,
// 2^|warpBits|} in the interpreter), every other one in the contract order.
struct TritonReduceAxis {
  int lowRegisterBits = 0;
  std::vector<int> laneBits, warpBits;
};
std::optional<TritonReduceAxis> tritonReduceAxis(const LinearLayout& layout, int axis);  // Reduce.cpp
// The same, for tt.reduce `op` whose operand has `layout`, and only when every warp's partials fit the 16 KiB
// cross-warp exchange: the reduces the triton profile lowers in Triton's order (tritonReduceLayouts).
std::optional<TritonReduceAxis> tritonReduceOrder(const Operation& op, const LinearLayout& layout);  // Reduce.cpp
void lowerReduce(KernelLowering& lowering, const Operation& op);  // Reduce.cpp
void lowerScan(KernelLowering& lowering, const Operation& op);    // ReduceScan.cpp
// fp8 values are i8 bit patterns; casts to and from them (Fp8.cpp).
bool isFp8(Type type);
void lowerFp8Cast(KernelLowering& lowering, const Operation& op);
llvm::Value* fp8ToFloat(llvm::IRBuilder<>& builder, llvm::Value* bits, bool e5m2);  // exact f32 of an fp8 pattern

// The exact profile's math functions, op for op from ir/eval/ExactMath (ExactMath.cpp): f32/f64, f16/bf16 in f32.
enum class ExactFunction { Exp, Exp2, Exp10, Log, Log2, Log10, Rsqrt, Tanh, Erf, Sin, Cos };
llvm::Value* emitExactMath(llvm::IRBuilder<>& builder, ExactFunction function, llvm::Value* x);

// tt.extern_elementwise (libdevice calls, or ExactMath in the exact profile) and the libdevice link step that the
// pipeline runs before the LLVM optimiser: returns an error message, or "" (also when the module calls no __nv_* function).
void lowerExternElementwise(KernelLowering& lowering, const Operation& op);  // Libdevice.cpp
// A call of the libdevice function `symbol` (declared on first use; linkLibdevice links its body).
llvm::Value* callLibdevice(KernelLowering& lowering, const Operation& op, const std::string& symbol,
                           const std::vector<llvm::Value*>& arguments, llvm::Type* result);
std::string linkLibdevice(llvm::Module& module, const CompileOptions& options);

void lowerKernelCfg(KernelLowering& lowering, const Region& region);  // Branches.cpp: a kernel body of several blocks
// Block pointers (BlockPointers.cpp): the Pointer family's make_tensor_ptr and advance, the Memory family's
// tt.load and tt.store of a block pointer.
void lowerMakeTensorPtr(KernelLowering& lowering, const Operation& op);
void lowerAdvance(KernelLowering& lowering, const Operation& op);
void lowerBlockPointerAccess(KernelLowering& lowering, const Operation& op);
void lowerCall(KernelLowering& lowering, const Operation& op);  // Calls.cpp
// Tensor descriptors (Descriptors.cpp): predicated global accesses, no TMA.
void lowerMakeTensorDescriptor(KernelLowering& lowering, const Operation& op);
void lowerDescriptorLoad(KernelLowering& lowering, const Operation& op);   // descriptor_load and descriptor_gather
void lowerDescriptorStore(KernelLowering& lowering, const Operation& op);  // descriptor_store and descriptor_scatter
void lowerInlineAsm(KernelLowering& lowering, const Operation& op);  // InlineAsm.cpp
// The quiet NaN a NaN padding gives: the format's exponent all ones and its top mantissa bit, the canonical NaN
// where the format has no infinity (interpreter/MemoryAccess.h quietNaNBits) (Descriptors.cpp; BlockPointers.cpp).
uint64_t quietNaNBits(ScalarKind kind);
// A descriptor's registers: [base, padding (i32), shape (i64 each), strides (i64 each)] (Descriptors.cpp).
std::vector<llvm::Value*> descriptorRegisters(KernelLowering& lowering, llvm::Value* base, llvm::Value* padding,
                                              const std::vector<llvm::Value*>& shape,
                                              const std::vector<llvm::Value*>& strides);
void lowerAssert(KernelLowering& lowering, const Operation& op);  // Debug.cpp
void lowerAssume(KernelLowering& lowering, const Operation& op);  // Debug.cpp: llvm.assume, as Triton
void lowerPrint(KernelLowering& lowering, const Operation& op);   // Debug.cpp

// Tensors staged in shared memory at their flat (row-major) index, for ops whose result elements come from
// other threads (Movement.cpp, Dot.cpp; SharedStage.cpp): add() reserves the slots (16-byte aligned, 48 KiB in all, else the op is
// refused), storeAll() places the stage (SharedMemory.h), every thread stores its registers, a barrier;
// load() reads one slot.
class SharedStage {
 public:
  SharedStage(KernelLowering& lowering, const Operation& op);
  // Reserves `slots` elements of `value`'s type and stages `value` in the first numElements of them.
  llvm::Value* add(const Value* value, int64_t slots);
  // Stages `value` at `base` (inside slots reserved before).
  void addAt(const Value* value, llvm::Value* base, llvm::Type* type) { entries_.push_back({value, base, type}); }
  void storeAll();
  llvm::Value* slot(llvm::Value* base, llvm::Type* type, llvm::Value* index);
  llvm::Value* load(llvm::Value* base, llvm::Type* type, llvm::Value* index, llvm::Type* valueType);

 private:
  struct Entry {
    const Value* value;
    llvm::Value* base;
    llvm::Type* type;
  };
  KernelLowering& lowering_;
  const Operation& op_;
  std::vector<Entry> entries_;
  int64_t bytes_ = 0;
  llvm::GetElementPtrInst* start_ = nullptr;  // the stage's first byte; its offset is set by storeAll
};

// Lane-by-lane helper: the result's registers are fn(operand registers...) in the result's layout.
template <typename Fn>
void lowerElementwise(KernelLowering& lowering, const Operation& op, Fn&& fn) {
  const LinearLayout* layout = lowering.layoutOf(op.result());
  std::vector<std::vector<llvm::Value*>> operands;
  for (const Value* operand : op.operands) operands.push_back(lowering.in(operand, layout));
  Lowered result;
  if (layout) result.layout = *layout;
  const int count = KernelLowering::registerCount(layout);
  std::vector<llvm::Value*> args(operands.size());
  for (int r = 0; r < count; ++r) {
    for (size_t i = 0; i < operands.size(); ++i) args[i] = operands[i][static_cast<size_t>(r)];
    result.regs.push_back(fn(args));
  }
  lowering.set(op.result(), std::move(result));
}

// The shared-memory address of register `reg`'s vector (reg a multiple of the vector) of `layout` in this
// thread, in a buffer at `base` laid out by `placement` (Conversion.cpp). Its element offset is the thread's part
// (the lane and warp bases through the placement, computed once per layout) XOR the register's part. The register
// part's bits that the thread part never sets are added as a constant (disjoint bits add without carries), so they
// fold into the access's immediate offset; only its other bits, the swizzle, are XORed in, once per distinct
// swizzle pattern (a few per conversion, not one per register).
class PlacedAddresses {
 public:
  PlacedAddresses(KernelLowering& lowering, const LinearLayout& layout, const SharedPlacement& placement,
                  llvm::Value* base, int elementBytes);
  llvm::Value* of(int reg);

 private:
  KernelLowering& lowering_;
  const LinearLayout& layout_;
  const SharedPlacement& placement_;
  llvm::Value* base_;
  const int elementBytes_;
  llvm::Value* threadPart_ = nullptr;
  uint64_t threadMask_ = 0;
  std::unordered_map<uint64_t, llvm::Value*> swizzled_;  // swizzle bits -> the buffer address of threadPart ^ them
};

// The registers of `target` (elements of `type`, as stored: i1 as a byte) read from a buffer at `base` placed by
// `placement`: the load half of a layout conversion (Conversion.cpp).
std::vector<llvm::Value*> loadPlaced(KernelLowering& lowering, const LinearLayout& target, const SharedPlacement& placement,
                                     llvm::Value* base, llvm::Type* type, int elementBytes);
// ldmatrix (PTX ISA §9.7.14.5.15) exists on `sm` (sm_75 and later) (Conversion.cpp).
bool hasLdmatrix(const std::string& sm);
// Layout conversion (Conversion.cpp): `source` moved into `target`, element for element. Register
// permutations stay in registers; anything that moves data between threads goes through shared memory.
std::vector<llvm::Value*> convertLayout(KernelLowering& lowering, const Lowered& source, const LinearLayout& target,
                                        Type elementType, const Operation* user);
// The store half of a conversion: every register of `source` written to the buffer at `base` through
// `placement`, placement.storeVectorElements() consecutive registers per store (the caller makes the buffer
// safe to write first: KernelLowering::beforeSharedWrite).
void storeToShared(KernelLowering& lowering, const Lowered& source, const SharedPlacement& placement, llvm::Value* base,
                   Type elementType);

}  // namespace tilesim::gpu

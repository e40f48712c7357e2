// tt.dot, two lowerings (docs/gpu-backend.md "Dot").
//
// The sequential-FMA path (docs/semantics.md §Dot; interpreter/Dot.h): for every output element, in the result's
// layout, acc = c; for k = 0 .. K-1 in order: acc = fma(a[m][k], b[k][n], acc) — the interpreter's contract, so
// the result is bit for bit the interpreter's. It is the only path of the `exact` profile, and the `triton`
// profile's for what has no tensor-core path. a and b are staged in shared memory (SharedStage) and each thread
// walks k for its result registers.
//  - f32 `ieee` / tf32x3 / bf16x3 / bf16x6: fma.rn.f32 on the values. f32 `tf32`: each input truncated toward
//    zero to 10 mantissa bits (low 13 bits cleared), inf and NaN kept, as the interpreter (and wgmma) does.
//  - f16, bf16, f8E4M3FN, f8E5M2 (the two fp8 kinds may mix): converted exactly to f32, fma.rn.f32; an f16
//    result is accumulated from c widened to f32 and rounded to f16 once at the end.
//  - i8 x i8 -> i32: sign-extended products, wrapping i32 accumulation. f64: fma.rn.f64.
//
// The tensor-core path (`triton` profile only), Triton's MMAv2 (mma.sync, as Triton lowers dots on Ampere):
// f16 x f16 and bf16 x bf16 -> `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`; f32 `tf32`
// -> `m16n8k8 ... f32.tf32.tf32.f32` on the operands truncated to tf32 as above (Triton 3.6 hands the raw f32
// bits to the instruction, which reads only their tf32 part; cvt.rna.tf32.f32 is its tf32x3 split, not this);
// i8 x i8 -> i32 -> `m16n8k32 ... s32.s8.s8.s32` without .satfinite (Triton's has it), so the i32 sum wraps as
// the interpreter's and the result is exact; f8E4M3FN / f8E5M2 (mixed too) -> `m16n8k32 ... f32.e4m3.e5m2.f32`
// etc., Triton's sm_89 instruction, which needs PTX ISA 8.4 (the pipeline then emits `.version 8.4`). a, b and c are converted into the mma operand and accumulator
// layouts (DistributedLayouts.h: mmaLayout; through shared memory), each warp multiplies its 16 x 8 tiles with
// the k tiles in order (acc = mma(a_kt, b_kt, acc), kt = 0, 1, ...), an f16 result is the f32 accumulator
// rounded once, and the result is converted back into its assigned layout. Under the `triton` profile the
// interpreter's error bound for tensor-core dots (interpreter/Dot.h, independent of the summation order) is
// what the result is judged by. Shapes that are not multiples of the instruction tile, operand or result
// tensors over 48 KiB, and f64, f32 ieee/tf32x3/bf16x3/bf16x6 keep the FMA path.
#include <algorithm>
#include <bit>
#include <optional>
#include <string>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/layout/TensorCoreDots.h"
#include "gpu_backend/layout/WgmmaLayouts.h"
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;


// One mma.sync instruction kind: "m16n8k<8 << wordBits>" and its type suffix.
struct TensorCorePlan {
  std::string shape, types;
  int wordBits = 0;  // log2 of the operand elements per 32-bit register
  bool integer = false;
  bool tf32 = false;
  int ptxVersion = 0;  // KernelLowering::minimumPtxVersion the instruction needs
};

// The tensor-core lowering of `op`, or nothing when it keeps the FMA path (see the file comment): the dots
// tensorCoreWordBits accepts (layout/TensorCoreDots.h), under the triton profile.
std::optional<TensorCorePlan> tensorCorePlan(const KernelLowering& lowering, const Operation& op) {
  if (lowering.options.profile != FloatProfile::Triton) return std::nullopt;
  std::optional<int> wordBits = tensorCoreWordBits(op, lowering.options.numWarps, sharedBytesPerBlock(lowering.options.sm));
  if (!wordBits) return std::nullopt;
  const ScalarKind aKind = op.operand(0)->type.element().scalarKind(), bKind = op.operand(1)->type.element().scalarKind();
  auto fp8Name = [](ScalarKind kind) -> const char* { return kind == ScalarKind::F8E4M3FN ? "e4m3" : "e5m2"; };
  TensorCorePlan plan;
  plan.wordBits = *wordBits;
  plan.shape = "m16n8k" + std::to_string(8 << plan.wordBits);
  if (aKind == ScalarKind::F8E4M3FN || aKind == ScalarKind::F8E5M2) {
    // Triton's MMAv2 fp8 instruction (sm_89+, PTX ISA 8.4); the two fp8 kinds may mix. The same fragments as s8.
    plan.ptxVersion = 84;
    plan.types = std::string("f32.") + fp8Name(aKind) + "." + fp8Name(bKind) + ".f32";
  } else if (aKind == ScalarKind::F16 || aKind == ScalarKind::BF16) {
    plan.types = aKind == ScalarKind::F16 ? "f32.f16.f16.f32" : "f32.bf16.bf16.f32";
  } else if (aKind == ScalarKind::F32) {
    plan.tf32 = true;
    plan.types = "f32.tf32.tf32.f32";
  } else {
    plan.integer = true;
    plan.types = "s32.s8.s8.s32";
  }
  return plan;
}

// The mma.sync accumulator layout of `op`'s result (also wgmma's, where wgmmaPlan accepts the dot).
LinearLayout accumulatorLayout(const KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan) {
  std::span<const int64_t> resultShape = op.result()->type.shape();
  const int64_t depth = op.operand(0)->type.shape()[resultShape.size() - 1];
  return mmaLayout(MmaOperand::Accumulator, resultShape, depth, plan.wordBits, lowering.options.numWarps);
}

// The 32-bit operand word of registers regs[first] .. regs[first + 2^wordBits - 1], the first in the low bits.
// Registers that are the elements 0, 1, ... of one vector of that width (a conversion's vector load from shared
// memory) are that vector's bits, with no repacking.
llvm::Value* operandWord(llvm::IRBuilder<>& b, const TensorCorePlan& plan, const std::vector<llvm::Value*>& regs, int first) {
  const int count = 1 << plan.wordBits, bits = 32 >> plan.wordBits;
  if (!plan.tf32 && count > 1) {
    auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(regs[static_cast<size_t>(first)]);
    llvm::Value* vector = extract ? extract->getVectorOperand() : nullptr;
    auto* vectorType = vector ? llvm::dyn_cast<llvm::FixedVectorType>(vector->getType()) : nullptr;
    bool whole = vectorType && vectorType->getNumElements() == static_cast<unsigned>(count) &&
                 vectorType->getScalarSizeInBits() == static_cast<unsigned>(bits);
    for (int e = 0; whole && e < count; ++e) {
      auto* element = llvm::dyn_cast<llvm::ExtractElementInst>(regs[static_cast<size_t>(first + e)]);
      auto* position = element ? llvm::dyn_cast<llvm::ConstantInt>(element->getIndexOperand()) : nullptr;
      whole = position && element->getVectorOperand() == vector && position->getZExtValue() == static_cast<uint64_t>(e);
    }
    if (whole) return b.CreateBitCast(vector, b.getInt32Ty());
  }
  if (!plan.tf32 && count == 2 && (regs[static_cast<size_t>(first)]->getType()->isHalfTy() ||
                                    regs[static_cast<size_t>(first)]->getType()->isBFloatTy())) {
    // Two 16-bit floats as one <2 x half> (bfloat); two f32 -> f16 truncations as one cvt.rn.f16x2.f32.
    auto* low = llvm::dyn_cast<llvm::FPTruncInst>(regs[static_cast<size_t>(first)]);
    auto* high = llvm::dyn_cast<llvm::FPTruncInst>(regs[static_cast<size_t>(first + 1)]);
    if (low && high && low->getSrcTy()->isFloatTy() && high->getSrcTy()->isFloatTy() && low->getType() == high->getType())
      return ptx::packRoundedPair(b, low->getOperand(0), high->getOperand(0), low->getType()->isBFloatTy());
    llvm::Type* element = regs[static_cast<size_t>(first)]->getType();
    llvm::Value* pair = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, 2));
    for (int e = 0; e < 2; ++e) pair = b.CreateInsertElement(pair, regs[static_cast<size_t>(first + e)], static_cast<uint64_t>(e));
    return b.CreateBitCast(pair, b.getInt32Ty());
  }
  llvm::Value* word = b.getInt32(0);
  for (int e = 0; e < count; ++e) {
    llvm::Value* v = regs[static_cast<size_t>(first + e)];
    llvm::Value* element;
    if (plan.tf32) {  // the interpreter's tf32 operand: low 13 bits cleared, inf and NaN kept
      llvm::Value* raw = b.CreateBitCast(v, b.getInt32Ty());
      llvm::Value* special = b.CreateICmpEQ(b.CreateAnd(raw, 0x7F800000), b.getInt32(0x7F800000));
      element = b.CreateSelect(special, raw, b.CreateAnd(raw, 0xFFFFE000));
    } else {
      if (!v->getType()->isIntegerTy()) v = b.CreateBitCast(v, b.getIntNTy(static_cast<unsigned>(bits)));
      element = b.CreateZExt(v, b.getInt32Ty());
    }
    word = e == 0 ? element : b.CreateOr(word, b.CreateShl(element, static_cast<uint64_t>(e * bits)));
  }
  return word;
}

// The operand words of one operand's registers, each packed once however many mma instructions read it.
class OperandWords {
 public:
  OperandWords(llvm::IRBuilder<>& b, const TensorCorePlan& plan, const std::vector<llvm::Value*>& regs)
      : b_(b), plan_(plan), regs_(regs), words_(regs.size() >> plan.wordBits, nullptr) {}
  llvm::Value* at(int first) {  // the word whose low element is regs[first]
    llvm::Value*& word = words_[static_cast<size_t>(first >> plan_.wordBits)];
    if (!word) word = operandWord(b_, plan_, regs_, first);
    return word;
  }

 private:
  llvm::IRBuilder<>& b_;
  const TensorCorePlan& plan_;
  const std::vector<llvm::Value*>& regs_;
  std::vector<llvm::Value*> words_;
};

// The f32 (or s32) accumulator `acc` in `accLayout` as the dot's result: rounded once to f16 for an f16 result,
// converted into the result's assigned layout.
void finishTensorCoreDot(KernelLowering& lowering, const Operation& op, std::vector<llvm::Value*> acc,
                         const LinearLayout& accLayout) {
  Builder& b = lowering.builder;
  if (op.result()->type.element().scalarKind() == ScalarKind::F16)
    for (llvm::Value*& value : acc) value = b.CreateFPTrunc(value, b.getHalfTy());
  Lowered inMma;
  inMma.regs = std::move(acc);
  inMma.layout = accLayout;
  const LinearLayout* assigned = lowering.layoutOf(op.result());
  Lowered lowered;
  lowered.layout = *assigned;
  lowered.regs = convertLayout(lowering, inMma, *assigned, op.result()->type.element(), &op);
  lowering.set(op.result(), std::move(lowered));
}

void lowerDotTensorCore(KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan) {
  Builder& b = lowering.builder;
  std::span<const int64_t> resultShape = op.result()->type.shape();
  const int64_t depth = op.operand(0)->type.shape()[resultShape.size() - 1];
  const int warps = lowering.options.numWarps;
  lowering.minimumPtxVersion = std::max(lowering.minimumPtxVersion, plan.ptxVersion);
  const auto [aLayout, bLayout] = *tensorCoreOperandLayouts(lowering, op);
  const LinearLayout accLayout = accumulatorLayout(lowering, op, plan);
  const bool halfResult = op.result()->type.element().scalarKind() == ScalarKind::F16;
  // An operand a pipelined loop staged (lowering/PipelinedLoop.cpp) is loaded from its stage in the operand layout.
  auto registersOf = [&](const Value* operand, const LinearLayout& layout) {
    auto staged = lowering.sharedOperands.find(operand);
    if (staged == lowering.sharedOperands.end()) return lowering.in(operand, &layout);
    const Type element = operand->type.element();
    return loadPlaced(lowering, layout, staged->second.placement, staged->second.base, lowering.storageType(op, element),
                      storageBytes(element.scalarKind()));
  };
  std::vector<llvm::Value*> aRegs = registersOf(op.operand(0), aLayout);
  std::vector<llvm::Value*> bRegs = registersOf(op.operand(1), bLayout);
  std::vector<llvm::Value*> acc = lowering.in(op.operand(2), &accLayout);
  if (halfResult)
    for (llvm::Value*& value : acc) value = b.CreateFPExt(value, b.getFloatTy());

  const int wordElements = 1 << plan.wordBits;
  const int aPerTile = 4 << plan.wordBits, bPerTile = 2 << plan.wordBits;
  const int kTiles = static_cast<int>(depth >> (plan.wordBits + 3));
  const int groups = numRegisters(accLayout) / 4;
  OperandWords aWordsOf(b, plan, aRegs), bWordsOf(b, plan, bRegs);
  for (int group = 0; group < groups; ++group) {
    const int aGroup = mmaOperandGroup(MmaOperand::A, resultShape, warps, group);
    const int bGroup = mmaOperandGroup(MmaOperand::B, resultShape, warps, group);
    std::vector<llvm::Value*> d(acc.begin() + 4 * group, acc.begin() + 4 * group + 4);
    for (int kt = 0; kt < kTiles; ++kt) {  // k tiles in order: acc = mma(a_kt, b_kt, acc)
      const int aFirst = aPerTile * (kt + kTiles * aGroup), bFirst = bPerTile * (kt + kTiles * bGroup);
      TILESIM_ASSERT(aFirst + aPerTile <= static_cast<int>(aRegs.size()) && bFirst + bPerTile <= static_cast<int>(bRegs.size()),
                     "mma lowering: operand registers out of range");
      std::vector<llvm::Value*> aWords, bWords;
      for (int w = 0; w < 4; ++w) aWords.push_back(aWordsOf.at(aFirst + w * wordElements));
      for (int w = 0; w < 2; ++w) bWords.push_back(bWordsOf.at(bFirst + w * wordElements));
      d = ptx::mmaSync(b, plan.shape, plan.types, plan.integer, aWords, bWords, d);
    }
    std::copy(d.begin(), d.end(), acc.begin() + 4 * group);
  }
  finishTensorCoreDot(lowering, op, std::move(acc), accLayout);
}

// wgmma's a from registers (WgmmaLayouts.h registerAWords), where a is in registers in a layout with the fragment's
// lanes and warps (a register permutation away, no shared memory): attention's P, computed in the accumulator
// layout of q k^T. Triton's MMAv3 does the same (its a in #dot_op).
struct RegisterA {
  std::vector<llvm::Value*> words;  // per row block, k step: a0..a3
  int steps = 0;
  std::vector<llvm::Value*> at(int block, int64_t step) const {
    auto first = words.begin() + 4 * (block * steps + step);
    return {first, first + 4};
  }
};

std::optional<RegisterA> registerA(KernelLowering& lowering, const Operation& op, const WgmmaPlan& plan) {
  if (plan.a.elementBytes != 2) return std::nullopt;  // the fragment of 16-bit elements
  const LinearLayout* assigned = lowering.layoutOf(op.operand(0));
  const LinearLayout fragment = registerAFragment(plan);
  if (!assigned || assigned->dimBases(kLaneDim) != fragment.dimBases(kLaneDim) ||
      assigned->dimBases(kWarpDim) != fragment.dimBases(kWarpDim))
    return std::nullopt;
  const std::optional<std::vector<int>> wordRegisters = registerAWords(plan);
  if (!wordRegisters) return std::nullopt;
  const std::vector<llvm::Value*> registers = lowering.in(op.operand(0), &fragment);
  TensorCorePlan halves;
  halves.wordBits = 1;
  OperandWords words(lowering.builder, halves, registers);
  RegisterA result;
  result.steps = static_cast<int>(plan.depth / plan.k);
  for (int reg : *wordRegisters) result.words.push_back(words.at(reg));
  return result;
}

// wgmma (layout/WgmmaLayouts.h): a and b stored into one shared buffer in their NVMMA layouts (unless a
// pipelined loop has already copied them there: KernelLowering::sharedOperands), then each warpgroup issues, for
// each of its row blocks, the k steps in order (acc = wgmma(a_kt, b_kt, acc)), commits them as one group and
// waits for it.
void lowerDotWgmma(KernelLowering& lowering, const Operation& op, const WgmmaPlan& plan, const LinearLayout& accLayout) {
  Builder& b = lowering.builder;
  // A zero accumulator (attention's q k^T) is not materialised: each row block's first instruction ignores it.
  const bool zeroAccumulator = isZeroConstant(op.operand(2));
  std::vector<llvm::Value*> acc;
  if (zeroAccumulator) acc.assign(static_cast<size_t>(numRegisters(accLayout)), llvm::UndefValue::get(b.getFloatTy()));
  else acc = lowering.in(op.operand(2), &accLayout);
  if (!zeroAccumulator && op.result()->type.element().scalarKind() == ScalarKind::F16)
    for (llvm::Value*& value : acc) value = b.CreateFPExt(value, b.getFloatTy());

  auto staged = [&](const Value* operand) -> llvm::Value* {
    auto found = lowering.sharedOperands.find(operand);
    return found == lowering.sharedOperands.end() ? nullptr : found->second.base;
  };
  llvm::Value* aBase = staged(op.operand(0));
  llvm::Value* bBase = staged(op.operand(1));
  const std::optional<RegisterA> aRegisters = aBase ? std::nullopt : registerA(lowering, op, plan);
  const bool storeA = !aBase && !aRegisters;
  if (storeA || !bBase) {  // the operands in registers: stored into one buffer
    const int64_t aBytes = storeA ? (plan.a.bytes() + 1023) / 1024 * 1024 : 0, bBytes = bBase ? 0 : plan.b.bytes();
    KernelLowering::SharedBuffer buffer = lowering.sharedBuffer(aBytes + bBytes, &op, "the operands of a wgmma dot", 1024);
    lowering.beforeSharedWrite(buffer.range);
    auto store = [&](int which, llvm::Value* base) {
      storeWgmmaOperand(lowering, op.operand(static_cast<size_t>(which)), wgmmaOperandPlacement(plan, which), base);
      return base;
    };
    if (storeA) aBase = store(0, buffer.base);
    if (!bBase) bBase = store(1, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), buffer.base, static_cast<uint64_t>(aBytes)));
    ptx::fenceProxyAsyncShared(b);  // the stores, visible to wgmma's reads (the async proxy)
    lowering.beforeSharedRead(buffer.range);
  }

  // Descriptor address fields: (address >> 4) & 0x3FFF; each instruction adds its operand's start >> 4.
  auto addressField = [&](llvm::Value* base) {
    llvm::Value* address = b.CreatePtrToInt(base, b.getInt32Ty());
    return b.CreateZExt(b.CreateAnd(b.CreateLShr(address, 4), 0x3FFF), b.getInt64Ty());
  };
  // Warpgroup g's rows start at 64 g: a's descriptor moves by 64 g rows of a.
  llvm::Value* warpgroupRows = b.CreateZExt(b.CreateMul(b.CreateLShr(lowering.warpId(), 2), b.getInt32(static_cast<uint32_t>(plan.a.startOffset(64, 0) >> 4))), b.getInt64Ty());
  llvm::Value* aDescriptor =
      aRegisters ? nullptr : b.CreateOr(b.getInt64(plan.a.descriptorBits()), b.CreateAdd(addressField(aBase), warpgroupRows));
  llvm::Value* bDescriptor = b.CreateOr(b.getInt64(plan.b.descriptorBits()), addressField(bBase));

  ptx::wgmmaFence(b);
  const std::string shape = wgmmaShape(plan);
  std::vector<llvm::Value*> inFlight;
  for (int block = 0; block < plan.rowBlocks(); ++block) {
    std::vector<llvm::Value*> d;
    for (int reg : plan.instructionRegisters[static_cast<size_t>(block)]) d.push_back(acc[static_cast<size_t>(reg)]);
    const int64_t row = 16 * plan.numWarps * block;
    for (int64_t k = 0; k < plan.depth; k += plan.k) {
      llvm::Value* bAt = b.CreateAdd(bDescriptor, b.getInt64(plan.bStartOffset(k) >> 4));
      const bool accumulate = k > 0 || !zeroAccumulator;
      if (aRegisters) {
        d = ptx::wgmmaMmaAsyncRegisterA(b, shape, plan.types, d, aRegisters->at(block, k / plan.k), bAt, !plan.bKMajor, accumulate);
        continue;
      }
      llvm::Value* a = b.CreateAdd(aDescriptor, b.getInt64(plan.a.startOffset(row, k) >> 4));
      d = ptx::wgmmaMmaAsync(b, shape, plan.types, d, a, bAt, /*transposeB=*/!plan.bKMajor, accumulate);
    }
    inFlight.insert(inFlight.end(), d.begin(), d.end());
  }
  ptx::wgmmaCommitGroup(b);
  // A loop's accumulating dot leaves its group in flight: only the next iteration's wgmma reads the registers,
  // and the next shared-memory access (that iteration's operand stores) or the loop's exit waits for it.
  const bool deferred = lowering.deferredWgmmaDot == &op;
  const std::vector<llvm::Value*> done = deferred ? inFlight : ptx::wgmmaWaitGroup(b, 0, inFlight);
  lowering.wgmmaInFlight = deferred;
  size_t next = 0;
  for (const std::vector<int>& registers : plan.instructionRegisters)
    for (int reg : registers) acc[static_cast<size_t>(reg)] = done[next++];
  finishTensorCoreDot(lowering, op, std::move(acc), accLayout);
}

// The wgmma plan of `op` when the options choose wgmma and the dot allows it (layout/WgmmaLayouts.h).
std::optional<WgmmaPlan> chosenWgmmaPlan(const KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan) {
  if (!usesWgmma(lowering.options.tensorCores, lowering.options.sm)) return std::nullopt;
  // b K-major where its registers run along K (WgmmaLayouts.h).
  const LinearLayout* bLayout = lowering.layoutOf(op.operand(1));
  const bool bKMajor = bLayout && registerRun(*bLayout).dim == 0 && registerRun(*bLayout).elements > 1;
  return wgmmaPlan(op, accumulatorLayout(lowering, op, plan), lowering.options.numWarps, lowering.sharedLimit(), bKMajor);
}

}  // namespace

void storeWgmmaOperand(KernelLowering& lowering, const Value* operand, SharedPlacement placement, llvm::Value* base) {
  const Lowered& source = lowering.get(operand);
  TILESIM_ASSERT(source.layout, "wgmma operand without a layout");
  const int elementBytes = storageBytes(operand->type.element().scalarKind());
  placement.storeVectorBits = log2Ceil(contiguousVectorElements(*source.layout, placement, 16 / elementBytes));
  storeToShared(lowering, source, placement, base, operand->type.element());
}

PinnedOperands pinInvariantWgmmaOperands(KernelLowering& lowering, const Block& body) {
  PinnedOperands pinned;
  if (lowering.options.numStages < 2) return pinned;
  struct Pin {
    const Value* value;
    int64_t bytes;
    SharedPlacement placement;
    int64_t offset;
  };
  std::vector<Pin> pins;
  int64_t bytes = 0;
  for (const auto& op : body.operations) {
    const std::optional<WgmmaPlan> plan = wgmmaPlanFor(lowering, *op);
    for (size_t i = 0; plan && i < 2; ++i) {
      const Value* operand = op->operand(i);
      // Defined before the loop: the body's ops see values of the body or from outside the loop only.
      const bool invariant = operand->definingOp ? operand->definingOp->parentBlock != &body : operand->ownerBlock != &body;
      const bool known = lowering.sharedOperands.count(operand) ||
                         std::any_of(pins.begin(), pins.end(), [&](const Pin& pin) { return pin.value == operand; });
      if (!invariant || known) continue;
      pins.push_back({operand, (i == 0 ? plan->a : plan->b).bytes(), wgmmaOperandPlacement(*plan, static_cast<int>(i)), bytes});
      bytes += (pins.back().bytes + 1023) / 1024 * 1024;
    }
  }
  if (pins.empty()) return pinned;
  lowering.waitForWgmma();
  const std::optional<KernelLowering::SharedBuffer> buffer = lowering.reserveShared(bytes, 1024);
  if (!buffer) return pinned;
  lowering.pipelinedLoops = true;
  llvm::IRBuilder<>& b = lowering.builder;
  for (const Pin& pin : pins) {
    llvm::Value* base = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), buffer->base, static_cast<uint64_t>(pin.offset));
    storeWgmmaOperand(lowering, pin.value, pin.placement, base);
    lowering.sharedOperands[pin.value] = {base, pin.placement};
    pinned.values.push_back(pin.value);
  }
  ptx::fenceProxyAsyncShared(b);  // the stores, visible to wgmma's reads (the async proxy)
  lowering.barrier();
  pinned.range = buffer->range;
  return pinned;
}

void unpinWgmmaOperands(KernelLowering& lowering, const PinnedOperands& pinned) {
  for (const Value* value : pinned.values) lowering.sharedOperands.erase(value);
  if (pinned.range) lowering.releaseShared(*pinned.range);
}

std::optional<WgmmaPlan> wgmmaPlanFor(const KernelLowering& lowering, const Operation& dot) {
  if (dot.kind != OpKind::TTDot) return std::nullopt;
  const std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, dot);
  return plan ? chosenWgmmaPlan(lowering, dot, *plan) : std::nullopt;
}

namespace {

void lowerDot(KernelLowering& lowering, const Operation& op) {
  if (std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, op)) {
    if (std::optional<WgmmaPlan> wgmma = chosenWgmmaPlan(lowering, op, *plan))
      return lowerDotWgmma(lowering, op, *wgmma, accumulatorLayout(lowering, op, *plan));
    return lowerDotTensorCore(lowering, op, *plan);
  }
  Builder& b = lowering.builder;
  const Value* a = op.operand(0);
  const Value* bOperand = op.operand(1);
  const Value* c = op.operand(2);
  std::span<const int64_t> aShape = a->type.shape(), bShape = bOperand->type.shape();
  const int rank = static_cast<int>(aShape.size());
  if (rank != 2 && rank != 3) lowering.unsupported(op, "of rank " + std::to_string(rank));
  const int64_t rows = aShape[static_cast<size_t>(rank - 2)], depth = aShape[static_cast<size_t>(rank - 1)],
                columns = bShape[static_cast<size_t>(rank - 1)];
  const int rowBits = log2Ceil(rows), depthBits = log2Ceil(depth), columnBits = log2Ceil(columns);
  const ScalarKind aKind = a->type.element().scalarKind(), bKind = bOperand->type.element().scalarKind();
  const ScalarKind resultKind = op.result()->type.element().scalarKind();
  const bool integer = aKind == ScalarKind::I8;
  const bool halfResult = resultKind == ScalarKind::F16;
  if ((integer && resultKind != ScalarKind::I32) || (!integer && !a->type.element().isFloat()))
    lowering.unsupported(op, "on " + a->type.str() + " -> " + op.result()->type.str());
  const bool truncateTf32 = aKind == ScalarKind::F32 && DotView{op}.inputPrecision() == InputPrecision::TF32;
  llvm::Type* accType = integer ? b.getInt32Ty() : aKind == ScalarKind::F64 ? b.getDoubleTy() : b.getFloatTy();
  llvm::Type* resultType = lowering.scalarType(op, op.result()->type);

  SharedStage stage(lowering, op);
  llvm::Value* aBase = stage.add(a, a->type.numElements());
  llvm::Value* bBase = stage.add(bOperand, bOperand->type.numElements());
  llvm::Type* aSlot = lowering.storageType(op, a->type), *bSlot = lowering.storageType(op, bOperand->type);
  const LinearLayout* layout = lowering.layoutOf(op.result());
  std::vector<llvm::Value*> initial = lowering.in(c, layout);
  stage.storeAll();

  // The operand value as the accumulator's type (exact for every input kind).
  auto operand = [&](llvm::Value* v, ScalarKind kind) -> llvm::Value* {
    switch (kind) {
      case ScalarKind::I8: return b.CreateSExt(v, b.getInt32Ty());
      case ScalarKind::F16:
      case ScalarKind::BF16: return b.CreateFPExt(v, b.getFloatTy());
      case ScalarKind::F8E4M3FN: return fp8ToFloat(b, v, false);
      case ScalarKind::F8E5M2: return fp8ToFloat(b, v, true);
      case ScalarKind::F32: {
        if (!truncateTf32) return v;
        llvm::Value* bits = b.CreateBitCast(v, b.getInt32Ty());
        llvm::Value* special = b.CreateICmpEQ(b.CreateAnd(bits, 0x7F800000), b.getInt32(0x7F800000));
        return b.CreateBitCast(b.CreateSelect(special, bits, b.CreateAnd(bits, 0xFFFFE000)), b.getFloatTy());
      }
      case ScalarKind::F64: return v;
      default: lowering.unsupported(op, "on " + a->type.str());
    }
  };

  const int count = numRegisters(*layout);
  std::vector<llvm::Value*> aRow, bColumn;  // slot of a[m][0] and b[0][n] of each result register
  for (int r = 0; r < count; ++r) {
    llvm::Value* index = lowering.elementIndex(*layout, r);
    llvm::Value* column = b.CreateAnd(index, b.getInt32(static_cast<uint32_t>(columns - 1)));
    llvm::Value* row = b.CreateAnd(b.CreateLShr(index, static_cast<uint64_t>(columnBits)), b.getInt32(static_cast<uint32_t>(rows - 1)));
    llvm::Value* batch = b.CreateLShr(index, static_cast<uint64_t>(columnBits + rowBits));
    aRow.push_back(b.CreateShl(b.CreateOr(b.CreateShl(batch, static_cast<uint64_t>(rowBits)), row), static_cast<uint64_t>(depthBits)));
    bColumn.push_back(b.CreateOr(b.CreateShl(batch, static_cast<uint64_t>(depthBits + columnBits)), column));
  }

  if (halfResult)
    for (llvm::Value*& start : initial) start = b.CreateFPExt(start, accType);
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(lowering.context, "dot.k", lowering.function);
  auto* exit = llvm::BasicBlock::Create(lowering.context, "dot.done", lowering.function);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* k = b.CreatePHI(b.getInt32Ty(), 2, "k");
  k->addIncoming(b.getInt32(0), preheader);
  std::vector<llvm::PHINode*> accumulators;
  for (int r = 0; r < count; ++r) {
    llvm::PHINode* phi = b.CreatePHI(accType, 2);
    llvm::Value* start = initial[static_cast<size_t>(r)];
    phi->addIncoming(start, preheader);
    accumulators.push_back(phi);
  }
  llvm::Value* bOffset = b.CreateShl(k, static_cast<uint64_t>(columnBits));
  std::vector<llvm::Value*> next;
  for (int r = 0; r < count; ++r) {
    llvm::Value* x = operand(b.CreateLoad(aSlot, stage.slot(aBase, aSlot, b.CreateOr(aRow[static_cast<size_t>(r)], k))), aKind);
    llvm::Value* y = operand(b.CreateLoad(bSlot, stage.slot(bBase, bSlot, b.CreateOr(bColumn[static_cast<size_t>(r)], bOffset))), bKind);
    llvm::Value* acc = accumulators[static_cast<size_t>(r)];
    next.push_back(integer ? b.CreateAdd(b.CreateMul(x, y), acc)
                           : b.CreateIntrinsic(llvm::Intrinsic::fma, {accType}, {x, y, acc}));
  }
  llvm::Value* advanced = b.CreateAdd(k, b.getInt32(1));
  k->addIncoming(advanced, loop);
  for (int r = 0; r < count; ++r) accumulators[static_cast<size_t>(r)]->addIncoming(next[static_cast<size_t>(r)], loop);
  b.CreateCondBr(b.CreateICmpULT(advanced, b.getInt32(static_cast<uint32_t>(depth))), loop, exit);

  b.SetInsertPoint(exit);
  Lowered lowered;
  lowered.layout = *layout;
  for (llvm::Value* value : next) lowered.regs.push_back(halfResult ? b.CreateFPTrunc(value, resultType) : value);
  lowering.set(op.result(), std::move(lowered));
}

}  // namespace

const Operation* wgmmaCarriedAccumulator(const KernelLowering& lowering, const Operation& loop, size_t* carriedIndex) {
  if (loop.kind != OpKind::SCFFor || loop.regions.empty() || loop.region(0).empty()) return nullptr;
  const Block& body = loop.region(0).front();
  const Operation* yield = body.terminator();
  if (!yield || yield->kind != OpKind::SCFYield) return nullptr;
  auto usesOf = [&](const Value* value) {
    int uses = 0;
    walk(body, [&](const Operation& user) { uses += static_cast<int>(std::count(user.operands.begin(), user.operands.end(), value)); });
    return uses;
  };
  for (const auto& op : body.operations) {
    if (op->kind != OpKind::TTDot || op->result()->type.element().scalarKind() != ScalarKind::F32) continue;
    const std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, *op);
    if (!plan || !chosenWgmmaPlan(lowering, *op, *plan)) continue;
    const Value* accumulator = op->operand(2);
    if (accumulator->ownerBlock != &body || accumulator->index == 0) continue;  // a carried value, not the iv
    const size_t carried = accumulator->index - 1;
    if (carried >= yield->numOperands() || yield->operand(carried) != op->result() || usesOf(accumulator) != 1 ||
        usesOf(op->result()) != 1)
      continue;
    const LinearLayout layout = accumulatorLayout(lowering, *op, *plan);
    const LinearLayout *resultLayout = lowering.layoutOf(op->result()), *carriedLayout = lowering.layoutOf(accumulator);
    if (!resultLayout || !carriedLayout || *resultLayout != layout || *carriedLayout != layout) continue;
    *carriedIndex = carried;
    return op.get();
  }
  return nullptr;
}

std::optional<std::array<LinearLayout, 2>> tensorCoreOperandLayouts(const KernelLowering& lowering, const Operation& dot) {
  const std::optional<TensorCorePlan> plan = tensorCorePlan(lowering, dot);
  if (!plan || chosenWgmmaPlan(lowering, dot, *plan)) return std::nullopt;  // wgmma reads them from shared memory
  std::span<const int64_t> resultShape = dot.result()->type.shape();
  const int64_t depth = dot.operand(0)->type.shape()[resultShape.size() - 1];
  const int warps = lowering.options.numWarps;
  return std::array<LinearLayout, 2>{mmaLayout(MmaOperand::A, resultShape, depth, plan->wordBits, warps),
                                     mmaLayout(MmaOperand::B, resultShape, depth, plan->wordBits, warps)};
}

void lowerDotOp(KernelLowering& lowering, const Operation& op) {
  switch (familyOp<DotOp>(op.kind)) {
    case DotOp::TTDot: return lowerDot(lowering, op);
  }
}

}  // namespace tilesim::gpu

// The kernel function, its values and the one dispatch over OpKind. Every op kind is named here: lowered by a
// family file, handled by its parent op (terminators), or listed as not supported yet — there is no default,
// so a new op in ir/Ops.def does not compile until this switch places it.
#include <fmt/format.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <bit>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {

KernelLowering::KernelLowering(llvm::Module& module, const Function& kernel, const LayoutAssignment& layouts,
                               const CompileOptions& options)
    : builder(module.getContext()), context(module.getContext()), module(module), options(options), kernel_(kernel),
      layouts_(layouts) {}

int KernelLowering::registerCount(const LinearLayout* layout) { return layout ? numRegisters(*layout) : 1; }

void KernelLowering::unsupported(const Operation& op, const std::string& detail) const {
  std::string message = fmt::format("the GPU engine does not support {}{} yet ({}:{})", op.name(),
                                    detail.empty() ? "" : " " + detail, op.textPos.line, op.textPos.column);
  throw LoweringFailure{Diagnostic{op.textPos, message}};
}

llvm::Type* KernelLowering::scalarType(const Operation& op, Type type) {
  Type element = type.element();
  if (element.isPointer()) {
    if (!element.pointee().isScalar()) unsupported(op, "on block pointers");
    return llvm::PointerType::get(context, 1);
  }
  switch (element.scalarKind()) {
    case ScalarKind::I1: return builder.getInt1Ty();
    case ScalarKind::I8: return builder.getInt8Ty();
    case ScalarKind::I16: return builder.getInt16Ty();
    case ScalarKind::I32: return builder.getInt32Ty();
    case ScalarKind::I64: return builder.getInt64Ty();
    case ScalarKind::F16: return builder.getHalfTy();
    case ScalarKind::BF16: return builder.getBFloatTy();
    case ScalarKind::F32: return builder.getFloatTy();
    case ScalarKind::F64: return builder.getDoubleTy();
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2: return builder.getInt8Ty();  // bit patterns (Fp8.cpp)
  }
  TILESIM_UNREACHABLE("scalar kind");
}

llvm::Type* KernelLowering::storageType(const Operation& op, Type type) {
  llvm::Type* scalar = scalarType(op, type);
  return scalar->isIntegerTy(1) ? builder.getInt8Ty() : scalar;
}

const Lowered& KernelLowering::get(const Value* value) const {
  auto found = values_.find(value);
  TILESIM_ASSERT(found != values_.end(), "gpu lowering: value used before it was lowered");
  return found->second;
}

void KernelLowering::set(const Value* value, Lowered lowered) { values_.insert_or_assign(value, std::move(lowered)); }

std::vector<llvm::Value*> KernelLowering::in(const Value* value, const LinearLayout* layout) {
  const Lowered& lowered = get(value);
  if (!layout) {
    TILESIM_ASSERT(!lowered.layout, "gpu lowering: a tensor where a scalar is wanted");
    return lowered.regs;
  }
  if (!lowered.layout) return std::vector<llvm::Value*>(static_cast<size_t>(numRegisters(*layout)), lowered.regs[0]);
  if (*lowered.layout == *layout) return lowered.regs;
  int budget = kRematerializeBudget;
  if (std::optional<std::vector<llvm::Value*>> again = rematerialize(value, *layout, budget)) return *again;
  return convertLayout(*this, get(value), *layout, value->type.element(), value->definingOp);
}

// Thread-invariant values (the thread's id and its XOR parts) are computed once, in the entry block, which
// dominates every use: a conversion or memory op asks for them once per register, and recomputing them there
// gave LLVM thousands of redundant instructions to clean up (golden/matmul_f16: 430 tid reads).
llvm::IRBuilder<> KernelLowering::prologueBuilder() {
  return llvm::IRBuilder<>(prologue_->getTerminator());
}

llvm::Value* KernelLowering::threadId() {
  if (!threadId_) threadId_ = prologueBuilder().CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  return threadId_;
}
llvm::Value* KernelLowering::laneId() {
  if (!laneId_) laneId_ = prologueBuilder().CreateAnd(threadId(), kLanesPerWarp - 1);
  return laneId_;
}
llvm::Value* KernelLowering::warpId() {
  if (!warpId_) warpId_ = prologueBuilder().CreateLShr(threadId(), 5);
  return warpId_;
}

namespace {

// `a | b` for values with no set bit in common, marked `disjoint` (an add the optimiser may fold into others).
llvm::Value* disjointOr(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) {
  llvm::Value* result = b.CreateOr(x, y);
  if (auto* disjoint = llvm::dyn_cast<llvm::PossiblyDisjointInst>(result)) disjoint->setIsDisjoint(true);
  return result;
}

}  // namespace

llvm::Value* KernelLowering::threadXor(const std::vector<uint64_t>& laneValues, const std::vector<uint64_t>& warpValues) {
  std::vector<uint64_t> key = laneValues;
  key.push_back(~uint64_t{0});  // separator
  key.insert(key.end(), warpValues.begin(), warpValues.end());
  if (auto found = threadXors_.find(key); found != threadXors_.end()) return found->second;
  llvm::IRBuilder<> b = prologueBuilder();
  llvm::Value* part = nullptr;
  uint64_t partBits = 0;  // the bits `part` may have set
  // Bit i of `id` times values[i], XORed in: a shift of the bit where the value is one bit (most are), which the
  // optimiser's known-bits queries see through cheaply, and an OR where the bits are disjoint from the others.
  auto addBits = [&](const std::vector<uint64_t>& values, llvm::Value* id) {
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t value = values[i];
      if (value == 0) continue;
      llvm::Value* term;
      if (std::has_single_bit(value)) {
        const int to = std::countr_zero(value), from = static_cast<int>(i);
        llvm::Value* bit = b.CreateAnd(id, b.getInt32(uint32_t{1} << from));
        term = to >= from ? b.CreateShl(bit, static_cast<uint64_t>(to - from), "", /*HasNUW=*/true)
                          : b.CreateLShr(bit, static_cast<uint64_t>(from - to), "", true);
      } else {
        llvm::Value* bit = b.CreateAnd(b.CreateLShr(id, static_cast<uint64_t>(i)), 1);
        term = b.CreateMul(bit, b.getInt32(static_cast<uint32_t>(value)), "", /*HasNUW=*/true);
      }
      if (!part) part = term;
      else if ((partBits & value) != 0) part = b.CreateXor(part, term);
      else part = disjointOr(b, part, term);
      partBits |= value;
    }
  };
  addBits(laneValues, laneId());
  addBits(warpValues, warpId());
  if (!part) part = b.getInt32(0);
  threadXors_.emplace(std::move(key), part);
  return part;
}

llvm::Value* KernelLowering::threadPart(const LinearLayout& layout) {
  return threadXor(layout.dimBases(kLaneDim), layout.dimBases(kWarpDim));
}

llvm::Value* KernelLowering::elementIndex(const LinearLayout& layout, int reg) {
  const uint64_t own = registerElement(layout, reg);
  llvm::Value* part = threadPart(layout);
  if (own == 0) return part;
  uint64_t threadBits = 0;  // the bits the thread part may set
  for (std::string_view dim : {kLaneDim, kWarpDim})
    for (uint64_t basis : layout.dimBases(dim)) threadBits |= basis;
  llvm::Value* constant = builder.getInt32(static_cast<uint32_t>(own));
  if (own & threadBits) return builder.CreateXor(part, constant);
  return disjointOr(builder, part, constant);  // disjoint bits: the add the optimiser can fold into others
}

llvm::GlobalVariable* KernelLowering::sharedGlobal() {
  if (!shared_) {
    llvm::Type* type = llvm::ArrayType::get(builder.getInt8Ty(), 0);
    shared_ = new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                       "tilesim_shared", nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    shared_->setAlignment(llvm::Align(16));
  }
  return shared_;
}

SharedRange KernelLowering::placeShared(int64_t bytes, const Operation* op, const std::string& what) {
  if (bytes > SharedMemoryPlan::kMaxBytes) {
    TILESIM_ASSERT(op, "a shared-memory buffer without an op");
    unsupported(*op, fmt::format("on {} that needs {} bytes of shared memory", what, bytes));
  }
  sharedGlobal();
  return sharedPlan_.place(bytes);
}

KernelLowering::SharedBuffer KernelLowering::sharedBuffer(int64_t bytes, const Operation* op, const std::string& what) {
  SharedBuffer buffer;
  buffer.range = placeShared(bytes, op, what);
  buffer.base = builder.CreateGEP(builder.getInt8Ty(), sharedGlobal(), builder.getInt64(static_cast<uint64_t>(buffer.range.offset)));
  return buffer;
}

void KernelLowering::beforeSharedWrite(const SharedRange& range) {
  if (sharedPlan_.writeNeedsBarrier(range)) barrier();
  sharedPlan_.recordWrite(range);
}

void KernelLowering::beforeSharedRead(const SharedRange& range) {
  if (sharedPlan_.readNeedsBarrier(range)) barrier();
  sharedPlan_.recordRead(range);
}

void KernelLowering::barrier() {
  builder.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  sharedPlan_.barrier();
}

namespace {

// A block that control flow may enter from elsewhere than straight-line code before it (a loop body, a branch,
// one block of several): shared-memory hazards are not tracked across its edges (SharedMemory.h).
bool entersByControlFlow(const Block& block) {
  const Region* region = block.parentRegion;
  if (!region || !region->parentOp) return false;
  switch (region->parentOp->kind) {
    case OpKind::SCFFor:
    case OpKind::SCFIf:
    case OpKind::SCFWhile: return true;
    default: return region->blocks.size() > 1;
  }
}

}  // namespace

// A control-flow region's shared-memory state is settled after what its parent does with the terminator (the
// yielded values' layout conversions run in the region too): at the next op, block or region.
void KernelLowering::settleRegion() {
  if (!regionBefore_) return;
  sharedPlan_.leave(*regionBefore_);
  regionBefore_.reset();
}

const Operation* KernelLowering::lowerBlockBody(const Block& block) {
  settleRegion();
  std::optional<SharedMemoryPlan::State> before;
  if (entersByControlFlow(block)) before = sharedPlan_.enter();
  const Operation* terminator = nullptr;
  for (const auto& op : block.operations) {
    if (hasTrait(op->kind, kTerminator)) {
      terminator = op.get();
      break;
    }
    lowerOp(*op);
  }
  settleRegion();
  regionBefore_ = std::move(before);
  return terminator;
}

std::vector<llvm::Value*> KernelLowering::inlineRegion(const Block& block, const std::vector<llvm::Value*>& arguments) {
  TILESIM_ASSERT(block.arguments.size() == arguments.size(), "gpu lowering: region argument count");
  for (size_t i = 0; i < arguments.size(); ++i) set(block.argument(i), Lowered{{arguments[i]}, std::nullopt});
  const Operation* terminator = lowerBlockBody(block);
  TILESIM_ASSERT(terminator, "gpu lowering: region without terminator");
  std::vector<llvm::Value*> results;
  for (const Value* operand : terminator->operands) results.push_back(in(operand, nullptr)[0]);
  return results;
}

void KernelLowering::lowerOp(const Operation& op) {
  settleRegion();
  switch (op.kind) {
    case OpKind::ArithAddI:
    case OpKind::ArithSubI:
    case OpKind::ArithMulI:
    case OpKind::ArithDivSI:
    case OpKind::ArithDivUI:
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
    case OpKind::ArithAndI:
    case OpKind::ArithOrI:
    case OpKind::ArithXOrI:
    case OpKind::ArithShLI:
    case OpKind::ArithShRSI:
    case OpKind::ArithShRUI:
    case OpKind::ArithMaxSI:
    case OpKind::ArithMinSI:
    case OpKind::ArithMaxUI:
    case OpKind::ArithMinUI:
    case OpKind::ArithCmpI:
    case OpKind::ArithSelect:
    case OpKind::MathAbsI:
    case OpKind::TTMulhiUI: return lowerIntegerOp(*this, op);

    case OpKind::ArithAddF:
    case OpKind::ArithSubF:
    case OpKind::ArithMulF:
    case OpKind::ArithDivF:
    case OpKind::ArithRemF:
    case OpKind::ArithNegF:
    case OpKind::ArithMaxNumF:
    case OpKind::ArithMinNumF:
    case OpKind::ArithMaximumF:
    case OpKind::ArithMinimumF:
    case OpKind::ArithCmpF:
    case OpKind::MathSqrt:
    case OpKind::MathFloor:
    case OpKind::MathCeil:
    case OpKind::MathAbsF:
    case OpKind::MathFma:
    case OpKind::TTPreciseDivF:
    case OpKind::TTPreciseSqrt:
    case OpKind::TTClampF:
    case OpKind::MathExp:    // triton profile: ex2.approx; exact: ExactMath.cpp
    case OpKind::MathExp2:
    case OpKind::MathRsqrt:  // triton profile: rsqrt.approx; exact: ExactMath.cpp
    case OpKind::MathLog:    // ExactMath.cpp in both profiles
    case OpKind::MathLog2:
    case OpKind::MathErf:    // exact: ExactMath.cpp; triton profile: libdevice __nv_erff / sinf / cosf
    case OpKind::MathSin:
    case OpKind::MathCos:
      return lowerFloatOp(*this, op);

    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI:
    case OpKind::ArithTruncI:
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP:
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI:
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
    case OpKind::ArithBitcast:
    case OpKind::TTBitcast:
    case OpKind::TTFpToFp: return lowerCastOp(*this, op);

    case OpKind::ArithConstant:
    case OpKind::TTGetProgramId:
    case OpKind::TTGetNumPrograms:
    case OpKind::TTMakeRange:
    case OpKind::TTSplat:
    case OpKind::TTUnsplat:
    case OpKind::TTBroadcast:
    case OpKind::TTExpandDims:
    case OpKind::TTReshape:
    case OpKind::TTTrans: return lowerMovementOp(*this, op);

    case OpKind::TTLoad:
    case OpKind::TTStore:
      if (op.operand(0)->type.isBlockPointer()) return lowerBlockPointerOp(*this, op);
      return lowerMemoryOp(*this, op);
    case OpKind::TTAddPtr: return lowerMemoryOp(*this, op);
    case OpKind::TTMakeTensorPtr:
    case OpKind::TTAdvance: return lowerBlockPointerOp(*this, op);
    case OpKind::TTMakeTensorDescriptor:  // predicated global accesses, no TMA (Descriptors.cpp)
    case OpKind::TTDescriptorLoad:
    case OpKind::TTDescriptorStore:
    case OpKind::TTDescriptorGather:
    case OpKind::TTDescriptorScatter: return lowerDescriptorOp(*this, op);

    case OpKind::SCFFor:
    case OpKind::SCFIf:
    case OpKind::SCFWhile: return lowerControlFlowOp(*this, op);

    case OpKind::GPUBarrier: return barrier();  // tl.debug_barrier: bar.sync 0 (scalar control flow is uniform)

    case OpKind::TTAtomicRMW:
    case OpKind::TTAtomicCAS: return lowerAtomicOp(*this, op);

    case OpKind::TTJoin:
    case OpKind::TTSplit:
    case OpKind::TTCat:
    case OpKind::TTGather:
    case OpKind::TTHistogram: return lowerShapeOp(*this, op);
    case OpKind::TTDot: return lowerDot(*this, op);
    case OpKind::TTCall: return lowerCall(*this, op);
    case OpKind::UBPoison: {  // any value is a poison's; the interpreter marks the lanes undefined and holds 0
      const LinearLayout* layout = layoutOf(op.result());
      Lowered lowered{std::vector<llvm::Value*>(static_cast<size_t>(registerCount(layout)),
                                                llvm::Constant::getNullValue(scalarType(op, op.result()->type))),
                      std::nullopt};
      if (layout) lowered.layout = *layout;
      return set(op.result(), std::move(lowered));
    }
    case OpKind::TTIntToPtr:  // device addresses: the integers are the GPU's, not the interpreter's
    case OpKind::TTPtrToInt:
      return lowerElementwise(*this, op, [&](auto& v) -> llvm::Value* {
        llvm::Type* target = scalarType(op, op.result()->type);
        return op.kind == OpKind::TTIntToPtr ? builder.CreateIntToPtr(builder.CreateSExtOrTrunc(v[0], builder.getInt64Ty()), target)
                                             : builder.CreateZExtOrTrunc(builder.CreatePtrToInt(v[0], builder.getInt64Ty()), target);
      });
    case OpKind::TTAssert: return lowerAssert(*this, op);
    case OpKind::LLVMAssume: return lowerAssume(*this, op);
    case OpKind::TTPrint: return lowerPrint(*this, op);
    case OpKind::TTExternElementwise: return lowerExternElementwise(*this, op);
    case OpKind::TTElementwiseInlineAsm: return lowerInlineAsm(*this, op);

    case OpKind::TTReduce: return lowerReduce(*this, op);
    case OpKind::TTScan: return lowerScan(*this, op);

    // Terminators: their parent op reads them (lowerBlockBody stops there).
    case OpKind::SCFYield:
    case OpKind::TTReduceReturn:
    case OpKind::TTReturn:
    case OpKind::TTScanReturn:
    case OpKind::SCFCondition: TILESIM_UNREACHABLE("gpu lowering: terminator lowered as an op");

    case OpKind::TTFunc:     // not an op inside a kernel body
    case OpKind::CFBr:       // block terminators: Branches.cpp reads them (lowerBlockBody stops there)
    case OpKind::CFCondBr: unsupported(op);
  }
  TILESIM_UNREACHABLE("gpu lowering: op kind");
}

void KernelLowering::lower() {
  // A !tt.tensordesc parameter is two LLVM parameters: its base pointer and its padding (Descriptors.cpp).
  std::vector<llvm::Type*> parameters;
  for (size_t i = 0; i < kernel_.numArguments(); ++i) {
    Type type = kernel_.argument(i)->type;
    if (type.isPointer()) {
      parameters.push_back(llvm::PointerType::get(context, 1));
    } else if (type.isTensorDesc()) {
      parameters.push_back(llvm::PointerType::get(context, 1));
      parameters.push_back(builder.getInt32Ty());
    } else {
      llvm::Type* scalar = scalarType(*kernel_.op(), type);
      parameters.push_back(scalar->isIntegerTy(1) ? builder.getInt8Ty() : scalar);  // i1 travels as a byte
    }
  }
  auto* type = llvm::FunctionType::get(builder.getVoidTy(), parameters, false);
  function = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, kernel_.name(), module);
  function->setCallingConv(llvm::CallingConv::PTX_Kernel);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  prologue_ = llvm::BasicBlock::Create(context, "entry", function);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(context, "body", function);
  builder.SetInsertPoint(prologue_);
  builder.CreateBr(body);
  builder.SetInsertPoint(body);
  std::vector<std::pair<size_t, std::pair<llvm::Value*, llvm::Value*>>> descriptors;
  unsigned next = 0;
  for (size_t i = 0; i < kernel_.numArguments(); ++i) {
    llvm::Value* argument = function->getArg(next++);
    argument->setName(kernel_.argumentName(i));
    Type parameterType = kernel_.argument(i)->type;
    if (parameterType.isTensorDesc()) {
      llvm::Value* padding = function->getArg(next++);
      padding->setName(kernel_.argumentName(i) + ".padding");
      descriptors.push_back({i, {argument, padding}});
      continue;
    }
    if (parameterType.isScalar() && parameterType.scalarKind() == ScalarKind::I1)
      argument = builder.CreateICmpNE(argument, builder.getInt8(0));
    set(kernel_.argument(i), Lowered{{argument}, std::nullopt});
  }
  // Its shape (i32) and strides (i64) are the 2 x rank parameters after it (Triton 3.6's launcher).
  for (const auto& [index, fields] : descriptors) {
    const int rank = kernel_.argument(index)->type.descBlock().rank();
    std::vector<llvm::Value*> shape, strides;
    for (int d = 0; d < 2 * rank; ++d) {
      const size_t at = index + 1 + static_cast<size_t>(d);
      const Type expected = d < rank ? Type::i32() : Type::i64();
      if (at >= kernel_.numArguments() || kernel_.argument(at)->type != expected)
        unsupported(*kernel_.op(), "with a tensor descriptor parameter not followed by its " + std::to_string(rank) +
                                       " i32 shape and " + std::to_string(rank) + " i64 stride parameters");
      (d < rank ? shape : strides).push_back(get(kernel_.argument(at)).regs[0]);
    }
    set(kernel_.argument(index),
        Lowered{descriptorRegisters(*this, fields.first, fields.second, shape, strides), std::nullopt});
  }
  if (kernel_.op()->region(0).blocks.size() > 1) {
    lowerKernelCfg(*this, kernel_.op()->region(0));  // cf.br / cf.cond_br between blocks (Branches.cpp)
  } else {
    const Operation* terminator = lowerBlockBody(kernel_.body());
    if (!terminator || terminator->kind != OpKind::TTReturn || terminator->numOperands() != 0)
      unsupported(terminator ? *terminator : *kernel_.op(), "returning values from a kernel");
    builder.CreateRetVoid();
  }

  // Launch bounds: exactly 32 * num_warps threads (PTX .maxntid; GPU-BACKEND.md: misspelt keys are ignored).
  llvm::Metadata* annotation[] = {llvm::ValueAsMetadata::get(function), llvm::MDString::get(context, "maxntidx"),
                                  llvm::ValueAsMetadata::get(builder.getInt32(32 * layouts_.numWarps()))};
  module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(context, annotation));
}

}  // namespace tilesim::gpu

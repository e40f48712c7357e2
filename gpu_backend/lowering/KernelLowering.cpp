// The kernel function, its values, its blocks and the one dispatch over OpFamily (the interpreter's
// Executor.cpp): every family is named in lowerOp, lowered by its family file or, for the families the
// interpreter runs in Executor.cpp, here; no switch over an op enum has a default, so a new op in ir/Ops.def does
// not compile until the family that holds it handles it. The hardware side (thread indices, shared memory) is
// KernelHardware.cpp.
#include <fmt/format.h>
#include <llvm/ADT/APFloat.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {

KernelLowering::KernelLowering(llvm::Module& module, const Function& kernel, const LayoutAssignment& layouts,
                               const CompileOptions& options)
    : builder(module.getContext()), context(module.getContext()), module(module), options(options), kernel_(kernel),
      layouts_(layouts), sharedPlan_(sharedBytesPerBlock(options.sm)) {}

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
  for (const Hoisted& done : hoisted)
    if (done.value == value && done.layout == *layout) return done.regs;
  int budget = kRematerializeBudget;
  if (std::optional<std::vector<llvm::Value*>> again = rematerialize(value, *layout, budget)) return *again;
  return convertLayout(*this, get(value), *layout, value->type.element(), value->definingOp);
}

namespace {

// A block that control flow may enter from elsewhere than straight-line code before it (a loop body, a branch,
// one block of several): shared-memory hazards are not tracked across its edges (SharedMemory.h).
bool entersByControlFlow(const Block& block) {
  const Region* region = block.parentRegion;
  if (!region || !region->parentOp) return false;
  return opFamily(region->parentOp->kind) == OpFamily::ControlFlow || region->blocks.size() > 1;
}

}  // namespace

// A control-flow region's shared-memory state is settled after what its parent does with the terminator (the
// yielded values' layout conversions run in the region too): at the next op, block or region.
void KernelLowering::settleRegion() {
  if (!regionBefore_) return;
  sharedPlan_.leave(*regionBefore_);
  regionBefore_.reset();
}

const Operation* KernelLowering::lowerBlockBody(const Block& block, const std::unordered_set<const Operation*>* skip) {
  settleRegion();
  std::optional<SharedMemoryPlan::State> before;
  if (entersByControlFlow(block)) before = sharedPlan_.enter();
  const Operation* terminator = nullptr;
  for (const auto& op : block.operations) {
    if (hasTrait(op->kind, kTerminator)) {
      terminator = op.get();
      break;
    }
    if (!skip || !skip->count(op.get())) lowerOp(*op);
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

namespace {

using Builder = llvm::IRBuilder<>;

llvm::Constant* constantFromBits(llvm::Type* type, uint64_t bits) {
  if (type->isIntegerTy()) return llvm::ConstantInt::get(type, bits);
  const unsigned width = type->getPrimitiveSizeInBits();
  return llvm::ConstantFP::get(type->getContext(), llvm::APFloat(type->getFltSemantics(), llvm::APInt(width, bits)));
}

// A non-splat dense arith.constant: the values as a constant table in global memory (row-major), each register
// loading the element at its flat index (the element a register holds depends on the thread).
void lowerDenseConstant(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Attribute* value = ConstantView{op}.value();
  const Type type = op.result()->type;
  llvm::Type* element = lowering.storageType(op, type);
  llvm::Type* valueType = lowering.scalarType(op, type);
  const int64_t count = type.numElements();
  const unsigned width = static_cast<unsigned>(lowering.module.getDataLayout().getTypeSizeInBits(element));
  std::vector<llvm::Constant*> elements;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = value->denseBitsAt(i);
    if (width < 64) bits &= (uint64_t{1} << width) - 1;
    llvm::Constant* integer = llvm::ConstantInt::get(b.getIntNTy(width), bits);
    elements.push_back(element->isIntegerTy() ? integer : llvm::ConstantExpr::getBitCast(integer, element));
  }
  auto* arrayType = llvm::ArrayType::get(element, static_cast<uint64_t>(count));
  auto* table = new llvm::GlobalVariable(lowering.module, arrayType, true, llvm::GlobalValue::InternalLinkage,
                                         llvm::ConstantArray::get(arrayType, elements), "dense_constant", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 1);
  const LinearLayout* layout = lowering.layoutOf(op.result());
  Lowered lowered;
  lowered.layout = *layout;
  for (int r = 0; r < numRegisters(*layout); ++r) {
    llvm::Value* v = b.CreateLoad(element, b.CreateGEP(element, table, b.CreateZExt(lowering.elementIndex(*layout, r), b.getInt64Ty())));
    lowered.regs.push_back(valueType->isIntegerTy(1) ? b.CreateICmpNE(v, b.getInt8(0)) : v);
  }
  lowering.set(op.result(), std::move(lowered));
}

void lowerConstant(KernelLowering& lowering, const Operation& op) {
  const Attribute* value = ConstantView{op}.value();
  llvm::Type* type = lowering.scalarType(op, op.result()->type);
  uint64_t bits = 0;
  if (!value) lowering.unsupported(op, "without a value");
  switch (value->kind()) {
    case Attribute::Kind::Dense:
      if (!value->isSplat()) return lowerDenseConstant(lowering, op);  // a table in global memory
      bits = value->denseBitsAt(0);
      break;
    case Attribute::Kind::Integer:
    case Attribute::Kind::Bool: bits = static_cast<uint64_t>(value->intValue()); break;
    case Attribute::Kind::Float: bits = value->bits(); break;
    default: lowering.unsupported(op, "with this value attribute");
  }
  if (type->isIntegerTy()) bits &= type->getIntegerBitWidth() >= 64 ? ~uint64_t{0} : (uint64_t{1} << type->getIntegerBitWidth()) - 1;
  const LinearLayout* layout = lowering.layoutOf(op.result());
  Lowered result{std::vector<llvm::Value*>(static_cast<size_t>(KernelLowering::registerCount(layout)),
                                           constantFromBits(type, bits)),
                 layout ? std::optional<LinearLayout>(*layout) : std::nullopt};
  lowering.set(op.result(), std::move(result));
}

// The Constant family (ir/Ops.def; interpreter/Executor.cpp executeConstant).
void lowerConstantOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const LinearLayout* layout = lowering.layoutOf(op.result());
  switch (familyOp<ConstantOp>(op.kind)) {
    case ConstantOp::ArithConstant: return lowerConstant(lowering, op);
    case ConstantOp::TTMakeRange: {
      const int32_t start = static_cast<int32_t>(MakeRangeView{op}.start());
      std::vector<llvm::Value*> regs;
      for (int r = 0; r < numRegisters(*layout); ++r)
        regs.push_back(start == 0 ? lowering.elementIndex(*layout, r)
                                  : b.CreateAdd(b.getInt32(static_cast<uint32_t>(start)), lowering.elementIndex(*layout, r)));
      return lowering.set(op.result(), Lowered{std::move(regs), *layout});
    }
    case ConstantOp::UBPoison: {  // any value is a poison's; the interpreter marks the lanes undefined and holds 0
      Lowered lowered{std::vector<llvm::Value*>(static_cast<size_t>(KernelLowering::registerCount(layout)),
                                                llvm::Constant::getNullValue(lowering.scalarType(op, op.result()->type))),
                      std::nullopt};
      if (layout) lowered.layout = *layout;
      return lowering.set(op.result(), std::move(lowered));
    }
  }
}

// The Program family (ir/Ops.def; interpreter/Executor.cpp executeProgramInfo): %ctaid and %nctaid.
void lowerProgramOp(KernelLowering& lowering, const Operation& op) {
  static constexpr llvm::Intrinsic::ID kIds[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
  static constexpr llvm::Intrinsic::ID kCounts[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                                                    llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
                                                    llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z};
  const size_t axis = static_cast<size_t>(ProgramAxisView{op}.index());
  llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
  switch (familyOp<ProgramOp>(op.kind)) {
    case ProgramOp::TTGetProgramId: id = kIds[axis]; break;
    case ProgramOp::TTGetNumPrograms: id = kCounts[axis]; break;
  }
  lowering.set(op.result(), Lowered{{lowering.builder.CreateIntrinsic(id, {}, {})}, std::nullopt});
}

}  // namespace

// One switch over the op families (no default), as the interpreter's Executor::executeOp; each family's file
// switches over the family's own enum. The families the interpreter runs in Executor.cpp (Constant, Program,
// External, Function, Debug, Terminator) are dispatched here.
void KernelLowering::lowerOp(const Operation& op) {
  settleRegion();
  switch (opFamily(op.kind)) {
    case OpFamily::IntArith: return lowerIntArithOp(*this, op);
    case OpFamily::FloatArith: return lowerFloatArithOp(*this, op);
    case OpFamily::Math: return lowerMathOp(*this, op);
    case OpFamily::Compare: return lowerCompareOp(*this, op);
    case OpFamily::Cast: return lowerCastOp(*this, op);
    case OpFamily::External:
      switch (familyOp<ExternalOp>(op.kind)) {
        case ExternalOp::TTExternElementwise: return lowerExternElementwise(*this, op);  // Libdevice.cpp
        case ExternalOp::TTElementwiseInlineAsm: return lowerInlineAsm(*this, op);
      }
      break;
    case OpFamily::Constant: return lowerConstantOp(*this, op);
    case OpFamily::Program: return lowerProgramOp(*this, op);
    case OpFamily::Shape: return lowerShapeOp(*this, op);
    case OpFamily::Pointer: return lowerPointerOp(*this, op);
    case OpFamily::Memory: return lowerMemoryOp(*this, op);
    case OpFamily::Atomic: return lowerAtomicOp(*this, op);
    case OpFamily::Dot: return lowerDotOp(*this, op);
    case OpFamily::ReduceScan: return lowerReduceScanOp(*this, op);
    case OpFamily::ControlFlow: return lowerControlFlowOp(*this, op);
    case OpFamily::Function:
      switch (familyOp<FunctionOp>(op.kind)) {
        case FunctionOp::TTFunc: unsupported(op);  // not an op inside a kernel body
        case FunctionOp::TTCall: return lowerCall(*this, op);
      }
      break;
    case OpFamily::Debug:
      switch (familyOp<DebugOp>(op.kind)) {
        case DebugOp::TTPrint: return lowerPrint(*this, op);
        case DebugOp::TTAssert: return lowerAssert(*this, op);
        case DebugOp::LLVMAssume: return lowerAssume(*this, op);
        case DebugOp::GPUBarrier: return barrier();  // tl.debug_barrier: bar.sync 0 (scalar control flow is uniform)
      }
      break;
    case OpFamily::SharedMemory:  // compileKernel rejects TTGIR before lowering (Pipeline.cpp ttgirNotLowered)
    case OpFamily::Hopper: unsupported(op, "(TTGIR ops are not lowered by the GPU backend yet)");
    case OpFamily::Terminator:
      switch (familyOp<TerminatorOp>(op.kind)) {
        case TerminatorOp::TTReduceReturn:  // their parent op reads them (lowerBlockBody stops there)
        case TerminatorOp::TTScanReturn:
        case TerminatorOp::TTReturn:
        case TerminatorOp::SCFYield:
        case TerminatorOp::SCFCondition: TILESIM_UNREACHABLE("gpu lowering: terminator lowered as an op");
        case TerminatorOp::CFBr:  // block terminators: Branches.cpp reads them (lowerBlockBody stops there)
        case TerminatorOp::CFCondBr: unsupported(op);
      }
      break;
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

  // Launch bounds: exactly 32 * num_warps threads (PTX .maxntid; NVVM silently ignores misspelt annotation keys).
  llvm::Metadata* annotation[] = {llvm::ValueAsMetadata::get(function), llvm::MDString::get(context, "maxntidx"),
                                  llvm::ValueAsMetadata::get(builder.getInt32(32 * layouts_.numWarps()))};
  module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(context, annotation));
}

}  // namespace tilesim::gpu

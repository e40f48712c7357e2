// tt.assert (interpreter/Executor.cpp executeAssert): every element whose condition is false, in the thread that
// owns it (duplicating lane/warp bits 0; one register per element), prints
//   "<file>:<line>:<col>: program (<x>, <y>, <z>) element <i>: assertion failed: <message>\n"
// with the device printf (`vprintf`, which the CUDA driver resolves; PTX ISA §7.1 "System calls") and then
// executes `trap` (PTX ISA §9.7.19.4), which ends the launch with an error the runtime reports as a GPU fault —
// the interpreter ends the program with an AssertFailed report on the first failing lane.
// tt.print (interpreter/Executor.cpp executePrint): the owner of each element calls `vprintf` with the
// interpreter's line, `pid (x, y, z)[ idx (i, j)]<prefix><value>\n` — integers as %lld of the sign-extended value,
// floats as %f of the value widened to double, hex (and pointers) as 0x%llx of the bits. The text of every line is
// the interpreter's; their order is the GPU's (device printf has no order between threads), so compare the
// sorted lines. The interpreter's " (undefined)" marks have no GPU counterpart.
// llvm.intr.assume (interpreter/Executor.cpp executeAssume): `llvm.assume(cond)`, as Triton's own lowering emits
// it; LLVM may then compile as if the condition held (the interpreter reports a false one as `assume`).
#include <fmt/format.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <unordered_set>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

llvm::Value* formatString(KernelLowering& lowering, const std::string& text) {
  llvm::Constant* data = llvm::ConstantDataArray::getString(lowering.context, text);
  auto* global = new llvm::GlobalVariable(lowering.module, data->getType(), true, llvm::GlobalValue::InternalLinkage,
                                          data, "assert_format", nullptr, llvm::GlobalValue::NotThreadLocal, 1);
  return lowering.builder.CreateAddrSpaceCast(global, llvm::PointerType::get(lowering.context, 0));
}

// The owner predicate of `layout`'s elements: the copy whose duplicating lane and warp bits are 0 (thread 0 for
// a scalar).
llvm::Value* ownerOf(KernelLowering& lowering, const LinearLayout* layout) {
  Builder& b = lowering.builder;
  if (!layout) return b.CreateICmpEQ(lowering.threadId(), b.getInt32(0));
  return b.CreateICmpEQ(
      b.CreateOr(b.CreateAnd(lowering.laneId(), b.getInt32(static_cast<uint32_t>(layout->zeroBasisMask(kLaneDim)))),
                 b.CreateAnd(lowering.warpId(), b.getInt32(static_cast<uint32_t>(layout->zeroBasisMask(kWarpDim))))),
      b.getInt32(0));
}

std::string escapePercent(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

}  // namespace

void lowerPrint(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const std::string prefix = escapePercent(PrintView{op}.prefix());
  const bool hex = PrintView{op}.hex();
  llvm::Type* generic = llvm::PointerType::get(lowering.context, 0);
  llvm::FunctionCallee vprintf =
      lowering.module.getOrInsertFunction("vprintf", llvm::FunctionType::get(b.getInt32Ty(), {generic, generic}, false));
  auto programIds = [&] {
    return std::vector<llvm::Value*>{b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {}),
                                     b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y, {}, {}),
                                     b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, {}, {})};
  };
  auto emitLine = [&](llvm::Value* condition, const std::string& text, std::vector<llvm::Value*> fields) {
    auto* report = llvm::BasicBlock::Create(lowering.context, "print", lowering.function);
    auto* next = llvm::BasicBlock::Create(lowering.context, "print.done", lowering.function);
    b.CreateCondBr(condition, report, next);
    b.SetInsertPoint(report);
    std::vector<llvm::Value*> all = programIds();
    all.insert(all.end(), fields.begin(), fields.end());
    std::vector<llvm::Type*> types;
    for (llvm::Value* field : all) types.push_back(field->getType());
    auto* argumentsType = llvm::StructType::get(lowering.context, types);
    llvm::IRBuilder<> entry(&lowering.function->getEntryBlock(), lowering.function->getEntryBlock().begin());
    llvm::Value* buffer = entry.CreateAlloca(argumentsType);
    for (unsigned i = 0; i < all.size(); ++i) b.CreateStore(all[i], b.CreateStructGEP(argumentsType, buffer, i));
    b.CreateCall(vprintf, {formatString(lowering, text), b.CreateAddrSpaceCast(buffer, generic)});
    b.CreateBr(next);
    b.SetInsertPoint(next);
  };
  if (op.numOperands() == 0) return emitLine(ownerOf(lowering, nullptr), "pid (%d, %d, %d)" + prefix + "\n", {});
  for (const Value* operand : op.operands) {
    const Type element = operand->type.element();
    const LinearLayout* layout = operand->type.isTensor() ? lowering.layoutOf(operand) : nullptr;
    if (operand->type.isTensor() && !layout && lowering.get(operand).layout) layout = &*lowering.get(operand).layout;
    std::vector<llvm::Value*> regs = lowering.in(operand, layout);
    std::string text = "pid (%d, %d, %d)";
    std::vector<int64_t> shape;
    if (operand->type.isTensor()) {
      shape.assign(operand->type.shape().begin(), operand->type.shape().end());
      text += " idx (";
      for (size_t d = 0; d < shape.size(); ++d) text += d ? ", %d" : "%d";
      text += ")";
    }
    const bool asBits = hex || element.isPointer();
    text += prefix + (asBits ? "0x%llx" : element.isFloat() ? "%f" : "%lld") + "\n";
    llvm::Value* owner = ownerOf(lowering, layout);
    std::unordered_set<uint64_t> seen;
    for (size_t r = 0; r < regs.size(); ++r) {
      if (layout && !seen.insert(registerElement(*layout, static_cast<int>(r))).second) continue;
      std::vector<llvm::Value*> fields;
      if (layout) {  // the row-major coordinates of the element (every dim a power of two)
        llvm::Value* flat = lowering.elementIndex(*layout, static_cast<int>(r));
        std::vector<llvm::Value*> coordinates(shape.size());
        int shift = 0;
        for (size_t d = shape.size(); d-- > 0;) {
          int bits = 0;
          while ((int64_t{1} << bits) < shape[d]) ++bits;
          coordinates[d] = b.CreateAnd(b.CreateLShr(flat, static_cast<uint64_t>(shift)), b.getInt32(static_cast<uint32_t>(shape[d] - 1)));
          shift += bits;
        }
        fields = coordinates;
      }
      llvm::Value* value = regs[r];
      if (value->getType()->isPointerTy()) {
        value = b.CreatePtrToInt(value, b.getInt64Ty());
      } else if (asBits) {
        if (!value->getType()->isIntegerTy()) value = b.CreateBitCast(value, b.getIntNTy(value->getType()->getPrimitiveSizeInBits()));
        value = b.CreateZExt(value, b.getInt64Ty());
      } else if (element.isFloat()) {
        if (isFp8(element)) lowering.unsupported(op, "of fp8 values");
        value = b.CreateFPExt(value, b.getDoubleTy());
      } else {
        value = value->getType()->isIntegerTy(1) ? b.CreateZExt(value, b.getInt64Ty()) : b.CreateSExt(value, b.getInt64Ty());
      }
      fields.push_back(value);
      emitLine(owner, text, fields);
    }
  }
}

void lowerAssume(KernelLowering& lowering, const Operation& op) {
  lowering.builder.CreateAssumption(lowering.in(op.operand(0), nullptr)[0]);
}

void lowerAssert(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Value* condition = op.operand(0);
  const LinearLayout* layout = condition->type.isTensor() ? lowering.layoutOf(condition) : nullptr;
  if (condition->type.isTensor() && !layout && lowering.get(condition).layout) layout = &*lowering.get(condition).layout;
  std::vector<llvm::Value*> regs = lowering.in(condition, layout);
  const std::string text = fmt::format("{}:{}:{}: program (%d, %d, %d) element %d: assertion failed: {}\n",
                                       lowering.sourceModule ? lowering.sourceModule->sourceName : std::string("kernel"),
                                       op.textPos.line, op.textPos.column, AssertView{op}.message());
  llvm::Value* format = formatString(lowering, text);
  llvm::Type* generic = llvm::PointerType::get(lowering.context, 0);
  llvm::FunctionCallee vprintf =
      lowering.module.getOrInsertFunction("vprintf", llvm::FunctionType::get(b.getInt32Ty(), {generic, generic}, false));
  auto* argumentsType = llvm::StructType::get(lowering.context, {b.getInt32Ty(), b.getInt32Ty(), b.getInt32Ty(), b.getInt32Ty()});
  llvm::Value* owner = b.getTrue();
  if (layout) {
    owner = b.CreateICmpEQ(
        b.CreateOr(b.CreateAnd(lowering.laneId(), b.getInt32(static_cast<uint32_t>(layout->zeroBasisMask(kLaneDim)))),
                   b.CreateAnd(lowering.warpId(), b.getInt32(static_cast<uint32_t>(layout->zeroBasisMask(kWarpDim))))),
        b.getInt32(0));
  } else {
    owner = b.CreateICmpEQ(lowering.threadId(), b.getInt32(0));
  }
  std::unordered_set<uint64_t> seen;
  for (size_t r = 0; r < regs.size(); ++r) {
    if (layout && !seen.insert(registerElement(*layout, static_cast<int>(r))).second) continue;
    llvm::Value* failed = b.CreateAnd(owner, b.CreateNot(regs[r]));
    auto* report = llvm::BasicBlock::Create(lowering.context, "assert.failed", lowering.function);
    auto* next = llvm::BasicBlock::Create(lowering.context, "assert.ok", lowering.function);
    b.CreateCondBr(failed, report, next);
    b.SetInsertPoint(report);
    llvm::IRBuilder<> entry(&lowering.function->getEntryBlock(), lowering.function->getEntryBlock().begin());
    llvm::Value* buffer = entry.CreateAlloca(argumentsType);
    llvm::Value* fields[] = {b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {}),
                             b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y, {}, {}),
                             b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, {}, {}),
                             layout ? lowering.elementIndex(*layout, static_cast<int>(r)) : b.getInt32(0)};
    for (unsigned i = 0; i < 4; ++i) b.CreateStore(fields[i], b.CreateStructGEP(argumentsType, buffer, i));
    b.CreateCall(vprintf, {format, b.CreateAddrSpaceCast(buffer, generic)});
    b.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
    b.CreateBr(next);
    b.SetInsertPoint(next);
  }
}

}  // namespace tilesim::gpu

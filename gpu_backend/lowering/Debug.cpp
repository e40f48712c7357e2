// tt.assert (interpreter/Executor.cpp executeAssert): every element whose condition is false, in the thread that
// owns it (duplicating lane/warp bits 0; one register per element), prints
//   "<file>:<line>:<col>: program (<x>, <y>, <z>) element <i>: assertion failed: <message>\n"
// with the device printf (`vprintf`, which the CUDA driver resolves; PTX ISA §7.1 "System calls") and then
// executes `trap` (PTX ISA §9.7.19.4), which ends the launch with an error the runtime reports as a GPU fault —
// the interpreter ends the program with an AssertFailed report on the first failing lane. tt.print is not
// lowered yet.
#include <fmt/format.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <unordered_set>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

llvm::Value* formatString(KernelLowering& lowering, const std::string& text) {
  llvm::Constant* data = llvm::ConstantDataArray::getString(lowering.context, text);
  auto* global = new llvm::GlobalVariable(lowering.module, data->getType(), true, llvm::GlobalValue::InternalLinkage,
                                          data, "assert_format", nullptr, llvm::GlobalValue::NotThreadLocal, 1);
  return lowering.builder.CreateAddrSpaceCast(global, llvm::PointerType::get(lowering.context, 0));
}

}  // namespace

void lowerAssert(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Value* condition = op.operand(0);
  const LinearLayout* layout = condition->type.isTensor() ? lowering.layoutOf(condition) : nullptr;
  if (condition->type.isTensor() && !layout && lowering.get(condition).layout) layout = &*lowering.get(condition).layout;
  std::vector<llvm::Value*> regs = lowering.in(condition, layout);
  const std::string text = fmt::format("{}:{}:{}: program (%d, %d, %d) element %d: assertion failed: {}\n",
                                       lowering.sourceModule ? lowering.sourceModule->sourceName : std::string("kernel"),
                                       op.textPos.line, op.textPos.column, op.keywordAttr("message"));
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

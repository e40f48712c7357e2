// NvptxWorkarounds.h: the IR rewrites that avoid LLVM 19 NVPTX miscompilations.
#include "gpu_backend/NvptxWorkarounds.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <vector>

namespace tilesim::gpu {

int avoidNvptxSignedBoolToFloat(llvm::Module& module) {
  std::vector<llvm::SIToFPInst*> found;
  for (llvm::Function& function : module)
    for (llvm::BasicBlock& block : function)
      for (llvm::Instruction& instruction : block)
        if (auto* convert = llvm::dyn_cast<llvm::SIToFPInst>(&instruction))
          if (convert->getOperand(0)->getType()->getScalarType()->isIntegerTy(1)) found.push_back(convert);
  for (llvm::SIToFPInst* convert : found) {
    llvm::IRBuilder<> builder(convert);
    llvm::Type* type = convert->getType();  // a float type or a vector of one; ConstantFP::get splats
    llvm::Value* replacement = builder.CreateSelect(convert->getOperand(0), llvm::ConstantFP::get(type, -1.0),
                                                    llvm::ConstantFP::get(type, 0.0));
    convert->replaceAllUsesWith(replacement);
    convert->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

namespace {

bool isHalfPrecision(llvm::Type* type) {
  llvm::Type* scalar = type->getScalarType();
  return scalar->isHalfTy() || scalar->isBFloatTy();
}

// `value` (half or bfloat, or a vector of them) with its sign bits cleared (`clear`) or flipped by an integer
// `and.b16` / `xor.b16` in inline PTX: as plain LLVM `and`/`xor` between bitcasts, the DAG combiner folds it back
// into the FABS / FNEG node that selects abs.bf16 (it did for values extracted from a vector load).
llvm::Value* signBitAsInteger(llvm::IRBuilder<>& builder, llvm::Value* value, bool clear) {
  llvm::Type* type = value->getType();
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type)) {
    llvm::Value* result = llvm::PoisonValue::get(type);
    for (unsigned i = 0; i < vector->getNumElements(); ++i)
      result = builder.CreateInsertElement(
          result, signBitAsInteger(builder, builder.CreateExtractElement(value, builder.getInt32(i)), clear),
          builder.getInt32(i));
    return result;
  }
  llvm::FunctionType* signature = llvm::FunctionType::get(builder.getInt16Ty(), {builder.getInt16Ty()}, false);
  llvm::InlineAsm* operation =
      llvm::InlineAsm::get(signature, clear ? "and.b16 $0, $1, 32767;" : "xor.b16 $0, $1, 32768;", "=h,h", false);
  return builder.CreateBitCast(builder.CreateCall(operation, {builder.CreateBitCast(value, builder.getInt16Ty())}), type);
}

}  // namespace

int avoidNvptxHalfSignOps(llvm::Module& module) {
  std::vector<std::pair<llvm::Instruction*, bool>> found;  // the instruction, and whether it clears (fabs)
  for (llvm::Function& function : module)
    for (llvm::BasicBlock& block : function)
      for (llvm::Instruction& instruction : block) {
        if (!isHalfPrecision(instruction.getType())) continue;
        if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction); call && call->getIntrinsicID() == llvm::Intrinsic::fabs)
          found.emplace_back(&instruction, true);
        else if (instruction.getOpcode() == llvm::Instruction::FNeg)
          found.emplace_back(&instruction, false);
      }
  for (auto [instruction, clear] : found) {
    llvm::IRBuilder<> builder(instruction);
    instruction->replaceAllUsesWith(signBitAsInteger(builder, instruction->getOperand(0), clear));
    instruction->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

}  // namespace tilesim::gpu

// NvptxWorkarounds.h: the IR rewrites that avoid LLVM 19 NVPTX miscompilations.
#include "gpu_backend/NvptxWorkarounds.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

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

}  // namespace tilesim::gpu

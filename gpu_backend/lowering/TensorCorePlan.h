// The tensor-core dots' shared pieces: the instruction plan of a dot (mma.sync's, which wgmma's accumulator layout
// follows), its operands packed into 32-bit words, and the accumulator handed back as the dot's result. mma.sync
// is lowered in Dot.cpp, wgmma in DotWgmma.cpp (docs/gpu-backend.md "Dot", "wgmma").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu_backend/layout/WgmmaLayouts.h"
#include "gpu_backend/lowering/Lowering.h"

namespace tilesim::gpu {

// One mma.sync instruction kind: "m16n8k<8 << wordBits>" and its type suffix.
struct TensorCorePlan {
  std::string shape, types;
  int wordBits = 0;  // log2 of the operand elements per 32-bit register
  bool integer = false;
  bool tf32 = false;
  int ptxVersion = 0;  // KernelLowering::minimumPtxVersion the instruction needs
};

// The tensor-core lowering of `op`, or nothing when it keeps the FMA path (Dot.cpp's file comment): the dots
// tensorCoreWordBits accepts (layout/TensorCoreDots.h), under the triton profile.
std::optional<TensorCorePlan> tensorCorePlan(const KernelLowering& lowering, const Operation& op);
// The mma.sync accumulator layout of `op`'s result (also wgmma's, where wgmmaPlan accepts the dot).
LinearLayout accumulatorLayout(const KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan);
// The 32-bit operand word of registers regs[first] .. regs[first + 2^wordBits - 1], the first in the low bits.
llvm::Value* operandWord(llvm::IRBuilder<>& b, const TensorCorePlan& plan, const std::vector<llvm::Value*>& regs, int first);

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
                         const LinearLayout& accLayout);

// The wgmma plan of `op` when the options choose wgmma and the dot allows it (layout/WgmmaLayouts.h).
std::optional<WgmmaPlan> chosenWgmmaPlan(const KernelLowering& lowering, const Operation& op, const TensorCorePlan& plan);
// `op` on wgmma (DotWgmma.cpp).
void lowerDotWgmma(KernelLowering& lowering, const Operation& op, const WgmmaPlan& plan, const LinearLayout& accLayout);

}  // namespace tilesim::gpu

// Inline PTX of the atomics (PTX ISA 8.5 §9.7.13.5 atom): `atom{.sem}{.scope}.global.op.type`. Inline PTX rather
// than LLVM's atomicrmw/cmpxchg because the memory order and scope must be the op's (LLVM 19 NVPTX emits its own
// choice of fences and `.sys`-less forms) and because a masked-off lane must not execute the instruction at all:
// the caller branches around it, and `sideeffect` with a memory clobber keeps LLVM from speculating it out.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>

#include <string>

#include "gpu_backend/lowering/Ptx.h"

namespace tilesim::gpu::ptx {

// `.relaxed`, `.acquire`, `.release`, `.acq_rel` (§9.7.13.5; the order names of §8.4) and `.cta`, `.gpu`, `.sys`.
struct AtomicOrder {
  std::string semantic = ".acq_rel";
  std::string scope = ".gpu";
};

// old = atom.op.type [pointer], value — `operation` is e.g. "add.u32", "max.s64", "exch.b32", "add.noftz.f16".
// `value` is an integer of registerBits(bits); the result is too.
inline llvm::Value* atomicRmw(llvm::IRBuilder<>& builder, const AtomicOrder& order, const std::string& operation,
                              llvm::Value* pointer, llvm::Value* value, int bits) {
  const std::string r = constraintFor(bits);
  auto* type = llvm::FunctionType::get(value->getType(), {pointer->getType(), value->getType()}, false);
  const std::string text = "atom" + order.semantic + order.scope + ".global." + operation + " $0, [$1], $2;";
  return builder.CreateCall(llvm::InlineAsm::get(type, text, "=" + r + ",l," + r + ",~{memory}", true),
                            {pointer, value});
}

// old = atom.cas.bN [pointer], expected, desired (N = 16, 32, 64).
inline llvm::Value* atomicCas(llvm::IRBuilder<>& builder, const AtomicOrder& order, llvm::Value* pointer,
                              llvm::Value* expected, llvm::Value* desired, int bits) {
  const std::string r = constraintFor(bits);
  auto* type = llvm::FunctionType::get(expected->getType(), {pointer->getType(), expected->getType(), desired->getType()},
                                       false);
  const std::string text =
      "atom" + order.semantic + order.scope + ".global.cas.b" + std::to_string(bits) + " $0, [$1], $2, $3;";
  return builder.CreateCall(llvm::InlineAsm::get(type, text, "=" + r + ",l," + r + "," + r + ",~{memory}", true),
                            {pointer, expected, desired});
}

}  // namespace tilesim::gpu::ptx

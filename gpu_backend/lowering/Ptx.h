// Every inline-PTX snippet of the lowering, each with the PTX ISA section (PTX ISA 8.5) it follows. Inline PTX
// is used where LLVM 19 either has no intrinsic or would be free to do something else:
//  - predicated global loads and stores, scalar or vector (§9.7.9.8 ld, §9.7.9.10 st): a masked-off lane must not
//    touch memory, and a branch around an LLVM load could be turned into a speculated load; the mask is the
//    instruction's guard predicate (an i1 through the "b" constraint, a predicate register, as Triton passes it);
//    marked as having side effects with a memory clobber, so LLVM neither drops nor reorders them;
//  - float -> int conversion with PTX's saturating semantics (§9.7.9.21 cvt, .rzi): LLVM's fptosi is poison
//    out of range, and fptosi.sat gives 0 for NaN where the hardware gives 2^63 for 64-bit targets;
//  - int -> f16/bf16 (§9.7.9.21 cvt, .rn): one rounding, never through f32 first;
//  - div.full.f32 (§9.7.3.8 div) for the triton profile, which LLVM 19 has no intrinsic for;
//  - mma.sync (§9.7.14.5.14 mma), the tensor-core dot of the triton profile, spelt as Triton spells it;
//  - wgmma (§9.7.15.5.2 wgmma.mma_async, §9.7.15.6 wgmma.fence / commit_group / wait_group) and
//    fence.proxy.async (§9.7.13.4.18 membar/fence), which LLVM 19 has no intrinsics for;
//  - cp.async (§9.7.9.25.3.1 cp.async, .commit_group, .wait_group): a pipelined loop's global -> shared copies,
//    with the zero fill of a masked-off vector in the instruction (src-size 0), as Triton emits them.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>

#include <string>
#include <vector>

#include "ir/Assert.h"

namespace tilesim::gpu::ptx {

// "h" (16-bit), "r" (32), "l" (64) register constraints; 8-bit values travel in 16-bit registers.
inline const char* constraintFor(int bits) { return bits <= 16 ? "h" : bits == 32 ? "r" : "l"; }
inline int registerBits(int bits) { return bits <= 16 ? 16 : bits; }

// Loads `bits` (8, 16, 32, 64) from a global pointer when `predicate` (i1) is true; else the result is
// `other` (an integer of registerBits(bits)). Without a predicate the load is unconditional.
inline llvm::Value* loadGlobal(llvm::IRBuilder<>& builder, llvm::Value* pointer, int bits, llvm::Value* predicate,
                               llvm::Value* other) {
  llvm::Type* resultType = builder.getIntNTy(static_cast<unsigned>(registerBits(bits)));
  const std::string width = bits == 8 ? "u8" : "b" + std::to_string(bits);
  const std::string movWidth = "b" + std::to_string(registerBits(bits));
  const std::string r = constraintFor(bits);
  if (!predicate) {
    auto* type = llvm::FunctionType::get(resultType, {pointer->getType()}, false);
    auto* asmCode = llvm::InlineAsm::get(type, "ld.global." + width + " $0, [$1];", "=" + r + ",l,~{memory}", true);
    return builder.CreateCall(asmCode, {pointer});
  }
  auto* type = llvm::FunctionType::get(resultType, {pointer->getType(), builder.getInt1Ty(), resultType}, false);
  std::string text = "@$2 ld.global." + width + " $0, [$1];\n\t@!$2 mov." + movWidth + " $0, $3;";
  auto* asmCode = llvm::InlineAsm::get(type, text, "=" + r + ",l,b," + r + ",~{memory}", true);
  return builder.CreateCall(asmCode, {pointer, predicate, other});
}

// The 16 bits of `bits` (i16) unchanged, through `mov.b16` (§9.7.9.7 mov): an f16 <-> bf16 reinterpretation must
// cross an i16 that LLVM cannot see through. `bitcast bfloat to half` (or its fold of bitcast-to-i16-then-to-half,
// which InstCombine makes) is valid IR that the NVPTX instruction selector of LLVM 19 cannot select ("Cannot
// select: f16 = bitcast bf16"), a fatal error. Not side-effecting: LLVM may still CSE or drop it.
inline llvm::Value* opaqueBits16(llvm::IRBuilder<>& builder, llvm::Value* bits) {
  auto* type = llvm::FunctionType::get(builder.getInt16Ty(), {builder.getInt16Ty()}, false);
  return builder.CreateCall(llvm::InlineAsm::get(type, "mov.b16 $0, $1;", "=h,h", false), {bits});
}

// Stores the low `bits` of `value` (an integer of registerBits(bits)) when `predicate` is true (or always).
inline void storeGlobal(llvm::IRBuilder<>& builder, llvm::Value* pointer, int bits, llvm::Value* value,
                        llvm::Value* predicate) {
  const std::string width = bits == 8 ? "u8" : "b" + std::to_string(bits);
  const std::string r = constraintFor(bits);
  if (!predicate) {
    auto* type = llvm::FunctionType::get(builder.getVoidTy(), {pointer->getType(), value->getType()}, false);
    builder.CreateCall(llvm::InlineAsm::get(type, "st.global." + width + " [$0], $1;", "l," + r + ",~{memory}", true),
                       {pointer, value});
    return;
  }
  auto* type = llvm::FunctionType::get(builder.getVoidTy(), {pointer->getType(), value->getType(), builder.getInt1Ty()},
                                       false);
  std::string text = "@$2 st.global." + width + " [$0], $1;";
  builder.CreateCall(llvm::InlineAsm::get(type, text, "l," + r + ",b,~{memory}", true), {pointer, value, predicate});
}

// Vector accesses (§9.7.9.8 ld / §9.7.9.10 st with .v2/.v4, as Triton emits them): `words` registers of
// `wordBits` (16 or 32) moved by one instruction, `words` in {1, 2, 4}; the address must be aligned to the whole
// access (the caller proves it from AxisInfo). "{$0, $1, $2, $3}" for the vector operand.
inline std::string vectorOperand(int first, int words) {
  if (words == 1) return "$" + std::to_string(first);
  std::string text = "{";
  for (int i = 0; i < words; ++i) text += (i ? ", $" : "$") + std::to_string(first + i);
  return text + "}";
}
inline std::string vectorSuffix(int wordBits, int words) {
  return (words == 1 ? "" : ".v" + std::to_string(words)) + ".b" + std::to_string(wordBits);
}

// Loads `words` words when `predicate` (i1, or null: always) is true; else each word is others[i].
inline std::vector<llvm::Value*> loadGlobalVector(llvm::IRBuilder<>& builder, llvm::Value* pointer, int wordBits,
                                                  int words, llvm::Value* predicate,
                                                  const std::vector<llvm::Value*>& others) {
  llvm::Type* word = builder.getIntNTy(static_cast<unsigned>(wordBits));
  const std::string r = constraintFor(wordBits);
  std::vector<llvm::Type*> resultTypes(static_cast<size_t>(words), word);
  llvm::Type* resultType = words == 1 ? word : llvm::StructType::get(builder.getContext(), resultTypes);
  std::string constraints;
  for (int i = 0; i < words; ++i) constraints += "=" + r + ",";
  const std::string load = "ld.global" + vectorSuffix(wordBits, words) + " " + vectorOperand(0, words) + ", [$" +
                           std::to_string(words) + "];";
  llvm::CallInst* call = nullptr;
  if (!predicate) {
    auto* type = llvm::FunctionType::get(resultType, {pointer->getType()}, false);
    call = builder.CreateCall(llvm::InlineAsm::get(type, load, constraints + "l,~{memory}", true), {pointer});
  } else {
    std::vector<llvm::Type*> argumentTypes = {pointer->getType(), builder.getInt1Ty()};
    std::vector<llvm::Value*> arguments = {pointer, predicate};
    const std::string p = "$" + std::to_string(words + 1);
    std::string text = "@" + p + " " + load;
    constraints += "l,b";
    for (int i = 0; i < words; ++i) {
      text += "\n\t@!" + p + " mov.b" + std::to_string(wordBits) + " $" + std::to_string(i) + ", $" +
              std::to_string(words + 2 + i) + ";";
      constraints += "," + r;
      argumentTypes.push_back(word);
      arguments.push_back(others[static_cast<size_t>(i)]);
    }
    auto* type = llvm::FunctionType::get(resultType, argumentTypes, false);
    call = builder.CreateCall(llvm::InlineAsm::get(type, text, constraints + ",~{memory}", true), arguments);
  }
  if (words == 1) return {call};
  std::vector<llvm::Value*> result;
  for (int i = 0; i < words; ++i) result.push_back(builder.CreateExtractValue(call, {static_cast<unsigned>(i)}));
  return result;
}

// Stores `words` words when `predicate` (i1, or null: always) is true.
inline void storeGlobalVector(llvm::IRBuilder<>& builder, llvm::Value* pointer, int wordBits,
                              const std::vector<llvm::Value*>& values, llvm::Value* predicate) {
  const int words = static_cast<int>(values.size());
  const std::string r = constraintFor(wordBits);
  std::vector<llvm::Type*> argumentTypes = {pointer->getType()};
  std::vector<llvm::Value*> arguments = {pointer};
  std::string constraints = "l";
  for (llvm::Value* value : values) {
    argumentTypes.push_back(value->getType());
    arguments.push_back(value);
    constraints += "," + r;
  }
  const std::string store = "st.global" + vectorSuffix(wordBits, words) + " [$0], " + vectorOperand(1, words) + ";";
  std::string text = store;
  if (predicate) {
    argumentTypes.push_back(builder.getInt1Ty());
    arguments.push_back(predicate);
    constraints += ",b";
    text = "@$" + std::to_string(words + 1) + " " + store;
  }
  auto* type = llvm::FunctionType::get(builder.getVoidTy(), argumentTypes, false);
  builder.CreateCall(llvm::InlineAsm::get(type, text, constraints + ",~{memory}", true), arguments);
}

// One `cvt` instruction: `cvt.<modifiers> $0, $1;` with the given constraints (no side effects: pure).
inline llvm::Value* convert(llvm::IRBuilder<>& builder, const std::string& modifiers, llvm::Type* resultType,
                            const char* resultConstraint, llvm::Value* source, const char* sourceConstraint) {
  auto* type = llvm::FunctionType::get(resultType, {source->getType()}, false);
  auto* asmCode = llvm::InlineAsm::get(type, "cvt." + modifiers + " $0, $1;",
                                       std::string("=") + resultConstraint + "," + sourceConstraint, false);
  return builder.CreateCall(asmCode, {source});
}

// div.full.f32: Triton's lowering of `/` on f32 (the triton profile), 2 ulp.
inline llvm::Value* divFull(llvm::IRBuilder<>& builder, llvm::Value* a, llvm::Value* b) {
  auto* type = llvm::FunctionType::get(builder.getFloatTy(), {builder.getFloatTy(), builder.getFloatTy()}, false);
  return builder.CreateCall(llvm::InlineAsm::get(type, "div.full.f32 $0, $1, $2;", "=f,f,f", false), {a, b});
}

// One warp-wide `mma.sync.aligned.<shape>.row.col.<types>` (§9.7.14.5.14 mma; fragments §9.7.14.5.7-9):
// D = A B + C for a 16 x 8 tile, `a` four .b32 words, `b` two, `c` four f32 (or s32 when `integer`); returns
// the four D registers. E.g. shape "m16n8k16", types "f32.f16.f16.f32". Pure (no memory effects) but convergent:
// every lane of the warp must execute it together; the lowering emits it in uniform control flow only.
inline std::vector<llvm::Value*> mmaSync(llvm::IRBuilder<>& builder, const std::string& shape, const std::string& types,
                                         bool integer, const std::vector<llvm::Value*>& a,
                                         const std::vector<llvm::Value*>& b, const std::vector<llvm::Value*>& c) {
  llvm::Type* accumulator = integer ? builder.getInt32Ty() : builder.getFloatTy();
  const std::string r = integer ? "r" : "f";
  std::vector<llvm::Type*> inputTypes;
  std::vector<llvm::Value*> inputs;
  for (llvm::Value* word : a) inputTypes.push_back(word->getType()), inputs.push_back(word);
  for (llvm::Value* word : b) inputTypes.push_back(word->getType()), inputs.push_back(word);
  for (llvm::Value* value : c) inputTypes.push_back(accumulator), inputs.push_back(value);
  auto* resultType = llvm::StructType::get(builder.getContext(), {accumulator, accumulator, accumulator, accumulator});
  auto* type = llvm::FunctionType::get(resultType, inputTypes, false);
  const std::string text = "mma.sync.aligned." + shape + ".row.col." + types + " " + vectorOperand(0, 4) + ", " +
                           vectorOperand(4, 4) + ", " + vectorOperand(8, 2) + ", " + vectorOperand(10, 4) + ";";
  const std::string constraints = "=" + r + ",=" + r + ",=" + r + ",=" + r + ",r,r,r,r,r,r," + r + "," + r + "," + r + "," + r;
  llvm::CallInst* d = builder.CreateCall(llvm::InlineAsm::get(type, text, constraints, false), inputs);
  d->addFnAttr(llvm::Attribute::Convergent);  // never sunk into (or duplicated across) divergent control flow
  std::vector<llvm::Value*> result;
  for (unsigned i = 0; i < 4; ++i) result.push_back(builder.CreateExtractValue(d, {i}));
  return result;
}

// A statement with no operands and no result (a fence, a commit), kept in place: side effects, a memory clobber,
// convergent (every thread of the warp or warpgroup runs it together).
inline void statement(llvm::IRBuilder<>& builder, const std::string& text) {
  auto* type = llvm::FunctionType::get(builder.getVoidTy(), false);
  builder.CreateCall(llvm::InlineAsm::get(type, text, "~{memory}", true))->addFnAttr(llvm::Attribute::Convergent);
}
// The generic proxy's shared-memory writes made visible to the async proxy (wgmma's operand reads).
inline void fenceProxyAsyncShared(llvm::IRBuilder<>& builder) { statement(builder, "fence.proxy.async.shared::cta;"); }
// Before the first wgmma that reads registers (the accumulator) other instructions wrote.
inline void wgmmaFence(llvm::IRBuilder<>& builder) { statement(builder, "wgmma.fence.sync.aligned;"); }
inline void wgmmaCommitGroup(llvm::IRBuilder<>& builder) { statement(builder, "wgmma.commit_group.sync.aligned;"); }

namespace detail {
// An asm whose `count` results ($0 ..) are tied to its first `count` inputs ($count ..: the accumulator in and out;
// f32 or i32, as the values are), followed by `extra` inputs of `extraConstraints` ($2 count ..).
inline std::vector<llvm::Value*> tiedRegisters(llvm::IRBuilder<>& builder, const std::string& text,
                                               const std::vector<llvm::Value*>& tied, const std::vector<llvm::Value*>& extra,
                                               const std::string& extraConstraints) {
  const size_t count = tied.size();
  llvm::Type* element = count ? tied.front()->getType() : builder.getFloatTy();
  const std::string output = element->isFloatTy() ? "=f" : "=r";
  std::vector<llvm::Type*> resultTypes(count, element), inputTypes(count, element);
  std::vector<llvm::Value*> inputs(tied);
  for (llvm::Value* value : extra) inputTypes.push_back(value->getType()), inputs.push_back(value);
  std::string constraints;
  for (size_t i = 0; i < count; ++i) constraints += (i ? "," : "") + output;
  for (size_t i = 0; i < count; ++i) constraints += "," + std::to_string(i);
  constraints += extraConstraints + ",~{memory}";
  auto* type = llvm::FunctionType::get(llvm::StructType::get(builder.getContext(), resultTypes), inputTypes, false);
  llvm::CallInst* call = builder.CreateCall(llvm::InlineAsm::get(type, text, constraints, true), inputs);
  call->addFnAttr(llvm::Attribute::Convergent);
  std::vector<llvm::Value*> result;
  for (unsigned i = 0; i < count; ++i) result.push_back(builder.CreateExtractValue(call, {i}));
  return result;
}
}  // namespace detail

// One warpgroup-wide `wgmma.mma_async.sync.aligned.<shape>.<types>` D, a-desc, b-desc, p, <wgmmaImmediates>:
// D += A B with a and b read from shared memory through the 64-bit descriptors; `d` is the n / 2 f32 (s32: i32)
// accumulator registers, in and out. Asynchronous: the registers hold the sum only after wgmmaWaitGroup, which takes them in
// and gives them out again so that no reader can move above it. E.g. shape "m64n256k16", types "f32.f16.f16".
// cvt.rn.f16x2.f32 (bf16x2): two f32 rounded to nearest-even 16-bit floats in one instruction, `low` in the low
// half of the word — the two cvt.rn.f16.f32 it replaces, bit for bit.
inline llvm::Value* packRoundedPair(llvm::IRBuilder<>& builder, llvm::Value* low, llvm::Value* high, bool bf16) {
  auto* type = llvm::FunctionType::get(builder.getInt32Ty(), {builder.getFloatTy(), builder.getFloatTy()}, false);
  const std::string text = std::string("cvt.rn.") + (bf16 ? "bf16x2" : "f16x2") + ".f32 $0, $1, $2;";
  return builder.CreateCall(llvm::InlineAsm::get(type, text, "=r,f,f", false), {high, low});
}

// `accumulate` false: D = A B, the registers' values in are not read (scale-d 0: a zero accumulator needs no zeros).
inline std::string wgmmaScaleD(bool accumulate) {
  return std::string("{\n.reg .pred p;\nsetp.ne.b32 p, ") + (accumulate ? "1" : "0") + ", 0;\n";
}

// The operands after scale-d: imm-scale-a and imm-scale-b (1: a and b as they are) for the floating-point types,
// then imm-trans-a and imm-trans-b for .f16 and .bf16 only; integer types have neither (§9.7.15.5.2). Only .f16
// and .bf16 read b transposed (MN-major); the others read both operands K-major.
inline std::string wgmmaImmediates(const std::string& types, bool transposeB) {
  const bool sixteenBit = types.find("f16") != std::string::npos;  // f16 and bf16
  TILESIM_ASSERT(sixteenBit || !transposeB, "wgmma reads b transposed for .f16 and .bf16 only");
  if (types.rfind("s32.", 0) == 0) return "";
  return sixteenBit ? std::string(", 1, 1, 0, ") + (transposeB ? "1" : "0") : ", 1, 1";
}

inline std::vector<llvm::Value*> wgmmaMmaAsync(llvm::IRBuilder<>& builder, const std::string& shape,
                                               const std::string& types, const std::vector<llvm::Value*>& d,
                                               llvm::Value* aDescriptor, llvm::Value* bDescriptor, bool transposeB,
                                               bool accumulate = true) {
  const int count = static_cast<int>(d.size());
  const std::string text = wgmmaScaleD(accumulate) + "wgmma.mma_async.sync.aligned." + shape + "." + types +
                           " " + vectorOperand(0, count) + ", $" + std::to_string(2 * count) + ", $" +
                           std::to_string(2 * count + 1) + ", p" + wgmmaImmediates(types, transposeB) + ";\n}";
  return detail::tiedRegisters(builder, text, d, {aDescriptor, bDescriptor}, ",l,l");
}

// The same with a from registers (the instruction's register form, PTX ISA §9.7.15.5.2): `aWords` are the four
// 32-bit words of this thread's a fragment (mma.m16n8k16's A fragment of the warp's 16 rows), b through its descriptor.
inline std::vector<llvm::Value*> wgmmaMmaAsyncRegisterA(llvm::IRBuilder<>& builder, const std::string& shape,
                                                        const std::string& types, const std::vector<llvm::Value*>& d,
                                                        const std::vector<llvm::Value*>& aWords, llvm::Value* bDescriptor,
                                                        bool transposeB, bool accumulate = true) {
  const int count = static_cast<int>(d.size());
  std::string a = "{";
  for (int i = 0; i < 4; ++i) a += (i ? ", $" : "$") + std::to_string(2 * count + i);
  a += "}";
  const std::string text = wgmmaScaleD(accumulate) + "wgmma.mma_async.sync.aligned." + shape + "." + types +
                           " " + vectorOperand(0, count) + ", " + a + ", $" + std::to_string(2 * count + 4) + ", p, 1, 1, " +
                           (transposeB ? "1" : "0") + ";\n}";
  std::vector<llvm::Value*> inputs(aWords.begin(), aWords.end());
  inputs.push_back(bDescriptor);
  return detail::tiedRegisters(builder, text, d, inputs, ",r,r,r,r,l");
}

// wgmma.wait_group.sync.aligned `pending`: at most `pending` committed groups still in flight; `d` comes out as
// the accumulator those groups wrote.
inline std::vector<llvm::Value*> wgmmaWaitGroup(llvm::IRBuilder<>& builder, int pending, const std::vector<llvm::Value*>& d) {
  return detail::tiedRegisters(builder, "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";", d, {}, "");
}

// cp.async of `bytes` (4, 8 or 16) from global `source` to shared `target` (addrspace 3), asynchronously; when
// `predicate` (i1) is false nothing is read and the bytes become zeros. 16-byte copies bypass L1 (.cg), as
// Triton's; the others go through it (.ca, the only form for 4 and 8 bytes).
inline void cpAsync(llvm::IRBuilder<>& builder, llvm::Value* target, llvm::Value* source, int bytes, llvm::Value* predicate) {
  llvm::Value* sharedAddress = builder.CreatePtrToInt(target, builder.getInt32Ty());
  llvm::Value* sourceBytes = builder.CreateSelect(predicate, builder.getInt32(static_cast<uint32_t>(bytes)), builder.getInt32(0));
  auto* type = llvm::FunctionType::get(builder.getVoidTy(), {builder.getInt32Ty(), source->getType(), builder.getInt32Ty()}, false);
  const std::string text = std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") + ".shared.global [$0], [$1], " +
                           std::to_string(bytes) + ", $2;";
  builder.CreateCall(llvm::InlineAsm::get(type, text, "r,l,r,~{memory}", true), {sharedAddress, source, sourceBytes});
}
// This thread's cp.async since the last commit, as one group.
inline void cpAsyncCommitGroup(llvm::IRBuilder<>& builder) { statement(builder, "cp.async.commit_group;"); }
// Until at most `pending` of this thread's committed groups are still in flight (the oldest complete first).
inline void cpAsyncWaitGroup(llvm::IRBuilder<>& builder, int pending) {
  statement(builder, "cp.async.wait_group " + std::to_string(pending) + ";");
}

}  // namespace tilesim::gpu::ptx

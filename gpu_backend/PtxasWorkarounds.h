// Rewrites of optimised LLVM IR that steer NVPTX away from PTX that ptxas compiles wrongly. Each one is a bug of
// ptxas (CUDA 13.0, V13.0.88, and the H200 driver's JIT, 580.159.04), seen in the SASS (nvdisasm) and on the
// H200; the rewritten PTX means the same thing and ptxas compiles it right.
#pragma once

#include <llvm/IR/Module.h>

#include <string>

namespace tilesim::gpu {

// i16 negation (`sub i16 0, x`, which NVPTX selects as `neg.s16`) and `llvm.abs.i16` (`abs.s16`): ptxas
// computes both as a 32-bit negation / IABS of the sign-extended operand and then treats the register as a
// sign-extended 16-bit value, so -(-32768) and abs(-32768) read back as +32768 through `cvt.s32.s16`,
// `shr.s16`, `setp.*.s16` (the 14 int16 cases of the H200 fuzz campaign of 2026-12-01). Both become inline
// PTX that ptxas wraps correctly: `sub.u16 d, 0, x`, and `abs.s32` of `cvt.s32.s16 x` truncated by
// `cvt.u16.u32`. Vectors of i16 are rewritten lane by lane. Runs after the LLVM optimiser (which is what forms these: `0 - x`,
// `x * -1`, the select idiom of abs). Returns how many instructions were rewritten.
// The same rewrite for i32 and i64 (`neg.s32`/`.s64`, `abs.s32`/`.s64`): ptxas folds a negation into a
// three-input VIMNMX3 (sm_90) and loses it, and it assumes abs is non-negative, so a following `rem.s32`
// drops the dividend's sign for abs(INT_MIN) (the H200 campaign of 14:06-14:41 UTC: `max` reductions of `0 - x`
// with INT_MIN inputs, `abs(x) % y`, `log(sitofp(abs(x)))`). Negation becomes `sub.u32 d, 0, x` (an explicit
// IMAD.MOV -x for every lane in the SASS) and abs `max.s32 x, (0 - x)` (ptxas keeps the sign test after it).
int avoidPtxasSixteenBitNegation(llvm::Module& module);


// The high 16 bits of a 32-bit register: NVPTX (LLVM 19) moves them out with
// `{ .reg .b16 tmp; mov.b32 {tmp, %rsN}, %rM; }`, and ptxas, for a register that lives across a loop marked
// `.pragma "nounroll"`, compiles that as a PRMT of the *low* half (0x7610 where 0x7632 is right): the f16 case
// of the H200 campaign (a scf.while over a packed f16 pair, then a select of the other loaded pair: the odd
// lane stored its even neighbour). Each such move becomes `shr.u32` by 16 and `cvt.u16.u32`, which ptxas
// compiles as a shift (SHF.R.U32.HI). Returns the PTX with every occurrence replaced; `*count` gets how many.
std::string avoidPtxasHighHalfMove(const std::string& ptx, int* count = nullptr);

// The PTX-level catch-all for the negation and abs bugs above: NVPTX's instruction selection makes negations the
// IR rewrite cannot see (`x * -128` becomes `shl.b32` then `neg.s32`: a triton-profile case of the H200 campaign,
// bc7013d8, whose max reduction ptxas then got wrong). Every `neg.sN d, x` becomes `sub.uN d, 0, x` and every
// `abs.sN d, x` `max.sN d, x, (0 - x)` (predicates kept). Returns the PTX; `*count` gets how many were rewritten.
std::string avoidPtxasNegAbs(const std::string& ptx, int* count = nullptr);

// i64 -> f32 conversions (`cvt.rn.f32.s64`, `.u64`, I2F.S64 / I2F.U64 in SASS): ptxas in its relocatable mode
// (`ptxas -c`, what the driver's JIT runs: the H200's cubins have the same .text as `ptxas -arch=sm_90a -c`),
// versions 12.8 to 13.3, dropped one of 64 I2F.S64 of `x << 44` (operands whose low word is zero) and gave its
// compare another element's converted value (docs/findings.md G10: every thread's element 18 stored its element
// 15's boolean; ptxas 13.5 and the whole-program mode compile it right). Each conversion becomes the integer
// sequence that computes the correctly rounded f32 (clz, a 24-bit significand, round to nearest even on the rest),
// so no I2F.S64 is left to merge. Returns the PTX; `*count` gets how many were rewritten.
std::string avoidPtxasS64ToF32(const std::string& ptx, int* count = nullptr);

}  // namespace tilesim::gpu

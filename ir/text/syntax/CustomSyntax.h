// The Triton assembly format of each Syntax::Custom op of ir/Ops.def, as one pair: `parse` reads the text after
// the mnemonic and returns the op's result types, `print` writes that same text back. The two halves of a pair sit
// side by side in this folder's files, cut by op family (ProgramSyntax.cpp, ShapeSyntax.cpp, ...), so a change to
// how an op is written is made once, in one place, for both directions.
//
// customSyntax() (CustomSyntax.cpp) picks the pair with a switch over CustomSyntaxOp that has no default: a new
// Custom row in ir/Ops.def does not compile until it has a pair. ParserImpl::parseCustomBody and
// PrinterImpl::printCustomBody are the only callers.
#pragma once

#include <vector>

#include "ir/IR.h"

namespace tilesim::text {

class ParserImpl;
class PrinterImpl;

struct CustomSyntax {
  std::vector<Type> (*parse)(ParserImpl& parser, Operation& op);
  void (*print)(PrinterImpl& printer, const Operation& op, int indent);
};

CustomSyntax customSyntax(CustomSyntaxOp op);

namespace syntax {

// A pair as a struct with the two static halves; customSyntax() takes both from one struct, so neither half can
// be registered without the other.
#define TILESIM_CUSTOM_SYNTAX(Name)                                   \
  struct Name {                                                       \
    static std::vector<Type> parse(ParserImpl& parser, Operation& op); \
    static void print(PrinterImpl& printer, const Operation& op, int indent); \
  }

// ProgramSyntax.cpp: the Constant and Program families.
TILESIM_CUSTOM_SYNTAX(ProgramAxisSyntax);    // tt.get_program_id x : i32 (and tt.get_num_programs)
TILESIM_CUSTOM_SYNTAX(MakeRangeSyntax);      // tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
TILESIM_CUSTOM_SYNTAX(PoisonSyntax);         // ub.poison : i32

// ElementwiseSyntax.cpp: the custom-syntax elementwise ops (FloatArith, Cast and External families).
TILESIM_CUSTOM_SYNTAX(ClampFSyntax);         // tt.clampf %x, %lo, %hi, propagateNan = none : T
TILESIM_CUSTOM_SYNTAX(FpToFpSyntax);         // tt.fp_to_fp %x, rounding = rtne : T -> U
TILESIM_CUSTOM_SYNTAX(ExternElementwiseSyntax);  // tt.extern_elementwise %x {libname = ..} : (T) -> U
TILESIM_CUSTOM_SYNTAX(InlineAsmSyntax);      // tt.elementwise_inline_asm "asm" {..} %a, %b : T, U -> V

// ShapeSyntax.cpp.
TILESIM_CUSTOM_SYNTAX(UnsplatSyntax);        // tt.unsplat %a : tensor<1xT>
TILESIM_CUSTOM_SYNTAX(ReshapeSyntax);        // tt.reshape %a allow_reorder : T -> U
TILESIM_CUSTOM_SYNTAX(GatherSyntax);         // tt.gather %src[%idx] {axis = 0 : i32} : (T, I) -> U

// PointerSyntax.cpp.
TILESIM_CUSTOM_SYNTAX(AddPtrSyntax);         // tt.addptr %p, %o : P, O
TILESIM_CUSTOM_SYNTAX(MakeTensorPtrSyntax);  // tt.make_tensor_ptr %base, [shape], [strides], [offsets] : <T>
TILESIM_CUSTOM_SYNTAX(AdvanceSyntax);        // tt.advance %ptr, [offsets] : <T>
TILESIM_CUSTOM_SYNTAX(MakeTensorDescriptorSyntax);  // tt.make_tensor_descriptor %base, [shape], [strides] : <T>, <B>

// MemorySyntax.cpp: the Memory and Atomic families.
TILESIM_CUSTOM_SYNTAX(LoadStoreSyntax);      // tt.load %p, %mask cacheModifier = cg : P (tt.store alike)
TILESIM_CUSTOM_SYNTAX(DescriptorLoadSyntax);     // tt.descriptor_load %d[%i, %j] : D -> T
TILESIM_CUSTOM_SYNTAX(DescriptorStoreSyntax);    // tt.descriptor_store %d[%i, %j], %v : D, T
TILESIM_CUSTOM_SYNTAX(DescriptorGatherSyntax);   // tt.descriptor_gather %d[%x, %y] : (D, X, i32) -> T
TILESIM_CUSTOM_SYNTAX(DescriptorScatterSyntax);  // tt.descriptor_scatter %d[%x, %y], %v : D, X, i32, T
TILESIM_CUSTOM_SYNTAX(AtomicRmwSyntax);      // tt.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : (P, T, M) -> T
TILESIM_CUSTOM_SYNTAX(AtomicCasSyntax);      // tt.atomic_cas acq_rel, gpu, %p, %c, %v : (P, T, T) -> T

// DotSyntax.cpp.
TILESIM_CUSTOM_SYNTAX(DotSyntax);            // tt.dot %a, %b, %c, inputPrecision = tf32 : A * B -> C

// ControlFlowSyntax.cpp.
TILESIM_CUSTOM_SYNTAX(ForSyntax);            // scf.for %iv = %lb to %ub step %s iter_args(%a = %x) -> (T) : i32 {..}
TILESIM_CUSTOM_SYNTAX(IfSyntax);             // scf.if %c -> (T) {..} else {..}
TILESIM_CUSTOM_SYNTAX(WhileSyntax);          // scf.while (%a = %x) : (T) -> T {..} do {..}

// FunctionSyntax.cpp: the Function and Terminator families.
TILESIM_CUSTOM_SYNTAX(FuncSyntax);           // tt.func: module level only (Parser.cpp, Printer.cpp)
TILESIM_CUSTOM_SYNTAX(CallSyntax);           // tt.call @f(%a) : (T) -> U
TILESIM_CUSTOM_SYNTAX(YieldSyntax);          // tt.return / tt.reduce.return / tt.scan.return / scf.yield %a : T
TILESIM_CUSTOM_SYNTAX(ConditionSyntax);      // scf.condition(%c) %a : T
TILESIM_CUSTOM_SYNTAX(BranchSyntax);         // cf.br ^bb1(%a : T)
TILESIM_CUSTOM_SYNTAX(CondBranchSyntax);     // cf.cond_br %c, ^bb1, ^bb2(%a : T)

// DebugSyntax.cpp.
TILESIM_CUSTOM_SYNTAX(PrintSyntax);          // tt.print "prefix" {hex = false, ..} : %a : T
TILESIM_CUSTOM_SYNTAX(AssertSyntax);         // tt.assert %c, "message" : T
TILESIM_CUSTOM_SYNTAX(AssumeSyntax);         // llvm.intr.assume %c : i1
TILESIM_CUSTOM_SYNTAX(BarrierSyntax);        // gpu.barrier

// SharedMemorySyntax.cpp: TTGIR's ttg ops.
TILESIM_CUSTOM_SYNTAX(LocalAllocSyntax);     // ttg.local_alloc %x : (T) -> M
TILESIM_CUSTOM_SYNTAX(SingleOperandSyntax);  // ttg.local_dealloc %m : M (inval_barrier, tensormap_fenceproxy_acquire)
TILESIM_CUSTOM_SYNTAX(LocalLoadSyntax);      // ttg.local_load %m token %t : M -> T
TILESIM_CUSTOM_SYNTAX(LocalStoreSyntax);     // ttg.local_store %v, %m : T -> M
TILESIM_CUSTOM_SYNTAX(MemDescIndexSyntax);   // ttg.memdesc_index %m[%i] : M -> M'
TILESIM_CUSTOM_SYNTAX(MemDescTransSyntax);   // ttg.memdesc_trans %m {order = array<i32: 1, 0>} : M -> M'
TILESIM_CUSTOM_SYNTAX(AsyncCopySyntax);      // ttg.async_copy_global_to_local %p, %m mask %k other %o : P -> <M>
TILESIM_CUSTOM_SYNTAX(AsyncGroupSyntax);     // ttg.async_commit_group tokens %t / ttg.async_wait %t {num = 0 : i32}
TILESIM_CUSTOM_SYNTAX(GlobalScratchSyntax);  // ttg.global_scratch_alloc {nbytes = 128 : i32, ..} : !tt.ptr<i8>
// WarpSpecializeSyntax.cpp: ttg.warp_specialize with its default region and partitions.
TILESIM_CUSTOM_SYNTAX(WarpSpecializeSyntax); // ttg.warp_specialize(%a) default {..} partition0(%x: A) num_warps(1) {..} : (A) -> ()

// HopperSyntax.cpp: TTGIR's ttng ops.
TILESIM_CUSTOM_SYNTAX(BarrierCountSyntax);   // ttng.init_barrier %b, 1 : M (ttng.arrive_barrier %b, 1, %p : M)
TILESIM_CUSTOM_SYNTAX(BarrierExpectSyntax);  // ttng.barrier_expect %b, 6144, %p : M
TILESIM_CUSTOM_SYNTAX(WaitBarrierSyntax);    // ttng.wait_barrier %b, %phase : M
TILESIM_CUSTOM_SYNTAX(TmaLoadSyntax);        // ttng.async_tma_copy_global_to_local %d[%i] %m, %b, %p : D, B -> M
TILESIM_CUSTOM_SYNTAX(TmaStoreSyntax);       // ttng.async_tma_copy_local_to_global %d[%i] %m : D, M
TILESIM_CUSTOM_SYNTAX(AttributesOnlySyntax); // ttng.async_tma_store_wait {pendings = 0 : i32}, ttng.fence_async_shared
TILESIM_CUSTOM_SYNTAX(TensormapCreateSyntax);  // ttng.tensormap_create %d, %p, [..], [..], [..], [..] : (..) -> ()
TILESIM_CUSTOM_SYNTAX(WarpGroupDotSyntax);   // ttng.warp_group_dot %a, %b, %c {..} : A * B -> C
TILESIM_CUSTOM_SYNTAX(WarpGroupDotWaitSyntax);  // ttng.warp_group_dot_wait %d, %a, %b {pendings = 0 : i32} : D, A, B

#undef TILESIM_CUSTOM_SYNTAX

}  // namespace syntax

}  // namespace tilesim::text

// customSyntax(): the pair of each Custom op (ir/text/syntax/CustomSyntax.h). The switch has no default, so a
// Custom row added to ir/Ops.def fails to compile here (-Werror=switch) until it is given a pair.
#include "ir/text/syntax/CustomSyntax.h"

#include "ir/Assert.h"

namespace tilesim::text {

namespace {

template <typename Pair>
CustomSyntax pairOf() {
  return CustomSyntax{&Pair::parse, &Pair::print};
}

}  // namespace

CustomSyntax customSyntax(CustomSyntaxOp op) {
  using namespace syntax;
  switch (op) {
    case CustomSyntaxOp::TTMakeRange: return pairOf<MakeRangeSyntax>();
    case CustomSyntaxOp::UBPoison: return pairOf<PoisonSyntax>();
    case CustomSyntaxOp::TTGetProgramId:
    case CustomSyntaxOp::TTGetNumPrograms: return pairOf<ProgramAxisSyntax>();
    case CustomSyntaxOp::TTClampF: return pairOf<ClampFSyntax>();
    case CustomSyntaxOp::TTFpToFp: return pairOf<FpToFpSyntax>();
    case CustomSyntaxOp::TTExternElementwise: return pairOf<ExternElementwiseSyntax>();
    case CustomSyntaxOp::TTElementwiseInlineAsm: return pairOf<InlineAsmSyntax>();
    case CustomSyntaxOp::TTUnsplat: return pairOf<UnsplatSyntax>();
    case CustomSyntaxOp::TTReshape: return pairOf<ReshapeSyntax>();
    case CustomSyntaxOp::TTGather: return pairOf<GatherSyntax>();
    case CustomSyntaxOp::TTAddPtr: return pairOf<AddPtrSyntax>();
    case CustomSyntaxOp::TTMakeTensorPtr: return pairOf<MakeTensorPtrSyntax>();
    case CustomSyntaxOp::TTAdvance: return pairOf<AdvanceSyntax>();
    case CustomSyntaxOp::TTMakeTensorDescriptor: return pairOf<MakeTensorDescriptorSyntax>();
    case CustomSyntaxOp::TTLoad:
    case CustomSyntaxOp::TTStore: return pairOf<LoadStoreSyntax>();
    case CustomSyntaxOp::TTDescriptorLoad: return pairOf<DescriptorLoadSyntax>();
    case CustomSyntaxOp::TTDescriptorStore: return pairOf<DescriptorStoreSyntax>();
    case CustomSyntaxOp::TTDescriptorGather: return pairOf<DescriptorGatherSyntax>();
    case CustomSyntaxOp::TTDescriptorScatter: return pairOf<DescriptorScatterSyntax>();
    case CustomSyntaxOp::TTAtomicRMW: return pairOf<AtomicRmwSyntax>();
    case CustomSyntaxOp::TTAtomicCAS: return pairOf<AtomicCasSyntax>();
    case CustomSyntaxOp::TTDot: return pairOf<DotSyntax>();
    case CustomSyntaxOp::SCFFor: return pairOf<ForSyntax>();
    case CustomSyntaxOp::SCFIf: return pairOf<IfSyntax>();
    case CustomSyntaxOp::SCFWhile: return pairOf<WhileSyntax>();
    case CustomSyntaxOp::TTFunc: return pairOf<FuncSyntax>();
    case CustomSyntaxOp::TTCall: return pairOf<CallSyntax>();
    case CustomSyntaxOp::TTReduceReturn:
    case CustomSyntaxOp::TTScanReturn:
    case CustomSyntaxOp::TTReturn:
    case CustomSyntaxOp::SCFYield: return pairOf<YieldSyntax>();
    case CustomSyntaxOp::SCFCondition: return pairOf<ConditionSyntax>();
    case CustomSyntaxOp::CFBr: return pairOf<BranchSyntax>();
    case CustomSyntaxOp::CFCondBr: return pairOf<CondBranchSyntax>();
    case CustomSyntaxOp::TTPrint: return pairOf<PrintSyntax>();
    case CustomSyntaxOp::TTAssert: return pairOf<AssertSyntax>();
    case CustomSyntaxOp::LLVMAssume: return pairOf<AssumeSyntax>();
    case CustomSyntaxOp::GPUBarrier: return pairOf<BarrierSyntax>();
    case CustomSyntaxOp::TTGLocalAlloc: return pairOf<LocalAllocSyntax>();
    case CustomSyntaxOp::TTGLocalDealloc:
    case CustomSyntaxOp::TTNGInvalBarrier:
    case CustomSyntaxOp::TTNGTensormapFenceproxyAcquire: return pairOf<SingleOperandSyntax>();
    case CustomSyntaxOp::TTGLocalLoad: return pairOf<LocalLoadSyntax>();
    case CustomSyntaxOp::TTGLocalStore: return pairOf<LocalStoreSyntax>();
    case CustomSyntaxOp::TTGMemDescIndex: return pairOf<MemDescIndexSyntax>();
    case CustomSyntaxOp::TTGMemDescTrans: return pairOf<MemDescTransSyntax>();
    case CustomSyntaxOp::TTGAsyncCopyGlobalToLocal: return pairOf<AsyncCopySyntax>();
    case CustomSyntaxOp::TTGAsyncCommitGroup:
    case CustomSyntaxOp::TTGAsyncWait: return pairOf<AsyncGroupSyntax>();
    case CustomSyntaxOp::TTGGlobalScratchAlloc: return pairOf<GlobalScratchSyntax>();
    case CustomSyntaxOp::TTGWarpSpecialize: return pairOf<WarpSpecializeSyntax>();
    case CustomSyntaxOp::TTGWarpYield:
    case CustomSyntaxOp::TTGWarpReturn: return pairOf<YieldSyntax>();
    case CustomSyntaxOp::TTNGInitBarrier:
    case CustomSyntaxOp::TTNGArriveBarrier: return pairOf<BarrierCountSyntax>();
    case CustomSyntaxOp::TTNGBarrierExpect: return pairOf<BarrierExpectSyntax>();
    case CustomSyntaxOp::TTNGWaitBarrier: return pairOf<WaitBarrierSyntax>();
    case CustomSyntaxOp::TTNGAsyncTMACopyGlobalToLocal: return pairOf<TmaLoadSyntax>();
    case CustomSyntaxOp::TTNGAsyncTMACopyLocalToGlobal: return pairOf<TmaStoreSyntax>();
    case CustomSyntaxOp::TTNGAsyncTMAStoreWait:
    case CustomSyntaxOp::TTNGFenceAsyncShared: return pairOf<AttributesOnlySyntax>();
    case CustomSyntaxOp::TTNGTensormapCreate: return pairOf<TensormapCreateSyntax>();
    case CustomSyntaxOp::TTNGWarpGroupDot: return pairOf<WarpGroupDotSyntax>();
    case CustomSyntaxOp::TTNGWarpGroupDotWait: return pairOf<WarpGroupDotWaitSyntax>();
  }
  TILESIM_UNREACHABLE("CustomSyntaxOp value " + std::to_string(static_cast<int>(op)) + " outside ir/Ops.def");
}

}  // namespace tilesim::text

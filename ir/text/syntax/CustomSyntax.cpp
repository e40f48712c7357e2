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
  }
  TILESIM_UNREACHABLE("CustomSyntaxOp value " + std::to_string(static_cast<int>(op)) + " outside ir/Ops.def");
}

}  // namespace tilesim::text

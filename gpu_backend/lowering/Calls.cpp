// tt.call (interpreter/Executor.cpp executeCall): the callee is lowered inline at the call site, with its own
// layout assignment (each tensor value of the callee gets the layouts the assignment would give it as a kernel);
// arguments are converted into the callee's argument layouts and the returned values into the call results'.
// Inlining keeps the semantics exactly (a call is only a scope); `noinline = true` is a scheduling hint that the
// GPU code does not need to follow. A callee with several blocks, recursion deeper than 64 calls (the
// interpreter's limit) and an unknown callee are refused.
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {

void lowerCall(KernelLowering& lowering, const Operation& op) {
  if (!lowering.sourceModule) lowering.unsupported(op, "without a callee in the module");
  const std::string& calleeName = CallView{op}.callee();
  std::optional<Function> callee = lowering.sourceModule->findFunction(calleeName);
  if (!callee) lowering.unsupported(op, "of the unknown function @" + calleeName);
  if (callee->op()->region(0).blocks.size() != 1) lowering.unsupported(op, "of a function with several blocks");
  if (lowering.callDepth >= 64) lowering.unsupported(op, "deeper than 64 calls (recursion?)");
  Diagnostics diagnostics;
  auto layouts = std::make_unique<LayoutAssignment>(LayoutAssignment::assign(*callee, lowering.options.numWarps, diagnostics, nullptr, /*callee=*/true,
                                                                             lowering.options.profile == FloatProfile::Triton,
                                                                             sharedBytesPerBlock(lowering.options.sm)));
  if (!diagnostics.empty()) lowering.unsupported(op, "of @" + calleeName + ": " + diagnostics.front().message);
  lowering.calleeLayouts.push_back(std::move(layouts));
  for (size_t i = 0; i < op.numOperands() && i < callee->numArguments(); ++i) {
    const Value* argument = callee->argument(i);
    const LinearLayout* layout = lowering.layoutOf(argument);
    Lowered lowered{lowering.in(op.operand(i), layout), std::nullopt};
    if (layout) lowered.layout = *layout;
    lowering.set(argument, std::move(lowered));
  }
  ++lowering.callDepth;
  const Operation* terminator = lowering.lowerBlockBody(callee->body());
  --lowering.callDepth;
  if (!terminator || terminator->kind != OpKind::TTReturn || terminator->numOperands() != op.numResults())
    lowering.unsupported(op, "of a function that does not end in tt.return of its results");
  for (size_t i = 0; i < op.numResults(); ++i) {
    const LinearLayout* layout = lowering.layoutOf(op.result(i));
    Lowered lowered{lowering.in(terminator->operand(i), layout), std::nullopt};
    if (layout) lowered.layout = *layout;
    lowering.set(op.result(i), std::move(lowered));
  }
}

}  // namespace tilesim::gpu

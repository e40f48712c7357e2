// What the tt.reduce (Reduce.cpp) and tt.scan (ReduceScan.cpp) lowerings share: their operands gathered in the one
// layout the combine runs in, and the combine region applied to two operand tuples.
#pragma once

#include <vector>

#include "gpu_backend/layout/DistributedLayouts.h"
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {

struct CombineOperands {
  LinearLayout layout;
  std::vector<std::vector<llvm::Value*>> values;  // per operand, one value per register
  int registers = 0;                              // numRegisters(layout)
};

// Every operand of `op` in the layout of `layoutValue` (a reduce's operand, a scan's result), which must be a
// tensor (`what` names the op for the assertion).
inline CombineOperands gatherCombineOperands(KernelLowering& lowering, const Operation& op, const Value* layoutValue,
                                             const char* what) {
  const LinearLayout* layout = lowering.layoutOf(layoutValue);
  TILESIM_ASSERT(layout, what);
  CombineOperands gathered{*layout, {}, numRegisters(*layout)};
  for (const Value* operand : op.operands) gathered.values.push_back(lowering.in(operand, &gathered.layout));
  return gathered;
}

// The combine region (region 0 of `op`) on (first..., second...): one result per operand.
inline std::vector<llvm::Value*> applyCombine(KernelLowering& lowering, const Operation& op,
                                              const std::vector<llvm::Value*>& first,
                                              const std::vector<llvm::Value*>& second) {
  std::vector<llvm::Value*> arguments = first;
  arguments.insert(arguments.end(), second.begin(), second.end());
  return lowering.inlineRegion(op.region(0).front(), arguments);
}

}  // namespace tilesim::gpu

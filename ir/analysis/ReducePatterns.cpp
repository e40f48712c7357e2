#include "ir/analysis/ReducePatterns.h"

namespace tilesim::analysis {

bool reduceFusesMultiply(const Operation& reduce, const Function& kernel) {
  if (reduce.kind != OpKind::TTReduce || reduce.numOperands() != 1) return false;
  const Block& combine = reduce.region(0).front();
  if (combine.operations.size() != 2) return false;  // the addf and the tt.reduce.return
  const Operation& add = *combine.operations.front();
  if (add.kind != OpKind::ArithAddF || add.operand(0) != combine.argument(0) || add.operand(1) != combine.argument(1))
    return false;
  const Value* input = reduce.operand(0);
  if (!input->definingOp || input->definingOp->kind != OpKind::ArithMulF) return false;
  if (input->type.element().scalarKind() != ScalarKind::F32) return false;
  int uses = 0;
  walk(*kernel.op(), [&](const Operation& op) {
    for (const Value* operand : op.operands) uses += operand == input;
  });
  return uses == 1;
}

}  // namespace tilesim::analysis

// RemainderVersioning.h: which remainders of a kernel a launch may specialise on, and the host check that allows it.
#include "gpu_backend/RemainderVersioning.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ir/OpAttributes.h"
#include "ir/eval/IntegerLane.h"

namespace tilesim::gpu {
namespace {

const Operation* definedBy(const Value* value, OpKind kind) {
  return value && value->definingOp && value->definingOp->kind == kind ? value->definingOp : nullptr;
}

// The scalar a tt.splat spreads, or null.
const Value* splatScalar(const Value* value) {
  const Operation* splat = definedBy(value, OpKind::TTSplat);
  return splat && !splat->operand(0)->type.isTensor() ? splat->operand(0) : nullptr;
}

// splat(start) + make_range (either order) with a non-negative first value: the start and the range's last value.
std::optional<std::pair<const Value*, int64_t>> startPlusRange(const Value* dividend) {
  const Operation* add = definedBy(dividend, OpKind::ArithAddI);
  if (!add) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const Value* start = splatScalar(add->operand(side));
    const Operation* range = definedBy(add->operand(1 - side), OpKind::TTMakeRange);
    if (!start || !range) continue;
    const int64_t first = MakeRangeView{*range}.start();
    const std::span<const int64_t> shape = range->result()->type.shape();
    if (first < 0 || shape.size() != 1) return std::nullopt;
    return std::pair{start, first + shape[0] - 1};
  }
  return std::nullopt;
}

// The low `width` bits of `bits`, and their value as a signed integer.
uint64_t truncated(uint64_t bits, int width) { return width == 64 ? bits : bits & ((uint64_t{1} << width) - 1); }
int64_t signedValue(uint64_t bits, int width) {
  return width == 64 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
}

int integerWidth(const Value& value) {
  if (value.type.isTensor() || !value.type.isInteger()) return 0;
  const int width = value.type.bitWidth();
  return width == 8 || width == 16 || width == 32 || width == 64 ? width : 0;
}

// Whether the host evaluates `op` in remainderGuardsHold: a scalar integer result from constants, program ids,
// grid sizes or IntArith.
bool hostEvaluable(const Operation& op) {
  if (op.numResults() != 1 || integerWidth(*op.result()) == 0) return false;
  return op.kind == OpKind::ArithConstant || op.kind == OpKind::TTGetProgramId || op.kind == OpKind::TTGetNumPrograms ||
         opFamily(op.kind) == OpFamily::IntArith;
}

template <typename U>
uint64_t intArithLane(const Operation& op, uint64_t a, uint64_t b) {
  return scalar::integerLane(familyOp<IntArithOp>(op.kind), static_cast<U>(a), static_cast<U>(b));
}

uint64_t evaluate(const Operation& op, const std::vector<uint64_t>& operands, const std::array<int64_t, 3>& programId,
                  const std::array<int64_t, 3>& grid) {
  const int width = integerWidth(*op.result());
  if (op.kind == OpKind::ArithConstant) return truncated(ConstantView{op}.bitsAt(0), width);
  if (op.kind == OpKind::TTGetProgramId) return truncated(static_cast<uint64_t>(programId[ProgramAxisView{op}.index()]), width);
  if (op.kind == OpKind::TTGetNumPrograms) return truncated(static_cast<uint64_t>(grid[ProgramAxisView{op}.index()]), width);
  const uint64_t a = operands.at(0), b = operands.size() > 1 ? operands[1] : 0;
  switch (width) {
    case 8: return intArithLane<uint8_t>(op, a, b);
    case 16: return intArithLane<uint16_t>(op, a, b);
    case 32: return intArithLane<uint32_t>(op, a, b);
    default: return intArithLane<uint64_t>(op, a, b);
  }
}

// The ops the guards' scalars are computed by, in program order; nullopt when one is not hostEvaluable or
// a scalar comes from something but those ops and the kernel's integer arguments.
std::optional<std::vector<const Operation*>> guardSlice(const Function& kernel, const std::vector<GuardedRemainder>& guarded) {
  std::unordered_set<const Value*> needed;
  for (const GuardedRemainder& guard : guarded) needed.insert({guard.start, guard.divisor});
  std::vector<const Operation*> slice;
  const auto& operations = kernel.body().operations;
  for (auto op = operations.rbegin(); op != operations.rend(); ++op) {
    if ((*op)->numResults() != 1 || !needed.contains((*op)->result())) continue;
    if (!hostEvaluable(**op)) return std::nullopt;
    slice.push_back(op->get());
    for (const Value* operand : (*op)->operands) needed.insert(operand);
  }
  for (const Value* value : needed) {
    const bool computed = value->definingOp && value->definingOp->parentBlock == &kernel.body();
    const bool argument = value->isBlockArgument() && value->ownerBlock == &kernel.body() && integerWidth(*value) != 0;
    if (!computed && !argument) return std::nullopt;  // defined in a region, or not an integer argument
  }
  std::reverse(slice.begin(), slice.end());
  return slice;
}

}  // namespace

std::vector<GuardedRemainder> findGuardedRemainders(const Function& kernel, const analysis::AxisInfoAnalysis& axisInfo) {
  std::vector<GuardedRemainder> guarded;
  for (const auto& op : kernel.body().operations) {
    if (op->kind == OpKind::ArithRemSI && op->result()->type.isTensor() && op->result()->type.isInteger()) {
      const std::optional<std::pair<const Value*, int64_t>> dividend = startPlusRange(op->operand(0));
      const Value* divisor = splatScalar(op->operand(1));
      if (dividend && divisor && axisInfo.info(*divisor).divisibility[0] >= 2)
        guarded.push_back({op.get(), dividend->first, dividend->second, divisor});
    }
  }
  return guarded;
}

analysis::AxisAssumptions guardedAssumptions(const std::vector<GuardedRemainder>& guarded) {
  analysis::AxisAssumptions assumptions;
  for (const GuardedRemainder& guard : guarded) assumptions.positiveRemainders.insert(guard.remainder);
  return assumptions;
}

}  // namespace tilesim::gpu

namespace tilesim::gpu {

bool remainderGuardsHold(const Function& kernel, const std::vector<GuardedRemainder>& guarded,
                         std::span<const std::optional<uint64_t>> scalarArguments, const std::array<int64_t, 3>& grid) {
  int64_t programs = 1;
  for (int64_t size : grid) {
    if (size < 0 || size > kMaxCheckedPrograms) return false;
    programs *= size;  // at most 2^44 before the check below stops it
    if (programs > kMaxCheckedPrograms) return false;
  }
  if (guarded.empty()) return false;
  const std::optional<std::vector<const Operation*>> slice = guardSlice(kernel, guarded);
  if (!slice) return false;
  std::unordered_map<const Value*, uint64_t> values;
  for (size_t i = 0; i < kernel.numArguments(); ++i) {
    const Value* argument = kernel.argument(i);
    if (integerWidth(*argument) == 0) continue;
    if (i >= scalarArguments.size() || !scalarArguments[i]) return false;
    values[argument] = truncated(*scalarArguments[i], integerWidth(*argument));
  }
  std::vector<uint64_t> operands;
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        for (const Operation* op : *slice) {
          operands.clear();
          for (const Value* operand : op->operands) operands.push_back(values.at(operand));
          values[op->result()] = evaluate(*op, operands, {x, y, z}, grid);
        }
        for (const GuardedRemainder& guard : guarded) {
          const int width = integerWidth(*guard.start);
          const int64_t start = signedValue(values.at(guard.start), width);
          const int64_t divisor = signedValue(values.at(guard.divisor), width);
          const int64_t highestStart = (width == 64 ? INT64_MAX : (int64_t{1} << (width - 1)) - 1) - guard.lastOffset;
          if (start < 0 || start > highestStart || divisor <= 0) return false;
        }
      }
  return true;
}

}  // namespace tilesim::gpu

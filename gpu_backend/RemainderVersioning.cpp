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

int integerWidth(const Value& value) {
  if (value.type.isTensor() || !value.type.isInteger()) return 0;
  const int width = value.type.bitWidth();
  return width == 8 || width == 16 || width == 32 || width == 64 ? width : 0;
}

// Whether RemainderGuardCheck evaluates `op` on the host: a scalar integer result from constants, program ids,
// grid sizes or IntArith.
bool hostEvaluable(const Operation& op) {
  if (op.numResults() != 1 || integerWidth(*op.result()) == 0) return false;
  return op.kind == OpKind::ArithConstant || op.kind == OpKind::TTGetProgramId || op.kind == OpKind::TTGetNumPrograms ||
         opFamily(op.kind) == OpFamily::IntArith;
}

template <typename U>
uint64_t intArithLane(IntArithOp op, uint64_t a, uint64_t b) {
  return scalar::integerLane(op, static_cast<U>(a), static_cast<U>(b));
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

RemainderGuardCheck::RemainderGuardCheck(const Function& kernel, const std::vector<GuardedRemainder>& guarded) {
  compile(kernel, guarded);
}

RemainderGuardCheck::RemainderGuardCheck(const Module& module, const Function& kernel) {
  const bool anyRemainder = std::any_of(kernel.body().operations.begin(), kernel.body().operations.end(), [](const auto& op) {
    return op->kind == OpKind::ArithRemSI && op->result()->type.isTensor();
  });
  if (!anyRemainder) return;
  const analysis::AxisInfoAnalysis axisInfo(module);
  compile(kernel, findGuardedRemainders(kernel, axisInfo));
}

void RemainderGuardCheck::compile(const Function& kernel, const std::vector<GuardedRemainder>& guarded) {
  if (guarded.empty()) return;
  const std::optional<std::vector<const Operation*>> slice = guardSlice(kernel, guarded);
  if (!slice) return;
  std::unordered_map<const Value*, int> slotOf;
  for (size_t i = 0; i < kernel.numArguments(); ++i) {
    const Value* argument = kernel.argument(i);
    if (integerWidth(*argument) == 0) continue;
    arguments_.push_back({i, slots_, integerWidth(*argument)});
    slotOf[argument] = slots_++;
  }
  for (const Operation* op : *slice) {
    Step step;
    step.width = integerWidth(*op->result());
    if (op->kind == OpKind::ArithConstant) {
      step.constant = scalar::lowBits(ConstantView{*op}.bitsAt(0), step.width);
    } else if (op->kind == OpKind::TTGetProgramId || op->kind == OpKind::TTGetNumPrograms) {
      step.kind = op->kind == OpKind::TTGetProgramId ? Step::Kind::ProgramId : Step::Kind::NumPrograms;
      step.axis = ProgramAxisView{*op}.index();
    } else {
      step.kind = Step::Kind::IntArith;
      step.arith = familyOp<IntArithOp>(op->kind);
      step.a = slotOf.at(op->operand(0));
      step.b = op->numOperands() > 1 ? slotOf.at(op->operand(1)) : step.a;
    }
    step.result = slotOf[op->result()] = slots_++;
    steps_.push_back(step);
  }
  for (const GuardedRemainder& guard : guarded)
    guards_.push_back({slotOf.at(guard.start), slotOf.at(guard.divisor), integerWidth(*guard.start), guard.lastOffset});
}

bool RemainderGuardCheck::programPasses(std::vector<uint64_t>& slots, const std::array<int64_t, 3>& programId,
                                        const std::array<int64_t, 3>& grid) const {
  for (const Step& step : steps_) {
    uint64_t& value = slots[static_cast<size_t>(step.result)];
    switch (step.kind) {
      case Step::Kind::Constant: value = step.constant; break;
      case Step::Kind::ProgramId: value = scalar::lowBits(static_cast<uint64_t>(programId[static_cast<size_t>(step.axis)]), step.width); break;
      case Step::Kind::NumPrograms: value = scalar::lowBits(static_cast<uint64_t>(grid[static_cast<size_t>(step.axis)]), step.width); break;
      case Step::Kind::IntArith: {
        const uint64_t a = slots[static_cast<size_t>(step.a)], b = slots[static_cast<size_t>(step.b)];
        switch (step.width) {
          case 8: value = intArithLane<uint8_t>(step.arith, a, b); break;
          case 16: value = intArithLane<uint16_t>(step.arith, a, b); break;
          case 32: value = intArithLane<uint32_t>(step.arith, a, b); break;
          default: value = intArithLane<uint64_t>(step.arith, a, b); break;
        }
        break;
      }
    }
  }
  for (const Guard& guard : guards_) {
    const int64_t start = scalar::signExtended(slots[static_cast<size_t>(guard.start)], guard.width);
    const int64_t divisor = scalar::signExtended(slots[static_cast<size_t>(guard.divisor)], guard.width);
    const int64_t highestStart = (guard.width == 64 ? INT64_MAX : (int64_t{1} << (guard.width - 1)) - 1) - guard.lastOffset;
    if (start < 0 || start > highestStart || divisor <= 0) return false;
  }
  return true;
}

bool RemainderGuardCheck::holds(std::span<const std::optional<uint64_t>> scalarArguments,
                                const std::array<int64_t, 3>& grid) const {
  if (!possible()) return false;
  int64_t programs = 1;
  for (int64_t size : grid) {
    if (size < 0 || size > kMaxCheckedPrograms) return false;
    programs *= size;  // at most 2^44 before the check below stops it
    if (programs > kMaxCheckedPrograms) return false;
  }
  std::vector<uint64_t> slots(static_cast<size_t>(slots_), 0);
  for (const Argument& argument : arguments_) {
    if (argument.index >= scalarArguments.size() || !scalarArguments[argument.index]) return false;
    slots[static_cast<size_t>(argument.slot)] = scalar::lowBits(*scalarArguments[argument.index], argument.width);
  }
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x)
        if (!programPasses(slots, {x, y, z}, grid)) return false;
  return true;
}

bool remainderGuardsHold(const Function& kernel, const std::vector<GuardedRemainder>& guarded,
                         std::span<const std::optional<uint64_t>> scalarArguments, const std::array<int64_t, 3>& grid) {
  return RemainderGuardCheck(kernel, guarded).holds(scalarArguments, grid);
}

}  // namespace tilesim::gpu

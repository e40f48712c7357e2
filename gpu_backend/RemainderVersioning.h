// Remainder specialisation: a launch-checked fact that lets `(start + tl.arange(0, B)) % n` offsets vectorise.
// Triton's matmul tutorial wraps its row and column offsets this way (`offs_bn = (pid_n * BLOCK_N +
// tl.arange(0, BLOCK_N)) % N`); Triton's AxisInfo then assumes the dividend is non-negative, which nothing in the
// kernel proves (-7 % 8 = -7 restarts a run), and loads b 16 bytes at a time. tilesim may not assume it, so it
// checks it per launch, as Triton checks `tt.divisibility` when it specialises on an argument: before compiling,
// the GPU engine evaluates on the host, for every program of the grid, the scalars the guards read (program ids,
// arguments and the integer arithmetic between them), and only when every guard holds in every program does it
// compile (and cache, under its own key) the version whose AxisInfo assumes them
// (AxisAssumptions::positiveRemainders). Any other launch gets the kernel as AxisInfo proves it. Both compute
// the same values in every lane; only which accesses are vectorised differs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/IR.h"
#include "ir/analysis/AxisInfo.h"

namespace tilesim::gpu {

// `remainder` = arith.remsi (splat(start) + make_range[first, first + length)) % splat(divisor); its guard
// `start >= 0 && start <= max - lastOffset && divisor > 0` makes every dividend non-negative and non-wrapping.
struct GuardedRemainder {
  const Operation* remainder = nullptr;
  const Value* start = nullptr;    // a scalar of the remainder's element type
  int64_t lastOffset = 0;          // the make_range's last value (its end - 1)
  const Value* divisor = nullptr;  // a scalar of the remainder's element type
};

// The remainders of `kernel` worth guarding: tensor arith.remsi of that shape at the top level of the kernel body
// whose divisor has a known divisibility of at least 2 (otherwise the assumption gains no contiguity).
std::vector<GuardedRemainder> findGuardedRemainders(const Function& kernel, const analysis::AxisInfoAnalysis& axisInfo);

// The assumptions the guards of `guarded` make true, for the AxisInfo of the specialised version.
analysis::AxisAssumptions guardedAssumptions(const std::vector<GuardedRemainder>& guarded);

// The most programs a launch's guards are checked in; a bigger grid runs the unspecialised kernel.
inline constexpr int64_t kMaxCheckedPrograms = int64_t{1} << 22;

// The host check of a kernel's remainder guards, compiled once into a flat list of steps over numbered slots so
// that checking a launch touches no map and holds no pointer into the module (the GPU engine keeps one per
// compiled kernel, next to its verdicts per launch). The slots are the kernel's integer arguments, then one per
// step: the guards' start and divisor and every scalar they are computed from.
class RemainderGuardCheck {
 public:
  // The check of `guarded`'s guards; `possible()` is false when there is nothing to guard, or when a guard's
  // scalars depend on anything but program ids, grid sizes, integer arguments, integer constants and scalar IntArith.
  RemainderGuardCheck(const Function& kernel, const std::vector<GuardedRemainder>& guarded);
  // The check of `kernel`'s guardable remainders. AxisInfo (which findGuardedRemainders needs) is computed only when
  // the kernel body holds a tensor arith.remsi at all: the common kernel costs one walk of its top-level ops.
  RemainderGuardCheck(const Module& module, const Function& kernel);

  bool possible() const { return !guards_.empty(); }
  // Whether every guard holds in every program of `grid`. `scalarArguments[i]` is kernel argument i's bits
  // (nullopt for buffers). False when !possible(), when an integer argument has no bits, or when the grid has more
  // than kMaxCheckedPrograms programs.
  bool holds(std::span<const std::optional<uint64_t>> scalarArguments, const std::array<int64_t, 3>& grid) const;

 private:
  struct Step {                // slot[result] = the op on slot[a], slot[b]
    enum class Kind : uint8_t { Constant, ProgramId, NumPrograms, IntArith } kind = Kind::Constant;
    IntArithOp arith = IntArithOp::ArithAddI;
    int width = 0;
    int axis = 0;
    uint64_t constant = 0;
    int a = -1, b = -1, result = -1;
  };
  struct Guard {
    int start = -1, divisor = -1, width = 0;
    int64_t lastOffset = 0;
  };
  struct Argument {
    size_t index = 0;
    int slot = -1, width = 0;
  };
  void compile(const Function& kernel, const std::vector<GuardedRemainder>& guarded);
  bool programPasses(std::vector<uint64_t>& slots, const std::array<int64_t, 3>& programId,
                     const std::array<int64_t, 3>& grid) const;

  std::vector<Argument> arguments_;
  std::vector<Step> steps_;
  std::vector<Guard> guards_;  // empty: nothing can be checked
  int slots_ = 0;
};

// Whether every guard of `guarded` holds in every program of `grid` (RemainderGuardCheck, built and run once).
bool remainderGuardsHold(const Function& kernel, const std::vector<GuardedRemainder>& guarded,
                         std::span<const std::optional<uint64_t>> scalarArguments, const std::array<int64_t, 3>& grid);

}  // namespace tilesim::gpu

// tt.atomic_rmw and tt.atomic_cas: lane by lane in lane order, with real host atomics (std::atomic_ref) on the
// launch's buffers, since programs run on several threads at once. Each lane returns the old value; masked-off
// lanes return 0 and touch nothing. Atomics of different programs do not race with each other, but a plain
// load or store of another program on the same element does (docs/semantics.md).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <utility>
#include <type_traits>

#include "interpreter/MemoryAccess.h"
#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"

namespace tilesim {
namespace {

using memory::laneUndefined;
using memory::MemoryAccessor;

// The `atomic_rmw_op` keyword (ir/OpAttributes.h), read once per op; the verifier has checked it.
using RmwKind = AtomicRmwKind;

std::optional<RmwKind> rmwKind(const std::string& word) { return parseKeyword<AtomicRmwKind>(word); }

template <typename T>
T applyRmw(RmwKind kind, T old, T value, ScalarKind scalar) {
  using U = std::make_unsigned_t<T>;
  switch (kind) {
    case RmwKind::Add: return static_cast<T>(static_cast<U>(old) + static_cast<U>(value));
    case RmwKind::And: return old & value;
    case RmwKind::Or: return old | value;
    case RmwKind::Xor: return old ^ value;
    case RmwKind::Exch: return value;
    case RmwKind::Max: return std::max(old, value);
    case RmwKind::Min: return std::min(old, value);
    case RmwKind::UMax: return static_cast<T>(std::max(static_cast<U>(old), static_cast<U>(value)));
    case RmwKind::UMin: return static_cast<T>(std::min(static_cast<U>(old), static_cast<U>(value)));
    case RmwKind::FAdd: {
      double sum = doubleFromFloatBits(static_cast<U>(old), scalar) + doubleFromFloatBits(static_cast<U>(value), scalar);
      return static_cast<T>(floatBitsFromDouble(sum, scalar));
    }
  }
  return old;
}

// Float max/min as Triton lowers them: signed-int max on non-negative bit patterns, unsigned-int min on
// negative ones (SEMANTICS.md §3.4), so the order is by bit pattern.
template <typename T>
T floatMinMax(bool isMax, T old, T value) {
  using U = std::make_unsigned_t<T>;
  const bool valueNegative = value < 0;
  if (isMax) return valueNegative ? static_cast<T>(std::min(static_cast<U>(old), static_cast<U>(value))) : std::max(old, value);
  return valueNegative ? static_cast<T>(std::max(static_cast<U>(old), static_cast<U>(value))) : std::min(old, value);
}

template <typename T>
T atomicUpdate(uint8_t* location, RmwKind kind, T value, ScalarKind scalar, bool isFloat) {
  std::atomic_ref<T> ref(*reinterpret_cast<T*>(location));
  T old = ref.load();
  const bool floatMinOrMax = isFloat && (kind == RmwKind::Max || kind == RmwKind::Min);
  for (;;) {
    T updated = floatMinOrMax ? floatMinMax(kind == RmwKind::Max, old, value) : applyRmw(kind, old, value, scalar);
    if (ref.compare_exchange_weak(old, updated)) return old;
  }
}

uint64_t atomicRmwLane(uint8_t* location, int bytes, RmwKind kind, uint64_t value, ScalarKind scalar,
                       bool isFloat) {
  switch (bytes) {
    case 2: return static_cast<uint16_t>(atomicUpdate<int16_t>(location, kind, static_cast<int16_t>(value), scalar, isFloat));
    case 4: return static_cast<uint32_t>(atomicUpdate<int32_t>(location, kind, static_cast<int32_t>(value), scalar, isFloat));
    case 8: return static_cast<uint64_t>(atomicUpdate<int64_t>(location, kind, static_cast<int64_t>(value), scalar, isFloat));
    default: return 0;
  }
}

uint64_t atomicCasLane(uint8_t* location, int bytes, uint64_t expected, uint64_t desired) {
  switch (bytes) {
    case 2: { uint16_t e = static_cast<uint16_t>(expected); std::atomic_ref<uint16_t>(*reinterpret_cast<uint16_t*>(location)).compare_exchange_strong(e, static_cast<uint16_t>(desired)); return e; }
    case 4: { uint32_t e = static_cast<uint32_t>(expected); std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(location)).compare_exchange_strong(e, static_cast<uint32_t>(desired)); return e; }
    case 8: { uint64_t e = expected; std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(location)).compare_exchange_strong(e, desired); return e; }
    default: return 0;
  }
}

bool lowBitsEqual(uint64_t a, uint64_t b, int bytes) {
  const uint64_t keep = bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
  return (a & keep) == (b & keep);
}

}  // namespace

void executeAtomic(Executor& executor, const Operation& op, Executor::Frame& frame) {
  MemoryAccessor memory(executor, op);
  const bool isCas = familyOp<AtomicOp>(op.kind) == AtomicOp::TTAtomicCAS;
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const Tile& values = *executor.get(frame, op.operand(isCas ? 2 : 1));
  const Tile* compare = isCas ? executor.get(frame, op.operand(1)).get() : nullptr;
  const Tile* mask = !isCas && op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  Type resultType = op.result()->type;
  MutableTileRef result = makeTile(resultType);
  const int bytes = result->elementBytes();
  const ScalarKind scalar = resultType.scalarKind();
  const bool isFloat = resultType.isFloat();
  const std::optional<RmwKind> kind = isCas ? std::optional<RmwKind>(RmwKind::Exch) : rmwKind(op.keywordAttr("atomic_rmw_op"));
  if (!kind) executor.trap(Report::Kind::Unsupported, op, "unknown atomic_rmw kind '" + op.keywordAttr("atomic_rmw_op") + "'");
  if (!isCas && bytes < 2) executor.trap(Report::Kind::Unsupported, op, "atomics on 8-bit elements do not exist");
  // Spin locks (docs/semantics.md, "Locks"): scalar tt.atomic_cas takes one, a scalar exchange releases one.
  const std::string sem = op.keywordAttr("sem");
  const bool lockOp = executor.checks() && executor.context().memory->raceShadowEnabled() && result->size() == 1 &&
                      pointers.size() == 1 && (isCas || *kind == RmwKind::Exch) && !isFloat;
  const bool acquires = sem == "acquire" || sem == "acq_rel";
  const bool releases = sem == "release" || sem == "acq_rel";
  for (int64_t lane = 0; lane < result->size(); ++lane) {
    if (mask) {
      if (laneUndefined(*mask, lane)) memory.undefinedUse(mask, lane, "an undefined mask lane decides an atomic");
      if (!(mask->bitsAt(mask->size() == 1 ? 0 : lane) & 1)) continue;  // returns 0
    }
    if (laneUndefined(pointers, lane)) {
      memory.undefinedUse(&pointers, lane, "an undefined address is used by an atomic");
      continue;
    }
    if (laneUndefined(values, lane) || (compare && laneUndefined(*compare, lane)))
      memory.undefinedUse(&values, lane, "an undefined value reaches memory through an atomic");
    uint64_t offset = 0;
    uint64_t address = pointers.bitsAt(pointers.size() == 1 ? 0 : lane);
    // Checked even with --no-check: a misaligned host atomic is undefined behaviour in tilesim itself.
    Access access = executor.context().memory->translate(address, static_cast<uint64_t>(bytes));
    if (!access.buffer || address % static_cast<uint64_t>(bytes) != 0) {
      memory.resolve(&pointers, lane, address, static_cast<uint64_t>(bytes), true, &offset);  // reports
      continue;
    }
    if (executor.checks() && executor.context().memory->raceShadowEnabled())
      memory.resolve(&pointers, lane, address, static_cast<uint64_t>(bytes), true, &offset, /*atomic=*/true);
    uint8_t* location = access.buffer->data + access.offset;
    uint64_t value = values.bitsAt(values.size() == 1 ? 0 : lane);
    const uint64_t expected = isCas ? compare->bitsAt(compare->size() == 1 ? 0 : lane) : 0;
    uint64_t old = isCas ? atomicCasLane(location, bytes, expected, value)
                         : atomicRmwLane(location, bytes, *kind, value, scalar, isFloat);
    // A scalar exchange (or successful CAS) with release semantics writing a held lock's unlocked value
    // releases it. (Another program may take the lock before this bookkeeping: it only concerns this program.)
    if (lockOp && releases && (!isCas || lowBitsEqual(old, expected, bytes))) executor.releaseLock(address, value);
    // A scalar CAS with acquire semantics that saw the expected value and wrote another takes the lock.
    if (lockOp && isCas && acquires && lowBitsEqual(old, expected, bytes) && !lowBitsEqual(value, expected, bytes))
      executor.acquireLock(address, value, expected);
    result->setBits(lane, old);
    if (isFloat && executor.context().memory->errorBoundsEnabled() && *kind == RmwKind::FAdd) {
      // Float atomics combine in whatever order programs arrive: allow one rounding per addition.
      const double a = doubleFromFloatBits(old, scalar), v = doubleFromFloatBits(value, scalar);
      double sum = std::fabs(a) + std::fabs(v);
      double& bound = access.buffer->errorBound[access.offset / access.buffer->elementBytes];
      bound += sum * std::ldexp(1.0, -(floatFormat(scalar).mantissaBits)) * 2;
      if (scalar == ScalarKind::F32) {
        // The triton profile's f32 fadd is `atom.add.f32`, which flushes subnormal inputs and results to
        // sign-preserving zero (PTX ISA 8.5 §9.7.13.4 atom; gpu_backend/lowering/Atomics.cpp). Measured on the
        // H200 (GPU fuzz campaign 2026-12-01, 32 of 37 triton-profile mismatches): 1e-40 + 0 gave 0. Allow
        // each flushed input and a flushed (subnormal) result.
        const double smallestNormal = std::ldexp(1.0, -126);
        double flushed = 0;
        if (a != 0 && std::fabs(a) < smallestNormal) flushed += std::fabs(a);
        if (v != 0 && std::fabs(v) < smallestNormal) flushed += std::fabs(v);
        const double result = std::fabs(a + v) + flushed;  // the most the rounded, input-flushed sum can be
        bound += flushed + (result < smallestNormal ? result : 0.0);
      }
    }
  }
  executor.set(frame, op.result(), result);
}

}  // namespace tilesim

// tt.atomic_rmw and tt.atomic_cas: lane by lane in lane order, with real host atomics (std::atomic_ref) on the
// launch's buffers, since programs run on several threads at once. Each lane returns the old value; masked-off
// lanes return 0 and touch nothing. Atomics of different programs do not race with each other, but a plain
// load or store of another program on the same element does (docs/semantics.md).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <utility>
#include <type_traits>

#include "interpreter/MemoryAccess.h"
#include "ir/FloatBits.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim {
namespace {

using memory::laneUndefined;
using memory::MemoryAccessor;

// The `atomic_rmw_op` keyword (ir/OpAttributes.h's AtomicView), read once per op.
using RmwKind = AtomicRmwKind;

template <typename T>
T applyRmw(RmwKind kind, T old, T value, ScalarKind scalar, bool ftz) {
  using U = std::make_unsigned_t<T>;
  switch (kind) {
    case RmwKind::Add: return static_cast<T>(static_cast<U>(old) + static_cast<U>(value));
    case RmwKind::And: return old & value;
    case RmwKind::Or: return old | value;
    case RmwKind::Xor: return old ^ value;
    case RmwKind::Exch: return value;
    case RmwKind::Max: return std::max(old, value);
    case RmwKind::Min: return std::min(old, value);
    case RmwKind::UMax:
      return TILESIM_MUTANT(interp_atomic_umax_signed, static_cast<T>(std::max(static_cast<U>(old), static_cast<U>(value))),
                            std::max(old, value));
    case RmwKind::UMin: return static_cast<T>(std::min(static_cast<U>(old), static_cast<U>(value)));
    case RmwKind::FAdd: {
      // `ftz` (f32 under the triton profile): Triton's atom.add.f32 "flushes subnormal inputs and results to
      // sign-preserving zero" (PTX ISA, atom); seen on the H200: -0 + 1e-40 and 1e-40 + 0 leave +0
      // (docs/findings.md G1). The exact profile, f16/bf16 (.noftz) and f64 keep subnormals.
      auto flush = [&](double v) { return ftz && v != 0 && std::fabs(v) < 0x1p-126 ? std::copysign(0.0, v) : v; };
      double sum = flush(doubleFromFloatBits(static_cast<U>(old), scalar)) +
                   flush(doubleFromFloatBits(static_cast<U>(value), scalar));
      return static_cast<T>(floatBitsFromDouble(flush(sum), scalar));
    }
  }
  return old;
}

// Float max/min as Triton lowers them: signed-int max on non-negative bit patterns, unsigned-int min on
// negative ones (measured on an H200; docs/semantics.md "Programs, memory and masks"), so the order is by bit pattern.
template <typename T>
T floatMinMax(bool isMax, T old, T value) {
  using U = std::make_unsigned_t<T>;
  const bool valueNegative = value < 0;
  if (isMax) return valueNegative ? static_cast<T>(std::min(static_cast<U>(old), static_cast<U>(value))) : std::max(old, value);
  return valueNegative ? static_cast<T>(std::max(static_cast<U>(old), static_cast<U>(value))) : std::min(old, value);
}

template <typename T>
T atomicUpdate(uint8_t* location, RmwKind kind, T value, ScalarKind scalar, bool isFloat, bool ftz) {
  std::atomic_ref<T> ref(*reinterpret_cast<T*>(location));
  T old = ref.load();
  const bool floatMinOrMax = isFloat && (kind == RmwKind::Max || kind == RmwKind::Min);
  for (;;) {
    T updated = floatMinOrMax ? floatMinMax(kind == RmwKind::Max, old, value) : applyRmw(kind, old, value, scalar, ftz);
    if (ref.compare_exchange_weak(old, updated))
      return TILESIM_MUTANT(interp_atomic_returns_new, old, kind == RmwKind::Add ? updated : old);
  }
}

uint64_t atomicRmwLane(uint8_t* location, int bytes, RmwKind kind, uint64_t value, ScalarKind scalar,
                       bool isFloat, bool ftz) {
  switch (bytes) {
    case 2: return static_cast<uint16_t>(atomicUpdate<int16_t>(location, kind, static_cast<int16_t>(value), scalar, isFloat, ftz));
    case 4: return static_cast<uint32_t>(atomicUpdate<int32_t>(location, kind, static_cast<int32_t>(value), scalar, isFloat, ftz));
    case 8: return static_cast<uint64_t>(atomicUpdate<int64_t>(location, kind, static_cast<int64_t>(value), scalar, isFloat, ftz));
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

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double laneBound(const Tile& tile, int64_t lane) {
  const double* bounds = tile.errorBounds();
  return bounds ? bounds[tile.size() == 1 ? 0 : lane] : 0.0;
}

// The unit roundoff u of a float format (2^-24 for f32).
double unitRoundoff(ScalarKind kind) { return std::ldexp(1.0, -(floatFormat(kind).mantissaBits + 1)); }

// f32 `atom.add` flushes subnormal inputs and results to zero (PTX ISA, atom); the f16/bf16 forms are .noftz
// and f64 has no FTZ. The most one flushed operand or result can move the sum.
double flushSlack(ScalarKind kind) { return kind == ScalarKind::F32 ? std::ldexp(1.0, -126) : 0.0; }

// One float atomic add (ours: `old` + `value`, value within `valueBound` of the GPU's addend) joins the
// element's group; the element's bound becomes the group's order-independent bound.
// `adder` identifies this execution of the op in this program (adderToken); `exact`: the exact profile, where
// the element's bound covers the arrival order only once two unordered additions reached it (contended).
void noteAtomicAdd(AtomicAddGroups& groups, std::vector<double>& errorBound, size_t element, ScalarKind kind,
                   double old, double value, double valueBound, uint64_t adder, bool exact) {
  if (groups.additions[element] == 0) {  // v0 = old, with the bound of the value stored there (E0)
    const double start = errorBound[element];
    groups.lastAdder[element] = 0;
    groups.contended[element] = 0;
    groups.magnitude[element] = std::isfinite(old) ? std::fabs(old) + start : 0.0;
    groups.orderFree[element] = start + flushSlack(kind);
    groups.nonFinite[element] = !std::isfinite(old);
  }
  groups.additions[element] += 1;
  if (std::isfinite(value)) groups.magnitude[element] += std::fabs(value) + valueBound;
  else groups.nonFinite[element] = 1;
  // Our own rounding of this step: at most u|old + value| rounding to the format, plus 2^-53 of it for
  // the sum formed in double first (exact for f64, and for f16/bf16, where it is one rounding).
  const double ours = std::isfinite(old) && std::isfinite(value)
                          ? (unitRoundoff(kind) + std::ldexp(1.0, -53)) * (std::fabs(old) + std::fabs(value))
                          : 0.0;
  groups.orderFree[element] += valueBound + ours + 2 * flushSlack(kind);
  // The same execution twice is two lanes of one op hitting one address (unordered on the GPU); another
  // execution of the same program comes after in program order; another program's is unordered.
  const uint64_t last = groups.lastAdder[element];
  if (last != 0 && (last == adder || (last >> 32) != (adder >> 32))) groups.contended[element] = 1;
  groups.lastAdder[element] = adder;
  if (exact && !groups.contended[element] && errorBound[element] == 0 && valueBound == 0) return;  // one order
  errorBound[element] = groups.bound(element, kind);
}

}  // namespace

// The GPU adds v0 and x_1..x_n one at a time in some order: a recursive sum of n + 1 terms, within
// gamma_n (|v0'| + sum|x_i'|) of the exact sum of its terms (Higham, Accuracy and Stability, eq. 4.4, for
// every order), and those terms are within E0, e_i of ours; ours is the exact sum of our terms plus our
// roundings (recursive summation: the step errors add up). So |GPU - ours| <= gamma_n * magnitude + orderFree.
// Any order may overflow when magnitude (1 + gamma_n) reaches the largest finite value: then +inf. Exact inf
// or NaN terms decide the sum whatever the order (inf, or NaN for both signs or a NaN), unless a finite
// partial sum could overflow: bound 0.
double AtomicAddGroups::bound(size_t element, ScalarKind kind) const {
  const double n = static_cast<double>(additions[element]);
  const double u = unitRoundoff(kind);
  if (n * u >= 1) return kInfinity;
  const double gammaN = n * u / (1 - n * u);
  const double total = magnitude[element];
  const double free = orderFree[element];
  if (!std::isfinite(total) || !std::isfinite(free) || total * (1 + gammaN) >= largestFinite(kind)) return kInfinity;
  if (nonFinite[element]) return 0.0;
  return free + gammaN * total;
}

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
  const AtomicView atomic{op};
  const std::optional<RmwKind> kind = isCas ? std::optional<RmwKind>(RmwKind::Exch) : atomic.rmwKindIfKnown();
  if (!kind) executor.trap(Report::Kind::Unsupported, op, "unknown atomic_rmw kind '" + atomic.rmwKindWord() + "'");
  if (!isCas && bytes < 2) executor.trap(Report::Kind::Unsupported, op, "atomics on 8-bit elements do not exist");
  // Spin locks (docs/semantics.md, "Locks"): scalar tt.atomic_cas takes one, a scalar exchange releases one.
  const std::optional<MemorySemantic> sem = atomic.semanticIfPresent();
  const bool lockOp = executor.checks() && executor.context().memory->raceShadowEnabled() && result->size() == 1 &&
                      pointers.size() == 1 && (isCas || *kind == RmwKind::Exch) && !isFloat;
  const bool acquires = sem == MemorySemantic::Acquire || sem == MemorySemantic::AcqRel;
  const bool releases = sem == MemorySemantic::Release || sem == MemorySemantic::AcqRel;
  double* resultBounds = nullptr;
  // This execution of the op (AtomicAddGroups::lastAdder): the program in the high word, a serial in the low.
  const uint64_t adderToken = (static_cast<uint64_t>(executor.programLinearId() + 1) << 32) |
                              (executor.nextAtomicSerial() & 0xFFFFFFFFu);
  const bool exactProfile = executor.context().options.profile == FloatProfile::Exact;
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
    if (isFloat && *kind == RmwKind::FAdd && executor.context().memory->errorBoundsEnabled()) {
      // Under the lock, so that the group sees the additions in the order the host performed them.
      Buffer& buffer = *access.buffer;
      const size_t element = access.offset / static_cast<uint64_t>(buffer.elementBytes);
      AtomicAddGroups& groups = buffer.atomicAddGroupsFor();
      std::lock_guard<std::mutex> guard(groups.lockFor(element));
      const uint64_t old = atomicRmwLane(location, bytes, *kind, value, scalar, isFloat,
                                         scalar == ScalarKind::F32 &&
                                             executor.context().options.profile == FloatProfile::Triton);
      result->setBits(lane, old);
      // The old value is the sum of the additions that came before: within the element's bound so far when
      // the GPU's earlier additions are the same ones (in any order); which ones came first is the launch's
      // own order dependence, as for every atomic's old value.
      const double oldBound = buffer.errorBound[element];
      if (oldBound != 0) (resultBounds ? resultBounds : resultBounds = result->mutableErrorBounds())[lane] = oldBound;
      noteAtomicAdd(groups, buffer.errorBound, element, scalar, doubleFromFloatBits(old, scalar),
                    doubleFromFloatBits(value, scalar), laneBound(values, lane), adderToken, exactProfile);
      continue;
    }
    const uint64_t expected = isCas ? compare->bitsAt(compare->size() == 1 ? 0 : lane) : 0;
    uint64_t old = isCas ? atomicCasLane(location, bytes, expected, value)
                         : atomicRmwLane(location, bytes, *kind, value, scalar, isFloat,
                                         scalar == ScalarKind::F32 &&
                                             executor.context().options.profile == FloatProfile::Triton);
    // A scalar exchange (or successful CAS) with release semantics writing a held lock's unlocked value
    // releases it. (Another program may take the lock before this bookkeeping: it only concerns this program.)
    if (lockOp && releases && (!isCas || lowBitsEqual(old, expected, bytes))) executor.releaseLock(address, value);
    // A scalar CAS with acquire semantics that saw the expected value and wrote another takes the lock.
    if (lockOp && isCas && acquires && lowBitsEqual(old, expected, bytes) && !lowBitsEqual(value, expected, bytes))
      executor.acquireLock(address, value, expected);
    result->setBits(lane, old);
    if (executor.context().memory->errorBoundsEnabled()) {
      // The element now holds one of the values it saw: within the largest of their bounds for float
      // max/min and exchange (|max(a', b') - max(a, b)| <= max(ea, eb)); any integer or compare-and-swap
      // whose operand is uncertain is uncertain. The old value keeps the element's bound.
      Buffer& buffer = *access.buffer;
      double& elementBound = buffer.errorBound[access.offset / static_cast<uint64_t>(buffer.elementBytes)];
      if (elementBound != 0) (resultBounds ? resultBounds : resultBounds = result->mutableErrorBounds())[lane] = elementBound;
      const double operandBound = std::max(laneBound(values, lane), compare ? laneBound(*compare, lane) : 0.0);
      const bool keepsAValue = isFloat && !isCas && (*kind == RmwKind::Max || *kind == RmwKind::Min || *kind == RmwKind::Exch);
      if (operandBound != 0) elementBound = keepsAValue ? std::max(elementBound, operandBound) : kInfinity;
    }
  }
  executor.set(frame, op.result(), result);
}

}  // namespace tilesim

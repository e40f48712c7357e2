// The Hopper family (TTGIR's ttng ops) on the interpreter. mbarriers follow the PTX ISA's phases: init sets the
// arrival count, barrier_expect arrives once and adds transaction bytes, arrive_barrier arrives, and a phase
// completes when its arrivals and bytes are all in; wait_barrier(parity) returns once the phase of that parity has
// completed, and a wait that nothing left in this program can complete is reported as a deadlock (mbarrier).
// A TMA load reads global memory when issued and lands in shared memory, counting its bytes on the mbarrier, when
// a wait_barrier on that mbarrier runs (the simple model of issue 23: complete at the wait that covers it).
// Tensor maps live beside the program (SharedMemoryState::tensorMaps), keyed by their global scratch address.
// warp_group_dot computes like tt.dot (Dot.h) when issued; fences order nothing in a sequential program.
#include <algorithm>

#include "interpreter/Dot.h"
#include "interpreter/Executor.h"
#include "interpreter/Partitions.h"
#include "interpreter/SharedMemoryAccess.h"
#include "ir/OpAttributes.h"

namespace tilesim {

namespace {

using namespace shared;

// Where global scratch lives: a window no buffer of the launch owns, so a stray tt.load from it is out of bounds.
constexpr uint64_t kScratchBase = (kWildWindow - 1) << kBufferWindowBits;

std::pair<int64_t, int64_t> barrierKey(const Tile& memory) {
  const SharedMemoryView& view = viewOf(memory);
  return {view.allocation, view.offset};
}

MBarrier& validBarrier(Executor& executor, const Operation& op, const Tile& memory) {
  auto it = executor.sharedMemory().barriers.find(barrierKey(memory));
  if (it == executor.sharedMemory().barriers.end() || !it->second.valid)
    executor.trap(Report::Kind::BarrierMisuse, op, it == executor.sharedMemory().barriers.end()
                                                       ? "uses an mbarrier that ttng.init_barrier never initialised"
                                                       : "uses an mbarrier after ttng.inval_barrier");
  return it->second;
}

bool predicateHolds(Executor& executor, const Executor::Frame& frame, const Operation& op, size_t index) {
  if (index >= op.numOperands()) return true;
  const Tile& predicate = *executor.get(frame, op.operand(index));
  if (predicate.anyUndefined()) executor.trap(Report::Kind::UndefinedUse, op, "an undefined predicate");
  return (predicate.bitsAt(0) & 1) != 0;
}

// `count` arrivals and `bytes` more expected transaction bytes (negative: bytes that landed) on the current phase,
// by `op`. More arrivals than the phase still expects, or more bytes landing than were expected, is an overshoot
// (mbarrier): on a GPU the surplus completes the phase early or spills into the next one.
void arrive(Executor& executor, const Operation& op, MBarrier& barrier, int64_t count, int64_t bytes) {
  if (count > barrier.pendingArrivals)
    executor.report(Report::Kind::BarrierMisuse, op, nullptr, -1,
                    "overshoot: " + std::to_string(count) + " arrival(s) on an mbarrier whose phase expects only " +
                        std::to_string(std::max<int64_t>(barrier.pendingArrivals, 0)) + " more (init_barrier count " +
                        std::to_string(barrier.arrivalCount) + ")");
  if (bytes < 0 && -bytes > barrier.pendingBytes)
    executor.report(Report::Kind::BarrierMisuse, op, nullptr, -1,
                    "overshoot: " + std::to_string(-bytes) + " transaction bytes land on an mbarrier whose phase expects only " +
                        std::to_string(std::max<int64_t>(barrier.pendingBytes, 0)) + " more" +
                        (barrier.lastExpect ? " (the last barrier_expect on it: " +
                                                  partitions::describeOp(executor, *barrier.lastExpect) + ")"
                                            : std::string()));
  barrier.pendingArrivals -= count;
  barrier.pendingBytes += bytes;
  if (barrier.pendingArrivals <= 0 && barrier.pendingBytes <= 0) {
    ++barrier.completedPhases;
    barrier.pendingArrivals = barrier.arrivalCount;
    barrier.pendingBytes = 0;
    barrier.completedClock = std::move(barrier.phaseClock);
    barrier.phaseClock.clear();
  }
}

// Lands every TMA load counted on this mbarrier, completing its transaction bytes.
void completeTmaLoads(Executor& executor, std::pair<int64_t, int64_t> key, MBarrier& barrier) {
  SharedMemoryState& state = executor.sharedMemory();
  for (size_t i = 0; i < state.copies.size(); ++i) {
    PendingCopy& copy = state.copies[i];
    if (copy.done || copy.barrierAllocation != key.first || copy.barrierElement != key.second) continue;
    const int64_t bytes = copy.bytes;
    const Operation& tma = *copy.op;
    std::vector<uint64_t> issuerClock = copy.clock;  // the copy's writes are released by its complete_tx
    completeCopy(executor, i);
    for (size_t q = 0; q < issuerClock.size(); ++q) {
      if (barrier.phaseClock.size() < issuerClock.size()) barrier.phaseClock.resize(issuerClock.size(), 0);
      barrier.phaseClock[q] = std::max(barrier.phaseClock[q], issuerClock[q]);
    }
    arrive(executor, tma, barrier, 0, -bytes);
  }
}

void executeWaitBarrier(Executor& executor, const Operation& op, Executor::Frame& frame) {
  if (!predicateHolds(executor, frame, op, 2)) return;
  const Tile& memory = *executor.get(frame, op.operand(0));
  MBarrier& barrier = validBarrier(executor, op, memory);
  const Tile& phaseTile = *executor.get(frame, op.operand(1));
  if (phaseTile.anyUndefined()) executor.trap(Report::Kind::UndefinedUse, op, "an undefined phase is waited for");
  const int64_t parity = phaseTile.signedAt(0) & 1;
  // The current (incomplete) phase has parity completedPhases % 2; a wait for it returns once that phase completes,
  // which inside ttg.warp_specialize another partition may still do.
  const auto key = barrierKey(memory);
  auto completed = [&executor, &barrier, key, parity] {
    // A phase of that parity already completed: the wait returns at once, and TMA loads counted on the mbarrier
    // since belong to the phase now open (they do not land here).
    if ((barrier.completedPhases & 1) != parity) return true;
    completeTmaLoads(executor, key, barrier);
    return (barrier.completedPhases & 1) != parity;
  };
  partitions::switchPoint(executor);
  if (completed() || partitions::blockUntil(executor, op, completed)) {
    partitions::acquire(executor, op, barrier.completedClock);
    barrier.lastWait = &op;
    return;
  }
  executor.trap(Report::Kind::BarrierMisuse, op,
                  "waits for phase parity " + std::to_string(parity) + " that never completes (deadlock): " +
                      std::to_string(std::max<int64_t>(barrier.pendingArrivals, 0)) + " arrival(s) and " +
                      std::to_string(std::max<int64_t>(barrier.pendingBytes, 0)) + " transaction byte(s) missing");
}

void executeTmaLoad(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const size_t n = op.numOperands();
  if (!predicateHolds(executor, frame, op, n - 1)) return;
  const Tile& destination = *executor.get(frame, op.operand(n - 3));
  const Tile& barrierMemory = *executor.get(frame, op.operand(n - 2));
  validBarrier(executor, op, barrierMemory);
  Type block = destination.type().memDescTensor().withoutEncoding();
  TileRef data = loadDescriptorBlock(executor, op, frame, block);
  const size_t index = issueCopy(executor, op, viewOf(destination), data);
  PendingCopy& copy = executor.sharedMemory().copies[index];
  std::tie(copy.barrierAllocation, copy.barrierElement) = barrierKey(barrierMemory);
  copy.bytes = data->size() * data->elementBytes();
}

void executeTensormapCreate(Executor& executor, const Operation& op, Executor::Frame& frame) {
  TensormapCreateView view{op};
  const int rank = view.rank();
  if (rank > kMaxDescriptorRank) executor.trap(Report::Kind::Unsupported, op, "a tensor map of rank above 5");
  auto scalar = [&](size_t index) { return executor.get(frame, op.operand(index))->signedAt(0); };
  TensorDescriptor desc;
  desc.base = executor.get(frame, op.operand(1))->bitsAt(0);
  desc.rank = rank;
  desc.padding = view.fillMode() == 1 ? 2 : 1;
  const int64_t elementBytes = tileElementBytes(op.operand(1)->type.pointee());
  // The operands list dims innermost first (CUtensorMap order); TensorDescriptor lists them outermost first.
  const size_t globalDims = 2 + static_cast<size_t>(rank), globalStrides = 2 + 2 * static_cast<size_t>(rank);
  for (int d = 0; d < rank; ++d) {
    desc.shape[d] = scalar(globalDims + static_cast<size_t>(rank - 1 - d));
    desc.strides[d] = d == rank - 1 ? 1 : scalar(globalStrides + static_cast<size_t>(rank - 2 - d)) / elementBytes;
  }
  executor.sharedMemory().tensorMaps[executor.get(frame, op.operand(0))->bitsAt(0)] = desc;
}

void executeReinterpret(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const uint64_t address = executor.get(frame, op.operand(0))->bitsAt(0);
  auto it = executor.sharedMemory().tensorMaps.find(address);
  if (it == executor.sharedMemory().tensorMaps.end())
    executor.trap(Report::Kind::Unsupported, op, "no ttng.tensormap_create wrote a tensor map at this address in this program");
  MutableTileRef result = makeTile(op.result()->type);
  *result->as<TensorDescriptor>() = it->second;
  executor.set(frame, op.result(), result);
}

void executeWarpGroupDot(Executor& executor, const Operation& op, Executor::Frame& frame) {
  auto operand = [&](size_t index) -> TileRef {
    const TileRef& tile = executor.get(frame, op.operand(index));
    if (!op.operand(index)->type.isMemDesc()) return tile;
    return readView(executor, op, *tile, op.operand(index)->type.memDescTensor());
  };
  TileRef a = operand(0), b = operand(1), c = executor.get(frame, op.operand(2));
  if (op.numOperands() > 3 && !predicateHolds(executor, frame, op, 3)) c = makeTile(c->type());  // useC false: c = 0
  std::string error;
  MutableTileRef result = evalDot(op, *a, *b, *c, executor.context().options.profile, &error);
  if (!result) executor.trap(Report::Kind::Unsupported, op, error);
  SharedMemoryState& state = executor.sharedMemory();
  ++state.pendingDots;
  if (WarpGroupDotView{op}.isAsync()) {  // its shared operands stay read until a warp_group_dot_wait retires it
    const int64_t serial = state.dotsIssued++;
    for (size_t i = 0; i < 2; ++i) {
      if (!op.operand(i)->type.isMemDesc()) continue;
      const SharedMemoryView& view = viewOf(*executor.get(frame, op.operand(i)));
      const std::vector<int64_t> elements = viewElements(view);
      if (elements.empty()) continue;
      const auto [low, high] = std::minmax_element(elements.begin(), elements.end());
      state.dotReads.push_back(DotRead{&op, serial, view.allocation, *low, *high});
    }
  }
  executor.set(frame, op.result(), result);
}

}  // namespace

void executeGlobalScratchAlloc(Executor& executor, const Operation& op, Executor::Frame& frame) {
  GlobalScratchView view{op};
  SharedMemoryState& state = executor.sharedMemory();
  const uint64_t alignment = static_cast<uint64_t>(std::max<int64_t>(view.alignment(), 1));
  state.scratchUsed = (state.scratchUsed + alignment - 1) / alignment * alignment;
  MutableTileRef result = makeTile(op.result()->type);
  result->setBits(0, kScratchBase + state.scratchUsed);
  state.scratchUsed += static_cast<uint64_t>(view.nbytes());
  executor.set(frame, op.result(), result);
}

void executeHopperOp(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const HopperOp kind = familyOp<HopperOp>(op.kind);
  if (kind == HopperOp::TTNGArriveBarrier || kind == HopperOp::TTNGBarrierExpect || kind == HopperOp::TTNGAsyncTMACopyGlobalToLocal)
    partitions::switchPoint(executor);  // the random schedule may let another partition go first
  switch (kind) {
    case HopperOp::TTNGInitBarrier: {
      MBarrier& barrier = executor.sharedMemory().barriers[barrierKey(*executor.get(frame, op.operand(0)))];
      barrier = MBarrier{};
      barrier.arrivalCount = barrier.pendingArrivals = BarrierCountView{op}.count();
      barrier.valid = true;
      return;
    }
    case HopperOp::TTNGInvalBarrier: validBarrier(executor, op, *executor.get(frame, op.operand(0))).valid = false; return;
    case HopperOp::TTNGBarrierExpect:
      if (predicateHolds(executor, frame, op, 1))
        {
        MBarrier& barrier = validBarrier(executor, op, *executor.get(frame, op.operand(0)));
        partitions::release(executor, op, barrier.phaseClock);
        barrier.lastExpect = &op;
        arrive(executor, op, barrier, 1, BarrierCountView{op}.count());
      }
      return;
    case HopperOp::TTNGArriveBarrier:
      if (predicateHolds(executor, frame, op, 1))
        {
        MBarrier& barrier = validBarrier(executor, op, *executor.get(frame, op.operand(0)));
        partitions::release(executor, op, barrier.phaseClock);
        arrive(executor, op, barrier, BarrierCountView{op}.count(), 0);
      }
      return;
    case HopperOp::TTNGWaitBarrier: executeWaitBarrier(executor, op, frame); return;
    case HopperOp::TTNGAsyncTMACopyGlobalToLocal: executeTmaLoad(executor, op, frame); return;
    case HopperOp::TTNGAsyncTMACopyLocalToGlobal: {  // completes at once: nothing in one program can observe the delay
      const Tile& source = *executor.get(frame, op.operand(op.numOperands() - 1));
      TileRef values = readView(executor, op, source, source.type().memDescTensor().withoutEncoding());
      storeDescriptorBlock(executor, op, frame, *values);
      return;
    }
    case HopperOp::TTNGAsyncTMAStoreWait:
    case HopperOp::TTNGTensormapFenceproxyAcquire:
    case HopperOp::TTNGFenceAsyncShared: return;  // a sequential program has nothing to order
    case HopperOp::TTNGTensormapCreate: executeTensormapCreate(executor, op, frame); return;
    case HopperOp::TTNGReinterpretTensorDescriptor: executeReinterpret(executor, op, frame); return;
    case HopperOp::TTNGWarpGroupDot: executeWarpGroupDot(executor, op, frame); return;
    case HopperOp::TTNGWarpGroupDotWait: {
      SharedMemoryState& state = executor.sharedMemory();
      state.pendingDots = std::min(state.pendingDots, PendingsView{op}.pendings());
      // wgmma.wait_group N: every dot but the N newest has completed and no longer reads its operands.
      state.dotsRetired = std::max(state.dotsRetired, state.dotsIssued - PendingsView{op}.pendings());
      for (const DotRead& read : state.dotReads) {  // the race check: a dot reads its operands until retired here
        if (read.serial >= state.dotsRetired || read.last < read.first) continue;
        std::vector<int64_t> elements;
        for (int64_t e = read.first; e <= read.last; ++e) elements.push_back(e);
        partitions::noteRead(executor, *read.op, read.allocation, elements);
      }
      std::erase_if(state.dotReads, [&](const DotRead& read) { return read.serial < state.dotsRetired; });
      for (size_t i = 0; i < op.numOperands(); ++i) executor.set(frame, op.results[i].get(), executor.get(frame, op.operand(i)));
      return;
    }
  }
}

}  // namespace tilesim

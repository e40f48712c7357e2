// The SharedMemory family (TTGIR's ttg ops) on the interpreter: layouts are transparent (convert_layout copies),
// shared memory is per-program storage (interpreter/SharedMemory.h) read and written through memory descriptor
// views, and an async copy writes its destination only when the ttg.async_wait covering its commit group runs.
// Checks: a read of an element an in-flight copy will write (async-hazard, with the copy's line), a use after
// ttg.local_dealloc and a memdesc_index outside the buffer (shared-memory).
#include <algorithm>

#include "interpreter/Executor.h"
#include "interpreter/Partitions.h"
#include "interpreter/SharedMemoryAccess.h"
#include "ir/OpAttributes.h"

namespace tilesim {

namespace shared {

const SharedMemoryView& viewOf(const Tile& tile) { return *tile.as<SharedMemoryView>(); }

TileRef viewTile(Type type, const SharedMemoryView& view) {
  MutableTileRef tile = makeTile(type);
  *tile->as<SharedMemoryView>() = view;
  return tile;
}

TileRef tokenTile(uint64_t number) {
  MutableTileRef tile = makeTile(Type::asyncToken());
  tile->setBits(0, number);
  return tile;
}

SharedAllocation& liveAllocation(Executor& executor, const Operation& op, const SharedMemoryView& view) {
  SharedMemoryState& state = executor.sharedMemory();
  TILESIM_ASSERT(view.allocation >= 0 && view.allocation < static_cast<int64_t>(state.allocations.size()),
                 "a memory descriptor tile without an allocation");
  SharedAllocation& allocation = state.allocations[view.allocation];
  if (allocation.freedBy)
    executor.trap(Report::Kind::SharedMemoryMisuse, op,
                  "uses shared memory freed by ttg.local_dealloc at line " + std::to_string(allocation.freedBy->textPos.line) +
                      " (allocated at line " + std::to_string(allocation.allocatedBy->textPos.line) + ")");
  return allocation;
}

std::vector<int64_t> viewElements(const SharedMemoryView& view) {
  int64_t count = 1;
  for (int d = 0; d < view.rank; ++d) count *= view.shape[d];
  std::vector<int64_t> elements(static_cast<size_t>(count));
  std::vector<int64_t> index(static_cast<size_t>(view.rank), 0);
  for (int64_t lane = 0; lane < count; ++lane) {
    int64_t element = view.offset;
    for (int d = 0; d < view.rank; ++d) element += index[d] * view.strides[d];
    elements[lane] = element;
    for (int d = view.rank - 1; d >= 0; --d) {  // row-major: the last dim moves fastest
      if (++index[d] < view.shape[d]) break;
      index[d] = 0;
    }
  }
  return elements;
}

void writeElements(SharedAllocation& allocation, const std::vector<int64_t>& elements, const Tile& data) {
  const int bytes = allocation.elementBytes;
  const uint8_t* undefined = data.undefinedMask();
  const double* bounds = data.errorBounds();
  if (bounds && allocation.errorBounds.empty()) allocation.errorBounds.assign(allocation.undefined.size(), 0.0);
  for (size_t lane = 0; lane < elements.size(); ++lane) {
    const int64_t e = elements[lane];
    std::memcpy(allocation.bytes.data() + e * bytes, static_cast<const char*>(data.raw()) + lane * bytes, bytes);
    allocation.undefined[e] = undefined && undefined[data.size() == 1 ? 0 : lane] ? 1 : 0;
    if (!allocation.errorBounds.empty()) allocation.errorBounds[e] = bounds ? bounds[lane] : 0.0;
  }
}

MutableTileRef readElements(Executor& executor, const Operation& op, const SharedAllocation& allocation,
                            const std::vector<int64_t>& elements, Type resultType) {
  const SharedMemoryState& state = executor.sharedMemory();
  for (size_t lane = 0; lane < elements.size(); ++lane) {
    const uint32_t pending = allocation.pendingCopy[elements[lane]];
    if (pending == 0) continue;
    const PendingCopy& pendingCopy = state.copies[pending - 1];
    const Operation& copy = *pendingCopy.op;
    std::string message = "reads shared memory before " + std::string(copy.name()) + " at line " +
                          std::to_string(copy.textPos.line) + " completed (no wait covers it yet): the value read is stale";
    auto barrier = state.barriers.find({pendingCopy.barrierAllocation, pendingCopy.barrierElement});
    if (barrier != state.barriers.end() && barrier->second.lastWait)  // a wait for another phase let the read go early
      message += "; the last wait on its mbarrier, " + partitions::describeOp(executor, *barrier->second.lastWait) +
                 ", returned for another phase";
    executor.report(Report::Kind::AsyncHazard, op, nullptr, -1, message);
    break;
  }
  MutableTileRef result = makeTile(resultType);
  const int bytes = allocation.elementBytes;
  uint8_t* undefined = nullptr;
  double* bounds = nullptr;
  for (size_t lane = 0; lane < elements.size(); ++lane) {
    const int64_t e = elements[lane];
    std::memcpy(static_cast<char*>(result->raw()) + lane * bytes, allocation.bytes.data() + e * bytes, bytes);
    if (allocation.undefined[e]) (undefined ? undefined : undefined = result->mutableUndefinedMask())[lane] = 1;
    if (!allocation.errorBounds.empty() && allocation.errorBounds[e] != 0)
      (bounds ? bounds : bounds = result->mutableErrorBounds())[lane] = allocation.errorBounds[e];
  }
  return result;
}

TileRef readView(Executor& executor, const Operation& op, const Tile& memory, Type resultType) {
  const SharedMemoryView& view = viewOf(memory);
  SharedAllocation& allocation = liveAllocation(executor, op, view);
  std::vector<int64_t> elements = viewElements(view);
  partitions::noteRead(executor, op, view.allocation, elements);
  return readElements(executor, op, allocation, elements, resultType);
}

void completeCopy(Executor& executor, size_t index) {
  PendingCopy& copy = executor.sharedMemory().copies[index];
  if (copy.done) return;
  copy.done = true;
  SharedAllocation& allocation = executor.sharedMemory().allocations[copy.allocation];
  if (!allocation.freedBy) writeElements(allocation, copy.elements, *copy.data);
  partitions::noteWriteBy(executor, *copy.op, copy.allocation, copy.elements, copy.task, copy.clock);
  for (int64_t e : copy.elements)
    if (allocation.pendingCopy[e] == index + 1) allocation.pendingCopy[e] = 0;
  copy.data.reset();
}

void checkNoDotReads(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements) {
  const SharedMemoryState& state = executor.sharedMemory();
  if (state.dotReads.empty() || elements.empty()) return;
  const auto [low, high] = std::minmax_element(elements.begin(), elements.end());
  for (const DotRead& read : state.dotReads)
    if (read.allocation == allocation && *low <= read.last && read.first <= *high) {
      executor.report(Report::Kind::AsyncHazard, op, nullptr, -1,
                      "writes shared memory that " + std::string(read.op->name()) + " at line " +
                          std::to_string(read.op->textPos.line) + " may still be reading (no warp_group_dot_wait retired it)");
      return;
    }
}

size_t issueCopy(Executor& executor, const Operation& op, const SharedMemoryView& destination, TileRef data) {
  SharedMemoryState& state = executor.sharedMemory();
  SharedAllocation& allocation = liveAllocation(executor, op, destination);
  PendingCopy copy;
  copy.op = &op;
  copy.allocation = destination.allocation;
  copy.elements = viewElements(destination);
  copy.task = partitions::runningTask(executor);
  copy.clock = partitions::clockNow(executor);
  // The copy may land any time from now: inside warp_specialize its write is checked against the other
  // partitions' accesses already here (and again when it lands).
  partitions::noteWriteBy(executor, op, copy.allocation, copy.elements, copy.task, copy.clock);
  checkNoDotReads(executor, op, destination.allocation, copy.elements);  // the copy may land at any time from now
  copy.data = std::move(data);
  TILESIM_ASSERT(static_cast<int64_t>(copy.elements.size()) == copy.data->size(), "async copy of another shape");
  const size_t index = state.copies.size();
  for (int64_t e : copy.elements) allocation.pendingCopy[e] = static_cast<uint32_t>(index + 1);
  state.copies.push_back(std::move(copy));
  return index;
}

}  // namespace shared

namespace {

using namespace shared;

void executeLocalAlloc(Executor& executor, const Operation& op, Executor::Frame& frame) {
  Type held = op.result()->type.memDescTensor();
  SharedAllocation allocation;
  allocation.allocatedBy = &op;
  allocation.elementBytes = tileElementBytes(held);
  allocation.isBool = held.element().isScalar() && held.scalarKind() == ScalarKind::I1;
  const int64_t count = held.numElements();
  allocation.bytes.assign(static_cast<size_t>(count * allocation.elementBytes), 0);
  allocation.undefined.assign(static_cast<size_t>(count), 1);
  allocation.pendingCopy.assign(static_cast<size_t>(count), 0);
  SharedMemoryView view;
  view.allocation = static_cast<int64_t>(executor.sharedMemory().allocations.size());
  view.rank = held.rank();
  TILESIM_ASSERT(view.rank <= kMaxSharedMemoryRank, "memory descriptor of rank above " + std::to_string(kMaxSharedMemoryRank));
  int64_t stride = 1;
  for (int d = view.rank - 1; d >= 0; --d) {
    view.shape[d] = held.shape()[d];
    view.strides[d] = stride;
    stride *= held.shape()[d];
  }
  if (op.numOperands() == 1) writeElements(allocation, viewElements(view), *executor.get(frame, op.operand(0)));
  executor.sharedMemory().allocations.push_back(std::move(allocation));
  executor.set(frame, op.result(), viewTile(op.result()->type, view));
}

void executeMemDescIndex(Executor& executor, const Operation& op, Executor::Frame& frame) {
  SharedMemoryView view = viewOf(*executor.get(frame, op.operand(0)));
  const Tile& indexTile = *executor.get(frame, op.operand(1));
  if (indexTile.anyUndefined()) executor.trap(Report::Kind::UndefinedUse, op, "an undefined index selects a shared-memory buffer");
  const int64_t index = indexTile.signedAt(0);
  if (index < 0 || index >= view.shape[0])
    executor.trap(Report::Kind::SharedMemoryMisuse, op,
                  "index " + std::to_string(index) + " is outside the " + std::to_string(view.shape[0]) + " buffers");
  view.offset += index * view.strides[0];
  for (int d = 1; d < view.rank; ++d) {
    view.shape[d - 1] = view.shape[d];
    view.strides[d - 1] = view.strides[d];
  }
  --view.rank;
  executor.set(frame, op.result(), viewTile(op.result()->type, view));
}

void executeMemDescTrans(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const SharedMemoryView source = viewOf(*executor.get(frame, op.operand(0)));
  SharedMemoryView view = source;
  std::span<const int64_t> order = *OrderView{op}.order();
  for (int d = 0; d < source.rank; ++d) {
    view.shape[d] = source.shape[order[d]];
    view.strides[d] = source.strides[order[d]];
  }
  executor.set(frame, op.result(), viewTile(op.result()->type, view));
}

void executeAsyncCopy(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const Tile& pointers = *executor.get(frame, op.operand(0));
  const SharedMemoryView& destination = viewOf(*executor.get(frame, op.operand(1)));
  const Tile* mask = op.numOperands() > 2 ? executor.get(frame, op.operand(2)).get() : nullptr;
  const Tile* other = op.numOperands() > 3 ? executor.get(frame, op.operand(3)).get() : nullptr;
  Type loaded = pointers.type().withElement(pointers.type().element().pointee());
  // Global memory is read when the copy is issued (its reports carry this op's line); shared memory is written
  // when a wait completes the copy.
  TileRef data = loadThroughPointers(executor, op, pointers, mask, other, loaded);
  size_t index = issueCopy(executor, op, destination, std::move(data));
  executor.set(frame, op.result(), tokenTile(index + 1));
}

void executeCommitGroup(Executor& executor, const Operation& op, Executor::Frame& frame) {
  SharedMemoryState& state = executor.sharedMemory();
  const int64_t group = state.committedGroups++;
  for (PendingCopy& copy : state.copies)
    if (!copy.done && copy.group < 0 && copy.barrierAllocation < 0) copy.group = group;
  executor.set(frame, op.result(), tokenTile(static_cast<uint64_t>(group)));
}

// cp.async.wait_group N: every group but the N most recent ones has completed.
void executeAsyncWait(Executor& executor, const Operation& op, Executor::Frame& frame) {
  SharedMemoryState& state = executor.sharedMemory();
  const int64_t complete = std::max<int64_t>(0, state.committedGroups - PendingsView{op}.pendings());
  for (size_t i = 0; i < state.copies.size(); ++i)
    if (!state.copies[i].done && state.copies[i].group >= 0 && state.copies[i].group < complete) completeCopy(executor, i);
  state.completedGroups = std::max(state.completedGroups, complete);
  executor.set(frame, op.result(), tokenTile(static_cast<uint64_t>(complete)));
}

}  // namespace

void executeSharedMemoryOp(Executor& executor, const Operation& op, Executor::Frame& frame) {
  const SharedMemoryOp kind = familyOp<SharedMemoryOp>(op.kind);
  if (kind == SharedMemoryOp::TTGLocalLoad || kind == SharedMemoryOp::TTGLocalStore) partitions::switchPoint(executor);
  switch (kind) {
    case SharedMemoryOp::TTGConvertLayout: executor.set(frame, op.result(), executor.get(frame, op.operand(0))); return;
    case SharedMemoryOp::TTGLocalAlloc: executeLocalAlloc(executor, op, frame); return;
    case SharedMemoryOp::TTGLocalDealloc: {
      const SharedMemoryView& view = viewOf(*executor.get(frame, op.operand(0)));
      liveAllocation(executor, op, view).freedBy = &op;
      return;
    }
    case SharedMemoryOp::TTGLocalLoad:
      executor.set(frame, op.result(), readView(executor, op, *executor.get(frame, op.operand(0)), op.result()->type));
      return;
    case SharedMemoryOp::TTGLocalStore: {
      const SharedMemoryView& view = viewOf(*executor.get(frame, op.operand(1)));
      SharedAllocation& allocation = liveAllocation(executor, op, view);
      std::vector<int64_t> elements = viewElements(view);
      for (int64_t e : elements)
        if (allocation.pendingCopy[e] != 0) {
          const Operation& copy = *executor.sharedMemory().copies[allocation.pendingCopy[e] - 1].op;
          executor.report(Report::Kind::AsyncHazard, op, nullptr, -1,
                          "overwrites shared memory that " + std::string(copy.name()) + " at line " +
                              std::to_string(copy.textPos.line) + " is still copying into");
          break;
        }
      checkNoDotReads(executor, op, view.allocation, elements);
      partitions::noteWrite(executor, op, view.allocation, elements);
      writeElements(allocation, elements, *executor.get(frame, op.operand(0)));
      return;
    }
    case SharedMemoryOp::TTGMemDescIndex: executeMemDescIndex(executor, op, frame); return;
    case SharedMemoryOp::TTGMemDescTrans: executeMemDescTrans(executor, op, frame); return;
    case SharedMemoryOp::TTGAsyncCopyGlobalToLocal: executeAsyncCopy(executor, op, frame); return;
    case SharedMemoryOp::TTGAsyncCommitGroup: executeCommitGroup(executor, op, frame); return;
    case SharedMemoryOp::TTGAsyncWait: executeAsyncWait(executor, op, frame); return;
    case SharedMemoryOp::TTGGlobalScratchAlloc: executeGlobalScratchAlloc(executor, op, frame); return;
    case SharedMemoryOp::TTGWarpSpecialize: partitions::executeWarpSpecialize(executor, op, frame); return;
    case SharedMemoryOp::TTGWarpYield:
    case SharedMemoryOp::TTGWarpReturn: TILESIM_UNREACHABLE("warp_specialize's terminators are handled by runBlock");
  }
}

}  // namespace tilesim

// A program's TTGIR shared memory, as the interpreter keeps it (docs/ttgir.md): real per-program storage,
// one SharedAllocation per ttg.local_alloc, addressed through SharedMemoryView tiles (interpreter/Tile.h). Every
// element carries whether it holds a defined value, its error bound (the triton profile's), and the async copy
// that will write it: ttg.async_copy_global_to_local reads global memory when issued and writes its
// destination only when the ttg.async_wait that covers its commit group runs, so reading the element before
// then is reported (async-hazard) with the copy's line. mbarriers (ttng.init_barrier ...) live beside the
// allocation element that holds them. Reset for every program; the Executor owns one.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "interpreter/Tile.h"
#include "ir/IR.h"

namespace tilesim {

namespace partitions {
class PartitionRun;  // interpreter/PartitionRun.h
}

struct SharedAllocation {
  const Operation* allocatedBy = nullptr;
  const Operation* freedBy = nullptr;  // ttg.local_dealloc
  int elementBytes = 0;
  bool isBool = false;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> undefined;       // 1: never written (or written from an undefined lane)
  std::vector<double> errorBounds;      // empty until a bounded value is stored
  std::vector<uint32_t> pendingCopy;    // 1 + index into SharedMemoryState::copies of the copy that will write it; 0 none
};

// One issued ttg.async_copy_global_to_local (or TMA load) not yet complete: the loaded tile and where it goes.
struct PendingCopy {
  const Operation* op = nullptr;
  int64_t group = -1;  // its commit group, -1 until ttg.async_commit_group
  int64_t allocation = -1;
  std::vector<int64_t> elements;  // destination element per lane of `data`
  TileRef data;
  bool done = false;
  // TMA: the mbarrier (allocation, element) whose transaction count the copy's bytes complete; -1: none.
  int64_t barrierAllocation = -1, barrierElement = -1;
  int64_t bytes = 0;
  // Inside ttg.warp_specialize: the task that issued it and its clock then (the copy writes as that task).
  int task = 0;
  std::vector<uint64_t> clock;
};

// An mbarrier's state (PTX ISA 9.7.13.15): the current phase's parity, the arrivals still expected and the
// transaction bytes still outstanding. The phase completes when both reach zero.
struct MBarrier {
  int64_t arrivalCount = 0;    // from ttng.init_barrier
  int64_t pendingArrivals = 0;
  int64_t pendingBytes = 0;
  int64_t completedPhases = 0;
  bool valid = false;          // init_barrier .. inval_barrier
  // Inside ttg.warp_specialize (interpreter/Partitions.h): the clocks released into the current phase so far,
  // and those of the last completed phase (what a wait acquires).
  std::vector<uint64_t> phaseClock, completedClock;
  const Operation* lastWait = nullptr;
  const Operation* lastExpect = nullptr;  // the last barrier_expect (named when transaction bytes overshoot)  // the last wait_barrier that returned (named when a TMA load is read early)
};

// The shared memory an async ttng.warp_group_dot reads until a warp_group_dot_wait retires it: the element range
// [first, last] of one allocation (views are contiguous buffers, transposed or not).
struct DotRead {
  const Operation* op = nullptr;
  int64_t serial = 0;  // the dot's issue number in the program
  int64_t allocation = -1;
  int64_t first = 0, last = -1;
};

struct SharedMemoryState {
  std::vector<SharedAllocation> allocations;
  std::vector<PendingCopy> copies;
  int64_t committedGroups = 0;  // groups committed so far; group g is the g-th
  int64_t completedGroups = 0;  // groups 0 .. completedGroups-1 have completed
  std::map<std::pair<int64_t, int64_t>, MBarrier> barriers;  // by (allocation, element)
  int64_t pendingDots = 0;      // ttng.warp_group_dot issued and not yet waited for
  int64_t dotsIssued = 0;       // async warp_group_dots so far; dots below `dotsRetired` have completed
  int64_t dotsRetired = 0;
  std::vector<DotRead> dotReads;  // of the dots not yet retired
  // ttg.global_scratch_alloc gives addresses no buffer owns (tensor maps are the only thing written there);
  // ttng.tensormap_create keeps the map it writes here, ttng.reinterpret_tensor_descriptor reads it back.
  uint64_t scratchUsed = 0;
  std::map<uint64_t, TensorDescriptor> tensorMaps;
  partitions::PartitionRun* partitions = nullptr;  // the running ttg.warp_specialize, if any
  void reset() {
    if (allocations.empty() && copies.empty() && barriers.empty() && tensorMaps.empty() && scratchUsed == 0 &&
        dotsIssued == 0)
      return;
    dotReads.clear();
    dotsIssued = dotsRetired = 0;
    allocations.clear();
    copies.clear();
    barriers.clear();
    tensorMaps.clear();
    committedGroups = completedGroups = pendingDots = 0;
    scratchUsed = 0;
  }
};

}  // namespace tilesim

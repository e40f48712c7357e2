// The kernel's shared memory: where each op's scratch buffer goes and where barriers are needed.
//
// Every shared-memory user of the lowering (a layout conversion, a reduction's cross-warp round, a scan step,
// staged dot operands, a histogram's bins, an atomic's published results) needs its buffer only while its own
// op runs, so each buffer's live range is that op. Buffers whose live ranges do not overlap may share bytes;
// the plan places each new buffer at the lowest 16-byte-aligned offset that no access since the last barrier
// touched, as long as the kernel's shared memory stays within max(its peak so far, kReuseBudget); otherwise at
// offset 0 behind a barrier. The barriers themselves come from the hazards (Triton's Membar analysis, in
// straight-line form): before a write, a barrier if any access since the last barrier overlaps it (another
// thread may still read or write those bytes); before a read, a barrier if a write since the last barrier
// overlaps it. Reads after reads need none.
//
// Control flow: scf.for/while/if regions and the blocks of a kernel with several blocks start and end in the
// "unknown" state (any access since the last barrier may be anywhere: the back edge of a loop brings the end of
// the body before its start), so their first access gets a barrier; straight-line code between them is exact.
// A region that made no shared access leaves the state as it found it (enter/leave).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace tilesim::gpu {

struct SharedRange {
  int64_t offset = 0, bytes = 0;
  bool overlaps(const SharedRange& other) const {
    return offset < other.offset + other.bytes && other.offset < offset + bytes;
  }
};

class SharedMemoryPlan {
 public:
  static constexpr int64_t kReuseBudget = 4 * 1024;   // what may be spent to avoid a barrier

  // `maxBytes`: the target's shared memory per block (layout/TargetLimits.h sharedBytesPerBlock).
  explicit SharedMemoryPlan(int64_t maxBytes) : maxBytes_(maxBytes) {}
  int64_t maxBytes() const { return maxBytes_; }
  // Places a buffer of `bytes` (<= maxBytes()): clear of the accesses since the last barrier where the budget
  // allows, else at 0 (whose first write then needs a barrier).
  // The offset is a multiple of `alignment` (16 or more, a power of two).
  SharedRange place(int64_t bytes, int64_t alignment = 16);
  // Before the threads write / read `range`: true when a barrier must come first (then call barrier()).
  bool writeNeedsBarrier(const SharedRange& range) const;
  bool readNeedsBarrier(const SharedRange& range) const;
  void recordWrite(const SharedRange& range) { record(range, true); }
  void recordRead(const SharedRange& range) { record(range, false); }
  void barrier();
  void forget() { unknown_ = true; }  // control flow: any access since the last barrier may be anywhere
  // A control-flow region: enter() forgets and returns the state before; leave() restores it when the region
  // accessed nothing, else forgets.
  struct State {
    std::vector<std::pair<SharedRange, bool>> pending;
    bool unknown = false;
    int64_t accesses = 0;
  };
  State enter();
  void leave(const State& before);
  int64_t peakBytes() const { return peak_; }
  // A buffer that lives across many ops (a pipelined loop's ring, lowering/PipelinedLoop.cpp): placed at the start of
  // the free space, `alignment`-aligned; every later place() goes after it until release(). Nothing records its
  // accesses: its user orders them with its own barriers. Nothing when it does not fit in maxBytes().
  std::optional<SharedRange> reserve(int64_t bytes, int64_t alignment);
  void release(const SharedRange& range) { reservedEnd_ = range.offset; }
  int64_t reservedBytes() const { return reservedEnd_; }

 private:
  struct Access {
    SharedRange range;
    bool write;
  };
  void record(const SharedRange& range, bool write) {
    pending_.push_back({range, write});
    ++accesses_;
  }
  int64_t maxBytes_;
  std::vector<Access> pending_;  // accesses since the last barrier
  int64_t accesses_ = 0;
  bool unknown_ = false;
  int64_t peak_ = 0;
  int64_t reservedEnd_ = 0;  // place() starts here
};

}  // namespace tilesim::gpu

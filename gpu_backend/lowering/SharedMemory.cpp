#include "gpu_backend/lowering/SharedMemory.h"

#include <algorithm>

namespace tilesim::gpu {

SharedRange SharedMemoryPlan::place(int64_t bytes, int64_t alignment) {
  const int64_t limit = std::min(maxBytes_, std::max(peak_, kReuseBudget));
  SharedRange range{0, bytes};
  if (!unknown_) {
    // The lowest aligned offset clear of every pending access: try 0 and the end of each pending range.
    std::vector<int64_t> starts{0};
    for (const Access& access : pending_) starts.push_back((access.range.offset + access.range.bytes + alignment - 1) / alignment * alignment);
    std::sort(starts.begin(), starts.end());
    for (int64_t start : starts) {
      SharedRange candidate{start, bytes};
      if (start + bytes > std::max(limit, bytes)) break;
      if (std::none_of(pending_.begin(), pending_.end(),
                       [&](const Access& access) { return access.range.overlaps(candidate); })) {
        range = candidate;
        break;
      }
    }
  }
  peak_ = std::max(peak_, range.offset + range.bytes);
  return range;
}

bool SharedMemoryPlan::writeNeedsBarrier(const SharedRange& range) const {
  if (unknown_) return true;
  return std::any_of(pending_.begin(), pending_.end(), [&](const Access& a) { return a.range.overlaps(range); });
}

bool SharedMemoryPlan::readNeedsBarrier(const SharedRange& range) const {
  if (unknown_) return true;
  return std::any_of(pending_.begin(), pending_.end(),
                     [&](const Access& a) { return a.write && a.range.overlaps(range); });
}

SharedMemoryPlan::State SharedMemoryPlan::enter() {
  State before;
  for (const Access& access : pending_) before.pending.emplace_back(access.range, access.write);
  before.unknown = unknown_;
  before.accesses = accesses_;
  forget();
  return before;
}

void SharedMemoryPlan::leave(const State& before) {
  if (accesses_ != before.accesses) {
    forget();
    return;
  }
  pending_.clear();
  for (const auto& [range, write] : before.pending) pending_.push_back({range, write});
  unknown_ = before.unknown;
}

void SharedMemoryPlan::barrier() {
  pending_.clear();
  unknown_ = false;
}

}  // namespace tilesim::gpu

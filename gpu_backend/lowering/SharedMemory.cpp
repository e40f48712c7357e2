#include "gpu_backend/lowering/SharedMemory.h"

#include <algorithm>

namespace tilesim::gpu {

SharedRange SharedMemoryPlan::place(int64_t bytes, int64_t alignment) {
  const int64_t limit = std::min(maxBytes_, std::max(peak_, reservedEnd_ + kReuseBudget));
  auto aligned = [&](int64_t offset) { return (offset + alignment - 1) / alignment * alignment; };
  const int64_t first = aligned(reservedEnd_);
  SharedRange range{first, bytes};
  if (!unknown_) {
    // The lowest aligned offset clear of every pending access: try the first free one and the end of each pending range.
    std::vector<int64_t> starts{first};
    for (const Access& access : pending_) starts.push_back(std::max(first, aligned(access.range.offset + access.range.bytes)));
    std::sort(starts.begin(), starts.end());
    for (int64_t start : starts) {
      SharedRange candidate{start, bytes};
      if (start + bytes > std::max(limit, first + bytes)) break;
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

std::optional<SharedRange> SharedMemoryPlan::reserve(int64_t bytes, int64_t alignment) {
  const int64_t offset = (reservedEnd_ + alignment - 1) / alignment * alignment;
  if (offset + bytes > maxBytes_) return std::nullopt;
  reservedEnd_ = offset + bytes;
  peak_ = std::max(peak_, reservedEnd_);
  return SharedRange{offset, bytes};
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

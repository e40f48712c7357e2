// Shared by the memory-op files (MemoryOps.cpp: pointers, loads, stores, block pointers; Atomics.cpp): the
// per-op helper that turns an address into a buffer access and reports out-of-bounds accesses, races and
// undefined lanes with the op's location. Private to interpreter/.
#pragma once

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "interpreter/Executor.h"
#include "ir/FloatBits.h"

namespace tilesim::memory {

inline std::string hexAddress(uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, address);
  return text;
}

// The NaN Triton's rewrite of padding_option="nan" materialises (dense<0x7FC00000> for f32); TMA's NaN fill
// is the same canonical quiet NaN.
inline uint64_t quietNaNBits(ScalarKind kind) {
  FloatFormat f = floatFormat(kind);
  if (!f.hasInfinity) return canonicalNaNBits(kind);
  uint64_t exponent = ((uint64_t{1} << f.exponentBits) - 1) << f.mantissaBits;
  return exponent | (uint64_t{1} << (f.mantissaBits - 1));
}

inline bool laneUndefined(const Tile& tile, int64_t lane) {
  return tile.undefinedMask() && tile.undefinedMask()[tile.size() == 1 ? 0 : lane];
}

class MemoryAccessor {
 public:
  MemoryAccessor(Executor& executor, const Operation& op) : executor_(executor), op_(op),
      memory_(*executor.context().memory) {}

  // Checks one active lane's address; returns the buffer access or null (reported) when out of bounds or
  // misaligned (the GPU traps on an address that is not a multiple of the access size). `writing`: the bytes a
  // plain store is about to write (a race between writers of the same bytes is reported as its own kind).
  Buffer* resolve(const Tile* laneTile, int64_t lane, uint64_t address, uint64_t size, bool write, uint64_t* offset,
                  bool atomic = false, const void* writing = nullptr) {
    if ((size & (size - 1)) == 0 ? (address & (size - 1)) != 0 : address % size != 0) {  // sizes are powers of 2
      if (executor_.checks()) reportMisaligned(laneTile, lane, address, size, write);
      return nullptr;
    }
    Access access = memory_.translate(address, size);
    if (!access.buffer) {
      if (executor_.checks()) reportOutOfBounds(laneTile, lane, address, size, write, access);
      return nullptr;
    }
    *offset = access.offset;
    if (executor_.checks() && memory_.raceLogEnabled()) {
      // Race-log mode runs only kernels without atomics (ProgramRuns.cpp); an atomic here forces the shadow rerun.
      if (atomic) executor_.logOverflow();
      else executor_.logAccess(*access.buffer, access.offset, size, write);
    } else if (executor_.checks() && memory_.raceShadowEnabled()) {
      const int64_t program = executor_.programLinearId();
      const std::span<const uint32_t> held = executor_.heldLocks();
      RaceHit hit = atomic  ? memory_.noteAtomic(*access.buffer, access.offset, size, program, held)
                    : write ? memory_.noteWrite(*access.buffer, access.offset, size, program, held)
                            : memory_.noteRead(*access.buffer, access.offset, size, program, held);
      if (hit.found) reportRace(laneTile, lane, write, access, hit, writing, size);
      if (!held.empty())  // inside a critical section: covered by the lock once a gpu.barrier follows
        for (uint64_t e = access.offset / access.buffer->elementBytes;
             e <= (access.offset + size - 1) / access.buffer->elementBytes; ++e)
          executor_.noteLockedAccess(*access.buffer, e);
    }
    return access.buffer;
  }

  [[gnu::cold]] void reportOutOfBounds(const Tile* laneTile, int64_t lane, uint64_t address, uint64_t size, bool write,
                                       const Access& access) {
    std::string what = std::string(write ? "write" : "read") + " of " + std::to_string(size) + " bytes ";
    Report r = executor_.makeReport(Report::Kind::OutOfBounds, op_, laneTile, lane, "");
    if (access.nearest) {
      r.buffer = access.nearest->name;
      r.byteOffset = static_cast<int64_t>(access.offset);
      r.message = what + "at byte offset " + std::to_string(access.offset) + " of " + access.nearest->name + " (" +
                  std::to_string(access.nearest->sizeBytes) + " bytes)";
    } else if ((address >> kBufferWindowBits) == kWildWindow) {
      r.message = what + "through a wild pointer: pointer arithmetic moved it out of its buffer's 1 TiB window";
    } else {
      r.message = what + "at address " + hexAddress(address) + ", outside every buffer of the launch";
    }
    executor_.addReport(std::move(r));
  }

  [[gnu::cold]] void reportMisaligned(const Tile* laneTile, int64_t lane, uint64_t address, uint64_t size, bool write) {
    Report r = executor_.makeReport(Report::Kind::Misaligned, op_, laneTile, lane, "");
    Access access = memory_.translate(address - address % size, size);
    std::string where = "address " + hexAddress(address);
    if (access.buffer) {
      r.buffer = access.buffer->name;
      r.byteOffset = static_cast<int64_t>(access.offset + address % size);
      where = "byte offset " + std::to_string(r.byteOffset) + " of " + access.buffer->name;
    }
    r.message = std::string(write ? "write" : "read") + " of " + std::to_string(size) + " bytes at " + where +
                ", not a multiple of " + std::to_string(size);
    executor_.addReport(std::move(r));
  }

  // A write racing with another program's plain write of the same bytes (what the buffer holds now: races are
  // reported by a one-thread rerun, ProgramRuns.cpp) is a SameValueRace: the result does not show it, and suites rely
  // on it (every program storing one flag); any other conflict is a Race.
  [[gnu::cold]] void reportRace(const Tile* laneTile, int64_t lane, bool write, const Access& access, const RaceHit& hit,
                                const void* writing = nullptr, uint64_t size = 0) {
    const bool sameBytes = write && writing && hit.otherWrote && !hit.otherAtomic &&
                           std::memcmp(access.buffer->data + access.offset, writing, size) == 0;
    Report r = executor_.makeReport(sameBytes ? Report::Kind::SameValueRace : Report::Kind::Race, op_, laneTile, lane, "");
    r.buffer = access.buffer->name;
    r.byteOffset = static_cast<int64_t>(access.offset);
    std::string other = hit.otherProgram >= 0 ? "program " + programName(hit.otherProgram) : "other programs";
    if (!executor_.heldLocks().empty()) other += " (not ordered by the locks this program holds)";
    r.message = std::string(write ? "write" : "read") + " of " + access.buffer->name + "[" +
                std::to_string(access.offset / access.buffer->elementBytes) + "] races with " +
                (hit.otherAtomic ? "atomics" : sameBytes ? "a write of the same bytes" : hit.otherWrote ? "a write" : "a read") +
                " by " + other;
    executor_.addReport(std::move(r));
  }

  std::string programName(int64_t linear) const {
    const auto& grid = executor_.context().grid;
    int64_t x = linear % grid[0], y = (linear / grid[0]) % grid[1], z = linear / (grid[0] * grid[1]);
    return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
  }

  void undefinedUse(const Tile* tile, int64_t lane, const std::string& what) {
    if (executor_.checks()) executor_.report(Report::Kind::UndefinedUse, op_, tile, lane, what);
  }

 private:
  Executor& executor_;
  const Operation& op_;
  Memory& memory_;
};

// The addresses of a block pointer's elements and whether each is inside the checked dims.
}  // namespace tilesim::memory

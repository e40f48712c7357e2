// The launch's address space. Every buffer argument gets its own 1 TiB window: buffer i (0-based) starts at
// (i + 1) << 40, so a pointer names its buffer by its top bits, pointer arithmetic with 32-bit offsets can never
// wander into another buffer, and address 0 belongs to nobody. Loads and stores go through `translate`, which
// says which buffer and offset an address hits, or that it hits none (an out-of-bounds access).
//
// Shadows kept per buffer element (allocated only when needed):
//   race shadow: one 64-bit word per element holding the last program that wrote it (high half) and the
//                program that read it (low half; all ones = several), updated by compare-and-swap, so two
//                programs running at once on different threads are totally ordered on every element; a writer
//                with the top bit set (kAtomicWriter) wrote with atomics (all ones = atomics of several programs);
//                used by kernels with atomics, traced programs, and the rerun of a launch whose access log
//                (Executor.h, ProgramRuns.cpp) found a conflict; other launches keep no per-element shadow;
//   error bounds: the triton-profile error bound of the value last stored (see Tile.h);
//   float atomic-add groups: for elements that float `atomic_rmw fadd` touched under the triton profile, what
//                the order-independent bound of their sum needs (AtomicAddGroups, allocated on the first one).
// Lock identities: an access made inside a spin lock's critical section (docs/semantics.md, "Locks") is
// recorded, once a gpu.barrier covers it, under the lock's identity kLockIdentity | index instead of its
// program's, so the critical sections of different programs holding one lock do not race with each other.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/Type.h"

namespace tilesim {

constexpr int kBufferWindowBits = 40;
// Wild pointers. A buffer's data lies in the first half of its window (buffers are below 2^39 bytes), so every
// address has a *home*: the window whose start is nearest (within ±2^39). Pointer arithmetic (tt.addptr, block
// pointer element addresses) whose result has another home than its base — an i64 offset of ±2^39 or more,
// the only way to reach another buffer's data — is moved to kWildWindow, which no buffer has: every access
// through it, or through anything derived from it, is an out-of-bounds report. Offsets below 2^39 keep their
// exact value (a pointer slightly before its buffer, and back, is still affine).
constexpr uint64_t kWildWindow = (uint64_t{1} << (64 - kBufferWindowBits)) - 1;
constexpr uint64_t kMaxBufferBytes = uint64_t{1} << (kBufferWindowBits - 1);
inline uint64_t homeWindow(uint64_t address) { return (address + kMaxBufferBytes) >> kBufferWindowBits; }
inline uint64_t wildAddress(uint64_t address) {
  return (kWildWindow << kBufferWindowBits) | (address & (kMaxBufferBytes - 1));
}
// base + byteOffset (wrapping, as the GPU's 64-bit add), or a wild address when it changes home.
inline uint64_t offsetAddress(uint64_t base, uint64_t byteOffset) {
  const uint64_t address = base + byteOffset;
  return homeWindow(address) == homeWindow(base) ? address : wildAddress(address);
}

constexpr uint32_t kAtomicWriter = 0x80000000u;
// Program identities are linear id + 1 <= 2^30 (the grid limit); lock identities lie above them.
constexpr uint32_t kLockIdentity = 0x40000000u;
constexpr uint32_t kMaxLocks = 1u << 20;

// Float atomic adds to one element arrive in whatever order the GPU's programs (and lanes) run, so the GPU's
// partial sums are not ours. Per element, since the last plain store: the additions so far, the magnitude
// (|v0| + E0 + sum(|x_i| + e_i): the start value v0 with its bound E0 and every addend x_i with its bound
// e_i), the order-free part of the bound (E0 + sum e_i + our own roundings + FTZ slack) and whether a term was
// inf or NaN. `bound` turns them into the element's bound (docs/semantics.md "Atomics"). One of `locks` (by
// element index) serialises an element's host atomic and its group update.
struct AtomicAddGroups {
  explicit AtomicAddGroups(size_t elements)
      : additions(elements, 0), magnitude(elements, 0.0), orderFree(elements, 0.0), nonFinite(elements, 0),
        lastAdder(elements, 0), contended(elements, 0) {}
  std::vector<uint32_t> additions;  // 0: no group (the next fadd starts one)
  std::vector<double> magnitude;
  std::vector<double> orderFree;
  std::vector<uint8_t> nonFinite;
  // Exact profile: the execution of a tt.atomic_rmw (Atomics.cpp adderToken: program and op execution) that
  // last added to the element, and whether two unordered ones did (other programs, or two lanes of one
  // execution): only then does the sum depend on the GPU's arrival order.
  std::vector<uint64_t> lastAdder;
  std::vector<uint8_t> contended;
  std::mutex locks[64];
  std::mutex& lockFor(size_t element) { return locks[element % 64]; }
  // The bound on |GPU - ours| of the element's sum in any order of its additions (Atomics.cpp).
  double bound(size_t element, ScalarKind kind) const;
};

struct Buffer {
  std::string name;
  ScalarKind elementKind = ScalarKind::F32;
  int elementBytes = 4;
  uint8_t* data = nullptr;  // the LaunchArgument's bytes, updated in place
  uint64_t sizeBytes = 0;
  uint64_t base = 0;
  // Race shadow, one word per element: (writer << 32) | reader, each a program linear id + 1 (0 = none;
  // reader 0xFFFFFFFF = several programs). Zeroed pages mapped up front (ShadowWords); read through
  // std::atomic_ref when programs run concurrently.
  struct ShadowWords {
    uint64_t* words = nullptr;
    size_t bytes = 0;
    bool mapped = false;  // from mmap (large shadows) or calloc (small ones)
    ShadowWords() = default;
    ShadowWords(const ShadowWords&) = delete;
    ShadowWords& operator=(const ShadowWords&) = delete;
    ~ShadowWords();
    void allocate(size_t count);
    uint64_t& operator[](size_t index) { return words[index]; }
  } shadow;
  std::vector<double> errorBound;  // empty unless bounds are tracked (the triton profile; LaunchPreparation.cpp for exact)
  // Made by the first float atomic add while error bounds are tracked (atomicAddGroupsFor); null until then.
  std::unique_ptr<AtomicAddGroups> atomicAdds;
  std::mutex atomicAddsMutex;
  AtomicAddGroups& atomicAddGroupsFor() {
    std::lock_guard<std::mutex> guard(atomicAddsMutex);
    if (!atomicAdds) atomicAdds = std::make_unique<AtomicAddGroups>(errorBound.size());
    return *atomicAdds;
  }
  uint64_t numElements() const { return sizeBytes / static_cast<uint64_t>(elementBytes); }
};

struct Access {
  Buffer* buffer = nullptr;  // null: outside every buffer
  uint64_t offset = 0;       // byte offset into buffer
  Buffer* nearest = nullptr; // for messages when buffer is null: the window the address falls in, if any
};

// A conflict found by the race shadow: the other program involved and whether it wrote (or used atomics).
struct RaceHit {
  bool found = false;
  int64_t otherProgram = -1;
  bool otherWrote = false;
  bool otherAtomic = false;
};

class Memory {
 public:
  Buffer& addBuffer(std::string name, ScalarKind kind, uint8_t* data, uint64_t sizeBytes);
  void enableRaceShadow();
  // Race detection by access log (Executor::logAccess): no per-element shadow; the launch checks the logged
  // intervals of all programs for a conflict afterwards and, if it finds one, runs again with the shadow
  // (switchToRaceShadow), which then reports every race exactly as it would have (ProgramRuns.cpp).
  void enableRaceLog() { raceLog_ = true; }
  void switchToRaceShadow() {
    raceLog_ = false;
    if (!raceShadow_) enableRaceShadow();
  }
  bool raceLogEnabled() const { return raceLog_; }
  // Whether races are tracked at all (shadow or log): accesses then go through the checking path.
  bool raceTracked() const { return raceShadow_ || raceLog_; }
  // Whether programs run on several threads at once (the shadow then needs atomic updates).
  void setConcurrent(bool concurrent) { concurrent_ = concurrent; }
  void enableErrorBounds();
  // Back to the state before any program ran (zero shadows and error bounds), for a second run of a launch.
  void resetShadows();
  bool raceShadowEnabled() const { return raceShadow_; }
  bool errorBoundsEnabled() const { return errorBounds_; }
  std::vector<std::unique_ptr<Buffer>>& buffers() { return buffers_; }

  // Where `size` bytes at `address` land. In bounds only if all of them are inside one buffer.
  Access translate(uint64_t address, uint64_t size) const {
    uint64_t window = address >> kBufferWindowBits;
    if (window == 0 || window > buffers_.size()) return {};
    Buffer* buffer = buffers_[window - 1].get();
    uint64_t offset = address - buffer->base;
    if (offset + size > buffer->sizeBytes) return {nullptr, offset, buffer};
    return {buffer, offset, buffer};
  }

  // Race shadow updates for a plain (non-atomic) access by `program` of `size` bytes at `offset`.
  // The common case (one aligned element, programs on one thread) is inline; the rest goes to *Slow.
  // `held`: the identities of the locks the program holds (their critical sections' accesses are ordered).
  RaceHit noteWrite(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program, std::span<const uint32_t> held = {}) {
    uint64_t* word = inlineShadowWord(buffer, offset, size, held);
    if (!word) return noteWriteSlow(buffer, offset, size, program, held);
    const uint64_t me = static_cast<uint64_t>(program + 1);
    const uint64_t writer = *word >> 32, reader = *word & 0xFFFFFFFFu;
    if ((writer != 0 && writer != me) || (reader != 0 && reader != me)) return noteWriteSlow(buffer, offset, size, program, held);
    *word = (me << 32) | reader;
    return {};
  }
  RaceHit noteRead(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program, std::span<const uint32_t> held = {}) {
    uint64_t* word = inlineShadowWord(buffer, offset, size, held);
    if (!word) return noteReadSlow(buffer, offset, size, program, held);
    const uint64_t me = static_cast<uint64_t>(program + 1);
    const uint64_t writer = *word >> 32, reader = *word & 0xFFFFFFFFu;
    if (writer != 0 && writer != me) return noteReadSlow(buffer, offset, size, program, held);
    *word = (writer << 32) | (reader == 0 || reader == me ? me : 0xFFFFFFFFu);  // several readers
    return {};
  }
  // An atomic by `program`: races with plain accesses of other programs; atomics of several programs on one
  // element do not race with each other.
  RaceHit noteAtomic(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program, std::span<const uint32_t> held = {});
  RaceHit noteWriteSlow(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program, std::span<const uint32_t> held);
  RaceHit noteReadSlow(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program, std::span<const uint32_t> held);
  // The identity of the spin lock at `address` (kLockIdentity | index, one per address per launch); 0 when the
  // launch has used kMaxLocks locks already (its critical sections are then not told apart: races reported).
  uint32_t lockIdentity(uint64_t address);
  // A gpu.barrier covered `program`'s access to `element` inside the critical section of lock `lock`: from now
  // on the element's shadow names the lock where it named the program.
  void coverByLock(Buffer& buffer, uint64_t element, int64_t program, uint32_t lock);

 private:
  // The shadow word of a plain access the inline path handles (one aligned element, programs on one thread, no
  // locks held); null when the access goes to *Slow.
  uint64_t* inlineShadowWord(Buffer& buffer, uint64_t offset, uint64_t size, std::span<const uint32_t> held) const {
    if (concurrent_ || size != static_cast<uint64_t>(buffer.elementBytes) || offset % size != 0 || !held.empty())
      return nullptr;
    return &buffer.shadow[offset / size];
  }

  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::mutex locksMutex_;
  std::unordered_map<uint64_t, uint32_t> locks_;  // lock address -> identity
  bool raceShadow_ = false;
  bool raceLog_ = false;
  bool concurrent_ = true;
  bool errorBounds_ = false;
};

}  // namespace tilesim

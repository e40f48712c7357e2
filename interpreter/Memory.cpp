// The launch's address space (Memory.h): buffer windows, the race shadow and its pages, error-bound tracking,
// and describeAddress, which names a pointer of the launch in words for reports.
#include "interpreter/Memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "interpreter/Interpreter.h"
#include "ir/Assert.h"

namespace tilesim {

std::string describeAddress(const Launch& launch, uint64_t address) {
  uint64_t window = address >> kBufferWindowBits;
  if (window == kWildWindow) return "wild";
  uint64_t index = 0;
  for (const LaunchArgument& argument : launch.arguments) {
    if (!argument.isBuffer() || argument.isAlias()) continue;  // windows belong to the buffers that own storage
    if (++index != window) continue;
    const uint64_t offset = address - (window << kBufferWindowBits);
    const uint64_t bytes = static_cast<uint64_t>(storageBytes(argument.elementKind));
    if (offset % bytes != 0) return argument.name + "+" + std::to_string(offset) + "B";
    const uint64_t element = offset / bytes, count = argument.bytes.size() / bytes;
    if (element >= count) return argument.name + "[end+" + std::to_string(element - count) + "]";
    return "&" + argument.name + "[" + std::to_string(element) + "]";
  }
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, address);
  return text;
}

Buffer& Memory::addBuffer(std::string name, ScalarKind kind, uint8_t* data, uint64_t sizeBytes) {
  auto buffer = std::make_unique<Buffer>();
  buffer->name = std::move(name);
  buffer->elementKind = kind;
  buffer->elementBytes = storageBytes(kind);
  buffer->data = data;
  buffer->sizeBytes = sizeBytes;
  buffer->base = static_cast<uint64_t>(buffers_.size() + 1) << kBufferWindowBits;
  buffers_.push_back(std::move(buffer));
  return *buffers_.back();
}

// Large shadows: one mmap with MAP_POPULATE: the kernel hands over zeroed pages in one call instead of one page
// fault per 4 KiB touched later from many threads at once (which serialises on the address-space lock). Small
// ones (the common case: a fuzz campaign launches thousands of small kernels a second) come from calloc: an
// mmap + munmap pair per buffer per launch costs a system call each and a TLB shootdown on every core.
constexpr size_t kMappedShadowBytes = size_t{256} << 10;

void Buffer::ShadowWords::allocate(size_t count) {
  bytes = count * sizeof(uint64_t);
  if (bytes < kMappedShadowBytes) {
    words = static_cast<uint64_t*>(std::calloc(count, sizeof(uint64_t)));
    if (!words) {
      bytes = 0;
      throw std::bad_alloc();
    }
    mapped = false;
    return;
  }
  mapped = true;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (memory == MAP_FAILED) {  // a user's buffer too big for its shadow: the launch reports it, never aborts
    bytes = 0;
    throw std::bad_alloc();
  }
  words = static_cast<uint64_t*>(memory);
}

Buffer::ShadowWords::~ShadowWords() {
  if (!words) return;
  if (mapped) munmap(words, bytes);
  else std::free(words);
}

void Memory::enableRaceShadow() {
  raceShadow_ = true;
  for (auto& buffer : buffers_) {
    buffer->shadow.allocate(buffer->numElements() + 1);
  }
}

void Memory::resetShadows() {
  for (auto& buffer : buffers_) {
    if (buffer->shadow.words) std::memset(buffer->shadow.words, 0, buffer->shadow.bytes);
    std::fill(buffer->errorBound.begin(), buffer->errorBound.end(), 0.0);
    buffer->atomicAdds.reset();
  }
  locks_.clear();
}

void Memory::enableErrorBounds() {
  errorBounds_ = true;
  for (auto& buffer : buffers_) buffer->errorBound.assign(buffer->numElements(), 0.0);
}

namespace {

constexpr uint32_t kSeveralReaders = 0xFFFFFFFFu;

// Applies `update` to the element's shadow word atomically and reports the conflict it saw, if any.
template <typename Update>
void updateShadow(uint64_t& word, Update update, RaceHit& hit, bool concurrent) {
  if (!concurrent) {  // one thread runs every program: no other thread can see the word
    word = update(word, hit);
    return;
  }
  std::atomic_ref<uint64_t> ref(word);
  uint64_t old = ref.load(std::memory_order_relaxed);
  for (;;) {
    uint64_t desired = update(old, hit);
    if (desired == old || ref.compare_exchange_weak(old, desired)) return;
  }
}

// Who an access is ordered with: the program itself (`me`) and the critical sections of the locks it holds.
struct Accessor {
  uint32_t me;
  std::span<const uint32_t> held;
  bool owns(uint32_t identity) const {
    return identity == me || std::find(held.begin(), held.end(), identity) != held.end();
  }
};

// The program a shadow identity names, or -1 (several programs, or the holders of a lock).
int64_t programOf(uint32_t identity) {
  return identity == kSeveralReaders || (identity & kLockIdentity) ? -1 : static_cast<int64_t>(identity) - 1;
}

// The conflict with the element's last writer (`writer` != 0), as seen by a plain access.
RaceHit writerConflict(uint32_t writer, const Accessor& accessor) {
  if (writer & kAtomicWriter) {
    uint32_t atomicOwner = writer & ~kAtomicWriter;
    if (writer != 0xFFFFFFFFu && accessor.owns(atomicOwner)) return {};  // its own (or its lock's) atomics
    return {true, writer == 0xFFFFFFFFu ? -1 : programOf(atomicOwner), true, true};
  }
  if (accessor.owns(writer)) return {};
  return {true, programOf(writer), true, false};
}

// Updates the shadow of every element that `program`'s access [offset, offset + size) touches; stops at the first
// conflict. `rule(writer, reader, accessor, seen)` gets the element's shadow halves, the accessor (the program
// and the locks it holds) and `seen` cleared; it returns the new shadow word (writer << 32 | reader) and sets
// `seen` to the conflict it finds.
template <typename Rule>
RaceHit updateElements(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program, std::span<const uint32_t> held,
                       Rule rule, bool concurrent) {
  const Accessor accessor{static_cast<uint32_t>(program + 1), held};
  auto update = [&](uint64_t word, RaceHit& seen) {
    seen = {};
    return rule(static_cast<uint32_t>(word >> 32), static_cast<uint32_t>(word), accessor, seen);
  };
  RaceHit hit;
  const uint64_t first = offset / buffer.elementBytes, last = (offset + size - 1) / buffer.elementBytes;
  for (uint64_t e = first; e <= last; ++e) {
    updateShadow(buffer.shadow[e], update, hit, concurrent);
    if (hit.found) return hit;
  }
  return hit;
}

}  // namespace

RaceHit Memory::noteAtomic(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program,
                           std::span<const uint32_t> held) {
  auto rule = [](uint32_t writer, uint32_t reader, const Accessor& accessor, RaceHit& seen) {
    const uint32_t me = accessor.me;
    uint32_t atomicWriter = kAtomicWriter | me;
    if (writer != 0 && !(writer & kAtomicWriter) && !accessor.owns(writer)) {
      seen = {true, programOf(writer), true, false};
    } else if (reader != 0 && !accessor.owns(reader)) {
      seen = {true, programOf(reader), false, false};
    }
    // Atomics of several programs are marked as such, unless the earlier ones are ordered before this one.
    if (writer & kAtomicWriter)
      atomicWriter = writer != 0xFFFFFFFFu && accessor.owns(writer & ~kAtomicWriter) ? (kAtomicWriter | me) : 0xFFFFFFFFu;
    return (uint64_t{atomicWriter} << 32) | reader;
  };
  return updateElements(buffer, offset, size, program, held, rule, concurrent_);
}

RaceHit Memory::noteWriteSlow(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program,
                              std::span<const uint32_t> held) {
  auto rule = [](uint32_t writer, uint32_t reader, const Accessor& accessor, RaceHit& seen) {
    if (writer != 0) seen = writerConflict(writer, accessor);
    if (!seen.found && reader != 0 && !accessor.owns(reader)) seen = {true, programOf(reader), false};
    // An atomic writer keeps its mark, so later plain accesses see it too.
    if (seen.found && seen.otherAtomic) return (uint64_t{writer} << 32) | reader;
    return (uint64_t{accessor.me} << 32) | reader;
  };
  return updateElements(buffer, offset, size, program, held, rule, concurrent_);
}

RaceHit Memory::noteReadSlow(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program,
                             std::span<const uint32_t> held) {
  auto rule = [](uint32_t writer, uint32_t reader, const Accessor& accessor, RaceHit& seen) {
    if (writer != 0) seen = writerConflict(writer, accessor);
    // A reader ordered before this one (the program itself, or a critical section of a lock it holds) is
    // replaced: whatever is ordered after this read is ordered after it too.
    uint32_t readers = reader == 0 || accessor.owns(reader) ? accessor.me : kSeveralReaders;
    return (uint64_t{writer} << 32) | readers;
  };
  return updateElements(buffer, offset, size, program, held, rule, concurrent_);
}

uint32_t Memory::lockIdentity(uint64_t address) {
  std::lock_guard<std::mutex> guard(locksMutex_);
  auto it = locks_.find(address);
  if (it != locks_.end()) return it->second;
  if (locks_.size() + 1 >= kMaxLocks) return 0;
  const uint32_t identity = kLockIdentity | static_cast<uint32_t>(locks_.size() + 1);
  locks_.emplace(address, identity);
  return identity;
}

void Memory::coverByLock(Buffer& buffer, uint64_t element, int64_t program, uint32_t lock) {
  const uint32_t me = static_cast<uint32_t>(program + 1);
  RaceHit unused;
  updateShadow(buffer.shadow[element], [&](uint64_t word, RaceHit&) {
    uint32_t writer = static_cast<uint32_t>(word >> 32), reader = static_cast<uint32_t>(word);
    if (writer == me) writer = lock;
    else if (writer == (kAtomicWriter | me)) writer = kAtomicWriter | lock;
    if (reader == me) reader = lock;
    return (uint64_t{writer} << 32) | reader;
  }, unused, concurrent_);
}

}  // namespace tilesim

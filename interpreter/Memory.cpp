#include "interpreter/Memory.h"

namespace tilesim {

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

void Memory::enableRaceShadow() {
  raceShadow_ = true;
  for (auto& buffer : buffers_) {
    size_t n = buffer->numElements() + 1;
    buffer->writer = std::make_unique<std::atomic<int32_t>[]>(n);
    buffer->reader = std::make_unique<std::atomic<int32_t>[]>(n);
    for (size_t i = 0; i < n; ++i) {
      buffer->writer[i].store(0, std::memory_order_relaxed);
      buffer->reader[i].store(0, std::memory_order_relaxed);
    }
  }
}

void Memory::enableErrorBounds() {
  errorBounds_ = true;
  for (auto& buffer : buffers_) buffer->errorBound.assign(buffer->numElements(), 0.0);
}

RaceHit Memory::noteWrite(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program) {
  RaceHit hit;
  const int32_t me = static_cast<int32_t>(program + 1);
  uint64_t first = offset / buffer.elementBytes, last = (offset + size - 1) / buffer.elementBytes;
  for (uint64_t e = first; e <= last; ++e) {
    int32_t previousWriter = buffer.writer[e].exchange(me);
    if (previousWriter != 0 && previousWriter != me && !hit.found) hit = {true, previousWriter - 1, true};
    int32_t readers = buffer.reader[e].load();
    if (readers != 0 && readers != me && !hit.found) hit = {true, readers > 0 ? readers - 1 : -1, false};
  }
  return hit;
}

RaceHit Memory::noteRead(Buffer& buffer, uint64_t offset, uint64_t size, int64_t program) {
  RaceHit hit;
  const int32_t me = static_cast<int32_t>(program + 1);
  uint64_t first = offset / buffer.elementBytes, last = (offset + size - 1) / buffer.elementBytes;
  for (uint64_t e = first; e <= last; ++e) {
    int32_t readers = buffer.reader[e].load(std::memory_order_relaxed);
    if (readers == 0) {
      if (!buffer.reader[e].compare_exchange_strong(readers, me)) {
        if (readers != me) buffer.reader[e].store(-1);
      }
    } else if (readers != me && readers != -1) {
      buffer.reader[e].store(-1);
    }
    int32_t writer = buffer.writer[e].load();
    if (writer != 0 && writer != me && !hit.found) hit = {true, writer - 1, true};
  }
  return hit;
}

}  // namespace tilesim

#include "interpreter/Tile.h"

#include <algorithm>
#include <bit>
#include <new>
#include <vector>

namespace tilesim {

int tileElementBytes(Type type) {
  if (type.isMemDesc()) return sizeof(SharedMemoryView);
  if (type.isAsyncToken()) return 8;
  Type element = type.element();
  if (element.isBlockPointer()) return sizeof(BlockPointer);
  if (element.isTensorDesc()) return sizeof(TensorDescriptor);
  if (element.isPointer()) return 8;
  return storageBytes(element.scalarKind());
}

namespace {

// Blocks of 2^k words, 64 <= 2^k <= 8192 (512 bytes to 64 KiB), at most kKeep of each size per thread. Smaller
// and larger tiles use new[] directly. A block freed on another thread than it came from joins that thread's
// cache (constant tiles are freed by the launching thread).
constexpr int kMinClass = 6, kMaxClass = 13, kKeep = 64;
struct BlockCache {
  std::vector<uint64_t*> free[kMaxClass - kMinClass + 1];
  ~BlockCache();
};
thread_local bool cacheGone = false;  // trivially destructible: readable while thread_locals are destroyed
BlockCache::~BlockCache() {
  cacheGone = true;
  for (auto& blocks : free)
    for (uint64_t* block : blocks) delete[] block;
}
BlockCache& blockCache() {
  thread_local BlockCache cache;
  return cache;
}
int sizeClass(size_t words) {
  if (words > (size_t{1} << kMaxClass)) return -1;
  const int k = std::max(kMinClass, static_cast<int>(std::bit_width(words - 1)));
  return k;
}
size_t allocatedWords(size_t words) {
  const int k = sizeClass(words);
  return k < 0 || words < (size_t{1} << (kMinClass - 1)) ? words : size_t{1} << k;
}
uint64_t* allocateWords(size_t words) {  // words as allocatedWords returned
  const int k = sizeClass(words);
  if (k >= 0 && words == (size_t{1} << k) && !cacheGone) {
    std::vector<uint64_t*>& blocks = blockCache().free[k - kMinClass];
    if (!blocks.empty()) {
      uint64_t* block = blocks.back();
      blocks.pop_back();
      return block;
    }
  }
  return new uint64_t[words];
}

}  // namespace

void Tile::DataDeleter::operator()(uint64_t* data) const {
  const int k = sizeClass(words);
  if (k >= 0 && words == (size_t{1} << k) && !cacheGone) {
    std::vector<uint64_t*>& blocks = blockCache().free[k - kMinClass];
    if (blocks.size() < static_cast<size_t>(kKeep)) {
      try {
        blocks.push_back(data);
        return;
      } catch (const std::bad_alloc&) {  // fall through: freed
      }
    }
  }
  delete[] data;
}

Tile::Tile(Type type) : type_(type), size_(type.numElements()), elementBytes_(tileElementBytes(type)) {
  Type element = type.element();
  isBool_ = element.isScalar() && element.scalarKind() == ScalarKind::I1;
  const size_t used = std::max<size_t>((static_cast<size_t>(size_) * elementBytes_ + 7) / 8, 1);
  const size_t words = allocatedWords(used);
  data_ = std::unique_ptr<uint64_t[], DataDeleter>(allocateWords(words), DataDeleter{words});
  std::memset(data_.get(), 0, used * sizeof(uint64_t));  // zero-filled
}

Tile::Tile(Type type, Uninitialized) : type_(type), size_(type.numElements()), elementBytes_(tileElementBytes(type)) {
  Type element = type.element();
  isBool_ = element.isScalar() && element.scalarKind() == ScalarKind::I1;
  const size_t used = std::max<size_t>((static_cast<size_t>(size_) * elementBytes_ + 7) / 8, 1);
  const size_t words = allocatedWords(used);
  data_ = std::unique_ptr<uint64_t[], DataDeleter>(allocateWords(words), DataDeleter{words});
  data_[used - 1] = 0;  // the padding bytes after the last element stay defined
}

void Tile::setBits(int64_t lane, uint64_t bits) {
  char* p = static_cast<char*>(raw()) + lane * elementBytes_;
  switch (elementBytes_) {
    case 1: { uint8_t v = static_cast<uint8_t>(bits); std::memcpy(p, &v, 1); return; }
    case 2: { uint16_t v = static_cast<uint16_t>(bits); std::memcpy(p, &v, 2); return; }
    case 4: { uint32_t v = static_cast<uint32_t>(bits); std::memcpy(p, &v, 4); return; }
    case 8: std::memcpy(p, &bits, 8); return;
    default: TILESIM_UNREACHABLE("setBits on a block-pointer tile");
  }
}

uint8_t* Tile::mutableUndefinedMask() {
  if (!undefined_) undefined_ = std::make_unique<uint8_t[]>(static_cast<size_t>(std::max<int64_t>(size_, 1)));
  return undefined_.get();
}

bool Tile::anyUndefined() const {
  if (!undefined_) return false;
  return std::any_of(undefined_.get(), undefined_.get() + size_, [](uint8_t u) { return u != 0; });
}

double* Tile::mutableErrorBounds() {
  if (!errorBound_) errorBound_ = std::make_unique<double[]>(static_cast<size_t>(std::max<int64_t>(size_, 1)));
  return errorBound_.get();
}

}  // namespace tilesim

#include "interpreter/Tile.h"

#include <algorithm>

namespace tilesim {

int tileElementBytes(Type type) {
  Type element = type.element();
  if (element.isBlockPointer()) return sizeof(BlockPointer);
  if (element.isTensorDesc()) return sizeof(TensorDescriptor);
  if (element.isPointer()) return 8;
  return storageBytes(element.scalarKind());
}

Tile::Tile(Type type) : type_(type), size_(type.numElements()), elementBytes_(tileElementBytes(type)) {
  Type element = type.element();
  isBool_ = element.isScalar() && element.scalarKind() == ScalarKind::I1;
  size_t words = (static_cast<size_t>(size_) * elementBytes_ + 7) / 8;
  data_.reset(new uint64_t[std::max<size_t>(words, 1)]());  // zero-filled
}

Tile::Tile(Type type, Uninitialized) : type_(type), size_(type.numElements()), elementBytes_(tileElementBytes(type)) {
  Type element = type.element();
  isBool_ = element.isScalar() && element.scalarKind() == ScalarKind::I1;
  size_t words = (static_cast<size_t>(size_) * elementBytes_ + 7) / 8;
  data_.reset(new uint64_t[std::max<size_t>(words, 1)]);
  data_[std::max<size_t>(words, 1) - 1] = 0;  // the padding bytes after the last element stay defined
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

#include "interpreter/Tile.h"

#include <algorithm>

namespace tilesim {

int tileElementBytes(Type type) {
  Type element = type.element();
  if (element.isBlockPointer()) return sizeof(BlockPointer);
  if (element.isPointer()) return 8;
  return storageBytes(element.scalarKind());
}

Tile::Tile(Type type) : type_(type), size_(type.numElements()), elementBytes_(tileElementBytes(type)) {
  size_t words = (static_cast<size_t>(size_) * elementBytes_ + 7) / 8;
  data_ = std::make_unique<uint64_t[]>(std::max<size_t>(words, 1));  // value-initialised: zero
}

uint64_t Tile::bitsAt(int64_t lane) const {
  const char* p = static_cast<const char*>(raw()) + lane * elementBytes_;
  switch (elementBytes_) {
    case 1: { uint8_t v; std::memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; std::memcpy(&v, p, 8); return v; }
    default: TILESIM_UNREACHABLE("bitsAt on a block-pointer tile");
  }
}

int64_t Tile::signedAt(int64_t lane) const {
  const char* p = static_cast<const char*>(raw()) + lane * elementBytes_;
  if (elementType().isScalar() && elementType().scalarKind() == ScalarKind::I1) return p[0] & 1;
  switch (elementBytes_) {
    case 1: { int8_t v; std::memcpy(&v, p, 1); return v; }
    case 2: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { int64_t v; std::memcpy(&v, p, 8); return v; }
    default: TILESIM_UNREACHABLE("signedAt on a block-pointer tile");
  }
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

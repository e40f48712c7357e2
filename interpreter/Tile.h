// A Tile is the run-time value of one SSA value in one program instance: a dense, row-major array of
// elements of the value's type (a scalar is a tile of one element). Element storage by type:
//   i1 -> uint8_t (0 or 1)  i8/i16/i32/i64 -> int8_t..int64_t  f8 -> uint8_t bits  f16/bf16 -> uint16_t bits
//   f32 -> float  f64 -> double  pointers -> uint64_t addresses in the launch's address space (Memory.h)
//   block pointers (!tt.ptr<tensor<...>>) -> BlockPointer (below), one per tile
//   tensor descriptors (!tt.tensordesc<...>) -> TensorDescriptor (below), one per tile
//   memory descriptors (!ttg.memdesc<...>) -> SharedMemoryView (below); async tokens -> one uint64_t
// Two optional per-lane shadows travel with the data and move through every data-movement op:
//   undefined: 1 where the lane holds an undefined value (a masked load without `other`, ub.poison);
//   errorBound: the largest absolute difference the real GPU may show for this lane under the `triton` float
//               profile (0 = must match bit for bit). Null means "all 0".
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "ir/Assert.h"
#include "ir/Type.h"

namespace tilesim {

// What tt.make_tensor_ptr builds: a view of a rank-N tensor in memory.
struct BlockPointer {
  uint64_t base = 0;  // address of element [0, ..., 0]
  int rank = 0;
  int64_t shape[4] = {};
  int64_t strides[4] = {};   // in elements
  int32_t offsets[4] = {};   // of the block's first element
  int32_t order[4] = {};
};

// What tt.make_tensor_descriptor builds, or a host TensorDescriptor argument: a strided rank-N tensor in memory,
// accessed a block at a time (interpreter/Descriptors.cpp). The block shape is in the type.
constexpr int kMaxDescriptorRank = 5;
struct TensorDescriptor {
  uint64_t base = 0;  // address of element [0, ..., 0]
  int rank = 0;
  int padding = 1;    // out-of-shape elements of a load: 1 = zero, 2 = NaN
  int64_t shape[kMaxDescriptorRank] = {};    // elements per dim (i32 in the IR)
  int64_t strides[kMaxDescriptorRank] = {};  // in elements (i64 in the IR); the last is 1
};

// What a TTGIR memory descriptor (!ttg.memdesc) is at run time: a strided view of one of the program's
// shared-memory allocations (interpreter/SharedMemory.h), one per tile. An !ttg.async.token is a tile of one
// 64-bit number (the copy or group it stands for; only the ops' order matters to the interpreter).
constexpr int kMaxSharedMemoryRank = 6;
struct SharedMemoryView {
  int64_t allocation = -1;  // index into the program's allocations
  int64_t offset = 0;       // element offset of [0, ..., 0] in the allocation
  int rank = 0;
  int64_t shape[kMaxSharedMemoryRank] = {};
  int64_t strides[kMaxSharedMemoryRank] = {};  // in elements
};

// Bytes per element of a tile of `type` (i1 -> 1, pointers -> 8, block pointers -> sizeof(BlockPointer)).
int tileElementBytes(Type type);

class Tile {
 public:
  Tile() = default;
  explicit Tile(Type type);  // zero-filled
  struct Uninitialized {};
  Tile(Type type, Uninitialized);  // for ops that write every lane (splat, broadcast, tt.addptr)
  Tile(const Tile&) = delete;
  Tile& operator=(const Tile&) = delete;

  Type type() const { return type_; }
  Type elementType() const { return type_.element(); }
  int64_t size() const { return size_; }
  int elementBytes() const { return elementBytes_; }
  std::span<const int64_t> shape() const { return type_.shape(); }

  void* raw() { return data_.get(); }
  const void* raw() const { return data_.get(); }
  template <typename T>
  T* as() { return reinterpret_cast<T*>(data_.get()); }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(data_.get()); }
  template <typename T>
  T at(int64_t lane) const { T v; std::memcpy(&v, static_cast<const char*>(raw()) + lane * sizeof(T), sizeof(T)); return v; }

  // Lane value widened to 64 bits: raw bits zero-extended (bitsAt), or sign-extended for integers with i1
  // zero-extended (signedAt). Inline: these sit on hot paths.
  uint64_t bitsAt(int64_t lane) const {
    const char* p = static_cast<const char*>(raw()) + lane * elementBytes_;
    switch (elementBytes_) {
      case 1: return *reinterpret_cast<const uint8_t*>(p);
      case 2: return *reinterpret_cast<const uint16_t*>(p);
      case 4: return *reinterpret_cast<const uint32_t*>(p);
      case 8: return *reinterpret_cast<const uint64_t*>(p);
      default: return 0;  // block pointers have no bits
    }
  }
  int64_t signedAt(int64_t lane) const {
    const char* p = static_cast<const char*>(raw()) + lane * elementBytes_;
    if (isBool_) return p[0] & 1;
    switch (elementBytes_) {
      case 1: return *reinterpret_cast<const int8_t*>(p);
      case 2: return *reinterpret_cast<const int16_t*>(p);
      case 4: return *reinterpret_cast<const int32_t*>(p);
      case 8: return *reinterpret_cast<const int64_t*>(p);
      default: return 0;
    }
  }
  void setBits(int64_t lane, uint64_t bits);  // low elementBytes*8 bits

  // Shadows. `undefinedMask()` is null when every lane is defined.
  const uint8_t* undefinedMask() const { return undefined_ ? undefined_.get() : nullptr; }
  uint8_t* mutableUndefinedMask();  // allocates (all 0) on first use
  bool anyUndefined() const;
  const double* errorBounds() const { return errorBound_ ? errorBound_.get() : nullptr; }
  double* mutableErrorBounds();     // allocates (all 0) on first use
  void dropUndefinedMask() { undefined_.reset(); }
  void dropErrorBounds() { errorBound_.reset(); }

 private:
  Type type_;
  int64_t size_ = 0;
  int elementBytes_ = 0;
  bool isBool_ = false;
  // Tile data comes from a per-thread cache of blocks by power-of-two size (Tile.cpp): programs make and drop
  // tiles of the same few sizes on every op, which glibc's malloc serves from its slower bins (above 1 KiB).
  struct DataDeleter {
    size_t words;  // no initialiser: one would make it not default-constructible inside the incomplete Tile
    void operator()(uint64_t* data) const;
  };
  std::unique_ptr<uint64_t[], DataDeleter> data_;  // 8-byte aligned, so typed access through as<T>() is aligned
  std::unique_ptr<uint8_t[]> undefined_;
  std::unique_ptr<double[]> errorBound_;
};

using TileRef = std::shared_ptr<const Tile>;
using MutableTileRef = std::shared_ptr<Tile>;

inline MutableTileRef makeTile(Type type) { return std::make_shared<Tile>(type); }
// A tile whose data the caller overwrites whole before anyone reads it (no zero-fill).
inline MutableTileRef makeTileToOverwrite(Type type) { return std::make_shared<Tile>(type, Tile::Uninitialized{}); }

}  // namespace tilesim

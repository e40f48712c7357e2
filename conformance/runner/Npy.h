// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0), the way launch buffers enter and leave
// tilesim: golden-case inputs and expectations, `tilesim run --arg x=x.npy`, and the outputs it writes back.
// Only what a buffer needs is supported: little-endian (or byte-sized) numeric and bool dtypes, C order, any shape.
// Anything else (Fortran order, big-endian, structured or object dtypes, a truncated file) is an error message that
// names the file. bfloat16 and fp8 have no NumPy dtype: they travel as raw bit patterns in `<i2` / `|u1` files and
// are reinterpreted by whoever knows the real element type (the case's dtype or the kernel parameter's type).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Type.h"

namespace tilesim {

enum class NpyType : uint8_t { Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64 };

const char* npyDescr(NpyType type);  // "|b1", "<f4", ...
int npyItemBytes(NpyType type);
bool isNpyUnsigned(NpyType type);     // U8..U64 (Bool too: values 0/1)
std::optional<NpyType> npyTypeFromDescr(std::string_view descr);

struct NpyArray {
  NpyType type = NpyType::F32;
  std::vector<int64_t> shape;  // empty: a 0-d array of one element
  std::vector<uint8_t> bytes;  // row-major, little-endian
  int64_t numElements() const;  // -1 when the product of the shape overflows (never after a successful load)
};

// The result of reading: `array` when `error` is empty. Errors read "FILE: message".
struct NpyLoad {
  NpyArray array;
  std::string error;
  bool ok() const { return error.empty(); }
};

NpyLoad parseNpy(std::span<const uint8_t> data, const std::string& fileName);
// Arrays of more dimensions than this are rejected on load (and summarised flat when printed).
constexpr int kMaxNpyRank = 32;
// The product of a shape, or nullopt when an extent is negative or the product overflows int64.
std::optional<int64_t> checkedElementCount(std::span<const int64_t> shape);

// A .npy file: a regular file of at most kMaxNpyFileBytes (ir/FileIO.h), parsed with parseNpy.
constexpr uint64_t kMaxNpyFileBytes = uint64_t{64} << 30;
NpyLoad readNpyFile(const std::string& path);

std::vector<uint8_t> serializeNpy(const NpyArray& array);  // version 1.0, or 2.0 when the header needs it
// Writes `array` to `path`; returns an error message naming the file, or "" on success.
std::string writeNpyFile(const std::string& path, const NpyArray& array);

// How tilesim stores a buffer of `kind` in a .npy file when nothing else says: i1 -> bool, i8..i64 -> signed,
// f16/f32/f64 -> themselves, bf16 -> `<i2` bits, fp8 -> `|u1` bits.
NpyType defaultNpyType(ScalarKind kind);
// Whether a file of `type` can hold a buffer of `kind` bit for bit (same element size, and a matching family:
// any 16-bit integer type for bf16, any 8-bit type for fp8, ints of either signedness for ints).
bool npyTypeFits(NpyType type, ScalarKind kind);

}  // namespace tilesim

// .npy reading and writing. The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (5000,), }
// which is parsed by a small recursive reader of exactly those three keys, in any order.
#include "conformance/runner/Npy.h"

#include "ir/FileIO.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>

namespace tilesim {
namespace {

struct NpyTypeInfo {
  NpyType type;
  const char* descr;
  int bytes;
  bool isUnsigned;
};

constexpr NpyTypeInfo kNpyTypes[] = {
    {NpyType::Bool, "|b1", 1, true}, {NpyType::I8, "|i1", 1, false},  {NpyType::U8, "|u1", 1, true},
    {NpyType::I16, "<i2", 2, false}, {NpyType::U16, "<u2", 2, true},  {NpyType::I32, "<i4", 4, false},
    {NpyType::U32, "<u4", 4, true},  {NpyType::I64, "<i8", 8, false}, {NpyType::U64, "<u8", 8, true},
    {NpyType::F16, "<f2", 2, false}, {NpyType::F32, "<f4", 4, false}, {NpyType::F64, "<f8", 8, false},
};

const NpyTypeInfo& info(NpyType type) { return kNpyTypes[static_cast<size_t>(type)]; }

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

// Reads the header dict. Each method returns false and sets `error` on malformed text.
class HeaderReader {
 public:
  explicit HeaderReader(std::string_view text) : text_(text) {}

  bool read(std::string& descr, bool& fortranOrder, std::vector<int64_t>& shape, std::string& error) {
    bool sawDescr = false, sawOrder = false, sawShape = false;
    if (!expect('{')) return fail(error, "header is not a dict");
    while (true) {
      skipSpace();
      if (peek() == '}') break;
      std::string key;
      if (!readString(key)) return fail(error, "expected a quoted key in the header");
      if (!expect(':')) return fail(error, "expected ':' after '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (peek() == '[') return fail(error, "structured dtypes are not supported");
        if (!readString(descr)) return fail(error, "'descr' is not a string");
        sawDescr = true;
      } else if (key == "fortran_order") {
        if (!readBool(fortranOrder)) return fail(error, "'fortran_order' is not True or False");
        sawOrder = true;
      } else if (key == "shape") {
        if (!readShape(shape))
          return fail(error, "'shape' is not a tuple of at most " + std::to_string(kMaxNpyRank) +
                                 " non-negative integers");
        sawShape = true;
      } else {
        return fail(error, "unexpected header key '" + key + "'");
      }
      skipSpace();
      if (peek() == ',') ++pos_;
    }
    if (!sawDescr || !sawOrder || !sawShape) return fail(error, "header lacks 'descr', 'fortran_order' or 'shape'");
    return true;
  }

 private:
  static bool fail(std::string& error, std::string message) {
    error = std::move(message);
    return false;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
  }
  bool expect(char c) {
    skipSpace();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool readString(std::string& out) {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"') return false;
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    out = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  bool readBool(bool& out) {
    if (text_.substr(pos_, 4) == "True") { out = true; pos_ += 4; return true; }
    if (text_.substr(pos_, 5) == "False") { out = false; pos_ += 5; return true; }
    return false;
  }
  bool readShape(std::vector<int64_t>& shape) {
    if (!expect('(')) return false;
    while (true) {
      skipSpace();
      if (peek() == ')') { ++pos_; return true; }
      if (peek() < '0' || peek() > '9') return false;
      int64_t value = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (value > (int64_t{1} << 50)) return false;
        value = value * 10 + (text_[pos_++] - '0');
      }
      if (peek() == 'L') ++pos_;  // Python 2 longs
      if (shape.size() >= static_cast<size_t>(kMaxNpyRank)) return false;
      shape.push_back(value);
      skipSpace();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') return false;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

NpyLoad failure(const std::string& fileName, const std::string& message) {
  NpyLoad load;
  load.error = fileName + ": " + message;
  return load;
}

std::string shapeTuple(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

const char* npyDescr(NpyType type) { return info(type).descr; }
int npyItemBytes(NpyType type) { return info(type).bytes; }
bool isNpyUnsigned(NpyType type) { return info(type).isUnsigned; }

std::optional<NpyType> npyTypeFromDescr(std::string_view descr) {
  if (descr.size() < 3) return std::nullopt;
  for (const NpyTypeInfo& candidate : kNpyTypes) {
    std::string_view canonical = candidate.descr;
    if (descr.substr(1) != canonical.substr(1)) continue;
    // Byte-sized types have no byte order: NumPy writes '|', but '<' and '=' mean the same for them.
    if (descr[0] == canonical[0] || (candidate.bytes == 1 && (descr[0] == '<' || descr[0] == '='))) return candidate.type;
  }
  return std::nullopt;
}

int64_t NpyArray::numElements() const {
  std::optional<int64_t> count = checkedElementCount(shape);
  return count ? *count : -1;
}

std::optional<int64_t> checkedElementCount(std::span<const int64_t> shape) {
  int64_t count = 1;
  for (int64_t extent : shape)
    if (extent < 0 || __builtin_mul_overflow(count, extent, &count)) return std::nullopt;
  return count;
}

NpyLoad parseNpy(std::span<const uint8_t> data, const std::string& fileName) {
  if (data.size() < kMagicBytes + 4 || std::memcmp(data.data(), kMagic, kMagicBytes) != 0)
    return failure(fileName, "not a .npy file (no \\x93NUMPY magic)");
  int major = data[6];
  size_t headerLength = 0, headerStart = 0;
  if (major == 1) {
    headerLength = data[8] | (size_t{data[9]} << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) return failure(fileName, "truncated header");
    headerLength = data[8] | (size_t{data[9]} << 8) | (size_t{data[10]} << 16) | (size_t{data[11]} << 24);
    headerStart = 12;
  } else {
    return failure(fileName, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(data[7]));
  }
  if (headerStart + headerLength > data.size()) return failure(fileName, "truncated header");
  std::string_view header(reinterpret_cast<const char*>(data.data()) + headerStart, headerLength);

  std::string descr, error;
  bool fortranOrder = false;
  NpyLoad load;
  if (!HeaderReader(header).read(descr, fortranOrder, load.array.shape, error)) return failure(fileName, error);
  if (fortranOrder) return failure(fileName, "Fortran-order arrays are not supported (save with C order)");
  if (!descr.empty() && descr[0] == '>' && npyTypeFromDescr("<" + descr.substr(1)))
    return failure(fileName, "big-endian dtype '" + descr + "' is not supported (use little-endian)");
  std::optional<NpyType> type = npyTypeFromDescr(descr);
  if (!type) return failure(fileName, "unsupported dtype '" + descr + "'");
  load.array.type = *type;

  size_t payload = data.size() - headerStart - headerLength;
  std::optional<int64_t> elements = checkedElementCount(load.array.shape);
  int64_t count = elements.value_or(0);
  size_t expected = 0;
  if (!elements || __builtin_mul_overflow(static_cast<size_t>(count), static_cast<size_t>(npyItemBytes(*type)), &expected))
    return failure(fileName, "shape " + shapeTuple(load.array.shape) + " has more elements than any file can hold");
  if (payload < expected)
    return failure(fileName, "truncated data: " + std::to_string(payload) + " bytes for " + std::to_string(count) +
                                 " elements of " + descr);
  if (payload > expected) return failure(fileName, "trailing bytes after the array data");
  const uint8_t* begin = data.data() + headerStart + headerLength;
  load.array.bytes.assign(begin, begin + expected);
  return load;
}

NpyLoad readNpyFile(const std::string& path) {
  // Only regular files, read by their size (ir/FileIO.h): a directory, a FIFO or /dev/zero is an error, never
  // an endless read.
  std::string data, error;
  try {
    if (!readRegularFile(path, kMaxNpyFileBytes, data, error)) return failure(path, error);
    return parseNpy(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()), path);
  } catch (const std::bad_alloc&) {
    return failure(path, "too large to load (" + std::to_string(data.size()) + " bytes)");
  }
}

std::vector<uint8_t> serializeNpy(const NpyArray& array) {
  std::string dict = std::string("{'descr': '") + npyDescr(array.type) +
                     "', 'fortran_order': False, 'shape': " + shapeTuple(array.shape) + ", }";
  // The header (magic, version, length, dict, padding, '\n') is a multiple of 64 bytes.
  bool version2 = dict.size() + 11 + 64 > 65535;
  size_t prefix = version2 ? 12 : 10;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');

  std::vector<uint8_t> out(kMagic, kMagic + kMagicBytes);
  out.push_back(version2 ? 2 : 1);
  out.push_back(0);
  size_t length = dict.size();
  for (size_t i = 0; i < (version2 ? 4u : 2u); ++i) out.push_back(static_cast<uint8_t>(length >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), array.bytes.begin(), array.bytes.end());
  return out;
}

std::string writeNpyFile(const std::string& path, const NpyArray& array) {
  // ir/FileIO.h replaceFile: a symlink or hard link at `path` is never written through, and a failed write leaves
  // the old file whole.
  std::vector<uint8_t> data = serializeNpy(array);
  return replaceFile(path, data.data(), data.size());
}

NpyType defaultNpyType(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::I1: return NpyType::Bool;
    case ScalarKind::I8: return NpyType::I8;
    case ScalarKind::I16: return NpyType::I16;
    case ScalarKind::I32: return NpyType::I32;
    case ScalarKind::I64: return NpyType::I64;
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2: return NpyType::U8;
    case ScalarKind::F16: return NpyType::F16;
    case ScalarKind::BF16: return NpyType::I16;
    case ScalarKind::F32: return NpyType::F32;
    case ScalarKind::F64: return NpyType::F64;
  }
  return NpyType::U8;
}

bool npyTypeFits(NpyType type, ScalarKind kind) {
  bool integerFile = type != NpyType::Bool && type != NpyType::F16 && type != NpyType::F32 && type != NpyType::F64;
  switch (kind) {
    case ScalarKind::I1: return type == NpyType::Bool || type == NpyType::I8 || type == NpyType::U8;
    case ScalarKind::I8:
    case ScalarKind::I16:
    case ScalarKind::I32:
    case ScalarKind::I64:
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2:
    case ScalarKind::BF16: return integerFile && npyItemBytes(type) == storageBytes(kind);
    case ScalarKind::F16: return type == NpyType::F16 || type == NpyType::I16 || type == NpyType::U16;
    case ScalarKind::F32: return type == NpyType::F32;
    case ScalarKind::F64: return type == NpyType::F64;
  }
  return false;
}

}  // namespace tilesim

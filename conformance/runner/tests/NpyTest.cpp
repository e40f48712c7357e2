// .npy reading and writing: every supported dtype round-trips bit for bit, headers follow the format's layout
// rules (NumPy's format spec: 64-byte aligned header ending in '\n'), real golden files read, and unsupported
// files (Fortran order, big-endian, structured, truncated) are errors naming the file.
#include "conformance/runner/Npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

namespace tilesim {
namespace {

constexpr NpyType kAllTypes[] = {NpyType::Bool, NpyType::I8,  NpyType::U8,  NpyType::I16, NpyType::U16, NpyType::I32,
                                 NpyType::U32,  NpyType::I64, NpyType::U64, NpyType::F16, NpyType::F32, NpyType::F64};

NpyArray patterned(NpyType type, std::vector<int64_t> shape) {
  NpyArray array;
  array.type = type;
  array.shape = std::move(shape);
  size_t count = static_cast<size_t>(array.numElements()) * static_cast<size_t>(npyItemBytes(type));
  for (size_t i = 0; i < count; ++i) array.bytes.push_back(type == NpyType::Bool ? (i % 3 == 0) : static_cast<uint8_t>(i * 37 + 11));
  return array;
}

// A file with a hand-written header, as another writer might produce it.
std::vector<uint8_t> handMade(const std::string& dict, std::vector<uint8_t> payload, int major = 1) {
  std::vector<uint8_t> data = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  size_t length = dict.size();
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) data.push_back(static_cast<uint8_t>(length >> (8 * i)));
  data.insert(data.end(), dict.begin(), dict.end());
  data.insert(data.end(), payload.begin(), payload.end());
  return data;
}

TEST(Npy, EveryDtypeRoundTrips) {
  for (NpyType type : kAllTypes) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {7}, {2, 3}, {2, 0, 4}, {3, 1, 2, 2}}) {
      NpyArray array = patterned(type, shape);
      std::vector<uint8_t> data = serializeNpy(array);
      NpyLoad load = parseNpy(data, "mem.npy");
      ASSERT_TRUE(load.ok()) << npyDescr(type) << ": " << load.error;
      EXPECT_EQ(load.array.type, type);
      EXPECT_EQ(load.array.shape, shape);
      EXPECT_EQ(load.array.bytes, array.bytes) << npyDescr(type);
    }
  }
}

TEST(Npy, HeaderIsAlignedAndReadableByNumPyRules) {
  std::vector<uint8_t> data = serializeNpy(patterned(NpyType::F32, {5000}));
  size_t headerLength = data[8] | (size_t{data[9]} << 8);
  EXPECT_EQ((10 + headerLength) % 64, 0u);
  EXPECT_EQ(data[10 + headerLength - 1], '\n');
  std::string header(data.begin() + 10, data.begin() + 10 + static_cast<std::ptrdiff_t>(headerLength));
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (5000,), }", 0), 0u);
}

TEST(Npy, FileRoundTrip) {
  std::string path = (std::filesystem::temp_directory_path() / "tilesim_npy_test.npy").string();
  NpyArray array = patterned(NpyType::I64, {4, 5});
  ASSERT_EQ(writeNpyFile(path, array), "");
  NpyLoad load = readNpyFile(path);
  ASSERT_TRUE(load.ok()) << load.error;
  EXPECT_EQ(load.array.bytes, array.bytes);
  std::filesystem::remove(path);
}

TEST(Npy, ReadsVersionTwoAndThreeAndKeysInAnyOrder) {
  std::vector<uint8_t> payload(8, 0x5A);
  for (int major : {2, 3}) {
    NpyLoad load = parseNpy(handMade("{'shape': (2, 2), 'fortran_order': False, 'descr': '<u2'}\n", payload, major), "v.npy");
    ASSERT_TRUE(load.ok()) << load.error;
    EXPECT_EQ(load.array.type, NpyType::U16);
    EXPECT_EQ(load.array.shape, (std::vector<int64_t>{2, 2}));
  }
  // Byte-sized types may be spelled with '<' instead of '|'.
  EXPECT_TRUE(parseNpy(handMade("{'descr': '<i1', 'fortran_order': False, 'shape': (8,)}\n", payload), "b.npy").ok());
}

TEST(Npy, ReadsGoldenBf16BitsFile) {
  NpyLoad load = readNpyFile(std::string(TILESIM_SOURCE_DIR) + "/conformance/golden/rmsnorm_bf16/x_ptr.npy");
  ASSERT_TRUE(load.ok()) << load.error;
  EXPECT_EQ(load.array.type, NpyType::I16);
  EXPECT_EQ(load.array.shape, (std::vector<int64_t>{11, 333}));
  EXPECT_TRUE(npyTypeFits(load.array.type, ScalarKind::BF16));
  EXPECT_FALSE(npyTypeFits(load.array.type, ScalarKind::F32));
}

TEST(Npy, RejectsWhatItCannotHoldNamingTheFile) {
  std::vector<uint8_t> payload(16, 0);
  auto errorOf = [&](const std::string& dict) { return parseNpy(handMade(dict, payload), "bad.npy").error; };
  EXPECT_NE(errorOf("{'descr': '<f4', 'fortran_order': True, 'shape': (4,)}").find("Fortran"), std::string::npos);
  EXPECT_NE(errorOf("{'descr': '>f4', 'fortran_order': False, 'shape': (4,)}").find("big-endian"), std::string::npos);
  EXPECT_NE(errorOf("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,)}").find("structured"), std::string::npos);
  EXPECT_NE(errorOf("{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}").find("unsupported dtype"), std::string::npos);
  EXPECT_NE(errorOf("{'descr': '<f4', 'fortran_order': False, 'shape': (5,)}").find("truncated"), std::string::npos);
  EXPECT_NE(errorOf("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}").find("trailing"), std::string::npos);
  EXPECT_EQ(errorOf("{'descr': '<f4', 'shape': (4,)}").rfind("bad.npy: ", 0), 0u);
  std::vector<uint8_t> notNpy = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  EXPECT_NE(parseNpy(notNpy, "x.txt").error.find("x.txt: not a .npy"), std::string::npos);
  EXPECT_NE(readNpyFile("/nonexistent/a.npy").error.find("/nonexistent/a.npy: cannot open"), std::string::npos);
}

// Hostile headers: a shape whose product wraps int64 (2^50 * 2^14 = 2^64 wraps to 0) and absurd ranks are
// rejected on load; a device or directory is never read.
TEST(Npy, RejectsHostileShapesAndFiles) {
  auto errorOf = [&](const std::string& dict) { return parseNpy(handMade(dict, {}), "bad.npy").error; };
  EXPECT_NE(errorOf("{'descr': '<i4', 'fortran_order': False, 'shape': (1125899906842624, 16384)}").find("more elements"),
            std::string::npos);
  std::string deep = "(";
  for (int i = 0; i < 33; ++i) deep += "1, ";
  EXPECT_NE(errorOf("{'descr': '<i4', 'fortran_order': False, 'shape': " + deep + ")}").find("at most 32"),
            std::string::npos);
  EXPECT_FALSE(checkedElementCount(std::vector<int64_t>{int64_t{1} << 62, 4}).has_value());
  EXPECT_NE(readNpyFile("/dev/zero").error.find("/dev/zero: not a regular file"), std::string::npos);
  EXPECT_NE(readNpyFile("/").error.find("is a directory"), std::string::npos);
}

TEST(Npy, DefaultTypesFitTheirKinds) {
  for (int i = 0; i < kNumScalarKinds; ++i) {
    ScalarKind kind = static_cast<ScalarKind>(i);
    EXPECT_TRUE(npyTypeFits(defaultNpyType(kind), kind)) << scalarKindName(kind);
    EXPECT_EQ(npyItemBytes(defaultNpyType(kind)), storageBytes(kind)) << scalarKindName(kind);
  }
}

}  // namespace
}  // namespace tilesim

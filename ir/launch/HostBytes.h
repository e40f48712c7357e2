// Typed host vectors to and from the raw bytes of a buffer LaunchArgument, for the code that fills launches by
// hand and reads their outputs back (tests, the interpreter benchmark). The bytes are the host's own
// representation (little-endian on every supported host), which is what the engines read and write.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "ir/launch/Launch.h"

namespace tilesim {

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// The buffer's contents as T; a trailing partial element is dropped.
template <typename T>
std::vector<T> valuesOf(const LaunchArgument& argument) {
  std::vector<T> values(argument.bytes.size() / sizeof(T));
  std::memcpy(values.data(), argument.bytes.data(), values.size() * sizeof(T));
  return values;
}

}  // namespace tilesim

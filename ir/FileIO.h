// Reading and writing the files a user names, safely. Reading: only a regular file, read by its size, at most `maxBytes`. A FIFO,
// a device (/dev/zero), a directory or a file larger than the limit is a one-line error, never a hang or an
// allocation the input chose. The file is opened without blocking (O_NONBLOCK, so opening a FIFO with no
// writer returns at once) and checked with fstat on the open descriptor, so what is checked is what is read.
//
// Writing (replaceFile): a temporary file beside the target, then rename, so a symlink or hard link at the
// target is never written through and a failed write leaves the old file whole; realDirectory refuses a
// directory that is a symlink or not a directory, so nothing is written elsewhere through it.
//
//   std::string text, error;
//   if (!readRegularFile(path, kMaxKernelFileBytes, text, error)) report(path + ": " + error);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tilesim {

// Limits for the text files a case directory or a command line may name. Real Triton TTIR/TTGIR is at most a
// few MB (the largest kernel in conformance/ is ~200 KB); case.json is a few KB.
inline constexpr uint64_t kMaxKernelFileBytes = uint64_t{256} << 20;  // kernel.ttir, kernel.ttgir: 256 MiB
inline constexpr uint64_t kMaxJsonFileBytes = uint64_t{64} << 20;     // case.json, fuzz summaries: 64 MiB

// Reads the whole of `path` into `contents`. On failure returns false and sets `error` to the reason without
// the path ("not a regular file (a FIFO)", "larger than the 268435456-byte limit (...)").
bool readRegularFile(const std::string& path, uint64_t maxBytes, std::string& contents, std::string& error);

// Writes `size` bytes to `path` by replacing its directory entry. "" or "PATH: reason".
std::string replaceFile(const std::string& path, const void* data, size_t size);
inline std::string replaceFile(const std::string& path, std::string_view text) { return replaceFile(path, text.data(), text.size()); }

// Creates `path` (and its parents) when missing; "" when it is then a directory and not a symbolic link, else
// "PATH: reason" ("is a symbolic link", "exists and is not a directory").
std::string realDirectory(const std::string& path);

}  // namespace tilesim

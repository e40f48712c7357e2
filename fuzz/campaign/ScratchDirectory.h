// A fresh directory of its own under $TMPDIR for one check of the triton targets (TritonGpuRun.cpp writes a case
// there for Triton's launch, TritonPassesRun.cpp the modules after each pass), removed with everything in it when
// the check is done. `path` is empty when no directory could be made; the caller reports that as skipped.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace tilesim::fuzz {

struct ScratchDirectory {
  std::string path;
  // `prefix` names the target in the directory's name ("tilesim-triton-run"), so a leftover one says whose it is.
  explicit ScratchDirectory(const std::string& prefix) {
    std::error_code ec;
    std::string pattern = (std::filesystem::temp_directory_path(ec) / (prefix + "-XXXXXX")).string();
    if (ec) pattern = "/tmp/" + prefix + "-XXXXXX";
    if (::mkdtemp(pattern.data())) path = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
};

}  // namespace tilesim::fuzz

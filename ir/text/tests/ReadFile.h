// The whole of a recorded file as text, for the text tests that read kernels from the repository (RoundTripTest,
// TtgirTest, ErrorTest). A file that cannot be read gives "", which the callers' parse assertions then report.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tilesim {

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace tilesim

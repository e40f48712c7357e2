// Fuzz target: kernel.ttgir's reduce layouts (conformance/runner/TtgirLayouts.h). Properties: no crash, hang or
// exception on any text; a failure is one "FILE:LINE:COL: error: ..." line with LINE inside the text; every
// reduce read as blocked has a layout of positive extents no larger than its axis.
#include <algorithm>
#include <string>

#include "conformance/runner/TtgirLayouts.h"
#include "fuzz/targets/FuzzTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tilesim::TtgirLayouts parsed = tilesim::parseTtgirReduces(text, "fuzz.ttgir");
  if (!parsed.error.empty()) {
    if (parsed.error.rfind("fuzz.ttgir:", 0) != 0 || parsed.error.find('\n') != std::string::npos)
      fuzzPropertyFailed("ttgir_fuzz", ("malformed diagnostic: " + parsed.error).c_str());
    const int line = std::atoi(parsed.error.c_str() + 11);
    const int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    if (line < 1 || line > lines) fuzzPropertyFailed("ttgir_fuzz", ("diagnostic line outside the text: " + parsed.error).c_str());
    if (!parsed.reduces.empty()) fuzzPropertyFailed("ttgir_fuzz", "reduces returned with an error");
  }
  for (const tilesim::TtgirReduce& reduce : parsed.reduces) {
    if (!reduce.blocked) continue;
    const int64_t extent = reduce.shape.at(static_cast<size_t>(reduce.axis));
    if (reduce.layout.sizePerThread < 1 || reduce.layout.threadsPerWarp < 1 || reduce.layout.warpsPerCTA < 1 ||
        reduce.layout.sizePerThread > extent)
      fuzzPropertyFailed("ttgir_fuzz", "a blocked layout with an extent out of range");
  }
  return 0;
}

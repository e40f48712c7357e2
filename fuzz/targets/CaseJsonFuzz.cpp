// Fuzz target: case.json (conformance/runner/GoldenCase.h parseCaseJson). Properties: no crash, hang or escaping
// exception on any text; a failure is a message naming the case file; a case that loads has a grid of positive
// extents, num_warps a power of two up to 32, shapes with a countable number of elements and paths inside or
// beside the (nonexistent) case directory's name.
#include <string>

#include "conformance/runner/GoldenCase.h"
#include "fuzz/targets/FuzzTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tilesim::CaseLoad load = tilesim::parseCaseJson(text, "/nonexistent-fuzz-case");
  if (!load.ok()) {
    if (load.error.find("/nonexistent-fuzz-case/case.json") == std::string::npos)
      fuzzPropertyFailed("case_json_fuzz", ("error does not name the file: " + load.error).c_str());
    return 0;
  }
  const tilesim::GoldenCase& goldenCase = load.goldenCase;
  for (int64_t extent : goldenCase.grid)
    if (extent < 1) fuzzPropertyFailed("case_json_fuzz", "a grid extent below 1");
  if (goldenCase.numWarps < 1 || goldenCase.numWarps > 32 || (goldenCase.numWarps & (goldenCase.numWarps - 1)) != 0)
    fuzzPropertyFailed("case_json_fuzz", "num_warps is not a power of two from 1 to 32");
  for (const tilesim::CaseArgument& argument : goldenCase.arguments)
    if (argument.isTensor && !tilesim::checkedElementCount(argument.shape))
      fuzzPropertyFailed("case_json_fuzz", "a tensor shape whose element count overflows");
  return 0;
}

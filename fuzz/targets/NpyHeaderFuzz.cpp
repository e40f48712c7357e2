// Fuzz target: .npy files (conformance/runner/Npy.h parseNpy), header and payload. Properties: no crash or
// exception on any bytes; a failure names the file; an array that loads holds exactly numElements() items of
// its dtype, and writing it and reading it back gives the same dtype, shape and bytes.
#include <string>

#include "conformance/runner/Npy.h"
#include "fuzz/targets/FuzzTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tilesim::NpyLoad load = tilesim::parseNpy(std::span<const uint8_t>(data, size), "fuzz.npy");
  if (!load.ok()) {
    if (load.error.rfind("fuzz.npy", 0) != 0) fuzzPropertyFailed("npy_fuzz", ("error does not name the file: " + load.error).c_str());
    return 0;
  }
  const tilesim::NpyArray& array = load.array;
  if (array.numElements() < 0 ||
      array.bytes.size() != static_cast<size_t>(array.numElements()) * static_cast<size_t>(tilesim::npyItemBytes(array.type)))
    fuzzPropertyFailed("npy_fuzz", "payload size does not match the shape");
  std::vector<uint8_t> written = tilesim::serializeNpy(array);
  tilesim::NpyLoad again = tilesim::parseNpy(written, "fuzz-again.npy");
  if (!again.ok() || again.array.type != array.type || again.array.shape != array.shape || again.array.bytes != array.bytes)
    fuzzPropertyFailed("npy_fuzz", ("write then read changes the array: " + again.error).c_str());
  return 0;
}

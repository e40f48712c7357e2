// The on-disk cache of compiled kernels: a second run of the same kernel (same TTIR, num_warps, float profile,
// GPU architecture, driver and tilesim binary) loads the cubin from disk instead of compiling TTIR -> PTX and
// PTX -> cubin again. Entries are keyed by the SHA-256 of everything that determines the code:
//   the printed module, the kernel's name, num_warps, profile, sm, the driver version, and this binary's GNU
//   build id (so a rebuilt tilesim never reads an older compiler's output; without a build id there is no cache).
// Where: $TILESIM_CACHE_DIR, else $XDG_CACHE_HOME/tilesim/gpu, else $HOME/.cache/tilesim/gpu;
// TILESIM_CACHE_DIR=off disables it. The cache is best effort: a directory that cannot be created or written,
// or an entry that does not parse (truncated, another format), is a miss, never an error. Writes go to a
// temporary file renamed into place, so concurrent runs see whole entries or none.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tilesim::gpu {

struct CachedKernel {
  std::string name;   // the entry point
  int threads = 0;    // 32 * num_warps
  int sharedBytes = 0;
  std::string cubin;  // what cuModuleLoadData takes
  bool operator==(const CachedKernel&) const = default;
};

class KernelCache {
 public:
  // The cache the environment asks for (see above); disabled() when off or there is no build id.
  static KernelCache fromEnvironment();
  explicit KernelCache(std::string directory) : directory_(std::move(directory)) {}

  bool disabled() const { return directory_.empty(); }
  const std::string& directory() const { return directory_; }
  // The key of a kernel: hex SHA-256 of `identity` (the caller concatenates what determines the code).
  static std::string keyOf(std::string_view identity);
  // This binary's GNU build id in hex ("" when it was linked without one).
  static std::string buildId();

  std::optional<CachedKernel> find(const std::string& key) const;
  void store(const std::string& key, const CachedKernel& kernel) const;

 private:
  std::string directory_;  // empty: disabled
};

}  // namespace tilesim::gpu

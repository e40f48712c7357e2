// The on-disk kernel cache (gpu_backend/runtime/KernelCache.h): entries round-trip, anything that is not a
// whole entry is a miss, and keys are content hashes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gpu_backend/runtime/KernelCache.h"

namespace tilesim::gpu {
namespace {

namespace fs = std::filesystem;

fs::path freshDirectory() {
  fs::path directory = fs::temp_directory_path() / ("tilesim-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(directory);
  return directory;
}

TEST(KernelCache, StoresAndFindsEntries) {
  const fs::path directory = freshDirectory();
  KernelCache cache(directory.string());
  const std::string key = KernelCache::keyOf("vadd|4|triton|sm_90a");
  EXPECT_FALSE(cache.find(key));
  CachedKernel kernel{"vadd", 128, 0, std::string("\x7f" "ELF\0binary\n", 12)};
  cache.store(key, kernel);
  std::optional<CachedKernel> found = cache.find(key);
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, kernel);
  EXPECT_FALSE(cache.find(KernelCache::keyOf("vadd|8|triton|sm_90a")));  // another key, another entry
  // A truncated entry (a crash mid-write would leave only the temporary file, but be safe anyway) is a miss.
  const fs::path entry = directory / (key + ".kernel");
  fs::resize_file(entry, fs::file_size(entry) - 3);
  EXPECT_FALSE(cache.find(key));
  std::ofstream(entry, std::ios::binary) << "not a cache entry";
  EXPECT_FALSE(cache.find(key));
  fs::remove_all(directory);
}

TEST(KernelCache, KeysAreSha256OfTheIdentity) {
  EXPECT_EQ(KernelCache::keyOf("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_NE(KernelCache::keyOf("a"), KernelCache::keyOf("b"));
}

TEST(KernelCache, OffWhenAskedOrWithoutBuildId) {
  ::setenv("TILESIM_CACHE_DIR", "off", 1);
  EXPECT_TRUE(KernelCache::fromEnvironment().disabled());
  ::setenv("TILESIM_CACHE_DIR", "/tmp/somewhere", 1);
  EXPECT_EQ(KernelCache::fromEnvironment().disabled(), KernelCache::buildId().empty());
  ::unsetenv("TILESIM_CACHE_DIR");
  // Debian's toolchain links with --build-id: this test binary has one (40 hex digits of SHA-1).
  EXPECT_EQ(KernelCache::buildId().size(), 40u);
  // A disabled cache stores nothing and finds nothing.
  KernelCache off("");
  off.store("k", {"k", 32, 0, "x"});
  EXPECT_FALSE(off.find("k"));
}

}  // namespace
}  // namespace tilesim::gpu

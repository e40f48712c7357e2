// KernelCache (KernelCache.h). An entry is one file, KEY.kernel:
//   tilesim-gpu-kernel 1\n name NAME\n threads N\n shared N\n cubin BYTES\n <BYTES of cubin>
#include "gpu_backend/runtime/KernelCache.h"

#include <link.h>
#include <unistd.h>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/SHA256.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace tilesim::gpu {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kMagic = "tilesim-gpu-kernel 1";

// dl_iterate_phdr callback: the NT_GNU_BUILD_ID note of the main program (the first object listed).
int findBuildId(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type != PT_NOTE) continue;
    const char* note = reinterpret_cast<const char*>(info->dlpi_addr + header.p_vaddr);
    const char* end = note + header.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const auto* nhdr = reinterpret_cast<const ElfW(Nhdr)*>(note);
      const char* name = note + sizeof(ElfW(Nhdr));
      const char* desc = name + ((nhdr->n_namesz + 3) & ~3u);
      if (nhdr->n_type == NT_GNU_BUILD_ID && nhdr->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        for (unsigned k = 0; k < nhdr->n_descsz; ++k) *out += fmt::format("{:02x}", static_cast<unsigned char>(desc[k]));
        return 1;
      }
      note = desc + ((nhdr->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // only the main program
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::string KernelCache::buildId() {
  static const std::string id = [] {
    std::string found;
    dl_iterate_phdr(findBuildId, &found);
    return found;
  }();
  return id;
}

KernelCache KernelCache::fromEnvironment() {
  std::string directory = environment("TILESIM_CACHE_DIR");
  if (directory == "off" || buildId().empty()) return KernelCache("");
  if (directory.empty() && !environment("XDG_CACHE_HOME").empty()) directory = environment("XDG_CACHE_HOME") + "/tilesim/gpu";
  if (directory.empty() && !environment("HOME").empty()) directory = environment("HOME") + "/.cache/tilesim/gpu";
  return KernelCache(directory);
}

std::string KernelCache::keyOf(std::string_view identity) {
  auto digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(identity.data()), identity.size()));
  std::string hex;
  for (uint8_t byte : digest) hex += fmt::format("{:02x}", byte);
  return hex;
}

std::optional<CachedKernel> KernelCache::find(const std::string& key) const {
  if (disabled()) return std::nullopt;
  std::ifstream in(directory_ + "/" + key + ".kernel", std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic, word;
  CachedKernel kernel;
  size_t cubinBytes = 0;
  if (!std::getline(in, magic) || magic != kMagic) return std::nullopt;
  if (!(in >> word) || word != "name" || !(in >> kernel.name)) return std::nullopt;
  if (!(in >> word) || word != "threads" || !(in >> kernel.threads)) return std::nullopt;
  if (!(in >> word) || word != "shared" || !(in >> kernel.sharedBytes)) return std::nullopt;
  if (!(in >> word) || word != "cubin" || !(in >> cubinBytes) || in.get() != '\n') return std::nullopt;
  if (cubinBytes == 0 || cubinBytes > (size_t{1} << 30)) return std::nullopt;
  kernel.cubin.resize(cubinBytes);
  if (!in.read(kernel.cubin.data(), static_cast<std::streamsize>(cubinBytes))) return std::nullopt;
  if (in.peek() != std::char_traits<char>::eof()) return std::nullopt;  // trailing bytes: not ours
  return kernel;
}

void KernelCache::store(const std::string& key, const CachedKernel& kernel) const {
  if (disabled()) return;
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) return;
  const std::string path = directory_ + "/" + key + ".kernel";
  const std::string temporary = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << kMagic << "\nname " << kernel.name << "\nthreads " << kernel.threads << "\nshared " << kernel.sharedBytes
        << "\ncubin " << kernel.cubin.size() << "\n";
    out.write(kernel.cubin.data(), static_cast<std::streamsize>(kernel.cubin.size()));
    if (!out) {
      out.close();
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, path, error);
  if (error) fs::remove(temporary, error);
}

}  // namespace tilesim::gpu

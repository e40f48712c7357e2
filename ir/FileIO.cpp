// readRegularFile (open non-blocking, fstat, refuse anything but a regular file within the limit, read exactly
// its size), replaceFile and realDirectory (ir/FileIO.h).
#include "ir/FileIO.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace tilesim {
namespace {

const char* fileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

bool readRegularFile(const std::string& path, uint64_t maxBytes, std::string& contents, std::string& error) {
  contents.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    error = errno == ENOENT ? "cannot open file (no such file)" : std::string("cannot open file (") + std::strerror(errno) + ")";
    return false;
  }
  struct stat info{};
  bool ok = false;
  if (::fstat(fd, &info) != 0) {
    error = std::string("cannot read file (") + std::strerror(errno) + ")";
  } else if (S_ISDIR(info.st_mode)) {
    error = "is a directory, not a regular file";
  } else if (!S_ISREG(info.st_mode)) {
    error = std::string("not a regular file (") + fileKind(info.st_mode) + "); tilesim reads only regular files";
  } else if (static_cast<uint64_t>(info.st_size) > maxBytes) {
    error = "larger than the " + std::to_string(maxBytes) + "-byte limit for this file (" + std::to_string(info.st_size) +
            " bytes)";
  } else {
    try {
      contents.resize(static_cast<size_t>(info.st_size));
      size_t done = 0;
      ok = true;
      while (done < contents.size()) {
        const ssize_t n = ::read(fd, contents.data() + done, contents.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {  // shrank while being read, or an I/O error
          error = n == 0 ? "read error (the file shrank while being read)" : std::string("read error (") + std::strerror(errno) + ")";
          ok = false;
          break;
        }
        done += static_cast<size_t>(n);
      }
    } catch (const std::bad_alloc&) {
      error = "too large to load (" + std::to_string(info.st_size) + " bytes)";
      ok = false;
    }
  }
  ::close(fd);
  if (!ok) contents.clear();
  return ok;
}

std::string replaceFile(const std::string& path, const void* data, size_t size) {
  std::string temporary = path + ".tilesim-XXXXXX";
  const int descriptor = ::mkstemp(temporary.data());  // O_CREAT | O_EXCL: never an existing file or link
  if (descriptor < 0) return path + ": cannot open for writing (" + std::strerror(errno) + ")";
  const char* bytes = static_cast<const char*>(data);
  size_t written = 0;
  while (written < size) {
    const ssize_t n = ::write(descriptor, bytes + written, size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  bool ok = written == size && ::fchmod(descriptor, 0644) == 0;
  ok = ::close(descriptor) == 0 && ok;
  if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return path + ": write error";
  }
  return "";
}

std::string realDirectory(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);  // fails harmlessly when something else is there
  struct stat info{};
  if (::lstat(path.c_str(), &info) != 0) return path + ": cannot create directory (" + std::strerror(errno) + ")";
  if (S_ISLNK(info.st_mode)) return path + ": is a symbolic link; tilesim writes only into real directories";
  if (!S_ISDIR(info.st_mode)) return path + ": exists and is not a directory";
  return "";
}

}  // namespace tilesim

// WorkerProtocol (WorkerProtocol.h): field encoding, and whole-message send/receive over a socket with a deadline.
#include "gpu_backend/runtime/WorkerProtocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace tilesim::gpu {
namespace {

constexpr uint64_t kMaxPayload = uint64_t{1} << 40;  // a length beyond this is not ours: malformed

struct Header {
  uint32_t type;
  uint32_t reserved;
  uint64_t length;
};

using Clock = std::chrono::steady_clock;

int remainingMs(Clock::time_point deadline, int64_t timeoutMs) {
  if (timeoutMs < 0) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

// Reads exactly `size` bytes into `out` before the deadline, draining `drainFd` meanwhile.
ReceiveStatus readExactly(int fd, void* out, size_t size, Clock::time_point deadline, int64_t timeoutMs, int drainFd,
                          std::string* drained) {
  auto* bytes = static_cast<uint8_t*>(out);
  size_t done = 0;
  bool drainOpen = drainFd >= 0 && drained;
  while (done < size) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {drainOpen ? drainFd : -1, POLLIN, 0}};
    int wait = remainingMs(deadline, timeoutMs);
    int ready = ::poll(fds, 2, wait);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return ReceiveStatus::Closed;
    }
    if (ready == 0) return ReceiveStatus::TimedOut;
    if (drainOpen && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) drainOpen = drainAvailable(drainFd, drained);
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t got = ::read(fd, bytes + done, size - done);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) return ReceiveStatus::Closed;
      done += static_cast<size_t>(got);
    }
  }
  return ReceiveStatus::Ok;
}

}  // namespace

void MessageWriter::raw(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  payload_.insert(payload_.end(), bytes, bytes + size);
}

void MessageWriter::bytes(const void* data, size_t size) {
  i64(static_cast<int64_t>(size));
  raw(data, size);
}

bool MessageReader::take(void* out, size_t size) {
  if (!ok_ || payload_.size() - at_ < size) {
    ok_ = false;
    std::memset(out, 0, size);
    return false;
  }
  std::memcpy(out, payload_.data() + at_, size);
  at_ += size;
  return true;
}

uint32_t MessageReader::u32() {
  uint32_t value = 0;
  take(&value, sizeof(value));
  return value;
}

int64_t MessageReader::i64() {
  int64_t value = 0;
  take(&value, sizeof(value));
  return value;
}

double MessageReader::f64() {
  double value = 0;
  take(&value, sizeof(value));
  return value;
}

std::vector<uint8_t> MessageReader::bytes() {
  const int64_t size = i64();
  if (!ok_ || size < 0 || static_cast<uint64_t>(size) > payload_.size() - at_) {
    ok_ = false;
    return {};
  }
  std::vector<uint8_t> out(payload_.begin() + static_cast<ptrdiff_t>(at_),
                           payload_.begin() + static_cast<ptrdiff_t>(at_ + static_cast<size_t>(size)));
  at_ += static_cast<size_t>(size);
  return out;
}

std::string MessageReader::string() {
  std::vector<uint8_t> raw = bytes();
  return std::string(raw.begin(), raw.end());
}

std::string sendMessage(int fd, MessageType type, const std::vector<uint8_t>& payload) {
  Header header{static_cast<uint32_t>(type), 0, payload.size()};
  auto sendAll = [fd](const void* data, size_t size) -> std::string {
    const auto* bytes = static_cast<const uint8_t*>(data);
    while (size > 0) {
      ssize_t sent = ::send(fd, bytes, size, MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) return std::strerror(errno);
      bytes += sent;
      size -= static_cast<size_t>(sent);
    }
    return "";
  };
  if (std::string failed = sendAll(&header, sizeof(header)); !failed.empty()) return failed;
  return sendAll(payload.data(), payload.size());
}

ReceiveStatus receiveMessage(int fd, int64_t timeoutMs, MessageType* type, std::vector<uint8_t>* payload, int drainFd,
                             std::string* drained) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeoutMs < 0 ? 0 : timeoutMs);
  Header header{};
  if (ReceiveStatus status = readExactly(fd, &header, sizeof(header), deadline, timeoutMs, drainFd, drained);
      status != ReceiveStatus::Ok)
    return status;
  if (header.length > kMaxPayload || header.type < 1 || header.type > 4) return ReceiveStatus::Malformed;
  *type = static_cast<MessageType>(header.type);
  payload->resize(header.length);
  return readExactly(fd, payload->data(), payload->size(), deadline, timeoutMs, drainFd, drained);
}

bool drainAvailable(int fd, std::string* out, size_t limit) {
  char chunk[4096];
  while (true) {
    ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK;  // nothing more now, still open
    if (got == 0) return false;
    if (out->size() < limit) out->append(chunk, std::min(static_cast<size_t>(got), limit - out->size()));
  }
}

}  // namespace tilesim::gpu

// The wire format between the GPU engine (the parent) and its GPU worker process (GpuWorker.h): messages over a
// Unix stream socket, each a header {uint32 type, uint64 payload length} and the payload. A payload is a sequence
// of little-endian fields written by MessageWriter and read back, in the same order, by MessageReader; a reader
// that runs past the end (a truncated or foreign message) is marked failed instead of reading garbage, so a
// broken worker shows as an error message, never as a crash of the parent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilesim::gpu {

enum class MessageType : uint32_t {
  Hello = 1,   // worker -> parent, once at start: WorkerHello
  Load = 2,    // parent -> worker: KernelImage;  worker -> parent: LoadReply
  Launch = 3,  // parent -> worker: WorkerLaunch; worker -> parent: WorkerResult
  Quit = 4,    // parent -> worker: exit now (no reply)
};

class MessageWriter {
 public:
  void u32(uint32_t value) { raw(&value, sizeof(value)); }
  void i64(int64_t value) { raw(&value, sizeof(value)); }
  void f64(double value) { raw(&value, sizeof(value)); }
  void boolean(bool value) { u32(value ? 1 : 0); }
  void bytes(const void* data, size_t size);  // length-prefixed
  void string(const std::string& text) { bytes(text.data(), text.size()); }
  const std::vector<uint8_t>& payload() const { return payload_; }
  std::vector<uint8_t>& payload() { return payload_; }

 private:
  void raw(const void* data, size_t size);
  std::vector<uint8_t> payload_;
};

class MessageReader {
 public:
  explicit MessageReader(const std::vector<uint8_t>& payload) : payload_(payload) {}
  uint32_t u32();
  int64_t i64();
  double f64();
  bool boolean() { return u32() != 0; }
  std::vector<uint8_t> bytes();
  std::string string();
  // False once any read ran past the end of the payload (every later read returns zeros).
  bool ok() const { return ok_; }
  bool atEnd() const { return at_ == payload_.size(); }

 private:
  bool take(void* out, size_t size);
  const std::vector<uint8_t>& payload_;
  size_t at_ = 0;
  bool ok_ = true;
};

// Writes one message; "" on success, else why (the peer is gone: EPIPE, never SIGPIPE).
std::string sendMessage(int fd, MessageType type, const std::vector<uint8_t>& payload);

// Reads one message. `timeoutMs` < 0 waits forever. While waiting, `drainFd` (if >= 0) is read whenever it has
// data and appended to `drained` (the worker's captured stdout, so a chatty worker never blocks on a full pipe).
enum class ReceiveStatus { Ok, Closed, TimedOut, Malformed };
ReceiveStatus receiveMessage(int fd, int64_t timeoutMs, MessageType* type, std::vector<uint8_t>* payload,
                             int drainFd = -1, std::string* drained = nullptr);

// Reads what `fd` (non-blocking) holds now into `out`, at most `limit` bytes kept (the rest read and dropped).
// Returns false once the other end is closed.
bool drainAvailable(int fd, std::string* out, size_t limit = 1 << 16);

}  // namespace tilesim::gpu

// GpuWorker (GpuWorker.h): the messages' fields, the child's request loop, and the parent's side — spawning,
// requests with a deadline, and telling how a worker died.
#include "gpu_backend/runtime/GpuWorker.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <type_traits>

namespace tilesim::gpu {
namespace {

// Every worker is forked under this lock, so one engine's new sockets never leak into another's worker.
std::mutex spawnMutex;

// In the child: closes every descriptor from `first` up (what the parent had open is not the worker's).
void closeDescriptorsFrom(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
#endif
  if (DIR* directory = ::opendir("/proc/self/fd")) {
    std::vector<int> open;
    while (dirent* entry = ::readdir(directory)) {
      const int fd = std::atoi(entry->d_name);
      if (fd >= first && fd != ::dirfd(directory)) open.push_back(fd);
    }
    ::closedir(directory);
    for (int fd : open) ::close(fd);
  }
}

// The fixed-field messages list their fields once, in wire order (fieldsOf: one call of `io` per field);
// FieldWriter writes them and FieldReader reads them back, so the two sides cannot drift apart.
struct FieldWriter {
  MessageWriter& out;
  void operator()(bool value) { out.boolean(value); }
  void operator()(const std::string& value) { out.string(value); }
  void operator()(int value) { out.i64(value); }
  void operator()(double value) { out.f64(value); }
};
struct FieldReader {
  MessageReader& in;
  void operator()(bool& value) { value = in.boolean(); }
  void operator()(std::string& value) { value = in.string(); }
  void operator()(int& value) { value = static_cast<int>(in.i64()); }
  void operator()(double& value) { value = in.f64(); }
};

template <typename T, typename Message>
concept MessageOf = std::is_same_v<std::remove_const_t<T>, Message>;

template <typename Io, MessageOf<WorkerHello> Hello>
void fieldsOf(Io& io, Hello& hello) {
  io(hello.ok), io(hello.whyNot), io(hello.deviceName), io(hello.computeCapability), io(hello.driverVersion);
}
template <typename Io, MessageOf<KernelImage> Image>
void fieldsOf(Io& io, Image& image) {
  io(image.key), io(image.name), io(image.threads), io(image.sharedBytes), io(image.ptx);
}
template <typename Io, MessageOf<LoadReply> Reply>
void fieldsOf(Io& io, Reply& reply) {
  io(reply.found), io(reply.error), io(reply.source), io(reply.name), io(reply.threads), io(reply.sharedBytes);
  io(reply.loadMs);
}

template <typename Message>
void write(MessageWriter& out, const Message& message) {
  FieldWriter io{out};
  fieldsOf(io, message);
}
template <typename Message>
void read(MessageReader& in, Message& message) {
  FieldReader io{in};
  fieldsOf(io, message);
}

void write(MessageWriter& out, const WorkerLaunch& launch) {
  out.string(launch.key);
  for (int64_t extent : launch.grid) out.i64(extent);
  out.i64(static_cast<int64_t>(launch.storages.size()));
  for (const auto& storage : launch.storages) out.bytes(storage.data(), storage.size());
  out.i64(static_cast<int64_t>(launch.parameters.size()));
  for (const WorkerParameter& parameter : launch.parameters) {
    out.boolean(parameter.isBuffer);
    out.i64(static_cast<int64_t>(parameter.storage));
    out.i64(static_cast<int64_t>(parameter.offset));
    out.bytes(parameter.bytes.data(), parameter.bytes.size());
  }
  out.i64(launch.timingWarmup);
  out.i64(launch.timingIterations);
}
void read(MessageReader& in, WorkerLaunch& launch) {
  launch.key = in.string();
  for (int64_t& extent : launch.grid) extent = in.i64();
  const int64_t storages = in.i64();
  for (int64_t i = 0; i < storages && in.ok(); ++i) launch.storages.push_back(in.bytes());
  const int64_t parameters = in.i64();
  for (int64_t i = 0; i < parameters && in.ok(); ++i) {
    WorkerParameter parameter;
    parameter.isBuffer = in.boolean();
    parameter.storage = static_cast<uint64_t>(in.i64());
    parameter.offset = static_cast<uint64_t>(in.i64());
    parameter.bytes = in.bytes();
    launch.parameters.push_back(std::move(parameter));
  }
  launch.timingWarmup = static_cast<int>(in.i64());
  launch.timingIterations = static_cast<int>(in.i64());
}

void write(MessageWriter& out, const WorkerResult& result) {
  out.string(result.error);
  out.boolean(result.sticky);
  out.i64(static_cast<int64_t>(result.storages.size()));
  for (const auto& storage : result.storages) out.bytes(storage.data(), storage.size());
  out.i64(static_cast<int64_t>(result.launchMs.size()));
  for (float ms : result.launchMs) out.f64(ms);
  out.i64(result.registers);
}
void read(MessageReader& in, WorkerResult& result) {
  result.error = in.string();
  result.sticky = in.boolean();
  const int64_t storages = in.i64();
  for (int64_t i = 0; i < storages && in.ok(); ++i) result.storages.push_back(in.bytes());
  const int64_t times = in.i64();
  for (int64_t i = 0; i < times && in.ok(); ++i) result.launchMs.push_back(static_cast<float>(in.f64()));
  result.registers = static_cast<int>(in.i64());
}

template <typename T>
std::vector<uint8_t> encode(const T& value) {
  MessageWriter out;
  write(out, value);
  return std::move(out.payload());
}

template <typename T>
bool decode(const std::vector<uint8_t>& payload, T& value) {
  MessageReader in(payload);
  read(in, value);
  return in.ok() && in.atEnd();
}

}  // namespace

int serveWorker(int fd, WorkerDevice& device) {
  const WorkerHello hello = device.open();
  if (!sendMessage(fd, MessageType::Hello, encode(hello)).empty() || !hello.ok) return hello.ok ? 1 : 0;
  while (true) {
    MessageType type{};
    std::vector<uint8_t> payload;
    if (receiveMessage(fd, -1, &type, &payload) != ReceiveStatus::Ok) return 0;  // the parent is gone
    switch (type) {
      case MessageType::Load: {
        KernelImage image;
        LoadReply reply;
        if (decode(payload, image)) reply = device.load(image);
        else reply.error = "the GPU worker received a malformed load request";
        std::fflush(stdout);  // what the device printed goes to the parent before the reply
        if (!sendMessage(fd, MessageType::Load, encode(reply)).empty()) return 1;
        break;
      }
      case MessageType::Launch: {
        WorkerLaunch launch;
        WorkerResult result;
        if (decode(payload, launch)) result = device.run(launch);
        else result.error = "the GPU worker received a malformed launch request";
        std::fflush(stdout);  // the GPU's printf (tt.assert's message): fully buffered into a pipe, and _exit
                              // would drop it
        if (!sendMessage(fd, MessageType::Launch, encode(result)).empty()) return 1;
        if (result.sticky) return 0;  // the context is unusable: this process is done
        break;
      }
      case MessageType::Quit: return 0;
      case MessageType::Hello: return 1;
    }
  }
}

double workerTimeoutFromEnvironment() {
  if (const char* text = std::getenv("TILESIM_GPU_TIMEOUT"); text && *text) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end && *end == '\0' && std::isfinite(seconds) && seconds >= 0) return seconds;
  }
  return 120;
}

WorkerClient::WorkerClient(DeviceFactory factory, double timeoutSeconds)
    : factory_(std::move(factory)), timeoutSeconds_(timeoutSeconds) {}

WorkerClient::~WorkerClient() {
  if (pid_ > 0) sendMessage(socket_, MessageType::Quit, {});
  stop(false);
}

WorkerHello WorkerClient::start(WorkerDeath* death) {
  *death = {};
  if (pid_ > 0) return hello_;
  std::unique_lock<std::mutex> lock(spawnMutex);
  // The child is a copy of this process: anything buffered in stdio would be written twice.
  std::fflush(stdout);
  std::fflush(stderr);
  int sockets[2], output[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    *death = {true, false, std::string("cannot create the GPU worker's socket: ") + std::strerror(errno)};
    return {};
  }
  if (::pipe2(output, O_CLOEXEC) != 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    *death = {true, false, std::string("cannot create the GPU worker's output pipe: ") + std::strerror(errno)};
    return {};
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    for (int fd : {sockets[0], sockets[1], output[0], output[1]}) ::close(fd);
    *death = {true, false, std::string("cannot start the GPU worker (fork): ") + std::strerror(errno)};
    return {};
  }
  if (child == 0) {
    // The worker. Die with the parent; default signal actions (a crash is reported by the parent, not by a
    // handler inherited from it); the GPU's printf goes to the parent through fd 1.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGPIPE}) ::signal(signal, SIG_DFL);
    ::dup2(output[1], STDOUT_FILENO);
    constexpr int kSocket = 3;
    if (sockets[1] != kSocket) ::dup2(sockets[1], kSocket);
    closeDescriptorsFrom(kSocket + 1);
    int status = 1;
    {
      std::unique_ptr<WorkerDevice> device = factory_();
      status = serveWorker(kSocket, *device);
    }
    ::_exit(status);  // never exit(): no atexit handlers or stdio flushes of the parent's state
  }
  ::close(sockets[1]);
  ::close(output[1]);
  lock.unlock();
  ::fcntl(output[0], F_SETFL, ::fcntl(output[0], F_GETFL) | O_NONBLOCK);
  pid_ = child;
  socket_ = sockets[0];
  outputFd_ = output[0];
  ++generation_;
  output_.clear();
  std::vector<uint8_t> payload;
  MessageType type{};
  const int64_t timeoutMs = timeoutSeconds_ > 0 ? static_cast<int64_t>(timeoutSeconds_ * 1000) : -1;
  const ReceiveStatus status = receiveMessage(socket_, timeoutMs, &type, &payload, outputFd_, &output_);
  hello_ = {};
  if (status != ReceiveStatus::Ok || type != MessageType::Hello || !decode(payload, hello_)) {
    const bool answered = status == ReceiveStatus::Ok || status == ReceiveStatus::Malformed;
    const bool timedOut = status == ReceiveStatus::TimedOut;
    *death = {true, timedOut, (timedOut ? "the GPU worker did not start in time; " : "") + reap(timedOut || answered)};
    hello_ = {};
    return {};
  }
  if (!hello_.ok) {
    WorkerHello refused = hello_;
    stop(false);
    return refused;
  }
  return hello_;
}

bool WorkerClient::exchange(MessageType type, const std::vector<uint8_t>& request, std::vector<uint8_t>* reply,
                            WorkerDeath* death) {
  *death = {};
  output_.clear();
  if (pid_ <= 0) {
    WorkerHello hello = start(death);
    if (death->died) return false;
    if (!hello.ok) {
      *death = {true, false, "the GPU worker cannot use the GPU: " + hello.whyNot};
      return false;
    }
  }
  if (!sendMessage(socket_, type, request).empty()) {
    *death = {true, false, reap(false)};
    return false;
  }
  MessageType replyType{};
  const int64_t timeoutMs = timeoutSeconds_ > 0 ? static_cast<int64_t>(timeoutSeconds_ * 1000) : -1;
  const ReceiveStatus status = receiveMessage(socket_, timeoutMs, &replyType, reply, outputFd_, &output_);
  if (status == ReceiveStatus::Ok && replyType == type) {
    drainAvailable(outputFd_, &output_);  // the worker flushed its output before replying
    return true;
  }
  const bool timedOut = status == ReceiveStatus::TimedOut;
  const bool malformed = status == ReceiveStatus::Malformed || status == ReceiveStatus::Ok;
  std::string reason = reap(timedOut || malformed);
  if (timedOut)
    reason = fmt::format("it did not finish within {:g} s (TILESIM_GPU_TIMEOUT or --gpu-timeout); {}", timeoutSeconds_,
                         reason);
  else if (malformed)
    reason = "the GPU worker sent a malformed reply; " + reason;
  *death = {true, timedOut, reason};
  return false;
}

template <typename Reply>
bool WorkerClient::exchangeDecoded(MessageType type, const std::vector<uint8_t>& request, const char* what,
                                   Reply* reply, WorkerDeath* death) {
  std::vector<uint8_t> payload;
  if (!exchange(type, request, &payload, death)) return false;
  if (decode(payload, *reply)) return true;
  *death = {true, false, std::string("the GPU worker sent a malformed ") + what + " reply; " + reap(true)};
  *reply = {};
  return false;
}

LoadReply WorkerClient::load(const KernelImage& image, WorkerDeath* death) {
  LoadReply reply;
  exchangeDecoded(MessageType::Load, encode(image), "load", &reply, death);
  return reply;
}

WorkerResult WorkerClient::launch(const WorkerLaunch& launch, WorkerDeath* death) {
  WorkerResult result;
  if (exchangeDecoded(MessageType::Launch, encode(launch), "launch", &result, death) && result.sticky)
    reap(false);  // it exits by itself after a sticky error
  return result;
}

void WorkerClient::stop(bool kill) {
  if (pid_ > 0) reap(kill);
}

// Closes the worker's ends, waits for it and says how it ended. `kill`: stop it first (SIGKILL); otherwise it
// is given 10 s to finish exiting (a CUDA context's teardown after a fault takes a moment), then killed.
std::string WorkerClient::reap(bool kill) {
  if (pid_ <= 0) return "the GPU worker is not running";
  const pid_t pid = pid_;
  if (kill) ::kill(pid, SIGKILL);
  if (socket_ >= 0) ::close(socket_);
  socket_ = -1;
  int status = 0;
  pid_t waited = 0;
  bool forced = kill;
  for (int tick = 0;; ++tick) {
    waited = ::waitpid(pid, &status, WNOHANG);
    if (waited < 0 && errno == EINTR) continue;
    if (waited != 0) break;
    if (outputFd_ >= 0) drainAvailable(outputFd_, &output_);
    if (tick == 1000 && !forced) {  // 10 s
      ::kill(pid, SIGKILL);
      forced = true;
    }
    ::usleep(10000);
  }
  if (outputFd_ >= 0) {
    drainAvailable(outputFd_, &output_);
    ::close(outputFd_);
  }
  outputFd_ = -1;
  pid_ = -1;
  if (kill) return fmt::format("the GPU worker (pid {}) was stopped", pid);
  if (waited != pid) return fmt::format("the GPU worker (pid {}) is gone", pid);
  if (WIFSIGNALED(status))
    return fmt::format("the GPU worker (pid {}) was killed by signal {} ({}){}", pid, WTERMSIG(status),
                       ::strsignal(WTERMSIG(status)), forced ? " after it did not exit" : "");
  return fmt::format("the GPU worker (pid {}) exited with status {}", pid, WEXITSTATUS(status));
}

}  // namespace tilesim::gpu

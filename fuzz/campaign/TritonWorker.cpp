// The real-Triton worker process (TritonWorker.h): finding a Python and the script, starting the process with
// posix_spawn, the request/answer protocol with deadlines, and restarting after a crash or a time out.
#include "fuzz/campaign/TritonWorker.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

extern char** environ;

namespace tilesim::fuzz {
namespace {

namespace fs = std::filesystem;

bool isExecutableFile(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// Every directory above the executable (a build tree inside a checkout, or a checkout copied to another machine
// with the binary in it), then the source tree this tilesim was built from. The executable's own tree comes
// first: a binary carried elsewhere, or a checkout that moved on, must not run another version's worker.
std::vector<fs::path> projectRoots() {
  std::vector<fs::path> roots;
  std::error_code ec;
  fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path dir = executable.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      roots.push_back(dir);
#ifdef TILESIM_SOURCE_DIR
  roots.emplace_back(TILESIM_SOURCE_DIR);
#endif
  return roots;
}

constexpr const char* kNothingPrinted = "(it printed nothing)";

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::vector<std::string> tritonPythonCandidates(std::string& error) {
  if (const char* chosen = std::getenv("TILESIM_PYTHON")) {
    if (!isExecutableFile(chosen)) {
      error = std::string("TILESIM_PYTHON='") + chosen + "': not an executable file";
      return {};
    }
    return {chosen};
  }
  std::vector<std::string> candidates;
  for (const fs::path& root : projectRoots())
    for (const char* venv : {".venv", ".venv-peer"}) {
      std::string python = (root / venv / "bin" / "python").string();
      if (isExecutableFile(python) && std::find(candidates.begin(), candidates.end(), python) == candidates.end())
        candidates.push_back(python);
    }
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    for (size_t start = 0; start <= all.size();) {
      size_t end = all.find(':', start);
      if (end == std::string::npos) end = all.size();
      std::string python = (fs::path(all.substr(start, end - start)) / "python3").string();
      if (end > start && isExecutableFile(python)) {
        candidates.push_back(python);
        break;
      }
      start = end + 1;
    }
  }
  return candidates;
}

std::string findTritonWorkerScript() {
  for (const fs::path& root : projectRoots()) {
    fs::path script = root / "conformance" / "triton" / "triton_worker.py";
    std::error_code ec;
    if (fs::is_regular_file(script, ec)) return script.string();
  }
  return "";
}

TritonWorker::TritonWorker(std::string python, std::string script, double timeoutSeconds, std::string launcher)
    : python_(std::move(python)), script_(std::move(script)), launcher_(std::move(launcher)),
      timeoutSeconds_(timeoutSeconds) {}

TritonWorker::~TritonWorker() { stop(false); }

std::string TritonWorker::start() {
  int status = 0;
  if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {  // it exited after its last answer (a CUDA error)
    pid_ = -1;
    stop(false);
  }
  if (pid_ > 0) return "";
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    return std::string("socketpair: ") + std::strerror(errno);
  std::error_code ec;
  std::string logPath = (fs::temp_directory_path(ec) / "tilesim-triton-worker-XXXXXX").string();
  if (ec) logPath = "/tmp/tilesim-triton-worker-XXXXXX";
  log_ = ::mkostemp(logPath.data(), O_CLOEXEC | O_APPEND);
  if (log_ >= 0) ::unlink(logPath.c_str());  // open and nameless: gone with the last descriptor
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 0);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 1);
  if (log_ >= 0) posix_spawn_file_actions_adddup2(&actions, log_, 2);
  std::vector<std::string> argv = {python_, script_};
  if (!launcher_.empty()) argv.insert(argv.end(), {"--launcher", launcher_});
  std::vector<char*> arguments;
  for (std::string& argument : argv) arguments.push_back(argument.data());
  arguments.push_back(nullptr);
  const int spawned = ::posix_spawn(&pid_, python_.c_str(), &actions, nullptr, arguments.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(sockets[1]);
  socket_ = sockets[0];
  if (spawned != 0) {
    pid_ = -1;
    stop(false);
    return "cannot run " + python_ + ": " + std::strerror(spawned);
  }
  if (started_++ > 0) ++restarts_;
  pending_.clear();
  std::string line;
  bool timedOut = false;
  // Importing triton takes about 0.4 s; a cold disk cache on a loaded machine much longer.
  if (!receive(line, -1, now() + std::max(60.0, timeoutSeconds_), timedOut)) {
    std::string why = timedOut ? "did not start in time" : "exited at start-up: " + logText(2000);
    stop(true);
    return python_ + " " + script_ + ": " + why;
  }
  if (line.rfind("ready ", 0) == 0) {
    version_ = line.substr(6);
    return "";
  }
  stop(true);
  return line.rfind("unavailable ", 0) == 0 ? line.substr(12) : "unexpected start-up line from the worker: " + line;
}

void TritonWorker::stop(bool kill) {
  if (socket_ >= 0) ::close(socket_);  // the worker reads end of file and exits
  socket_ = -1;
  if (pid_ > 0) {
    if (kill) ::kill(pid_, SIGKILL);
    int status = 0;
    for (int tries = 0; ::waitpid(pid_, &status, WNOHANG) == 0; ++tries) {
      if (tries == 100) ::kill(pid_, SIGKILL);  // 1 s after the socket closed
      ::usleep(10000);
    }
  }
  pid_ = -1;
  if (log_ >= 0) ::close(log_);
  log_ = -1;
}

bool TritonWorker::receive(std::string& out, long size, double deadline, bool& timedOut) {
  timedOut = false;
  for (;;) {
    if (size < 0) {
      if (size_t newline = pending_.find('\n'); newline != std::string::npos) {
        out = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        return true;
      }
    } else if (pending_.size() >= static_cast<size_t>(size)) {
      out = pending_.substr(0, static_cast<size_t>(size));
      pending_.erase(0, static_cast<size_t>(size));
      return true;
    }
    const double left = deadline - now();
    if (left <= 0) {
      timedOut = true;
      return false;
    }
    pollfd ready{socket_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min(left, 1e6) * 1000) + 1);
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) continue;  // the deadline decides
    char buffer[65536];
    const ssize_t n = ::read(socket_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    pending_.append(buffer, static_cast<size_t>(n));
  }
}

std::string TritonWorker::logText(size_t limit) {
  if (log_ < 0) return "(no log)";
  const off_t end = ::lseek(log_, 0, SEEK_END);
  auto read = [&](off_t from, size_t size) {
    std::string text(size, '\0');
    const ssize_t n = ::pread(log_, text.data(), size, from);
    text.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return text;
  };
  std::string text = end <= static_cast<off_t>(limit)
                         ? read(0, static_cast<size_t>(std::max<off_t>(end, 0)))
                         : read(0, limit / 2) + "\n[...]\n" + read(end - static_cast<off_t>(limit / 2), limit / 2);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? std::string(kNothingPrinted) : text;
}

TritonAnswer TritonWorker::compile(const std::string& ttir, int numWarps) {
  return request("compile " + std::to_string(numWarps) + " " + std::to_string(ttir.size()) + "\n" + ttir);
}

TritonAnswer TritonWorker::launch(const std::string& caseDir, const std::string& outDir, const std::string& tilesim) {
  nlohmann::json body = {{"case", caseDir}, {"out", outDir}, {"tilesim", tilesim}};
  const std::string json = body.dump();
  TritonAnswer answer = request("launch " + std::to_string(json.size()) + "\n" + json);
  if (answer.kind == TritonAnswer::Kind::LaunchError) stop(false);  // a CUDA context may be unusable: a new worker
  return answer;
}

TritonAnswer TritonWorker::request(const std::string& request) {
  TritonAnswer answer;
  if (std::string error = start(); !error.empty()) {
    answer.diagnostic = error;
    return answer;
  }
  if (::ftruncate(log_, 0) != 0) {
    // Not fatal: an old crash's text may then precede this one's.
  }
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(socket_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  const double deadline = now() + timeoutSeconds_;
  std::string header, first, second;
  bool timedOut = false;
  long firstSize = -1, secondSize = -1;
  char status[32] = {};
  bool whole = receive(header, -1, deadline, timedOut) &&
               std::sscanf(header.c_str(), "%31s %ld %ld", status, &firstSize, &secondSize) == 3 && firstSize >= 0 &&
               secondSize >= 0 && receive(first, firstSize, deadline, timedOut) &&
               receive(second, secondSize, deadline, timedOut);
  if (!whole) {
    if (timedOut) {
      answer.kind = TritonAnswer::Kind::Timeout;
      answer.diagnostic = "no answer from Triton in " + std::to_string(static_cast<int>(timeoutSeconds_)) +
                          " s (the worker was killed)";
      stop(true);
      return answer;
    }
    ::close(socket_);
    socket_ = -1;
    int wait = 0;
    bool reaped = false;
    for (int tries = 0; tries < 200 && !reaped; ++tries) {
      reaped = ::waitpid(pid_, &wait, WNOHANG) == pid_;
      if (!reaped) ::usleep(10000);
    }
    std::string how = !reaped               ? "it closed its output and did not exit"
                      : WIFSIGNALED(wait)   ? "signal " + std::to_string(WTERMSIG(wait)) + ", " + strsignal(WTERMSIG(wait))
                                            : "exit " + std::to_string(WEXITSTATUS(wait));
    answer.kind = TritonAnswer::Kind::Crash;
    answer.diagnostic = "Triton crashed the worker (" + how + "): " + logText();
    if (reaped) pid_ = -1;
    stop(true);
    return answer;
  }
  const std::string kind = status;
  // MLIR's errors (and what Python printed) are in the log; the answer has the exception.
  // What the worker printed goes with the answer's diagnostic: before it (Triton's MLIR diagnostics explain a
  // failed pass), but after a launch error's exception, which is the cause; nothing when it printed nothing.
  const std::string log = logText();
  const bool printed = log != kNothingPrinted;
  if (kind == "ttgir-pass" && printed) second = log + "\n" + second;
  else if (kind == "launch-error" && printed) first = first + "\n" + log;
  else if (kind != "ok" && kind != "launched" && kind != "ttgir-pass" && printed) first = log + "\n" + first;
  if (kind == "ok") {
    answer.kind = TritonAnswer::Kind::Ok;
    answer.ttir = std::move(first);
    answer.ttgir = std::move(second);
  } else if (kind == "parse" || kind == "ttir-pass") {
    answer.kind = kind == "parse" ? TritonAnswer::Kind::ParseError : TritonAnswer::Kind::TtirPass;
    answer.diagnostic = std::move(first);
  } else if (kind == "launched") {
    answer.kind = TritonAnswer::Kind::Launched;
  } else if (kind == "compile-error" || kind == "launch-error") {
    answer.kind = kind == "compile-error" ? TritonAnswer::Kind::CompileError : TritonAnswer::Kind::LaunchError;
    answer.diagnostic = std::move(first);
  } else if (kind == "ttgir-pass") {
    answer.kind = TritonAnswer::Kind::TtgirPass;
    answer.ttir = std::move(first);
    answer.diagnostic = std::move(second);
  } else {
    answer.kind = TritonAnswer::Kind::Crash;
    answer.diagnostic = "the worker answered '" + kind + "'";
    stop(true);
  }
  return answer;
}

}  // namespace tilesim::fuzz

// The tilesim side of the real-Triton worker (`tilesim fuzz --engine triton`, docs/fuzzing.md): a long-lived
// Python process (conformance/triton/triton_worker.py, one per campaign job) that puts a TTIR module through
// Triton 3.6's passes on the CPU. The protocol is the script's docstring: a `ready`/`unavailable` line at start-up,
// then per program `compile NUM_WARPS NBYTES\n` + the TTIR, answered by `STATUS LEN1 LEN2\n` + two payloads.
//
// The worker is a separate process because Triton's compiler aborts on some inputs (LLVM assertions: findings
// T1, T4): a crash costs one program and a restart (about 0.4 s), never the campaign. A request that gets no
// answer within the timeout kills the worker the same way. Its stdin and stdout are one socket (send with
// MSG_NOSIGNAL: a dead worker is an answer, not a SIGPIPE); its stderr is a file tilesim owns, read back after
// a crash for what Triton printed before it died.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace tilesim::fuzz {

// The Pythons to try, in order: $TILESIM_PYTHON when set (then only it), else the project's virtual
// environments (.venv of tools/setup, .venv-peer of tools/python/scripts/peer_venv.sh) in the source tree this
// tilesim was built from and in the directories above the executable, else python3 on PATH. `error` is set (and
// the list empty) when TILESIM_PYTHON names something that is not an executable file.
std::vector<std::string> tritonPythonCandidates(std::string& error);

// conformance/triton/triton_worker.py of the source tree, or of a directory above the executable; "" if none.
std::string findTritonWorkerScript();

struct TritonAnswer {
  enum class Kind {
    Ok,            // ttir: the optimised TTIR; ttgir: the TTGIR after make_ttgir
    ParseError,    // Triton's parser rejected the TTIR (diagnostic)
    TtirPass,      // a TTIR pass failed (diagnostic)
    TtgirPass,     // the TTIR passes ran (ttir), make_ttgir failed (diagnostic)
    Crash,         // the worker died (diagnostic: the signal and the tail of what it printed)
    Timeout,       // no answer within the timeout (the worker was killed)
    Unavailable,   // no worker could be started (diagnostic: why)
    Launched,      // launch: the kernel ran; its buffers are in the request's OUT directory
    CompileError,  // launch: triton.compile failed (diagnostic)
    LaunchError,   // launch: the launch failed (diagnostic; after a CUDA error the worker is restarted)
  };
  Kind kind = Kind::Unavailable;
  std::string ttir, ttgir, diagnostic;
};

class TritonWorker {
 public:
  // `launcher`: "" (compile requests only), "cuda" or "tilesim" (launch requests: triton_worker_gpu.py).
  TritonWorker(std::string python, std::string script, double timeoutSeconds, std::string launcher = "");
  ~TritonWorker();
  TritonWorker(const TritonWorker&) = delete;
  TritonWorker& operator=(const TritonWorker&) = delete;

  // Starts the worker when none runs; "" when it is ready, else why not (`unavailable ...`, no such Python).
  std::string start();
  // "triton 3.6.0" once started.
  const std::string& version() const { return version_; }
  // Workers started after the first (each one a crash or a timeout).
  int restarts() const { return restarts_; }

  TritonAnswer compile(const std::string& ttir, int numWarps);
  // Compiles and launches the case in `caseDir` (JSON request, see triton_worker_gpu.py), outputs to `outDir`.
  TritonAnswer launch(const std::string& caseDir, const std::string& outDir, const std::string& tilesim);

 private:
  TritonAnswer request(const std::string& message);
  void stop(bool kill);
  // Reads exactly `size` bytes or one line (size < 0) before the deadline; false on end of file or time out.
  bool receive(std::string& out, long size, double deadline, bool& timedOut);
  // What the worker printed on stderr since the last request: all of it up to `limit` bytes, else its head and
  // its tail (MLIR's errors come first, an abort's assertion last).
  std::string logText(size_t limit = 16384);

  std::string python_, script_, launcher_, version_;
  double timeoutSeconds_;
  pid_t pid_ = -1;
  int socket_ = -1;  // the worker's stdin and stdout
  int log_ = -1;     // the worker's stderr (an unlinked temporary file)
  int started_ = 0, restarts_ = 0;
  std::string pending_;  // bytes received past the last message
};

}  // namespace tilesim::fuzz

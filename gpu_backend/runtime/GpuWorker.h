// The GPU worker: a child process that makes every CUDA call of the GPU engine, so that a fault in a user's
// kernel (an illegal address, a trap from tt.assert: errors after which CUDA calls the context unusable, and on
// the H200 the process too — the primary context cannot even be retained again) kills only the child. The
// parent (GpuEngine.cpp) compiles TTIR -> PTX, sends the kernel and the launch, and receives the buffers.
//
//   parent (GpuEngine)                                   worker (serveWorker, a WorkerDevice)
//   spawn: fork; the child redirects its stdout (the GPU's printf) into a pipe the parent reads
//                                        <-- Hello      {ok, why not, device name, compute capability, driver}
//   Load   {key, name, threads, shared, PTX or ""}  -->   module cache (memory), disk cache (KernelCache),
//                                        <-- LoadReply  {found, error, source, load ms}   PTX -> cubin, load
//   Launch {key, grid, storages' bytes, parameters, timing}  -->  allocate, copy in, launch, synchronize,
//                                        <-- Result     {error, sticky, storages' bytes, launch ms, registers}
//
// The worker is forked before it makes any CUDA call and the parent never makes one (it never loads libcuda),
// so the child's context is fresh. When the worker dies (a signal, an exit), stops answering within the timeout
// (a runaway kernel: the parent kills it, SIGKILL), or reports a sticky CUDA error (it then exits by itself),
// the request returns `died` with the reason, and the next request starts a new worker (`generation()` counts
// them; modules loaded into an older one are gone). The worker dies with its parent (PR_SET_PDEATHSIG) and
// when the socket closes.
//
// WorkerDevice is what the child does with the GPU: CudaWorkerDevice (the CUDA driver) in the engine, fakes in
// the tests (gpu_backend/tests/GpuWorkerTest.cpp), which exercise the whole protocol without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

#include "gpu_backend/runtime/WorkerProtocol.h"

namespace tilesim::gpu {

struct WorkerHello {
  bool ok = false;
  std::string whyNot;  // when !ok: one sentence (no libcuda, no GPU)
  std::string deviceName;
  int computeCapability = 0;
  int driverVersion = 0;
};

struct KernelImage {
  std::string key;   // KernelCache key: everything that determines the code
  std::string name;  // the entry point
  int threads = 0;
  int sharedBytes = 0;
  std::string ptx;   // empty: load from the worker's caches only (LoadReply::found false on a miss)
};

struct LoadReply {
  bool found = false;   // loaded (from memory, disk, or the PTX sent)
  std::string error;    // PTX that does not compile or load
  std::string source;   // "memory-cache", "disk-cache" or "compiled"
  std::string name;     // of the loaded kernel (from the disk entry when the PTX was not sent)
  int threads = 0;
  int sharedBytes = 0;
  double loadMs = 0;
};

struct WorkerParameter {
  bool isBuffer = false;
  uint64_t storage = 0;  // buffer: index into WorkerLaunch::storages
  uint64_t offset = 0;   // buffer: byte offset into it
  std::vector<uint8_t> bytes;  // scalar: its bits, as the parameter's type
};

struct WorkerLaunch {
  std::string key;  // of a kernel loaded into this worker
  std::array<int64_t, 3> grid{1, 1, 1};
  std::vector<std::vector<uint8_t>> storages;  // one device buffer each, copied in and back
  std::vector<WorkerParameter> parameters;
  int timingWarmup = 0;
  int timingIterations = 0;  // 0: no timing
};

struct WorkerResult {
  std::string error;    // empty on success
  bool sticky = false;  // the CUDA context is broken: the worker exits after this reply
  std::vector<std::vector<uint8_t>> storages;  // after the launch
  std::vector<float> launchMs;
  int registers = -1;
};

class WorkerDevice {
 public:
  virtual ~WorkerDevice() = default;
  virtual WorkerHello open() = 0;
  virtual LoadReply load(const KernelImage& image) = 0;
  virtual WorkerResult run(WorkerLaunch& launch) = 0;
};

// The real device: the CUDA driver (dlopen'd in the child), the module cache and the disk cache.
std::unique_ptr<WorkerDevice> createCudaWorkerDevice();

// The child's loop: Hello, then one reply per request until Quit, a closed socket, or a sticky error. Returns
// the exit status.
int serveWorker(int fd, WorkerDevice& device);

// How a request ended when the worker did not answer it.
struct WorkerDeath {
  bool died = false;
  bool timedOut = false;
  std::string reason;  // "the GPU worker (pid 123) was killed by signal 11 (Segmentation fault)"
};

class WorkerClient {
 public:
  using DeviceFactory = std::function<std::unique_ptr<WorkerDevice>()>;
  // `timeoutSeconds` bounds each request (<= 0: no limit).
  WorkerClient(DeviceFactory factory, double timeoutSeconds);
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Starts a worker if none is running and returns its hello (the last one's, if one is running).
  WorkerHello start(WorkerDeath* death);
  LoadReply load(const KernelImage& image, WorkerDeath* death);
  WorkerResult launch(const WorkerLaunch& launch, WorkerDeath* death);

  int generation() const { return generation_; }  // workers started so far
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  double timeoutSeconds() const { return timeoutSeconds_; }
  // What the worker wrote to its stdout (the GPU's printf) during the last request, at most 64 KiB.
  const std::string& lastOutput() const { return output_; }

 private:
  // Sends a request and waits for the reply; on a death, stops and reaps the worker and says why.
  bool exchange(MessageType type, const std::vector<uint8_t>& request, std::vector<uint8_t>* reply, WorkerDeath* death);
  // exchange, then decode the reply into `reply`; a malformed one (`what` names it) stops and reaps the worker.
  template <typename Reply>
  bool exchangeDecoded(MessageType type, const std::vector<uint8_t>& request, const char* what, Reply* reply,
                       WorkerDeath* death);
  void stop(bool kill);
  std::string reap(bool kill);

  DeviceFactory factory_;
  double timeoutSeconds_;
  pid_t pid_ = -1;
  int socket_ = -1;
  int outputFd_ = -1;  // the read end of the worker's stdout
  int generation_ = 0;
  WorkerHello hello_;
  std::string output_;
};

// The request timeout the environment asks for: TILESIM_GPU_TIMEOUT seconds (0 = none), else 120.
double workerTimeoutFromEnvironment();

}  // namespace tilesim::gpu

// CudaWorkerDevice: what the GPU worker (GpuWorker.h) does with the GPU — open the CUDA driver, keep loaded
// modules by key (the memory cache) and cubins on disk (KernelCache.h), and run a launch: one device buffer per
// storage, copy in, launch, synchronize, copy back, optionally time more launches on the same buffers with CUDA
// events (as triton.testing.do_bench does). Runs only in the worker process.
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

#include "gpu_backend/runtime/CudaDriver.h"
#include "gpu_backend/runtime/GpuWorker.h"
#include "gpu_backend/runtime/KernelCache.h"
#include "gpu_backend/runtime/PtxasLevel.h"

namespace tilesim::gpu {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct LoadedModule {
  std::string name;
  int threads = 0;
  int sharedBytes = 0;
  void* module = nullptr;
  void* function = nullptr;
};

class CudaWorkerDevice final : public WorkerDevice {
 public:
  CudaWorkerDevice() : diskCache_(KernelCache::fromEnvironment()) {}
  ~CudaWorkerDevice() override {
    if (driver_ && !driver_->broken())
      for (auto& [key, loaded] : modules_) driver_->unloadModule(loaded.module);
  }

  WorkerHello open() override {
    WorkerHello hello;
    driver_ = CudaDriver::open(&hello.whyNot);
    hello.ok = driver_ != nullptr;
    if (!driver_) return hello;
    hello.deviceName = driver_->deviceName();
    hello.computeCapability = driver_->computeCapability();
    hello.driverVersion = driver_->driverVersion();
    return hello;
  }

  LoadReply load(const KernelImage& image) override {
    LoadReply reply;
    if (auto found = modules_.find(image.key); found != modules_.end()) {
      reply.found = true;
      reply.source = "memory-cache";
      reply.name = found->second.name;
      reply.threads = found->second.threads;
      reply.sharedBytes = found->second.sharedBytes;
      return reply;
    }
    const auto start = std::chrono::steady_clock::now();
    LoadedModule loaded;
    if (image.ptx.empty()) {
      std::optional<CachedKernel> cached = diskCache_.find(image.key);
      if (!cached) return reply;  // a miss: the parent compiles and sends the PTX
      loaded = {cached->name, cached->threads, cached->sharedBytes};
      if (!driver_->loadCubin(cached->cubin, cached->name, &loaded.module, &loaded.function).empty()) return reply;
      reply.source = "disk-cache";
    } else {
      loaded = {image.name, image.threads, image.sharedBytes};
      std::string cubin;
      reply.error = compileWithFewestSpills(image.ptx, loaded, cubin);
      if (!reply.error.empty()) return reply;
      diskCache_.store(image.key, {image.name, image.threads, image.sharedBytes, cubin});
      reply.source = "compiled";
    }
    reply.error = driver_->allowSharedBytes(loaded.function, loaded.sharedBytes, loaded.name);
    if (!reply.error.empty()) {
      driver_->unloadModule(loaded.module);
      return reply;
    }
    reply.found = true;
    reply.loadMs = millisecondsSince(start);
    reply.name = loaded.name;
    reply.threads = loaded.threads;
    reply.sharedBytes = loaded.sharedBytes;
    modules_.emplace(image.key, loaded);
    return reply;
  }

  // PTX -> a loaded cubin, at the level TILESIM_PTXAS_LEVEL forces, else by this rule. ptxas at its default level
  // sometimes gives up on a kernel of high register demand and allocates 32 registers with kilobytes of spills
  // where -O1 needs none (the matrix benchmark's matmul_64x256x32_w4 with vectorised b: 32 registers and 4544
  // bytes of spill stores at -O3, 250 registers and none at -O1; `ptxas -v`, CUDA 12, docs/performance.md). So
  // when the default spills, compile again at -O1, and keep -O1 only when it needs at most half the local memory:
  // a small difference is not worth -O1's weaker schedule (attention D 128, 128x128 w8: 88 bytes at the default,
  // 80 at -O1, and 10% slower with -O1 on an H100, docs/performance.md).
  std::string compileWithFewestSpills(const std::string& ptx, LoadedModule& loaded, std::string& cubin) {
    const int forced = ptxasLevelFromEnvironment().value_or(kPtxasLevelAuto);
    std::string error = driver_->compilePtx(ptx, loaded.name, &cubin, forced);
    if (error.empty()) error = driver_->loadCubin(cubin, loaded.name, &loaded.module, &loaded.function);
    if (!error.empty()) return error;
    const int localBytes = driver_->localBytesPerThread(loaded.function);
    if (forced != kPtxasLevelAuto || localBytes <= 0) return "";
    LoadedModule retry{loaded.name, loaded.threads, loaded.sharedBytes};
    std::string retryCubin;
    const bool retried = driver_->compilePtx(ptx, loaded.name, &retryCubin, kSpillRetryLevel).empty() &&
                         driver_->loadCubin(retryCubin, loaded.name, &retry.module, &retry.function).empty();
    const int retryBytes = retried ? driver_->localBytesPerThread(retry.function) : -1;
    if (retryBytes < 0 || 2 * retryBytes > localBytes) {  // keep the default's
      if (retry.module) driver_->unloadModule(retry.module);
      return "";
    }
    driver_->unloadModule(loaded.module);
    loaded = retry;
    cubin = std::move(retryCubin);
    return "";
  }
  static constexpr int kSpillRetryLevel = 1;

  WorkerResult run(WorkerLaunch& launch) override {
    WorkerResult result;
    auto found = modules_.find(launch.key);
    if (found == modules_.end()) {
      result.error = "the GPU worker has no kernel loaded under this key";
      return result;
    }
    const LoadedModule& loaded = found->second;
    std::vector<DevicePointer> buffers(launch.storages.size(), 0);
    std::string& error = result.error;
    for (size_t i = 0; i < buffers.size() && error.empty(); ++i) {
      error = driver_->allocate(launch.storages[i].size(), &buffers[i]);
      if (error.empty())
        error = driver_->copyToDevice(buffers[i], launch.storages[i].data(), launch.storages[i].size(), loaded.name);
    }
    std::vector<std::vector<uint8_t>> parameterBytes;
    for (const WorkerParameter& parameter : launch.parameters) {
      if (!parameter.isBuffer) {
        parameterBytes.push_back(parameter.bytes);
        continue;
      }
      DevicePointer address = parameter.storage < buffers.size() ? buffers[parameter.storage] + parameter.offset : 0;
      std::vector<uint8_t> bytes(sizeof(address));
      std::memcpy(bytes.data(), &address, sizeof(address));
      parameterBytes.push_back(std::move(bytes));
    }
    std::vector<void*> parameters;
    for (auto& bytes : parameterBytes) parameters.push_back(bytes.data());
    if (error.empty())
      error = driver_->launch(loaded.function, loaded.name, launch.grid.data(), loaded.threads, loaded.sharedBytes,
                              parameters);
    for (size_t i = 0; i < buffers.size() && error.empty(); ++i)
      error = driver_->copyToHost(launch.storages[i].data(), buffers[i], launch.storages[i].size(), loaded.name);
    if (error.empty() && launch.timingIterations > 0) error = time(loaded, launch, parameters, result);
    result.sticky = driver_->broken();
    if (!result.sticky)
      for (DevicePointer buffer : buffers)
        if (buffer) driver_->free(buffer);
    if (error.empty()) result.storages = std::move(launch.storages);
    return result;
  }

 private:
  // Warm-up launches, then each timed launch between its own pair of events.
  std::string time(const LoadedModule& loaded, const WorkerLaunch& launch, std::vector<void*>& parameters,
                   WorkerResult& result) {
    result.registers = driver_->registersPerThread(loaded.function);
    auto launchOnce = [&] {
      return driver_->launchAsync(loaded.function, loaded.name, launch.grid.data(), loaded.threads, loaded.sharedBytes,
                                  parameters);
    };
    for (int i = 0; i < launch.timingWarmup; ++i)
      if (std::string error = launchOnce(); !error.empty()) return error;
    if (std::string error = driver_->synchronize(loaded.name); !error.empty()) return error;
    std::vector<void*> events;
    std::string error = driver_->createEvents(2 * launch.timingIterations, &events);
    for (int i = 0; i < launch.timingIterations && error.empty(); ++i) {
      error = driver_->recordEvent(events[2 * i]);
      if (error.empty()) error = launchOnce();
      if (error.empty()) error = driver_->recordEvent(events[2 * i + 1]);
    }
    if (error.empty()) error = driver_->synchronize(loaded.name);
    for (int i = 0; i < launch.timingIterations && error.empty(); ++i) {
      float milliseconds = 0;
      error = driver_->elapsedMilliseconds(events[2 * i], events[2 * i + 1], &milliseconds);
      result.launchMs.push_back(milliseconds);
    }
    if (!driver_->broken()) driver_->destroyEvents(events);
    return error;
  }

  std::unique_ptr<CudaDriver> driver_;
  KernelCache diskCache_;
  std::map<std::string, LoadedModule> modules_;
};

}  // namespace

std::unique_ptr<WorkerDevice> createCudaWorkerDevice() { return std::make_unique<CudaWorkerDevice>(); }

}  // namespace tilesim::gpu

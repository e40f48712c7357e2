// GpuEngine (GpuEngine.h): argument binding, device buffers, the compile caches (memory, disk), the launch, fault
// recovery and the timing loop.
#include "gpu_backend/GpuEngine.h"

#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>

#include "gpu_backend/Pipeline.h"
#include "gpu_backend/runtime/CudaDriver.h"
#include "gpu_backend/runtime/KernelCache.h"
#include "ir/FloatBits.h"
#include "ir/text/Printer.h"

namespace tilesim {
namespace {

using gpu::CudaDriver;
using gpu::DevicePointer;

struct LoadedKernel {
  gpu::CompiledKernel compiled;  // ptx is empty when the cubin came from the disk cache
  void* module = nullptr;
  void* function = nullptr;
};

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

class GpuEngine final : public Engine {
 public:
  explicit GpuEngine(std::unique_ptr<CudaDriver> driver)
      : driver_(std::move(driver)), diskCache_(gpu::KernelCache::fromEnvironment()) {
    sm_ = driver_->computeCapability() == 90 ? "sm_90a" : "sm_" + std::to_string(driver_->computeCapability());
  }
  ~GpuEngine() override {
    for (auto& [key, kernel] : cache_) driver_->unloadModule(kernel.module);
  }

  const char* name() const override { return "gpu"; }
  std::string description() const override { return "gpu: " + driver_->deviceName() + " (" + sm_ + ")"; }
  LaunchOutcome run(Launch& launch, const LaunchOptions& options) override { return runLaunch(launch, options, nullptr, nullptr); }
  LaunchOutcome runLaunch(Launch& launch, const LaunchOptions& options, const GpuTimingRequest* request, GpuTiming* timing);

 private:
  const LoadedKernel* compile(const Launch& launch, const LaunchOptions& options, Diagnostics& diagnostics, GpuTiming* timing);
  std::string timeLaunches(const LoadedKernel& loaded, const GpuTimingRequest& request, const int64_t grid[3],
                           std::vector<void*>& parameters, GpuTiming* timing);
  // After a fault the driver reset the context: every loaded module is gone (unloading them would fail).
  void forgetModulesAfterReset() {
    if (driver_->generation() != generation_) cache_.clear();
    generation_ = driver_->generation();
  }

  std::unique_ptr<CudaDriver> driver_;
  gpu::KernelCache diskCache_;
  std::string sm_;
  std::mutex mutex_;
  std::map<std::string, LoadedKernel> cache_;  // by the disk cache's key
  int generation_ = 0;
};

const LoadedKernel* GpuEngine::compile(const Launch& launch, const LaunchOptions& options, Diagnostics& diagnostics,
                                       GpuTiming* timing) {
  // Everything that determines the code (KernelCache.h); the printed module covers every op, operand and attribute.
  const std::string key = gpu::KernelCache::keyOf(
      fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}", gpu::KernelCache::buildId(), driver_->driverVersion(), sm_,
                  launch.numWarps, floatProfileName(options.profile), launch.kernel->name(),
                  printModule(*launch.module, PrintOptions{.locations = false})));
  if (auto found = cache_.find(key); found != cache_.end()) {
    if (timing) timing->source = "memory-cache";
    return &found->second;
  }
  LoadedKernel loaded;
  std::string error;
  auto start = std::chrono::steady_clock::now();
  if (std::optional<gpu::CachedKernel> cached = diskCache_.find(key)) {
    loaded.compiled.name = cached->name;
    loaded.compiled.threads = cached->threads;
    loaded.compiled.sharedBytes = cached->sharedBytes;
    error = driver_->loadCubin(cached->cubin, cached->name, &loaded.module, &loaded.function);
    if (error.empty() && timing) {
      timing->source = "disk-cache";
      timing->loadMs = millisecondsSince(start);
    }
  }
  if (!loaded.module) {  // not cached (or the cached cubin does not load): compile
    gpu::CompileOptions compileOptions;
    compileOptions.numWarps = launch.numWarps;
    compileOptions.profile = options.profile;
    compileOptions.sm = sm_;
    start = std::chrono::steady_clock::now();
    gpu::CompileResult result = gpu::compileKernel(*launch.module, *launch.kernel, compileOptions);
    const double compileMs = millisecondsSince(start);
    if (!result.ok()) {
      diagnostics = std::move(result.diagnostics);
      return nullptr;
    }
    loaded.compiled = std::move(*result.kernel);
    start = std::chrono::steady_clock::now();
    std::string cubin;
    error = driver_->compilePtx(loaded.compiled.ptx, loaded.compiled.name, &cubin);
    if (error.empty()) error = driver_->loadCubin(cubin, loaded.compiled.name, &loaded.module, &loaded.function);
    if (!error.empty()) {
      diagnostics.push_back({{}, error});
      return nullptr;
    }
    if (timing) {
      timing->source = "compiled";
      timing->compileMs = compileMs;
      timing->loadMs = millisecondsSince(start);
    }
    diskCache_.store(key, {loaded.compiled.name, loaded.compiled.threads, loaded.compiled.sharedBytes, cubin});
  }
  return &cache_.emplace(key, std::move(loaded)).first->second;
}

// Warm-up launches, then each timed launch between its own pair of events (as triton.testing.do_bench does).
std::string GpuEngine::timeLaunches(const LoadedKernel& loaded, const GpuTimingRequest& request, const int64_t grid[3],
                                    std::vector<void*>& parameters, GpuTiming* timing) {
  const std::string& name = loaded.compiled.name;
  timing->threads = loaded.compiled.threads;
  timing->sharedBytes = loaded.compiled.sharedBytes;
  timing->registers = driver_->registersPerThread(loaded.function);
  auto launchOnce = [&] {
    return driver_->launchAsync(loaded.function, name, grid, loaded.compiled.threads, loaded.compiled.sharedBytes, parameters);
  };
  for (int i = 0; i < request.warmup; ++i)
    if (std::string error = launchOnce(); !error.empty()) return error;
  if (std::string error = driver_->synchronize(name); !error.empty()) return error;
  std::vector<void*> events;
  std::string error = driver_->createEvents(2 * request.iterations, &events);
  for (int i = 0; i < request.iterations && error.empty(); ++i) {
    error = driver_->recordEvent(events[2 * i]);
    if (error.empty()) error = launchOnce();
    if (error.empty()) error = driver_->recordEvent(events[2 * i + 1]);
  }
  if (error.empty()) error = driver_->synchronize(name);
  for (int i = 0; i < request.iterations && error.empty(); ++i) {
    float milliseconds = 0;
    error = driver_->elapsedMilliseconds(events[2 * i], events[2 * i + 1], &milliseconds);
    timing->launchMs.push_back(milliseconds);
  }
  if (driver_->generation() == generation_) driver_->destroyEvents(events);
  return error;
}

// The bytes of a scalar argument as the kernel parameter's type; an error names the argument.
std::string scalarBits(const LaunchArgument& argument, const Value& parameter, std::vector<uint8_t>& bytes) {
  const Type type = parameter.type;
  const ScalarKind kind = type.scalarKind();
  uint64_t bits = 0;
  if (type.isFloat()) {
    bits = floatBitsFromDouble(argument.scalarIsFloat ? argument.floatValue : static_cast<double>(argument.intValue), kind);
  } else {
    if (argument.scalarIsFloat)
      return "argument '" + argument.name + "' is a float but parameter %" + parameter.name + " is " + type.str();
    const int width = bitWidth(kind);
    const int64_t lo = kind == ScalarKind::I1 ? 0 : width >= 64 ? INT64_MIN : -(int64_t{1} << (width - 1));
    const int64_t hi = kind == ScalarKind::I1 ? 1 : width >= 64 ? INT64_MAX : (int64_t{1} << width) - 1;
    if (argument.intValue < lo || argument.intValue > hi)
      return fmt::format("argument '{}' = {} does not fit parameter %{} of type {}", argument.name, argument.intValue,
                         parameter.name, type.str());
    bits = static_cast<uint64_t>(argument.intValue);
  }
  bytes.resize(static_cast<size_t>(storageBytes(kind)));
  std::memcpy(bytes.data(), &bits, bytes.size());  // little-endian: the low bytes
  return "";
}

LaunchOutcome GpuEngine::runLaunch(Launch& launch, const LaunchOptions& options, const GpuTimingRequest* request,
                                   GpuTiming* timing) {
  std::lock_guard<std::mutex> lock(mutex_);
  forgetModulesAfterReset();
  LaunchOutcome outcome;
  std::vector<BufferPlacement> placements;
  if (outcome.diagnostics = placeBuffers(launch, placements); !outcome.diagnostics.empty()) return outcome;
  // tt.divisibility is an assumption the code is compiled on (aligned vector accesses): a launch that breaks it
  // is refused, as the interpreter refuses it (device buffers are at least 256-byte aligned, so the offsets
  // into them are what can break it).
  if (outcome.diagnostics = checkSpecialisation(launch, placements); !outcome.diagnostics.empty()) return outcome;
  const Function kernel = *launch.kernel;
  auto fail = [&](std::string message) {
    outcome.diagnostics.push_back({{}, std::move(message)});
    return outcome;
  };

  // Bind parameters by name (as the interpreter does) before compiling, so argument errors come first.
  std::vector<size_t> argumentOf;
  std::vector<bool> used(launch.arguments.size(), false);
  for (size_t p = 0; p < kernel.numArguments(); ++p) {
    const Value& parameter = *kernel.argument(p);
    size_t index = launch.arguments.size();
    for (size_t i = 0; i < launch.arguments.size(); ++i)
      if (launch.arguments[i].name == parameter.name) index = i;
    if (index == launch.arguments.size())
      return fail("missing argument for parameter %" + parameter.name + " (" + parameter.type.str() + ")");
    const LaunchArgument& argument = launch.arguments[index];
    if (parameter.type.isPointer() != argument.isBuffer())
      return fail(fmt::format("argument '{}' is a {} but parameter %{} is {}", argument.name,
                              argument.isBuffer() ? "buffer" : "scalar", parameter.name, parameter.type.str()));
    if (parameter.type.isPointer() && parameter.type.pointee().isScalar() &&
        storageBytes(parameter.type.pointee().scalarKind()) != storageBytes(argument.elementKind))
      return fail(fmt::format("argument '{}' holds {} elements but parameter %{} points to {}", argument.name,
                              scalarKindName(argument.elementKind), parameter.name, parameter.type.pointee().str()));
    used[index] = true;
    argumentOf.push_back(index);
  }
  for (size_t i = 0; i < launch.arguments.size(); ++i)
    if (!used[i]) outcome.result.unusedArguments.push_back(launch.arguments[i].name);


  // One device buffer per storage; pointers are storage base + offset.
  std::vector<DevicePointer> storage(launch.arguments.size(), 0);
  auto release = [&] {
    if (driver_->generation() != generation_) return;  // a fault reset the context: the buffers are gone already
    for (DevicePointer pointer : storage)
      if (pointer) driver_->free(pointer);
  };
  for (size_t i = 0; i < launch.arguments.size(); ++i) {
    const LaunchArgument& argument = launch.arguments[i];
    if (!argument.isBuffer() || argument.isAlias()) continue;
    std::string error = driver_->allocate(argument.bytes.size(), &storage[i]);
    if (error.empty()) error = driver_->copyToDevice(storage[i], argument.bytes.data(), argument.bytes.size(), kernel.name());
    if (!error.empty()) {
      release();
      return fail(error);
    }
  }
  std::vector<std::vector<uint8_t>> parameterBytes(kernel.numArguments());
  std::vector<void*> parameters;
  for (size_t p = 0; p < kernel.numArguments(); ++p) {
    const size_t index = argumentOf[p];
    const LaunchArgument& argument = launch.arguments[index];
    std::vector<uint8_t>& bytes = parameterBytes[p];
    if (argument.isBuffer()) {
      DevicePointer address = storage[placements[index].storage] + placements[index].offset;
      bytes.resize(sizeof(address));
      std::memcpy(bytes.data(), &address, sizeof(address));
    } else if (std::string error = scalarBits(argument, *kernel.argument(p), bytes); !error.empty()) {
      release();
      return fail(error);
    }
  }
  for (auto& bytes : parameterBytes) parameters.push_back(bytes.data());

  const LoadedKernel* loaded = compile(launch, options, outcome.diagnostics, timing);
  if (!loaded) {
    release();
    return outcome;
  }
  // A copy: forgetModulesAfterReset() below frees `loaded` after a fault, and the message names the kernel.
  const std::string name = loaded->compiled.name;

  std::string error = driver_->launch(loaded->function, name, launch.grid.data(), loaded->compiled.threads,
                                      loaded->compiled.sharedBytes, parameters);
  if (!error.empty()) {
    const bool faulted = driver_->generation() != generation_;
    release();
    forgetModulesAfterReset();
    return fail("the GPU run of kernel @" + name + (faulted ? " faulted: " : " failed: ") + error);
  }
  for (size_t i = 0; i < launch.arguments.size() && error.empty(); ++i)
    if (storage[i]) error = driver_->copyToHost(launch.arguments[i].bytes.data(), storage[i], launch.arguments[i].bytes.size(), name);
  if (error.empty() && request && timing) error = timeLaunches(*loaded, *request, launch.grid.data(), parameters, timing);
  release();
  forgetModulesAfterReset();
  if (!error.empty()) return fail(error);
  refreshAliasViews(launch, placements);
  return outcome;
}

}  // namespace

LaunchOutcome runTimedOnGpu(Engine& engine, Launch& launch, const LaunchOptions& options,
                            const GpuTimingRequest& request, GpuTiming* timing) {
  auto* gpuEngine = dynamic_cast<GpuEngine*>(&engine);
  if (!gpuEngine) {
    LaunchOutcome outcome;
    outcome.diagnostics.push_back({{}, std::string("timing needs the GPU engine, not ") + engine.name()});
    return outcome;
  }
  return gpuEngine->runLaunch(launch, options, &request, timing);
}

std::unique_ptr<Engine> createGpuEngine(std::string* whyNot) {
  std::unique_ptr<CudaDriver> driver = CudaDriver::open(whyNot);
  if (!driver) return nullptr;
  return std::make_unique<GpuEngine>(std::move(driver));
}

}  // namespace tilesim

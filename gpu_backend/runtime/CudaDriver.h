// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and only the entry points the GPU engine
// uses, so no tilesim binary links anything from CUDA and every one starts on a machine without a GPU. Every
// call is checked; a failure becomes a message naming the call, the kernel and the driver's error string
// ("cuLaunchKernel(vadd): an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)").
//
// Faults: an illegal address (or any other error the CUDA documentation calls sticky: the context "cannot be
// used any more") breaks the context for every later call, and on the H200 the process too (after
// CUDA_ERROR_ILLEGAL_ADDRESS, cuDevicePrimaryCtxRetain fails). So the driver is only ever opened in the GPU worker
// process (GpuWorker.h); `broken()` tells the worker to report the error and exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilesim::gpu {

using DevicePointer = uint64_t;  // CUdeviceptr

class CudaDriver {
 public:
  // Loads the driver, initialises it and makes device 0's primary context current. Null with `whyNot` set to
  // one sentence when libcuda.so.1 is missing, an entry point is missing, or there is no device.
  static std::unique_ptr<CudaDriver> open(std::string* whyNot);
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  const std::string& deviceName() const { return deviceName_; }
  int computeCapability() const { return computeCapability_; }  // 90 for an H100/H200

  // Each returns an empty string on success, else the message. `kernel` names the kernel in messages.
  std::string loadModule(const std::string& ptx, const std::string& kernel, void** module, void** function);
  // PTX -> cubin with the driver's JIT (cuLink*, the same compiler cuModuleLoadDataEx runs), for the disk cache;
  // `optimizationLevel` 0..4 is CU_JIT_OPTIMIZATION_LEVEL (ptxas -O), -1 the driver's default (4).
  std::string compilePtx(const std::string& ptx, const std::string& kernel, std::string* cubin, int optimizationLevel = -1);
  // Loads a cubin (from compilePtx or the disk cache).
  std::string loadCubin(const std::string& cubin, const std::string& kernel, void** module, void** function);
  // Lets a loaded kernel launch with `sharedBytes` of dynamic shared memory: over 48 KiB needs its opt-in
  // (layout/TargetLimits.h), an attribute of the kernel set once after loading it, not on every launch.
  std::string allowSharedBytes(void* function, int sharedBytes, const std::string& kernel);
  std::string allocate(size_t bytes, DevicePointer* pointer);
  std::string copyToDevice(DevicePointer destination, const void* source, size_t bytes, const std::string& kernel);
  std::string copyToHost(void* destination, DevicePointer source, size_t bytes, const std::string& kernel);
  std::string launch(void* function, const std::string& kernel, const int64_t grid[3], int threads, int sharedBytes,
                     std::vector<void*>& parameters);
  // The same launch without waiting for it (for timing loops); errors of the kernel itself show at synchronize().
  std::string launchAsync(void* function, const std::string& kernel, const int64_t grid[3], int threads,
                          int sharedBytes, std::vector<void*>& parameters);
  std::string synchronize(const std::string& kernel);
  // CUDA events on the default stream: create `count`, record one, milliseconds between two, destroy all.
  std::string createEvents(int count, std::vector<void*>* events);
  std::string recordEvent(void* event);
  std::string elapsedMilliseconds(void* start, void* end, float* milliseconds);
  void destroyEvents(std::vector<void*>& events);
  // Registers per thread of a loaded kernel (cuFuncGetAttribute NUM_REGS); -1 when the driver does not say.
  int registersPerThread(void* function);
  // Local memory per thread of a loaded kernel (cuFuncGetAttribute LOCAL_SIZE_BYTES: spills and stack); -1 when
  // the driver does not say.
  int localBytesPerThread(void* function);
  void free(DevicePointer pointer);
  void unloadModule(void* module);

  // The driver's version (cuDriverGetVersion, e.g. 13000); part of the disk cache key.
  int driverVersion() const { return driverVersion_; }
  // True once a call returned a sticky error: the context (and this process's CUDA) is unusable.
  bool broken() const { return broken_; }

 private:
  CudaDriver() = default;
  struct Api;
  std::string check(int status, const char* call, const std::string& kernel) const;

  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  void* context_ = nullptr;
  int device_ = 0;
  std::string deviceName_;
  int computeCapability_ = 0;
  int driverVersion_ = 0;
  mutable bool broken_ = false;
};

}  // namespace tilesim::gpu

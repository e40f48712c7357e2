// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and only the entry points the GPU engine
// uses, so no tilesim binary links anything from CUDA and every one starts on a machine without a GPU. Every
// call is checked; a failure becomes a message naming the call, the kernel and the driver's error string
// ("cuLaunchKernel(vadd): an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)").
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
  std::string allocate(size_t bytes, DevicePointer* pointer);
  std::string copyToDevice(DevicePointer destination, const void* source, size_t bytes, const std::string& kernel);
  std::string copyToHost(void* destination, DevicePointer source, size_t bytes, const std::string& kernel);
  std::string launch(void* function, const std::string& kernel, const int64_t grid[3], int threads, int sharedBytes,
                     std::vector<void*>& parameters);
  void free(DevicePointer pointer);
  void unloadModule(void* module);

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
};

}  // namespace tilesim::gpu

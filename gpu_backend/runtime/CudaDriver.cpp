// CudaDriver (CudaDriver.h): the entry points are declared here by their C signatures (cuda.h's types reduced to
// what they are: ints, pointers, 64-bit device addresses), so building needs no CUDA headers either.
#include "gpu_backend/runtime/CudaDriver.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace tilesim::gpu {

struct CudaDriver::Api {
  int (*cuInit)(unsigned);
  int (*cuDeviceGetCount)(int*);
  int (*cuDeviceGet)(int*, int);
  int (*cuDeviceGetName)(char*, int, int);
  int (*cuDeviceGetAttribute)(int*, int, int);
  int (*cuDevicePrimaryCtxRetain)(void**, int);
  int (*cuDevicePrimaryCtxRelease)(int);
  int (*cuCtxSetCurrent)(void*);
  int (*cuCtxSynchronize)();
  int (*cuModuleLoadDataEx)(void**, const void*, unsigned, int*, void**);
  int (*cuModuleGetFunction)(void**, void*, const char*);
  int (*cuModuleUnload)(void*);
  int (*cuMemAlloc)(DevicePointer*, size_t);
  int (*cuMemFree)(DevicePointer);
  int (*cuMemcpyHtoD)(DevicePointer, const void*, size_t);
  int (*cuMemcpyDtoH)(void*, DevicePointer, size_t);
  int (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**);
  int (*cuGetErrorString)(int, const char**);
  int (*cuGetErrorName)(int, const char**);
  int (*cuDriverGetVersion)(int*);
  int (*cuModuleLoadData)(void**, const void*);
  int (*cuLinkCreate)(unsigned, int*, void**, void**);
  int (*cuLinkAddData)(void*, int, void*, size_t, const char*, unsigned, int*, void**);
  int (*cuLinkComplete)(void*, void**, size_t*);
  int (*cuLinkDestroy)(void*);
  int (*cuEventCreate)(void**, unsigned);
  int (*cuEventRecord)(void*, void*);
  int (*cuEventSynchronize)(void*);
  int (*cuEventElapsedTime)(float*, void*, void*);
  int (*cuEventDestroy)(void*);
  int (*cuFuncGetAttribute)(int*, int, void*);
  int (*cuFuncSetAttribute)(void*, int, int);
};

namespace {

constexpr int kAttributeComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr int kJitErrorLogBuffer = 5;                 // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogBufferSizeBytes = 6;        // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
constexpr int kJitInputPtx = 1;                       // CU_JIT_INPUT_PTX
constexpr int kJitOptimizationLevel = 7;              // CU_JIT_OPTIMIZATION_LEVEL (0..4, default 4)

// The errors after which "the context cannot be used any more" (cuda.h's comments on CUresult): illegal address,
// launch timeout, device assert, hardware stack error, illegal instruction, misaligned address, invalid address
// space, invalid PC, launch failed.
bool isSticky(int status) {
  switch (status) {
    case 700: case 702: case 710: case 714: case 715: case 716: case 717: case 718: case 719: return true;
    default: return false;
  }
}

template <typename T>
bool resolve(void* library, const char* name, T& slot, std::string* missing) {
  slot = reinterpret_cast<T>(dlsym(library, name));
  if (!slot && missing->empty()) *missing = name;
  return slot != nullptr;
}

}  // namespace

std::string CudaDriver::check(int status, const char* call, const std::string& kernel) const {
  if (status == 0) return "";
  if (isSticky(status)) broken_ = true;
  const char* name = "?";
  const char* text = "unknown error";
  if (api_->cuGetErrorName) api_->cuGetErrorName(status, &name);
  if (api_->cuGetErrorString) api_->cuGetErrorString(status, &text);
  return fmt::format("{}{}: {} ({})", call, kernel.empty() ? "" : "(" + kernel + ")", text, name);
}

std::unique_ptr<CudaDriver> CudaDriver::open(std::string* whyNot) {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    *whyNot = "the CUDA driver library libcuda.so.1 cannot be loaded (no NVIDIA driver on this machine)";
    return nullptr;
  }
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->library_ = library;
  driver->api_ = std::make_unique<Api>();
  Api& api = *driver->api_;
  std::string missing;
  resolve(library, "cuInit", api.cuInit, &missing);
  resolve(library, "cuDeviceGetCount", api.cuDeviceGetCount, &missing);
  resolve(library, "cuDeviceGet", api.cuDeviceGet, &missing);
  resolve(library, "cuDeviceGetName", api.cuDeviceGetName, &missing);
  resolve(library, "cuDeviceGetAttribute", api.cuDeviceGetAttribute, &missing);
  resolve(library, "cuDevicePrimaryCtxRetain", api.cuDevicePrimaryCtxRetain, &missing);
  resolve(library, "cuDevicePrimaryCtxRelease_v2", api.cuDevicePrimaryCtxRelease, &missing);
  resolve(library, "cuCtxSetCurrent", api.cuCtxSetCurrent, &missing);
  resolve(library, "cuCtxSynchronize", api.cuCtxSynchronize, &missing);
  resolve(library, "cuModuleLoadDataEx", api.cuModuleLoadDataEx, &missing);
  resolve(library, "cuModuleGetFunction", api.cuModuleGetFunction, &missing);
  resolve(library, "cuModuleUnload", api.cuModuleUnload, &missing);
  resolve(library, "cuMemAlloc_v2", api.cuMemAlloc, &missing);
  resolve(library, "cuMemFree_v2", api.cuMemFree, &missing);
  resolve(library, "cuMemcpyHtoD_v2", api.cuMemcpyHtoD, &missing);
  resolve(library, "cuMemcpyDtoH_v2", api.cuMemcpyDtoH, &missing);
  resolve(library, "cuLaunchKernel", api.cuLaunchKernel, &missing);
  resolve(library, "cuGetErrorString", api.cuGetErrorString, &missing);
  resolve(library, "cuGetErrorName", api.cuGetErrorName, &missing);
  resolve(library, "cuDriverGetVersion", api.cuDriverGetVersion, &missing);
  resolve(library, "cuModuleLoadData", api.cuModuleLoadData, &missing);
  resolve(library, "cuLinkCreate_v2", api.cuLinkCreate, &missing);
  resolve(library, "cuLinkAddData_v2", api.cuLinkAddData, &missing);
  resolve(library, "cuLinkComplete", api.cuLinkComplete, &missing);
  resolve(library, "cuLinkDestroy", api.cuLinkDestroy, &missing);
  resolve(library, "cuEventCreate", api.cuEventCreate, &missing);
  resolve(library, "cuEventRecord", api.cuEventRecord, &missing);
  resolve(library, "cuEventSynchronize", api.cuEventSynchronize, &missing);
  resolve(library, "cuEventElapsedTime", api.cuEventElapsedTime, &missing);
  resolve(library, "cuEventDestroy_v2", api.cuEventDestroy, &missing);
  resolve(library, "cuFuncGetAttribute", api.cuFuncGetAttribute, &missing);
  resolve(library, "cuFuncSetAttribute", api.cuFuncSetAttribute, &missing);
  if (!missing.empty()) {
    *whyNot = "the CUDA driver library has no entry point " + missing + " (driver too old?)";
    return nullptr;
  }
  if (std::string failed = driver->check(api.cuInit(0), "cuInit", ""); !failed.empty()) {
    *whyNot = "the CUDA driver does not initialise: " + failed;
    return nullptr;
  }
  int count = 0;
  if (driver->check(api.cuDeviceGetCount(&count), "cuDeviceGetCount", "").size() || count == 0) {
    *whyNot = "the CUDA driver sees no GPU on this machine";
    return nullptr;
  }
  std::string failed = driver->check(api.cuDeviceGet(&driver->device_, 0), "cuDeviceGet", "");
  if (failed.empty()) failed = driver->check(api.cuDevicePrimaryCtxRetain(&driver->context_, driver->device_), "cuDevicePrimaryCtxRetain", "");
  if (failed.empty()) failed = driver->check(api.cuCtxSetCurrent(driver->context_), "cuCtxSetCurrent", "");
  if (!failed.empty()) {
    *whyNot = "the GPU cannot be opened: " + failed;
    driver->context_ = nullptr;
    return nullptr;
  }
  char name[256] = {};
  api.cuDeviceGetName(name, sizeof(name), driver->device_);
  driver->deviceName_ = name;
  int major = 0, minor = 0;
  api.cuDeviceGetAttribute(&major, kAttributeComputeCapabilityMajor, driver->device_);
  api.cuDeviceGetAttribute(&minor, kAttributeComputeCapabilityMinor, driver->device_);
  driver->computeCapability_ = major * 10 + minor;
  api.cuDriverGetVersion(&driver->driverVersion_);
  return driver;
}

CudaDriver::~CudaDriver() {
  if (context_ && api_ && !broken_) api_->cuDevicePrimaryCtxRelease(device_);
  // The library stays loaded: the driver keeps threads that must not lose their code.
}

std::string CudaDriver::loadModule(const std::string& ptx, const std::string& kernel, void** module, void** function) {
  std::vector<char> log(16384, '\0');
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void* values[] = {log.data(), reinterpret_cast<void*>(log.size() - 1)};
  int status = api_->cuModuleLoadDataEx(module, ptx.c_str(), 2, options, values);
  if (status != 0) return check(status, "cuModuleLoadDataEx", kernel) + (log[0] ? ": " + std::string(log.data()) : "");
  return check(api_->cuModuleGetFunction(function, *module, kernel.c_str()), "cuModuleGetFunction", kernel);
}

std::string CudaDriver::compilePtx(const std::string& ptx, const std::string& kernel, std::string* cubin,
                                   int optimizationLevel) {
  std::vector<char> log(16384, '\0');
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes, kJitOptimizationLevel};
  void* values[] = {log.data(), reinterpret_cast<void*>(log.size() - 1),
                    reinterpret_cast<void*>(static_cast<intptr_t>(optimizationLevel))};
  void* state = nullptr;
  const unsigned count = optimizationLevel < 0 ? 2 : 3;  // the driver's default level (4) unless one is asked for
  std::string failed = check(api_->cuLinkCreate(count, options, values, &state), "cuLinkCreate", kernel);
  if (!failed.empty()) return failed;
  failed = check(api_->cuLinkAddData(state, kJitInputPtx, const_cast<char*>(ptx.c_str()), ptx.size() + 1, kernel.c_str(),
                                     0, nullptr, nullptr),
                 "cuLinkAddData", kernel);
  void* image = nullptr;
  size_t size = 0;
  if (failed.empty()) failed = check(api_->cuLinkComplete(state, &image, &size), "cuLinkComplete", kernel);
  if (failed.empty()) cubin->assign(static_cast<const char*>(image), size);  // owned by the link state
  else if (log[0]) failed += ": " + std::string(log.data());
  api_->cuLinkDestroy(state);
  return failed;
}

std::string CudaDriver::loadCubin(const std::string& cubin, const std::string& kernel, void** module, void** function) {
  std::string failed = check(api_->cuModuleLoadData(module, cubin.data()), "cuModuleLoadData", kernel);
  if (!failed.empty()) return failed;
  return check(api_->cuModuleGetFunction(function, *module, kernel.c_str()), "cuModuleGetFunction", kernel);
}

std::string CudaDriver::allocate(size_t bytes, DevicePointer* pointer) {
  return check(api_->cuMemAlloc(pointer, bytes == 0 ? 1 : bytes), "cuMemAlloc", "");
}

std::string CudaDriver::copyToDevice(DevicePointer destination, const void* source, size_t bytes, const std::string& kernel) {
  if (bytes == 0) return "";
  return check(api_->cuMemcpyHtoD(destination, source, bytes), "cuMemcpyHtoD", kernel);
}

std::string CudaDriver::copyToHost(void* destination, DevicePointer source, size_t bytes, const std::string& kernel) {
  if (bytes == 0) return "";
  return check(api_->cuMemcpyDtoH(destination, source, bytes), "cuMemcpyDtoH", kernel);
}

std::string CudaDriver::allowSharedBytes(void* function, int sharedBytes, const std::string& kernel) {
  constexpr int kMaxDynamicSharedSizeBytes = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  if (sharedBytes <= 48 * 1024) return "";
  return check(api_->cuFuncSetAttribute(function, kMaxDynamicSharedSizeBytes, sharedBytes),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", kernel);
}

std::string CudaDriver::launchAsync(void* function, const std::string& kernel, const int64_t grid[3], int threads,
                                    int sharedBytes, std::vector<void*>& parameters) {
  const int status = api_->cuLaunchKernel(function, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                                          static_cast<unsigned>(grid[2]), static_cast<unsigned>(threads), 1, 1,
                                          static_cast<unsigned>(sharedBytes), nullptr, parameters.data(), nullptr);
  return check(status, "cuLaunchKernel", kernel);
}

std::string CudaDriver::synchronize(const std::string& kernel) {
  return check(api_->cuCtxSynchronize(), "cuCtxSynchronize", kernel);
}

std::string CudaDriver::launch(void* function, const std::string& kernel, const int64_t grid[3], int threads,
                               int sharedBytes, std::vector<void*>& parameters) {
  std::string failed = launchAsync(function, kernel, grid, threads, sharedBytes, parameters);
  return failed.empty() ? synchronize(kernel) : failed;
}

std::string CudaDriver::createEvents(int count, std::vector<void*>* events) {
  for (int i = 0; i < count; ++i) {
    void* event = nullptr;
    if (std::string failed = check(api_->cuEventCreate(&event, 0), "cuEventCreate", ""); !failed.empty()) return failed;
    events->push_back(event);
  }
  return "";
}

std::string CudaDriver::recordEvent(void* event) { return check(api_->cuEventRecord(event, nullptr), "cuEventRecord", ""); }

std::string CudaDriver::elapsedMilliseconds(void* start, void* end, float* milliseconds) {
  if (std::string failed = check(api_->cuEventSynchronize(end), "cuEventSynchronize", ""); !failed.empty()) return failed;
  return check(api_->cuEventElapsedTime(milliseconds, start, end), "cuEventElapsedTime", "");
}

int CudaDriver::localBytesPerThread(void* function) {
  constexpr int kFunctionAttributeLocalSizeBytes = 3;  // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
  int bytes = -1;
  if (api_->cuFuncGetAttribute(&bytes, kFunctionAttributeLocalSizeBytes, function) != 0) return -1;
  return bytes;
}

int CudaDriver::registersPerThread(void* function) {
  constexpr int kFunctionAttributeNumRegs = 4;  // CU_FUNC_ATTRIBUTE_NUM_REGS
  int registers = -1;
  if (api_->cuFuncGetAttribute(&registers, kFunctionAttributeNumRegs, function) != 0) return -1;
  return registers;
}

void CudaDriver::destroyEvents(std::vector<void*>& events) {
  for (void* event : events) api_->cuEventDestroy(event);
  events.clear();
}

void CudaDriver::free(DevicePointer pointer) { api_->cuMemFree(pointer); }
void CudaDriver::unloadModule(void* module) { api_->cuModuleUnload(module); }

}  // namespace tilesim::gpu

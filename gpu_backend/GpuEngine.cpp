// GpuEngine (GpuEngine.h): argument binding, device buffers, the compile cache and the launch.
#include "gpu_backend/GpuEngine.h"

#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>

#include "gpu_backend/Pipeline.h"
#include "gpu_backend/runtime/CudaDriver.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

using gpu::CudaDriver;
using gpu::DevicePointer;

// What makes two kernels the same for the cache: every op's kind, types and attributes, in order.
std::string fingerprint(const Function& kernel) {
  std::string text = kernel.name();
  walk(*kernel.op(), [&](const Operation& op) {
    text += fmt::format("|{}:", static_cast<int>(op.kind));
    for (const Value* operand : op.operands) text += operand->type.str() + ",";
    for (const auto& result : op.results) text += result->type.str() + ",";
    for (const NamedAttribute& attribute : op.attributes) {
      const Attribute& value = attribute.value;
      text += fmt::format("{}={}/{}/{}/{};", attribute.name, static_cast<int>(value.kind()), value.intValue(), value.text(),
                          value.denseBits().size());
      for (uint64_t bits : value.denseBits()) text += std::to_string(bits) + " ";
      for (int64_t element : value.arrayValues()) text += std::to_string(element) + " ";
    }
  });
  return text;
}

struct LoadedKernel {
  gpu::CompiledKernel compiled;
  void* module = nullptr;
  void* function = nullptr;
};

class GpuEngine final : public Engine {
 public:
  explicit GpuEngine(std::unique_ptr<CudaDriver> driver) : driver_(std::move(driver)) {
    sm_ = driver_->computeCapability() == 90 ? "sm_90a" : "sm_" + std::to_string(driver_->computeCapability());
  }
  ~GpuEngine() override {
    for (auto& [key, kernel] : cache_) driver_->unloadModule(kernel.module);
  }

  const char* name() const override { return "gpu"; }
  std::string description() const override { return "gpu: " + driver_->deviceName() + " (" + sm_ + ")"; }
  LaunchOutcome run(Launch& launch, const LaunchOptions& options) override;

 private:
  const LoadedKernel* compile(const Launch& launch, const LaunchOptions& options, Diagnostics& diagnostics);

  std::unique_ptr<CudaDriver> driver_;
  std::string sm_;
  std::mutex mutex_;
  std::map<std::string, LoadedKernel> cache_;
};

const LoadedKernel* GpuEngine::compile(const Launch& launch, const LaunchOptions& options, Diagnostics& diagnostics) {
  const std::string key = fmt::format("{}|{}|{}", launch.numWarps, floatProfileName(options.profile),
                                      fingerprint(*launch.kernel));
  if (auto found = cache_.find(key); found != cache_.end()) return &found->second;
  gpu::CompileOptions compileOptions;
  compileOptions.numWarps = launch.numWarps;
  compileOptions.profile = options.profile;
  compileOptions.sm = sm_;
  gpu::CompileResult result = gpu::compileKernel(*launch.module, *launch.kernel, compileOptions);
  if (!result.ok()) {
    diagnostics = std::move(result.diagnostics);
    return nullptr;
  }
  LoadedKernel loaded;
  loaded.compiled = std::move(*result.kernel);
  if (std::string error = driver_->loadModule(loaded.compiled.ptx, loaded.compiled.name, &loaded.module, &loaded.function);
      !error.empty()) {
    diagnostics.push_back({{}, error});
    return nullptr;
  }
  return &cache_.emplace(key, std::move(loaded)).first->second;
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

LaunchOutcome GpuEngine::run(Launch& launch, const LaunchOptions& options) {
  std::lock_guard<std::mutex> lock(mutex_);
  LaunchOutcome outcome;
  std::vector<BufferPlacement> placements;
  if (outcome.diagnostics = placeBuffers(launch, placements); !outcome.diagnostics.empty()) return outcome;
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

  const LoadedKernel* loaded = compile(launch, options, outcome.diagnostics);
  if (!loaded) return outcome;
  const std::string& name = loaded->compiled.name;

  // One device buffer per storage; pointers are storage base + offset.
  std::vector<DevicePointer> storage(launch.arguments.size(), 0);
  auto release = [&] {
    for (DevicePointer pointer : storage)
      if (pointer) driver_->free(pointer);
  };
  for (size_t i = 0; i < launch.arguments.size(); ++i) {
    const LaunchArgument& argument = launch.arguments[i];
    if (!argument.isBuffer() || argument.isAlias()) continue;
    std::string error = driver_->allocate(argument.bytes.size(), &storage[i]);
    if (error.empty()) error = driver_->copyToDevice(storage[i], argument.bytes.data(), argument.bytes.size(), name);
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

  std::string error = driver_->launch(loaded->function, name, launch.grid.data(), loaded->compiled.threads,
                                      loaded->compiled.sharedBytes, parameters);
  if (!error.empty()) {
    release();
    return fail("the GPU run of kernel @" + name + " failed: " + error);
  }
  for (size_t i = 0; i < launch.arguments.size() && error.empty(); ++i)
    if (storage[i]) error = driver_->copyToHost(launch.arguments[i].bytes.data(), storage[i], launch.arguments[i].bytes.size(), name);
  release();
  if (!error.empty()) return fail(error);
  refreshAliasViews(launch, placements);
  return outcome;
}

}  // namespace

std::unique_ptr<Engine> createGpuEngine(std::string* whyNot) {
  std::unique_ptr<CudaDriver> driver = CudaDriver::open(whyNot);
  if (!driver) return nullptr;
  return std::make_unique<GpuEngine>(std::move(driver));
}

}  // namespace tilesim

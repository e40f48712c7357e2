// GpuEngine (GpuEngine.h): kernel parameters from the shared binding, the compile caches, and the launch through the GPU worker process
// (runtime/GpuWorker.h), with the messages for a worker that faulted, died or ran past its time.
#include "gpu_backend/GpuEngine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>

#include "gpu_backend/Pipeline.h"
#include "gpu_backend/RemainderVersioning.h"
#include "gpu_backend/runtime/GpuWorker.h"
#include "gpu_backend/runtime/PtxasLevel.h"
#include "gpu_backend/runtime/KernelCache.h"
#include "ir/MutantTag.h"
#include "ir/launch/Binding.h"
#include "ir/launch/Redzones.h"
#include "ir/text/Printer.h"

namespace tilesim {
namespace {

using gpu::WorkerClient;
using gpu::WorkerDeath;

struct KernelInfo {
  std::string name;
  int threads = 0;
  int sharedBytes = 0;
  std::string ptx;     // kept so that a new worker (after a fault) needs no recompile; empty if from disk
  int generation = 0;  // of the worker it is loaded into
};

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

bool containsAssert(const Function& kernel) {
  bool found = false;
  walk(kernel.body(), [&](const Operation& op) { found = found || op.kind == OpKind::TTAssert; });
  return found;
}

// The lines of the worker's output that tt.assert printed ("FILE:L:C: program (x, y, z) element i: assertion
// failed: MESSAGE"), at most 5, joined with "; ".
std::string assertionLines(const std::string& output) {
  std::string lines;
  int count = 0, more = 0;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    if (line.find("assertion failed") != std::string::npos) {
      if (count++ < 5) lines += (lines.empty() ? "" : "; ") + line;
      else ++more;
    }
    start = end + 1;
  }
  if (more > 0) lines += fmt::format("; and {} more", more);
  return lines;
}

class GpuEngine final : public Engine {
 public:
  GpuEngine(std::unique_ptr<WorkerClient> worker, const gpu::WorkerHello& hello)
      : worker_(std::move(worker)), hello_(hello) {
    sm_ = hello.computeCapability == 90 ? "sm_90a" : "sm_" + std::to_string(hello.computeCapability);
  }

  const char* name() const override { return "gpu"; }
  std::string description() const override { return "gpu: " + hello_.deviceName + " (" + sm_ + ")"; }
  LaunchOutcome run(Launch& launch, const LaunchOptions& options) override { return runLaunch(launch, options, nullptr, nullptr); }
  bool canTime() const override { return true; }
  LaunchOutcome runTimed(Launch& launch, const LaunchOptions& options, const TimingRequest& request,
                         LaunchTiming* timing) override {
    return runLaunch(launch, options, &request, timing);
  }

 private:
  LaunchOutcome runLaunch(Launch& launch, const LaunchOptions& options, const TimingRequest* request, LaunchTiming* timing);
  // The kernel loaded into the current worker (started if needed): from the worker's caches, else compiled here
  // and sent as PTX. Null with `diagnostics` set when it does not compile, load, or the worker died.
  // `assumeRemainderGuards`: the launch passed remainderGuardsHold (RemainderVersioning.h), so the kernel may be
  // the version specialised on it (its own key).
  // `moduleKey`: KernelCache::keyOf the kernel's name and its printed module (hashed once per launch).
  // `descriptors`: what the launch established of its host descriptors (DescriptorPointers.h), in the key too.
  const KernelInfo* load(const Launch& launch, const LaunchOptions& options, const std::string& moduleKey,
                         bool assumeRemainderGuards, const std::vector<gpu::HostDescriptorFacts>& descriptors,
                         Diagnostics& diagnostics, LaunchTiming* timing, std::string* key);
  // Whether this launch may run the kernel specialised on its remainder guards: the kernel's check
  // (RemainderVersioning.h), built once per module text, run once per (scalar arguments, grid).
  bool remainderGuardsHold(const Launch& launch, const LaunchBinding& binding, const std::string& moduleKey);
  // The message for a launch that did not end well (the worker's error, its death, its timeout).
  std::string failure(const std::string& kernel, bool hasAssert, const gpu::WorkerResult& result,
                      const WorkerDeath& death) const;

  std::unique_ptr<WorkerClient> worker_;
  gpu::WorkerHello hello_;
  std::string sm_;
  std::mutex mutex_;
  std::map<std::string, KernelInfo> kernels_;  // by the disk cache's key
  struct GuardChecks {
    std::unique_ptr<gpu::RemainderGuardCheck> check;
    std::map<std::vector<uint64_t>, bool> verdicts;  // by grid and scalar arguments
  };
  std::map<std::string, GuardChecks> guardChecks_;  // by a hash of the kernel name and module text
};

const KernelInfo* GpuEngine::load(const Launch& launch, const LaunchOptions& options, const std::string& moduleKey,
                                  bool assumeRemainderGuards, const std::vector<gpu::HostDescriptorFacts>& descriptors,
                                  Diagnostics& diagnostics, LaunchTiming* timing, std::string* keyOut) {
  // Everything that determines the code (KernelCache.h); the printed module (in moduleKey, with the kernel's
  // name) covers every op, operand and attribute.
  // In a mutation build the active mutant changes the code too: without it in the key, a campaign under one mutant
  // ran kernels another mutant (or none) had compiled into the on-disk cache (H100, 2026-12-06). The ptxas level
  // TILESIM_PTXAS_LEVEL forces changes the cubin the worker caches under this key.
  std::string descriptorFacts;
  for (const gpu::HostDescriptorFacts& facts : descriptors) descriptorFacts += facts.key() + "\n";
  const std::string& key = *keyOut = gpu::KernelCache::keyOf(
      fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\nptxas level {}\ntensor cores {}\nnum_stages {}\n{}", gpu::KernelCache::buildId(),
                  hello_.driverVersion, sm_, launch.numWarps, floatProfileName(options.profile), launch.kernel->name(),
                  moduleKey, mutation::activeMutantName(), assumeRemainderGuards ? "remainder guards hold" : "",
                  gpu::ptxasLevelFromEnvironment().value_or(gpu::kPtxasLevelAuto),
                  gpu::tensorCoreChoiceName(gpu::tensorCoreChoiceFromEnvironment().value_or(gpu::TensorCoreChoice::Auto)),
                  launch.numStages, descriptorFacts));
  auto fail = [&](std::string message) -> const KernelInfo* {
    diagnostics.push_back({{}, std::move(message)});
    return nullptr;
  };
  WorkerDeath death;
  if (!worker_->running()) {
    gpu::WorkerHello hello = worker_->start(&death);
    if (death.died) return fail("the GPU worker process could not start: " + death.reason);
    if (!hello.ok) return fail("the GPU worker cannot use the GPU: " + hello.whyNot);
  }
  KernelInfo* known = nullptr;
  if (auto found = kernels_.find(key); found != kernels_.end()) {
    known = &found->second;
    if (known->generation == worker_->generation()) {
      if (timing) timing->source = "memory-cache";
      return known;
    }
  }
  gpu::KernelImage image{key, "", 0, 0, ""};
  if (known) image = {key, known->name, known->threads, known->sharedBytes, known->ptx};
  gpu::LoadReply reply = worker_->load(image, &death);  // from the worker's caches, or the PTX we still have
  if (death.died) return fail("the GPU worker died loading kernel @" + launch.kernel->name() + ": " + death.reason);
  double compileMs = 0;
  if (!reply.found && reply.error.empty()) {  // a miss everywhere: compile
    gpu::CompileOptions compileOptions;
    compileOptions.numWarps = launch.numWarps;
    compileOptions.numStages = launch.numStages;
    compileOptions.profile = options.profile;
    compileOptions.sm = sm_;
    compileOptions.assumeRemainderGuards = assumeRemainderGuards;
    compileOptions.hostDescriptors = descriptors;
    compileOptions.tensorCores = gpu::tensorCoreChoiceFromEnvironment().value_or(gpu::TensorCoreChoice::Auto);
    auto start = std::chrono::steady_clock::now();
    gpu::CompileResult result = gpu::compileKernel(*launch.module, *launch.kernel, compileOptions);
    compileMs = millisecondsSince(start);
    if (!result.ok()) {
      diagnostics = std::move(result.diagnostics);
      return nullptr;
    }
    image = {key, result.kernel->name, result.kernel->threads, result.kernel->sharedBytes, std::move(result.kernel->ptx)};
    reply = worker_->load(image, &death);
    if (death.died) return fail("the GPU worker died loading kernel @" + image.name + ": " + death.reason);
  }
  if (!reply.error.empty()) return fail(reply.error);
  if (!reply.found) return fail("the GPU worker could not load kernel @" + launch.kernel->name());
  if (timing) {
    // "compiled" from the PTX this process kept (a new worker after a fault) compiled no TTIR: memory-cache.
    timing->source = reply.source == "compiled" && compileMs == 0 ? "memory-cache" : reply.source;
    timing->compileMs = compileMs;
    timing->loadMs = reply.loadMs;
  }
  KernelInfo& info = kernels_[key];
  info = {reply.name, reply.threads, reply.sharedBytes, image.ptx, worker_->generation()};
  return &info;
}

std::string GpuEngine::failure(const std::string& kernel, bool hasAssert, const gpu::WorkerResult& result,
                               const WorkerDeath& death) const {
  const std::string printed = assertionLines(worker_->lastOutput());
  const std::string said = printed.empty() ? "" : "; the kernel printed: " + printed;
  if (death.timedOut)
    return fmt::format("the GPU run of kernel @{} was stopped: {}; the next launch starts a new worker", kernel,
                       death.reason);
  if (death.died)
    return fmt::format("the GPU run of kernel @{} failed: {}{}; the next launch starts a new worker", kernel,
                       death.reason, said);
  if (!result.sticky) return fmt::format("the GPU run of kernel @{} failed: {}", kernel, result.error);
  // A trap: only tt.assert emits one (lowering/Debug.cpp); CUDA reports it as an illegal instruction or a
  // failed launch, and the printf before it may or may not have reached the host.
  const bool trapped = result.error.find("ILLEGAL_INSTRUCTION") != std::string::npos ||
                       result.error.find("LAUNCH_FAILED") != std::string::npos ||
                       result.error.find("CUDA_ERROR_ASSERT") != std::string::npos;
  const std::string asserted = !printed.empty() || (hasAssert && trapped) ? "the kernel asserted (tt.assert trapped): " : "";
  return fmt::format("the GPU run of kernel @{} faulted: {}{}{}; the GPU worker process that ran it has exited (its "
                     "CUDA context is unusable) and the next launch starts a new one",
                     kernel, asserted, result.error, said);
}

// A redzone finding into the launch's result, as the interpreter's report sink files a report: stored, grouped
// (a group of one) and counted.
void addReport(LaunchResult& result, Report report) {
  ++result.totalByKind[static_cast<size_t>(report.kind)];
  ReportGroup group;
  group.first = report;
  group.count = 1;
  group.minByteOffset = group.maxByteOffset = report.byteOffset;
  result.groups.push_back(std::move(group));
  result.reports.push_back(std::move(report));
}

// The kernel parameters of a bound launch: a pointer is its storage (index into the worker's storages) plus its
// offset; a scalar its value's low bytes (little-endian); a tensor descriptor two PTX parameters, its base, then
// its padding (i32).
std::vector<gpu::WorkerParameter> workerParameters(const Launch& launch, const LaunchBinding& binding,
                                                   const std::vector<size_t>& storageOf) {
  std::vector<gpu::WorkerParameter> parameters;
  auto lowBytes = [](uint64_t bits, int count) {
    std::vector<uint8_t> bytes(static_cast<size_t>(count));
    std::memcpy(bytes.data(), &bits, bytes.size());
    return bytes;
  };
  for (size_t p = 0; p < binding.numParameters(); ++p) {
    const BoundParameter& bound = binding.parameter(p);
    gpu::WorkerParameter parameter;
    switch (bound.kind) {
      case BoundParameter::Kind::Pointer:
      case BoundParameter::Kind::TensorDescriptor:
        parameter.isBuffer = true;
        parameter.storage = storageOf[binding.placement(bound.argument).storage];
        parameter.offset = binding.placement(bound.argument).offset;
        break;
      case BoundParameter::Kind::Scalar:
      case BoundParameter::Kind::DescriptorField:
        parameter.bytes = lowBytes(bound.bits, storageBytes(launch.kernel->argument(p)->type.scalarKind()));
        break;
    }
    parameters.push_back(std::move(parameter));
    if (bound.kind == BoundParameter::Kind::TensorDescriptor) {
      gpu::WorkerParameter padding;
      padding.bytes = lowBytes(static_cast<uint64_t>(static_cast<uint32_t>(launch.arguments[bound.argument].descPadding)), 4);
      parameters.push_back(std::move(padding));
    }
  }
  return parameters;
}

bool GpuEngine::remainderGuardsHold(const Launch& launch, const LaunchBinding& binding, const std::string& moduleKey) {
  // Bounded: a long-lived process (a fuzz campaign, a test suite) compiles many kernels and launches each on
  // many grids; forgetting everything now and then costs one check per kernel and launch shape.
  constexpr size_t kMaxKernels = 256, kMaxVerdictsPerKernel = 1024;
  if (guardChecks_.size() >= kMaxKernels) guardChecks_.clear();
  GuardChecks& checks = guardChecks_[moduleKey];
  if (!checks.check) checks.check = std::make_unique<gpu::RemainderGuardCheck>(*launch.module, *launch.kernel);
  if (!checks.check->possible()) return false;
  std::vector<std::optional<uint64_t>> scalars(launch.kernel->numArguments());
  std::vector<uint64_t> verdictKey(launch.grid.begin(), launch.grid.end());
  for (size_t p = 0; p < binding.numParameters() && p < scalars.size(); ++p) {
    const BoundParameter::Kind kind = binding.parameter(p).kind;
    if (kind == BoundParameter::Kind::Scalar || kind == BoundParameter::Kind::DescriptorField) scalars[p] = binding.parameter(p).bits;
    verdictKey.push_back(scalars[p].has_value());
    verdictKey.push_back(scalars[p].value_or(0));
  }
  if (auto known = checks.verdicts.find(verdictKey); known != checks.verdicts.end()) return known->second;
  if (checks.verdicts.size() >= kMaxVerdictsPerKernel) checks.verdicts.clear();
  return checks.verdicts[verdictKey] = checks.check->holds(scalars, launch.grid);
}

LaunchOutcome GpuEngine::runLaunch(Launch& launch, const LaunchOptions& options, const TimingRequest* request,
                                   LaunchTiming* timing) {
  std::lock_guard<std::mutex> lock(mutex_);
  LaunchOutcome outcome;
  // Arguments are bound (ir/launch/Binding.h: placement, tt.divisibility, kinds, tensor descriptors) before
  // compiling, so argument errors come first. tt.divisibility is an assumption the code is compiled on (aligned
  // vector accesses): a launch that breaks it is refused, as the interpreter refuses it (device buffers are at
  // least 256-byte aligned, so the offsets into them are what can break it).
  const LaunchBinding binding = bindLaunch(launch);
  if (outcome.diagnostics = binding.diagnostics(); !binding.ok()) return outcome;
  outcome.result.unusedArguments = binding.unusedArguments();
  const Function kernel = *launch.kernel;
  auto fail = [&](std::string message) {
    outcome.diagnostics.push_back({{}, std::move(message)});
    return outcome;
  };

  // One worker storage (device buffer) per argument that owns its bytes, inside redzones (ir/launch/Redzones.h);
  // pointers are storage + its front redzone + offset, so an alias view shares its storage's redzones.
  gpu::WorkerLaunch work;
  std::vector<size_t> storageOf(launch.arguments.size(), SIZE_MAX);  // argument -> index into work.storages
  std::vector<size_t> ownerOf;                                       // storage -> argument
  std::vector<RedzoneLayout> layouts;                                // storage -> its allocation
  const uint64_t alignment = promisedAlignment(*launch.kernel);
  for (size_t i = 0; i < launch.arguments.size(); ++i) {
    const LaunchArgument& argument = launch.arguments[i];
    if (!argument.isBuffer() || argument.isAlias()) continue;
    storageOf[i] = ownerOf.size();
    ownerOf.push_back(i);
    layouts.push_back(redzoneLayout(argument.bytes.size(), alignment));
  }
  work.parameters = workerParameters(launch, binding, storageOf);
  for (gpu::WorkerParameter& parameter : work.parameters)
    if (parameter.isBuffer) parameter.offset += layouts[parameter.storage].front;

  const std::string moduleKey = gpu::KernelCache::keyOf(
      launch.kernel->name() + "\n" + printModule(*launch.module, PrintOptions{.locations = false}));
  // A host descriptor's base is its storage's allocation (256-byte aligned by cuMemAlloc) + the front redzone +
  // its offset there: the parameter's offset as set above.
  std::vector<uint64_t> baseOffsets(launch.arguments.size(), 0);
  for (size_t p = 0, w = 0; p < binding.numParameters() && w < work.parameters.size(); ++p, ++w) {
    const BoundParameter& bound = binding.parameter(p);
    if (bound.kind == BoundParameter::Kind::TensorDescriptor) {
      baseOffsets[bound.argument] = work.parameters[w].offset;
      ++w;  // its padding parameter
    }
  }
  const std::vector<gpu::HostDescriptorFacts> descriptors =
      gpu::hostDescriptorFacts(launch, binding, [&](size_t argument) { return baseOffsets[argument]; });
  const KernelInfo* loaded = load(launch, options, moduleKey, remainderGuardsHold(launch, binding, moduleKey),
                                  descriptors, outcome.diagnostics, timing, &work.key);
  if (!loaded) return outcome;
  const std::string name = loaded->name;
  work.grid = launch.grid;
  if (request && timing) {
    work.timingWarmup = request->warmup;
    work.timingIterations = request->iterations;
    timing->threads = loaded->threads;
    timing->sharedBytes = loaded->sharedBytes;
  }
  WorkerDeath death;
  // The buffers travel as allocation images (one copy each way: the redzones' price); a failed launch leaves
  // the arguments as they were.
  for (size_t s = 0; s < ownerOf.size(); ++s)
    work.storages.push_back(allocationWithRedzones(launch.arguments[ownerOf[s]].bytes, layouts[s]));
  gpu::WorkerResult result = worker_->launch(work, &death);
  if (death.died || !result.error.empty()) {
    outcome.kernelFailed = true;
    return fail(failure(name, containsAssert(kernel), result, death));
  }
  bool sizesAgree = result.storages.size() == ownerOf.size();
  for (size_t s = 0; s < ownerOf.size() && sizesAgree; ++s) sizesAgree = result.storages[s].size() == layouts[s].total();
  if (!sizesAgree) return fail("the GPU worker returned buffers of other sizes than it was sent (a tilesim bug)");
  for (size_t s = 0; s < ownerOf.size(); ++s) {
    LaunchArgument& owner = launch.arguments[ownerOf[s]];
    const std::vector<uint8_t>& allocation = result.storages[s];
    std::copy(allocation.begin() + static_cast<ptrdiff_t>(layouts[s].front),
              allocation.begin() + static_cast<ptrdiff_t>(layouts[s].front + layouts[s].size), owner.bytes.begin());
    for (Report& report : redzoneReports(launch.kernel->name(), owner.name, layouts[s], findRedzoneWrites(allocation, layouts[s])))
      addReport(outcome.result, std::move(report));
  }
  if (request && timing) {
    timing->launchMs = std::move(result.launchMs);
    timing->registers = result.registers;
  }
  refreshAliasViews(launch, binding.placements());
  // tt.print (vprintf): the worker's stdout went into its pipe; echo it as the interpreter echoes its prints
  // (at most the 64 KiB the worker keeps per request).
  if (options.echoPrints && !worker_->lastOutput().empty()) {
    std::fwrite(worker_->lastOutput().data(), 1, worker_->lastOutput().size(), stdout);
    std::fflush(stdout);
  }
  return outcome;
}

}  // namespace

std::unique_ptr<Engine> createGpuEngineWithDevice(gpu::WorkerClient::DeviceFactory factory, double timeoutSeconds,
                                                  std::string* whyNot) {
  auto worker = std::make_unique<WorkerClient>(std::move(factory), timeoutSeconds);
  WorkerDeath death;
  gpu::WorkerHello hello = worker->start(&death);
  if (death.died) {
    *whyNot = "the GPU worker process could not start: " + death.reason;
    return nullptr;
  }
  if (!hello.ok) {
    *whyNot = hello.whyNot;
    return nullptr;
  }
  return std::make_unique<GpuEngine>(std::move(worker), hello);
}

std::unique_ptr<Engine> createGpuEngine(std::string* whyNot) {
  return createGpuEngineWithDevice(gpu::createCudaWorkerDevice, gpu::workerTimeoutFromEnvironment(), whyNot);
}

}  // namespace tilesim

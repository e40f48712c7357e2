// The GPU worker process (gpu_backend/runtime/GpuWorker.h) without a GPU: fake WorkerDevices run in a real
// forked worker, so the whole path — fork, hello, load, launch, buffers back, a worker that crashes, exits,
// hangs (the watchdog), reports a sticky error or prints a lot — is exercised here; and the GPU engine on top
// of it runs the fault-recovery cases (a wild store, then vadd) through the conformance runner, with a fake
// device that faults like the H200 and adds like vadd.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "conformance/runner/Conformance.h"
#include "conformance/runner/GoldenCase.h"
#include "gpu_backend/GpuEngine.h"
#include "gpu_backend/runtime/GpuWorker.h"
#include "gpu_backend/runtime/WorkerProtocol.h"
#include "interpreter/Interpreter.h"
#include "ir/launch/Redzones.h"
#include "ir/text/Parser.h"

namespace tilesim::gpu {
namespace {

// Loads any PTX; runs the kernel named by the image: add_one (every storage byte + 1), crash (SIGSEGV), quit
// (_exit 7), hang, sticky (an illegal address), chatty (300 KB on stdout, then add_one), pid (writes getpid()
// into storage 0); vadd (out = x + y for i < n), store_past_end (vadd, and 12.5 into out[n]: one element past
// out's end, in its redzone), wild_store (an illegal address), check (prints a tt.assert
// line, then traps) for the engine.
class FakeDevice final : public WorkerDevice {
 public:
  WorkerHello open() override { return {true, "", "Fake GPU", 90, 13000}; }
  LoadReply load(const KernelImage& image) override {
    LoadReply reply;
    if (image.ptx.empty()) return reply;  // no caches: the parent must send the PTX
    names_[image.key] = image.name;
    return {true, "", "compiled", image.name, image.threads, image.sharedBytes, 0.5};
  }
  WorkerResult run(WorkerLaunch& launch) override {
    WorkerResult result;
    const std::string name = names_.count(launch.key) ? names_[launch.key] : "?";
    if (name == "crash") ::raise(SIGSEGV);
    if (name == "quit") ::_exit(7);
    if (name == "hang" || name == "spin")
      while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (name == "sticky" || name == "wild_store") {
      result.error = "cuCtxSynchronize(" + name + "): an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)";
      result.sticky = true;
      return result;
    }
    if (name == "check") {
      // Left in stdio's buffer, as the driver's printf leaves it: serveWorker must flush it before replying.
      std::printf("kernel.ttir:7:5: program (1, 0, 0) element 5: assertion failed: x < 10\n");
      result.error = "cuCtxSynchronize(check): an illegal instruction was encountered (CUDA_ERROR_ILLEGAL_INSTRUCTION)";
      result.sticky = true;
      return result;
    }
    if (name == "chatty") {
      std::string line(999, 'x');
      for (int i = 0; i < 300; ++i) std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
    if (name == "pid") {
      const pid_t pid = ::getpid();
      std::memcpy(launch.storages.at(0).data(), &pid, sizeof(pid));
    } else if (name == "vadd") {
      auto element = [&](size_t parameter, int32_t i) -> float* {
        const WorkerParameter& p = launch.parameters.at(parameter);
        return reinterpret_cast<float*>(launch.storages.at(p.storage).data() + p.offset) + i;
      };
      int32_t n = 0;
      std::memcpy(&n, launch.parameters.at(3).bytes.data(), sizeof(n));
      for (int32_t i = 0; i < n; ++i) *element(2, i) = *element(0, i) + *element(1, i);
    } else if (name == "store_past_end") {  // the mask off by one: lane n stores too (x[n], y[n] read as 0)
      auto element = [&](size_t parameter, int32_t i) -> float* {
        const WorkerParameter& p = launch.parameters.at(parameter);
        return reinterpret_cast<float*>(launch.storages.at(p.storage).data() + p.offset) + i;
      };
      int32_t n = 0;
      std::memcpy(&n, launch.parameters.at(3).bytes.data(), sizeof(n));
      for (int32_t i = 0; i <= n; ++i) *element(2, i) = i < n ? *element(0, i) + *element(1, i) : 12.5f;
    } else {
      for (auto& storage : launch.storages)
        for (uint8_t& byte : storage) ++byte;
    }
    result.storages = std::move(launch.storages);
    return result;
  }

 private:
  std::map<std::string, std::string> names_;
};

std::unique_ptr<WorkerDevice> makeFake() { return std::make_unique<FakeDevice>(); }

// Loads `name` into the client's worker and launches it on one 4-byte storage holding {1, 2, 3, 4}.
WorkerResult launchNamed(WorkerClient& client, const std::string& name, WorkerDeath* death) {
  LoadReply reply = client.load({"key-" + name, name, 128, 0, "// ptx of " + name}, death);
  if (death->died) return {};
  EXPECT_TRUE(reply.found) << reply.error;
  WorkerLaunch launch;
  launch.key = "key-" + name;
  launch.storages.push_back({1, 2, 3, 4});
  launch.parameters.push_back({true, 0, 0, {}});
  return client.launch(launch, death);
}

// Launches fake kernel `name`, which must end the worker; how it died.
WorkerDeath deathLaunching(WorkerClient& client, const std::string& name) {
  WorkerDeath death;
  launchNamed(client, name, &death);
  EXPECT_TRUE(death.died) << name;
  return death;
}

TEST(WorkerProtocol, FieldsRoundTripAndTruncationIsDetected) {
  MessageWriter out;
  out.u32(7);
  out.i64(-5);
  out.f64(0.25);
  out.string("vadd");
  out.bytes("\0\1\2", 3);
  MessageReader in(out.payload());
  EXPECT_EQ(in.u32(), 7u);
  EXPECT_EQ(in.i64(), -5);
  EXPECT_EQ(in.f64(), 0.25);
  EXPECT_EQ(in.string(), "vadd");
  EXPECT_EQ(in.bytes(), (std::vector<uint8_t>{0, 1, 2}));
  EXPECT_TRUE(in.ok() && in.atEnd());
  std::vector<uint8_t> truncated(out.payload().begin(), out.payload().end() - 2);
  MessageReader short_(truncated);
  short_.u32();
  short_.i64();
  short_.f64();
  short_.string();
  EXPECT_TRUE(short_.bytes().empty());
  EXPECT_FALSE(short_.ok());
}

TEST(GpuWorker, RunsALaunchAndSendsTheBuffersBack) {
  WorkerClient client(makeFake, 10);
  WorkerDeath death;
  WorkerHello hello = client.start(&death);
  ASSERT_FALSE(death.died) << death.reason;
  EXPECT_TRUE(hello.ok);
  EXPECT_EQ(hello.deviceName, "Fake GPU");
  EXPECT_EQ(hello.computeCapability, 90);
  EXPECT_NE(client.pid(), ::getpid());
  WorkerResult result = launchNamed(client, "add_one", &death);
  ASSERT_FALSE(death.died) << death.reason;
  ASSERT_EQ(result.error, "");
  ASSERT_EQ(result.storages.size(), 1u);
  EXPECT_EQ(result.storages[0], (std::vector<uint8_t>{2, 3, 4, 5}));
  EXPECT_EQ(client.generation(), 1);
}

TEST(GpuWorker, ACrashIsReportedAndTheNextLaunchStartsANewWorker) {
  WorkerClient client(makeFake, 10);
  WorkerDeath death = deathLaunching(client, "crash");
  EXPECT_FALSE(death.timedOut);
  EXPECT_NE(death.reason.find("killed by signal 11"), std::string::npos) << death.reason;
  EXPECT_FALSE(client.running());
  WorkerResult result = launchNamed(client, "add_one", &death);
  ASSERT_FALSE(death.died) << death.reason;
  EXPECT_EQ(result.storages.at(0), (std::vector<uint8_t>{2, 3, 4, 5}));
  EXPECT_EQ(client.generation(), 2);
}

TEST(GpuWorker, AnExitIsReported) {
  WorkerClient client(makeFake, 10);
  const WorkerDeath death = deathLaunching(client, "quit");
  EXPECT_NE(death.reason.find("exited with status 7"), std::string::npos) << death.reason;
}

TEST(GpuWorker, AStickyErrorEndsTheWorkerAndTheNextLaunchWorks) {
  WorkerClient client(makeFake, 10);
  WorkerDeath death;
  WorkerResult result = launchNamed(client, "sticky", &death);
  ASSERT_FALSE(death.died) << death.reason;  // it answered, then exited
  EXPECT_TRUE(result.sticky);
  EXPECT_NE(result.error.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos);
  EXPECT_FALSE(client.running());
  result = launchNamed(client, "add_one", &death);
  ASSERT_FALSE(death.died) << death.reason;
  EXPECT_EQ(result.storages.at(0), (std::vector<uint8_t>{2, 3, 4, 5}));
}

TEST(GpuWorker, TheWatchdogStopsARunawayLaunch) {
  WorkerClient client(makeFake, 0.5);
  WorkerDeath death;
  const auto start = std::chrono::steady_clock::now();
  launchNamed(client, "hang", &death);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(death.died);
  EXPECT_TRUE(death.timedOut);
  EXPECT_NE(death.reason.find("did not finish within 0.5 s"), std::string::npos) << death.reason;
  EXPECT_NE(death.reason.find("was stopped"), std::string::npos) << death.reason;
  EXPECT_LT(seconds, 5.0);
  EXPECT_FALSE(client.running());
  WorkerResult result = launchNamed(client, "add_one", &death);
  ASSERT_FALSE(death.died) << death.reason;
  EXPECT_EQ(result.storages.at(0), (std::vector<uint8_t>{2, 3, 4, 5}));
}

TEST(GpuWorker, AWorkerThatPrintsALotDoesNotBlock) {
  WorkerClient client(makeFake, 10);
  WorkerDeath death;
  WorkerResult result = launchNamed(client, "chatty", &death);
  ASSERT_FALSE(death.died) << death.reason;
  EXPECT_EQ(result.storages.at(0), (std::vector<uint8_t>{2, 3, 4, 5}));
  EXPECT_EQ(client.lastOutput().size(), size_t{1} << 16);  // kept up to 64 KiB, the rest drained
}

TEST(GpuWorker, EachLaunchRunsInTheWorkerNotInThisProcess) {
  WorkerClient client(makeFake, 10);
  WorkerDeath death;
  WorkerResult result = launchNamed(client, "pid", &death);
  ASSERT_FALSE(death.died) << death.reason;
  pid_t pid = 0;
  std::memcpy(&pid, result.storages.at(0).data(), sizeof(pid));
  EXPECT_EQ(pid, client.pid());
  EXPECT_NE(pid, ::getpid());
}

TEST(GpuWorker, TheWorkerDiesWithItsParent) {
  // A helper process starts a worker and ends without stopping it; the worker, reparented to this process (a
  // subreaper), must be gone too, not left holding a GPU context.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  const pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    auto* client = new WorkerClient(makeFake, 10);  // leaked on purpose: no Quit, no reap
    WorkerDeath death;
    client->start(&death);
    const pid_t worker = client->pid();
    if (::write(pipeFds[1], &worker, sizeof(worker)) != sizeof(worker)) ::_exit(1);
    ::_exit(0);
  }
  pid_t worker = -1;
  ASSERT_EQ(::read(pipeFds[0], &worker, sizeof(worker)), static_cast<ssize_t>(sizeof(worker)));
  ::close(pipeFds[0]);
  ::close(pipeFds[1]);
  ASSERT_GT(worker, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(helper, &status, 0), helper);
  pid_t reaped = 0;
  for (int tick = 0; tick < 500 && reaped == 0; ++tick) {  // at most 5 s
    reaped = ::waitpid(worker, &status, WNOHANG);
    if (reaped == 0) ::usleep(10000);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  EXPECT_EQ(reaped, worker);  // by PR_SET_PDEATHSIG's SIGKILL or the closed socket, whichever comes first
}

// The GPU engine over a fake device: the fault-recovery pair through the conformance runner, in one process.
TEST(GpuEngineWorker, AFaultNamesTheKernelAndTheNextCasePasses) {
  std::string whyNot;
  std::unique_ptr<Engine> engine = createGpuEngineWithDevice(makeFake, 10, &whyNot);
  ASSERT_TRUE(engine) << whyNot;
  EXPECT_EQ(engine->description(), "gpu: Fake GPU (sm_90a)");
  const std::string dir = std::string(TILESIM_SOURCE_DIR) + "/gpu_backend/tests/fault-recovery/";
  CaseOptions options;
  options.profile = FloatProfile::Triton;
  CaseOutcome wild = runCase(dir + "a_wild_store", options, *engine);
  ASSERT_EQ(wild.status, CaseOutcome::Status::Error);
  EXPECT_NE(wild.error.find("the GPU run of kernel @wild_store faulted: cuCtxSynchronize(wild_store): an illegal "
                            "memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)"),
            std::string::npos)
      << wild.error;
  EXPECT_NE(wild.error.find("the next launch starts a new one"), std::string::npos) << wild.error;
  CaseOutcome vadd = runCase(dir + "b_vadd_after_fault", options, *engine);
  EXPECT_TRUE(vadd.passed()) << vadd.details() << vadd.error;
  // Again, so the second fault and recovery work too.
  EXPECT_EQ(runCase(dir + "a_wild_store", options, *engine).status, CaseOutcome::Status::Error);
  EXPECT_TRUE(runCase(dir + "b_vadd_after_fault", options, *engine).passed());
}

// A fault is the kernel's failure, not the launch's: the outcome says so (`tilesim run` exits 1 on it, not 2),
// while an argument that does not bind is the launch's.
TEST(GpuEngineWorker, AFaultIsMarkedAsTheKernelFailingAndABadArgumentIsNot) {
  std::string whyNot;
  std::unique_ptr<Engine> engine = createGpuEngineWithDevice(makeFake, 10, &whyNot);
  ASSERT_TRUE(engine) << whyNot;
  CaseLoad load = loadGoldenCase(std::string(TILESIM_SOURCE_DIR) + "/gpu_backend/tests/fault-recovery/a_wild_store");
  ASSERT_TRUE(load.ok()) << load.error;
  ParseResult parsed = parseModuleFile(load.goldenCase.kernelPath);
  ASSERT_TRUE(parsed.module) << load.goldenCase.kernelPath;
  CaseLaunch built = caseLaunch(load.goldenCase, *parsed.module);
  ASSERT_TRUE(built.error.empty()) << built.error;
  LaunchOptions options;
  options.profile = FloatProfile::Triton;
  Launch faulting = built.launch;
  LaunchOutcome fault = engine->run(faulting, options);
  ASSERT_FALSE(fault.started());
  EXPECT_TRUE(fault.kernelFailed) << fault.diagnostics[0].message;
  Launch unbound = built.launch;
  unbound.arguments.pop_back();
  LaunchOutcome refused = engine->run(unbound, options);
  ASSERT_FALSE(refused.started());
  EXPECT_FALSE(refused.kernelFailed) << refused.diagnostics[0].message;
}

// A store one element past a buffer (gpu_backend/tests/redzone/store_past_end) is a finding in that buffer's
// redzone: an out-of-bounds report naming the kernel, the buffer, the offset and the bytes, which fails the
// case; the interpreter reports the same write, so the two engines agree (compareOutOfBoundsWrites).
TEST(GpuEngineWorker, AStorePastABufferIsFoundInItsRedzoneAndAgreesWithTheInterpreter) {
  std::string whyNot;
  std::unique_ptr<Engine> engine = createGpuEngineWithDevice(makeFake, 10, &whyNot);
  ASSERT_TRUE(engine) << whyNot;
  const std::string dir = std::string(TILESIM_SOURCE_DIR) + "/gpu_backend/tests/redzone/store_past_end";
  CaseOutcome gpu = runCase(dir, CaseOptions{}, *engine);
  ASSERT_EQ(gpu.status, CaseOutcome::Status::Failed) << gpu.details() << gpu.error;
  ASSERT_EQ(gpu.launch.reports.size(), 1u) << gpu.details();
  const Report& finding = gpu.launch.reports[0];
  EXPECT_EQ(finding.kind, Report::Kind::OutOfBounds);
  EXPECT_EQ(finding.buffer, "out_ptr");
  EXPECT_EQ(finding.byteOffset, 40);
  EXPECT_EQ(finding.str(),
            "out-of-bounds: write of 4 bytes at byte offset 40..43 of out_ptr (40 bytes; 0 bytes past the end), seen in "
            "its redzone after the GPU run of @store_past_end: now 00 00 48 41 [program unknown, redzone check]");
  EXPECT_EQ(gpu.launch.total(Report::Kind::OutOfBounds), 1);
  // The buffer itself came back without the redzones: every output right.
  ASSERT_EQ(gpu.outputs.size(), 1u);
  EXPECT_TRUE(gpu.outputs[0].passed()) << gpu.details();

  InterpreterEngine interpreter;
  CaseOutcome interp = runCase(dir, CaseOptions{}, interpreter);
  ASSERT_EQ(interp.status, CaseOutcome::Status::Failed) << interp.details() << interp.error;
  EXPECT_EQ(compareOutOfBoundsWrites(interp.arguments, interp.launch.reports, gpu.launch.reports, "gpu"), "");
  // Without the interpreter's report (the planted-bug situation: its mask was right), they disagree.
  EXPECT_NE(compareOutOfBoundsWrites(interp.arguments, {}, gpu.launch.reports, "gpu"), "");
}

TEST(GpuEngineWorker, AnAssertTrapIsReportedAsAnAssertion) {
  std::string whyNot;
  std::unique_ptr<Engine> engine = createGpuEngineWithDevice(makeFake, 10, &whyNot);
  ASSERT_TRUE(engine) << whyNot;
  CaseOutcome outcome = runCase(std::string(TILESIM_SOURCE_DIR) + "/conformance/engine/control/assert_first_failing_lane",
                                CaseOptions{}, *engine);
  ASSERT_EQ(outcome.status, CaseOutcome::Status::Error);
  EXPECT_NE(outcome.error.find("the GPU run of kernel @check faulted: the kernel asserted (tt.assert trapped): "), std::string::npos)
      << outcome.error;
  EXPECT_NE(outcome.error.find("the kernel printed: kernel.ttir:7:5: program (1, 0, 0) element 5: assertion failed: x < 10"),
            std::string::npos)
      << outcome.error;
}

TEST(GpuEngineWorker, TheWatchdogStopsARunawayKernelAndTheNextCasePasses) {
  std::string whyNot;
  std::unique_ptr<Engine> engine = createGpuEngineWithDevice(makeFake, 0.5, &whyNot);
  ASSERT_TRUE(engine) << whyNot;
  const std::string dir = std::string(TILESIM_SOURCE_DIR) + "/gpu_backend/tests/fault-recovery/";
  CaseOutcome spin = runCase(dir + "c_runaway_loop", CaseOptions{}, *engine);
  ASSERT_EQ(spin.status, CaseOutcome::Status::Error);
  EXPECT_NE(spin.error.find("the GPU run of kernel @spin was stopped: it did not finish within 0.5 s (TILESIM_GPU_TIMEOUT "
                            "or --gpu-timeout); the GPU worker (pid "),
            std::string::npos)
      << spin.error;
  EXPECT_TRUE(runCase(dir + "b_vadd_after_fault", CaseOptions{}, *engine).passed());
}

}  // namespace
}  // namespace tilesim::gpu

// Running a campaign (see Campaign.h): the program loop over worker threads, the per-program checks against the
// target, shrinking and writing failures, emitting cases, and the live progress line.
#include "fuzz/campaign/Campaign.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include "conformance/runner/Compare.h"
#include "fuzz/campaign/Shrink.h"
#include "fuzz/campaign/TargetChecks.h"
#include "fuzz/programs/ProgramCheck.h"
#include "fuzz/programs/RegressionWriter.h"
#include "interpreter/Interpreter.h"
#include "ir/FileIO.h"
#include "ir/FloatBits.h"

namespace tilesim::fuzz {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t fnv1a(const void* data, size_t size, uint64_t hash = 0xCBF29CE484222325ull) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 0x100000001B3ull;
  return hash;
}

std::string checkName(const std::string& message) {
  size_t colon = message.find(':');
  return colon == std::string::npos ? "error" : message.substr(0, colon);
}

struct Verdict {
  ProgramStatus status = ProgramStatus::Passed;
  std::string check, message;
  FailureClass failure;               // how it failed (the shrinker keeps candidates that fail the same way)
  std::vector<EngineOutputs> others;  // the target's buffers, for the regression case
  std::map<std::string, std::string> files;  // written into the regression case (the triton target's TTIR)
};

// Compares the target's buffers with the interpreter's; "" when they agree.
std::string compareWithTarget(const CheckedProgram& program, const std::vector<LaunchArgument>& oracle,
                              const std::vector<LaunchArgument>& got, bool useBounds, const char* targetName,
                              std::vector<std::string>& differing) {
  std::string message;
  size_t buffer = 0;
  for (size_t i = 0; i < oracle.size(); ++i) {
    if (!oracle[i].isBuffer()) continue;
    const std::vector<uint8_t>& undefined = program.undefinedElements.at(buffer++);
    const int bytes = storageBytes(oracle[i].elementKind);
    const int64_t count = static_cast<int64_t>(oracle[i].bytes.size()) / bytes;
    // Undefined elements take the oracle's bits so that they compare equal.
    std::vector<uint8_t> candidate = got[i].bytes;
    for (int64_t e = 0; e < count; ++e)
      if (undefined[static_cast<size_t>(e)]) std::memcpy(candidate.data() + e * bytes, oracle[i].bytes.data() + e * bytes, bytes);
    std::vector<int64_t> shape{count};
    std::vector<double> bounds = useBounds ? oracle[i].errorBound : std::vector<double>{};
    OutputComparison comparison = compareOutput(oracle[i].name, oracle[i].elementKind, shape, candidate, oracle[i].bytes, bounds);
    if (!comparison.passed()) {
      message += std::string("  ") + targetName + " " + comparison.details() + "\n";
      differing.push_back(oracle[i].name);
    }
  }
  return message;
}

// A file written beside a regression case (the triton target's optimised TTIR and TTGIR), by replacing its
// directory entry as the case's own files are (ir/FileIO.h): never through a planted link.
void writeTextBeside(const std::filesystem::path& path, const std::string& text) {
  if (std::string error = replaceFile(path.string(), text); !error.empty())
    std::fprintf(stderr, "tilesim fuzz: cannot write %s: %s\n", path.c_str(), error.c_str());
}

}  // namespace

uint64_t programSeed(uint64_t campaignSeed, int64_t index) {
  return splitmix64(splitmix64(campaignSeed) ^ static_cast<uint64_t>(index));
}

KernelPlan planFor(uint64_t campaignSeed, int64_t index) {
  // RapidCheck's generation context (the implicit handler stack gen::exec uses) is process-global, not per thread.
  static std::mutex generatorMutex;
  std::lock_guard<std::mutex> lock(generatorMutex);
  return genKernelPlan()(rc::Random(programSeed(campaignSeed, index)), 100).value();
}

std::string findPtxas() {
  namespace fs = std::filesystem;
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    for (size_t start = 0; start <= all.size();) {
      size_t end = all.find(':', start);
      if (end == std::string::npos) end = all.size();
      fs::path candidate = fs::path(all.substr(start, end - start)) / "ptxas";
      std::error_code ec;
      if (end > start && fs::is_regular_file(candidate, ec)) return candidate.string();
      start = end + 1;
    }
  }
  std::error_code ec;
  if (fs::is_regular_file("/usr/local/cuda/bin/ptxas", ec)) return "/usr/local/cuda/bin/ptxas";
  return "";
}

namespace {

class Worker {
 public:
  Worker(const CampaignOptions& options, std::chrono::steady_clock::time_point start)
      : options_(options), start_(start) {
    if (options.makeTarget) target_ = options.makeTarget();
    if (options.targetName == "triton" || options.targetName == "triton-passes") triton_ = std::make_unique<TritonTarget>(options.triton);
  }

  // Every check for one plan. `program` keeps what the interpreter computed.
  Verdict check(const KernelPlan& plan, CheckedProgram& program, std::map<std::string, int64_t>* checksRun) {
    Verdict verdict;
    auto ran = [&](const char* name) { if (checksRun) ++(*checksRun)[name]; };
    std::string message = checkProgram(plan, interpreter_, program);
    ran("round-trip"); ran("verifier");
    if (!message.empty()) {
      verdict.status = ProgramStatus::Failed;
      verdict.check = checkName(message);
      verdict.message = message;
      verdict.failure = program.failure;
      return verdict;
    }
    ran("reference"); ran("determinism");
    if (triton_) {
      const bool undefinedBehaviour = program.reference.undefinedBehaviour ||
                                      (program.reference.undefinedBehaviourPossible && (plan.features & kFeatureUB));
      TritonVerdict triton = triton_->check(plan, program, interpreter_, !undefinedBehaviour, ran);
      verdict.status = triton.failed ? ProgramStatus::Failed : triton.skipped ? ProgramStatus::Skipped : ProgramStatus::Passed;
      verdict.check = triton.check;
      verdict.message = triton.message;
      verdict.failure = triton.failure;
      verdict.files = std::move(triton.files);
      verdict.others = std::move(triton.others);
      if (triton.failed) return verdict;
    }
    if (target_) {
      // Lanes with undefined behaviour have no single right answer. Without the UB feature an undefined lane can
      // only reach a divisor `b | 1` or a sanitised float->int cast, which are never UB whatever its bits.
      if (program.reference.undefinedBehaviour ||
          (program.reference.undefinedBehaviourPossible && (plan.features & kFeatureUB))) {
        verdict.status = ProgramStatus::Skipped;
        verdict.check = "target-ub";
        verdict.message = "the program has undefined behaviour in some lane; its result is not compared";
      } else if (std::string large = tooLargeForGpu(plan, program); !large.empty()) {
        verdict.status = ProgramStatus::Skipped;
        verdict.check = "target-too-large";
        verdict.message = large;
      } else if (std::string unspecified = options_.tritonProfile ? unfollowedApproximateValue(*program.parsed) : "";
                 !unspecified.empty()) {
        verdict.status = ProgramStatus::Skipped;
        verdict.check = "target-unspecified";
        verdict.message = unspecified;
      } else {
        ran("target");
        Launch launch = launchOf(plan, program);
        LaunchOptions launchOptions;
        launchOptions.echoPrints = false;
        launchOptions.profile = options_.tritonProfile ? FloatProfile::Triton : FloatProfile::Exact;
        LaunchOutcome outcome = target_->run(launch, launchOptions);
        if (!outcome.started() && isTargetFault(outcome.diagnostics[0].message)) {
          verdict.status = ProgramStatus::Failed;
          verdict.check = "target-fault";
          verdict.failure = {"target-fault: " + withoutNumbers(outcome.diagnostics[0].message), {}};
          verdict.message = std::string("target-fault: the interpreter runs the program with no report; ") +
                            target_->name() + ": " + outcome.diagnostics[0].message + "\n" + program.built.summary +
                            program.text;
          return verdict;
        } else if (!outcome.started()) {
          verdict.status = ProgramStatus::Skipped;
          verdict.check = "target-unsupported";
          verdict.message = outcome.diagnostics.empty() ? "did not start" : outcome.diagnostics[0].str();
        } else {
          std::vector<LaunchArgument> oracle = options_.tritonProfile ? program.tritonOutputs : program.exactOutputs;
          if (options_.tritonProfile) reduceInTargetOrder(options_, interpreter_, plan, program, oracle);
          std::vector<std::string> differing;
          std::string mismatch =
              compareWithTarget(program, oracle, launch.arguments, options_.tritonProfile, target_->name(), differing);
          if (!mismatch.empty()) {
            verdict.status = ProgramStatus::Failed;
            verdict.check = "target-mismatch";
            verdict.failure = {"target-mismatch", differing};
            verdict.message = std::string("target-mismatch: interp and ") + target_->name() + " disagree\n" + mismatch +
                              program.built.summary + program.text;
            EngineOutputs others{target_->name(), {}};
            for (const LaunchArgument& argument : launch.arguments)
              if (argument.isBuffer()) others.buffers.push_back(argument.bytes);
            verdict.others.push_back(std::move(others));
            return verdict;
          }
          std::vector<std::string> written;
          if (std::string stray = strayWrites(launch.arguments, outcome.result, target_->name(), written); !stray.empty()) {
            verdict.status = ProgramStatus::Failed;
            verdict.check = "oob-write";
            verdict.failure = {"oob-write", written};
            verdict.message = stray + program.built.summary + program.text;
            EngineOutputs others{target_->name(), {}};
            for (const LaunchArgument& argument : launch.arguments)
              if (argument.isBuffer()) others.buffers.push_back(argument.bytes);
            verdict.others.push_back(std::move(others));
            return verdict;
          }
        }
      }
    }
    if (options_.checkPtxas) {
      if (options_.ptxas.empty()) {
        if (verdict.status == ProgramStatus::Passed) {
          verdict.status = ProgramStatus::Skipped;
          verdict.check = "ptxas-absent";
        }
      } else if (std::string large = tooLargeForGpu(plan, program); !large.empty()) {
        if (verdict.status == ProgramStatus::Passed) {
          verdict.status = ProgramStatus::Skipped;
          verdict.check = "ptxas-too-large";
          verdict.message = large;
        }
      } else {
        std::string ptxas = checkPtxas(options_.ptxas, plan, program);
        if (!ptxas.empty()) {
          if (ptxas.rfind("ptxas-unsupported", 0) == 0) {
            if (verdict.status == ProgramStatus::Passed) {
              verdict.status = ProgramStatus::Skipped;
              verdict.check = "ptxas-unsupported";
              verdict.message = ptxas;
            }
          } else {
            verdict.status = ProgramStatus::Failed;
            verdict.check = "ptxas";
            verdict.message = ptxas + "\n" + program.text;
            verdict.failure = {withoutNumbers(ptxas), {}};
          }
        } else {
          ran("ptxas");
        }
      }
    }
    return verdict;
  }

  ProgramRecord runProgram(int64_t index, std::map<std::string, int64_t>& checksRun) {
    ProgramRecord record;
    record.index = index;
    record.seed = programSeed(options_.seed, index);
    const auto generateStart = std::chrono::steady_clock::now();
    KernelPlan plan = planFor(options_.seed, index);
    CheckedProgram program;
    if (options_.timings) {
      program.stages = &stages_;
      stages_.generate += std::chrono::duration<double>(std::chrono::steady_clock::now() - generateStart).count();
    }
    Verdict verdict = check(plan, program, &checksRun);
    record.status = verdict.status;
    record.check = verdict.check;
    record.message = firstLine(verdict.message);
    record.opCounts = program.opCounts;
    std::set<std::string> dtypes;
    for (size_t i = 0; i < program.built.argumentDTypes.size(); ++i)
      dtypes.insert(std::string(builder::dtypeName(program.built.argumentDTypes[i])));
    record.dtypes.assign(dtypes.begin(), dtypes.end());
    record.features = programFeatures(plan, program.opCounts, &program.built.arguments);
    uint64_t digest = fnv1a(program.text.data(), program.text.size());
    for (const LaunchArgument& argument : program.exactOutputs) digest = fnv1a(argument.bytes.data(), argument.bytes.size(), digest);
    digest = fnv1a(&record.status, 1, digest);
    record.digest = digest;
    if (!options_.emitDir.empty() && !program.tritonOutputs.empty()) emit(record, program);
    if (record.status == ProgramStatus::Failed) record.casePath = shrinkAndSave(plan, verdict, record);
    return record;
  }

 private:
  void emit(const ProgramRecord& record, const CheckedProgram& program) {
    char name[64];
    std::snprintf(name, sizeof name, "s%llu_p%07lld", static_cast<unsigned long long>(options_.seed),
                  static_cast<long long>(record.index));
    std::vector<std::vector<uint8_t>> expected;
    for (const LaunchArgument& argument : program.tritonOutputs) expected.push_back(argument.bytes);
    CaseWriteOptions write;
    write.note = "generated by tilesim fuzz; expected = the interpreter under the triton profile";
    bool anyUndefined = false;
    nlohmann::ordered_json undefinedCounts = nlohmann::ordered_json::object();
    for (size_t i = 0; i < program.undefinedElements.size(); ++i) {
      int64_t n = 0;
      for (uint8_t u : program.undefinedElements[i]) n += u;
      if (n) {
        anyUndefined = true;
        undefinedCounts[program.built.arguments[i].name] = n;
      }
    }
    nlohmann::ordered_json fuzz;
    fuzz["campaign_seed"] = options_.seed;
    fuzz["index"] = record.index;
    fuzz["program_seed"] = record.seed;
    fuzz["status"] = record.status == ProgramStatus::Passed ? "passed" : record.status == ProgramStatus::Failed ? "failed" : "skipped";
    fuzz["features"] = record.features;
    // Elements an undefined lane was stored to have unspecified bits; a consumer must not compare them.
    fuzz["undefined_elements"] = undefinedCounts;
    fuzz["undefined_behaviour"] = program.reference.undefinedBehaviour || program.reference.undefinedBehaviourPossible;
    fuzz["undefined_reaches_memory"] = program.undefinedStore;
    write.extra["fuzz"] = fuzz;
    if (anyUndefined || program.undefinedStore) write.extra["expect_reports"] = nlohmann::ordered_json::array({{{"kind", "undefined-value"}}});
    std::string error = writeCase(options_.emitDir, name, program.built, expected, write);
    if (!error.empty()) std::fprintf(stderr, "tilesim fuzz: cannot emit %s: %s\n", name, error.c_str());
  }

  std::string shrinkAndSave(const KernelPlan& plan, const Verdict& verdict, ProgramRecord& record) {
    KernelPlan minimal = plan;
    ShrinkStats stats;
    if (options_.shrink) {
      // Only a candidate that fails the same way: the same check, the same kind of failure in it, on the same
      // buffers (sameFailure) — not a candidate whose change made some other failure.
      ShrinkPredicate stillFails = [&](const KernelPlan& candidate, const std::vector<int>& outputOrigin) {
        // A time-bounded campaign ends on time: past the grace period the shrinker keeps what it has.
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (options_.seconds > 0 && elapsed > options_.seconds + options_.shrinkGraceSeconds) return false;
        CheckedProgram program;
        Verdict v = check(candidate, program, nullptr);
        return v.status == ProgramStatus::Failed && v.check == verdict.check &&
               sameFailure(verdict.failure, v.failure, outputOrigin);
      };
      minimal = shrinkPlan(plan, stillFails, options_.shrinkBudget, &stats);
    }
    CheckedProgram program;
    Verdict final = check(minimal, program, nullptr);
    if (final.status != ProgramStatus::Failed) final = verdict;  // should not happen: the shrinker checked it
    if (!program.parsed) return "(not saved: the minimal plan does not build)";
    // Expected: the reference (interp target: the interpreter is what is wrong) or the interpreter (other targets).
    std::vector<std::vector<uint8_t>> expected;
    std::vector<EngineOutputs> others = final.others;
    const bool targetCheck = final.check == "target-mismatch" || final.check == "oob-write" || final.check == "target-fault";
    if (targetCheck) {
      // Expected: the interpreter's outputs under the campaign's profile, which case.json records, so that
      // `tilesim run DIR --engine gpu` judges as the campaign did (exact: bit for bit).
      const std::vector<LaunchArgument>& outputs = options_.tritonProfile ? program.tritonOutputs : program.exactOutputs;
      for (const LaunchArgument& argument : outputs) expected.push_back(argument.bytes);
    } else if (!program.reference.buffers.empty()) {
      expected = program.reference.buffers;
    } else {
      for (const LaunchArgument& argument : program.built.arguments) expected.push_back(argument.bytes);
    }
    if (expected.size() != program.built.arguments.size()) return "(not saved: no expected buffers)";
    const uint64_t hash = fnv1a(program.text.data(), program.text.size());
    char name[96];
    std::snprintf(name, sizeof name, "fuzz_%s_%s_%08llx", options_.targetName.c_str(), final.check.c_str(),
                  static_cast<unsigned long long>(hash & 0xFFFFFFFFu));
    CaseWriteOptions write;
    write.note = firstLine(final.message) + " (campaign seed " + std::to_string(options_.seed) + ", program " +
                 std::to_string(record.index) + "; shrunk in " + std::to_string(stats.tried) + " tries, " +
                 std::to_string(stats.accepted) + " accepted)";
    write.others = others;
    nlohmann::ordered_json fuzz;
    fuzz["campaign_seed"] = options_.seed;
    fuzz["index"] = record.index;
    fuzz["target"] = options_.targetName;
    fuzz["check"] = final.check;
    fuzz["ops"] = program.opCounts;
    fuzz["profile"] = options_.tritonProfile ? "triton" : "exact";
    write.extra["fuzz"] = fuzz;
    addReplayFields(write.extra, program, final.check, targetCheck, options_.tritonProfile);
    const std::string dir = options_.regressionDir.empty() ? "conformance/regressions" : options_.regressionDir;
    std::string error = writeCase(dir, name, program.built, expected, write);
    if (!error.empty()) return "(not saved: " + error + ")";
    if (FILE* file = std::fopen((std::filesystem::path(dir) / name / "failure.txt").c_str(), "w")) {
      std::fputs(final.message.c_str(), file);
      std::fputc('\n', file);
      std::fclose(file);
    }
    for (const auto& [file, text] : final.files) writeTextBeside(std::filesystem::path(dir) / name / file, text);
    return (std::filesystem::path(dir) / name).string();
  }

 public:
  StageSeconds stages_;  // this worker's stage times (with --timings)

 private:
  const CampaignOptions& options_;
  std::chrono::steady_clock::time_point start_;
  InterpreterEngine interpreter_;
  std::unique_ptr<Engine> target_;
  std::unique_ptr<TritonTarget> triton_;  // target triton: this job's worker process
};

}  // namespace

namespace {
std::atomic<bool> stopRequested{false};
}  // namespace

void requestCampaignStop() { stopRequested.store(true); }

namespace {
// This process and the children it has waited for (ptxas, the triton target's Python workers: each job's worker
// is waited for when the job ends, before the campaign's CPU time is read).
double processCpuSeconds() {
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    total += seconds(usage.ru_utime) + seconds(usage.ru_stime);
  }
  return total;
}
}  // namespace

CampaignResult runCampaign(const CampaignOptions& options) {
  CampaignResult result;
  const double cpuStart = processCpuSeconds();
  result.summary.seed = options.seed;
  result.summary.target = options.targetName;
  result.summary.shards.push_back(std::to_string(options.shardIndex) + "/" + std::to_string(options.shardCount));
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::atomic<int64_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  const int jobs = std::max(1, options.jobs);
  // The shard's indices from `first` upward: first + j with (first + j) % N == I.
  const int64_t firstIndex = options.first + ((options.shardIndex - options.first % options.shardCount) % options.shardCount +
                                         options.shardCount) % options.shardCount;
  auto indexOf = [&](int64_t k) { return firstIndex + k * options.shardCount; };
  // Shared with the worker threads through a shared_ptr: a thread abandoned in a hung program may outlive this call.
  struct Slot {
    std::atomic<int64_t> index{-1};     // the program being run, -1 between programs
    std::atomic<double> since{0};       // elapsed() when it started
    std::atomic<bool> done{false};
    std::atomic<bool> abandoned{false};  // reported as hung; the thread must touch nothing else when it returns
  };
  auto slots = std::make_shared<std::vector<Slot>>(static_cast<size_t>(jobs));
  auto work = [&, slots](int id) {
    Slot& slot = (*slots)[static_cast<size_t>(id)];
    Worker worker(options, start);
    for (;;) {
      if (stop.load()) break;
      if (options.seconds > 0 && elapsed() >= options.seconds) break;
      int64_t index = indexOf(next.fetch_add(1));
      if (options.count > 0 && index >= options.count) break;
      if (options.count <= 0 && options.seconds <= 0) break;
      std::map<std::string, int64_t> checksRun;
      slot.since = elapsed();
      slot.index = index;
      ProgramRecord record = worker.runProgram(index, checksRun);
      if (slot.abandoned) return;  // runCampaign has returned without this program
      slot.index = -1;
      std::lock_guard<std::mutex> lock(mutex);
      result.summary.add(record);
      if (options.maxFailures > 0 && result.summary.failed >= options.maxFailures) stop = true;
      for (const auto& [name, n] : checksRun) result.summary.checks[name] += n;
      if (options.keepRecords) result.records.push_back(std::move(record));
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      result.summary.stages.add(worker.stages_);
    }
    slot.done = true;
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < jobs; ++id) threads.emplace_back(work, id);
  // Wait for the workers; print the progress line; abandon a worker stuck in one program for hangSeconds.
  double lastProgress = 0, stopAsked = -1;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    bool allDone = true;
    std::lock_guard<std::mutex> lock(mutex);
    const double now = elapsed();
    if (stopRequested.load() && stopAsked < 0) {
      stopAsked = now;
      stop = true;
    }
    const bool interrupted = stopAsked >= 0 && now - stopAsked > 10;
    for (int id = 0; id < jobs; ++id) {
      Slot& slot = (*slots)[static_cast<size_t>(id)];
      if (slot.done) continue;
      allDone = false;
      const int64_t index = slot.index;
      const bool hung = options.hangSeconds > 0 && index >= 0 && now - slot.since > options.hangSeconds;
      if ((hung || interrupted) && !slot.done) {
        ProgramRecord record;
        record.index = index;
        record.seed = programSeed(options.seed, index);
        record.status = hung ? ProgramStatus::Failed : ProgramStatus::Skipped;
        record.check = hung ? "hang" : "interrupted";
        char message[320];
        std::snprintf(message, sizeof message,
                      "%s: program %lld did not finish in %.0f s on target %s%s; replay: tilesim fuzz --engine %s "
                      "--seed %llu --first %lld --count %lld",
                      record.check.c_str(), static_cast<long long>(index), now - slot.since,
                      options.targetName.c_str(),
                      hung ? " (a kernel that never ends, or a runaway shrinking step)" : " (the campaign was stopped)",
                      options.targetName.c_str(), static_cast<unsigned long long>(options.seed),
                      static_cast<long long>(index), static_cast<long long>(index + 1));
        record.message = message;
        if (index >= 0) result.summary.add(record);
        ++result.abandoned;
        slot.abandoned = true;
        slot.done = true;  // counted; the thread is left behind
        stop = true;
      }
    }
    if (options.progress && (now - lastProgress >= 0.5 || allDone)) {
      lastProgress = now;
      std::fprintf(stderr, "\r[fuzz %s] %lld programs, %.1f/s, %lld failed, %lld skipped, coverage %.1f%%   ",
                   options.targetName.c_str(), static_cast<long long>(result.summary.programs),
                   now > 0 ? static_cast<double>(result.summary.programs) / now : 0.0,
                   static_cast<long long>(result.summary.failed), static_cast<long long>(result.summary.skipped),
                   coveragePercent(result.summary.ops));
      std::fflush(stderr);
    }
    if (allDone) break;
  }
  if (options.progress) std::fprintf(stderr, "\n");
  for (int id = 0; id < jobs; ++id) {  // the others have left their loop (done), a stuck one may never return
    if ((*slots)[static_cast<size_t>(id)].abandoned) threads[static_cast<size_t>(id)].detach();
    else threads[static_cast<size_t>(id)].join();
  }
  result.summary.seconds = elapsed();
  result.summary.cpuSeconds = processCpuSeconds() - cpuStart;
  result.summary.timed = options.timings;
  std::sort(result.summary.failures.begin(), result.summary.failures.end(),
            [](const ProgramRecord& a, const ProgramRecord& b) { return a.index < b.index; });
  std::sort(result.records.begin(), result.records.end(),
            [](const ProgramRecord& a, const ProgramRecord& b) { return a.index < b.index; });
  return result;
}

}  // namespace tilesim::fuzz

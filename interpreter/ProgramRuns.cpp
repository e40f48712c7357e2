// Running the programs of a launch and gathering what they produced (LaunchSteps.h: ProgramRuns,
// collectResults): the order programs start in, race detection by access log or shadow with the single-thread
// rerun of a launch that raced, tt.print lines kept by program id, and reports merged and sorted so the output
// does not depend on the thread count or the order.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <new>
#include <numeric>
#include <random>

#include "interpreter/LaunchSteps.h"
#include "interpreter/ProgramPool.h"

namespace tilesim {
namespace {

// The i-th program to run in the requested order, computed on the fly (no table of one entry per program).
// Shuffled: a table from std::shuffle for grids up to 2^20 programs, an affine permutation beyond.
class ProgramOrderMap {
 public:
  ProgramOrderMap(int64_t count, const LaunchOptions& options) : count_(count), order_(options.order) {
    if (order_ != ProgramOrder::Shuffled) return;
    std::mt19937_64 random(options.shuffleSeed);
    if (count <= (int64_t{1} << 20)) {
      table_.resize(static_cast<size_t>(count));
      std::iota(table_.begin(), table_.end(), 0);
      std::shuffle(table_.begin(), table_.end(), random);
      return;
    }
    multiplier_ = static_cast<uint64_t>(random() % static_cast<uint64_t>(count)) | 1;
    while (std::gcd(multiplier_, static_cast<uint64_t>(count)) != 1) multiplier_ += 2;
    offset_ = random() % static_cast<uint64_t>(count);
  }
  int64_t operator[](int64_t i) const {
    switch (order_) {
      case ProgramOrder::Forward: return i;
      case ProgramOrder::Reverse: return count_ - 1 - i;
      case ProgramOrder::Shuffled: break;
    }
    if (!table_.empty()) return table_[static_cast<size_t>(i)];
    unsigned __int128 product = static_cast<unsigned __int128>(i) * multiplier_ + offset_;
    return static_cast<int64_t>(product % static_cast<uint64_t>(count_));
  }

 private:
  int64_t count_;
  ProgramOrder order_;
  std::vector<int64_t> table_;
  uint64_t multiplier_ = 1, offset_ = 0;
};

// Runs program `linear` on `executor` and hands its tt.print lines to `prints`.
void runOneProgram(const LaunchContext& context, Executor& executor, int64_t linear, PrintCollector& prints) {
  if (context.interrupted()) return;  // Ctrl-C: the programs not yet started are skipped
  const auto& grid = context.grid;
  std::array<int64_t, 3> id{linear % grid[0], (linear / grid[0]) % grid[1], linear / (grid[0] * grid[1])};
  ProgramPrints printed;
  executor.runProgram(id, linear, &printed);
  try {
    prints.add(linear, std::move(printed));
  } catch (const std::bad_alloc&) {
    executor.noteOutOfMemory(id);
  }
}

}  // namespace

void PrintCollector::add(int64_t program, ProgramPrints prints) {
  if (prints.lines.empty() && prints.dropped == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  dropped_ += prints.dropped;
  kept_ += static_cast<int64_t>(prints.lines.size());
  kept[program] = std::move(prints.lines);
  while (kept_ > limit_) {  // evict from the highest program id
    auto last = std::prev(kept.end());
    int64_t excess = std::min<int64_t>(kept_ - limit_, static_cast<int64_t>(last->second.size()));
    last->second.resize(last->second.size() - static_cast<size_t>(excess));
    kept_ -= excess;
    dropped_ += excess;
    if (last->second.empty()) kept.erase(last);
  }
}

ProgramRuns::ProgramRuns(Launch& launch, LaunchContext& context, Memory& memory, const std::vector<Buffer*>& storageOf,
                         int64_t programs, int threads)
    : launch_(launch), context_(context), memory_(memory), storageOf_(storageOf), programs_(programs), threads_(threads) {
  chooseRaceDetection();
  keepInputs();
  // The log's budget: 24 bytes a record, at most about 12 bytes per buffer element in all (the shadow needs 8).
  uint64_t totalElements = 0;
  for (const auto& buffer : memory_.buffers()) totalElements += buffer->numElements();
  logBudget_ = static_cast<size_t>(std::max<uint64_t>(uint64_t{1} << 20, totalElements / 2));
}

// A kernel without atomics (so without spin locks) runs first with the access log instead of the per-element
// shadow: each program's plain accesses as element intervals, checked for a conflict between two programs
// afterwards (accessLogsConflict) — no shadow pages to zero, no word per element, no compare-and-swap. The shadow
// reports a race iff such a conflict exists, so when there is none the launch's outcome is the shadow's; when
// there is one (or the log outgrew its budget) the launch runs again from its inputs with the shadow, which
// reports the races. Kernels with atomics, and traced programs, use the shadow from the start.
void ProgramRuns::chooseRaceDetection() {
  bool hasAtomics = false;
  for (const Function& function : launch_.module->allFunctions())
    walk(*function.op(), [&](const Operation& op) { hasAtomics = hasAtomics || opFamily(op.kind) == OpFamily::Atomic; });
  const LaunchOptions& options = context_.options;
  raceLog_ = options.checks && !context_.trace && !hasAtomics;
  if (raceLog_) memory_.enableRaceLog();
  else if (options.checks) memory_.enableRaceShadow();
}

// With several threads, which program of a racing pair sees the race depends on timing. To report races the
// same way on every run, a launch that found one runs again from its inputs on one thread in forward order.
void ProgramRuns::keepInputs() {
  if (!context_.options.checks || (threads_ <= 1 && !raceLog_) || context_.trace) return;
  for (size_t i = 0; i < launch_.arguments.size(); ++i) {
    if (!storageOf_[i]) continue;
    const Buffer& buffer = *storageOf_[i];
    if (launch_.arguments[i].pristine) {
      inputSource_.push_back(launch_.arguments[i].pristine);
    } else {
      inputs_.emplace_back(buffer.data, buffer.data + buffer.sizeBytes);
      inputSource_.push_back(inputs_.back().data());
    }
  }
}

void ProgramRuns::run() {
  prints_ = std::make_unique<PrintCollector>(context_.options.maxPrintLines);
  runPrograms(threads_, context_.options);
  if (interrupted()) return;
  if (raced() && !inputSource_.empty()) rerunFromInputs();
}

void ProgramRuns::runPrograms(int threadCount, const LaunchOptions& options) {
  memory_.setConcurrent(threadCount > 1 && !context_.trace);
  sinks_.assign(static_cast<size_t>(threadCount), ReportSink{});
  for (ReportSink& sink : sinks_) sink.maxPerKind = options.maxReportsPerKind;
  logs_.assign(memory_.raceLogEnabled() ? static_cast<size_t>(threadCount) : 0, AccessLog{});
  for (AccessLog& log : logs_) log.limit = logBudget_ / static_cast<size_t>(threadCount) + 1024;
  if (context_.trace) return runTracedProgram();
  const ProgramOrderMap order(programs_, options);
  PrintCollector& prints = *prints_;
  std::atomic<int64_t> next{0};  // programs are taken one at a time, by whichever thread is free
  const int threadsUsed = static_cast<int>(std::min<int64_t>(threadCount, programs_));
  runOnPoolThreads(threadsUsed, [&](int slot) {
    Executor executor(context_, sinks_[static_cast<size_t>(slot)]);
    if (!logs_.empty()) executor.setAccessLog(&logs_[static_cast<size_t>(slot)]);
    for (int64_t i = next++; i < programs_; i = next++) runOneProgram(context_, executor, order[i], prints);
  });
}

// The traced program runs on this thread, alone, so the trace hook needs no locking.
void ProgramRuns::runTracedProgram() {
  const auto& t = context_.trace->program;
  const auto& grid = launch_.grid;
  bool inGrid = true;  // checked first: a huge --program must not overflow the linear id
  for (size_t axis = 0; axis < 3; ++axis) inGrid = inGrid && t[axis] >= 0 && t[axis] < grid[axis];
  Executor executor(context_, sinks_[0]);
  if (!logs_.empty()) executor.setAccessLog(&logs_[0]);
  if (inGrid) runOneProgram(context_, executor, t[0] + grid[0] * (t[1] + grid[1] * t[2]), *prints_);
}

// Whether the run found a race: a report from the shadow, or a conflict (or an overflow) in the access logs.
bool ProgramRuns::raced() {
  const size_t raceKind = static_cast<size_t>(Report::Kind::Race);
  const size_t sameValueKind = static_cast<size_t>(Report::Kind::SameValueRace);
  bool found = false;
  for (const ReportSink& sink : sinks_) found = found || sink.counts[raceKind] > 0 || sink.counts[sameValueKind] > 0;
  if (!raceLog_) return found;
  size_t count = 0;
  for (const AccessLog& log : logs_) {
    found = found || log.overflow;
    count += log.records.size();
  }
  if (!found) {
    std::vector<AccessRecord> records;
    records.reserve(count);
    for (AccessLog& log : logs_) {
      records.insert(records.end(), log.records.begin(), log.records.end());
      log.records = {};
    }
    found = accessLogsConflict(records);
  }
  logs_.clear();
  return found;
}

void ProgramRuns::rerunFromInputs() {
  for (size_t b = 0; b < inputSource_.size(); ++b)
    std::copy(inputSource_[b], inputSource_[b] + memory_.buffers()[b]->sizeBytes, memory_.buffers()[b]->data);
  memory_.switchToRaceShadow();
  memory_.resetShadows();
  // A one-thread launch reruns in the order it asked for (its shadow run would have reported in that order).
  LaunchOptions canonical = context_.options;
  if (threads_ > 1) canonical.order = ProgramOrder::Forward;
  prints_ = std::make_unique<PrintCollector>(canonical.maxPrintLines);
  context_.options = canonical;
  runPrograms(1, canonical);
}

std::optional<std::array<int64_t, 3>> ProgramRuns::outOfMemory() const {
  for (const ReportSink& sink : sinks_)
    if (sink.outOfMemory) return sink.outOfMemoryProgram;
  return std::nullopt;
}

// A sweep over the records by buffer and start: per buffer, the furthest end reached by reads and by writes,
// each kept for two distinct programs (the furthest, and the furthest of any other program), so that "does an
// earlier interval of another program reach past this start" is one comparison.
bool accessLogsConflict(std::vector<AccessRecord>& records) {
  std::sort(records.begin(), records.end(), [](const AccessRecord& a, const AccessRecord& b) {
    return a.buffer != b.buffer ? a.buffer < b.buffer : a.begin < b.begin;
  });
  struct Furthest {
    uint64_t end = 0, otherEnd = 0;  // otherEnd: the furthest end of the programs other than `program`
    uint32_t program = UINT32_MAX;
    uint64_t beyond(uint32_t p) const { return p == program ? otherEnd : end; }
    void add(uint64_t e, uint32_t p) {
      if (p == program) {
        end = std::max(end, e);
      } else if (e > end) {
        otherEnd = end;
        end = e;
        program = p;
      } else {
        otherEnd = std::max(otherEnd, e);
      }
    }
  };
  Furthest reads, writes;
  uint32_t buffer = UINT32_MAX;
  for (const AccessRecord& r : records) {
    if (r.buffer != buffer) {
      reads = writes = Furthest{};
      buffer = r.buffer;
    }
    if (writes.beyond(r.program) > r.begin || (r.write && reads.beyond(r.program) > r.begin)) return true;
    (r.write ? writes : reads).add(r.end, r.program);
  }
  return false;
}

void collectResults(ProgramRuns& runs, Launch& launch, const LaunchOptions& options, const LaunchBinding& binding,
                    Memory& memory, const std::vector<Buffer*>& storageOf, LaunchResult& result) {
  for (ReportSink& sink : runs.sinks()) {
    for (size_t k = 0; k < result.totalByKind.size(); ++k) result.totalByKind[k] += sink.counts[k];
    for (Report& r : sink.reports) result.reports.push_back(std::move(r));
  }
  std::sort(result.reports.begin(), result.reports.end(), reportLess);
  for (ReportSink& sink : runs.sinks())
    for (auto& [key, group] : sink.groups) result.groups.push_back(std::move(group));
  std::sort(result.groups.begin(), result.groups.end(),
            [](const ReportGroup& a, const ReportGroup& b) { return reportLess(a.first, b.first); });
  std::vector<Report> kept;
  std::array<int, kReportKindCount> perKind{};
  for (Report& r : result.reports)
    if (perKind[static_cast<size_t>(r.kind)]++ < options.maxReportsPerKind) kept.push_back(std::move(r));
  result.reports = std::move(kept);
  for (auto& [program, lines] : runs.prints().kept)
    for (auto& line : lines) {
      if (options.echoPrints) std::printf("%s\n", line.c_str());
      result.printed.push_back(std::move(line));
    }
  result.droppedPrintLines = runs.prints().dropped();
  if (options.echoPrints && result.droppedPrintLines > 0)
    std::printf("... %lld more tt.print lines not kept (the limit is %lld)\n",
                static_cast<long long>(result.droppedPrintLines), static_cast<long long>(options.maxPrintLines));
  if (memory.errorBoundsEnabled())
    for (size_t i = 0; i < launch.arguments.size(); ++i) {
      if (!storageOf[i]) continue;
      const Buffer& buffer = *storageOf[i];
      bool any = std::any_of(buffer.errorBound.begin(), buffer.errorBound.end(), [](double v) { return v != 0; });
      if (any) launch.arguments[i].errorBound = buffer.errorBound;
    }
  refreshAliasViews(launch, binding.placements());
}

}  // namespace tilesim

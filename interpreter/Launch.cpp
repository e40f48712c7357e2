// runLaunch: binds arguments to the kernel's parameters by name, lays out the address space, prepares
// constant tiles, then runs every program instance in parallel (OpenMP, one Executor per thread) in the
// requested order. Reports are merged and sorted so the output does not depend on thread count or order.
#include <omp.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <random>

#include "interpreter/Dot.h"
#include "interpreter/Executor.h"
#include "ir/FloatBits.h"
#include "ir/launch/ParameterName.h"

namespace tilesim {

std::string describeAddress(const Launch& launch, uint64_t address) {
  uint64_t window = address >> kBufferWindowBits;
  if (window == kWildWindow) return "wild";
  uint64_t index = 0;
  for (const LaunchArgument& argument : launch.arguments) {
    if (!argument.isBuffer() || argument.isAlias()) continue;  // windows belong to the buffers that own storage
    if (++index != window) continue;
    const uint64_t offset = address - (window << kBufferWindowBits);
    const uint64_t bytes = static_cast<uint64_t>(storageBytes(argument.elementKind));
    if (offset % bytes != 0) return argument.name + "+" + std::to_string(offset) + "B";
    const uint64_t element = offset / bytes, count = argument.bytes.size() / bytes;
    if (element >= count) return argument.name + "[end+" + std::to_string(element - count) + "]";
    return "&" + argument.name + "[" + std::to_string(element) + "]";
  }
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, address);
  return text;
}

void executeDot(Executor& executor, const Operation& op, Executor::Frame& frame) {
  std::string error;
  MutableTileRef result = evalDot(op, *executor.get(frame, op.operand(0)), *executor.get(frame, op.operand(1)),
                                  *executor.get(frame, op.operand(2)), executor.context().options.profile, &error);
  if (!result) executor.trap(Report::Kind::Unsupported, op, error);
  executor.set(frame, op.result(), result);
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

namespace {

// Under the exact profile error bounds are tracked only for the two sources of values the GPU does not
// determine bit for bit: inline PTX (its approximate instructions run as written) and float atomic adds (their
// sum depends on the arrival order where several programs hit one address). Other kernels skip the tracking.
bool exactProfileNeedsBounds(const Module& module) {
  bool needed = false;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      if (op.kind == OpKind::TTElementwiseInlineAsm) needed = true;
      if (op.kind == OpKind::TTAtomicRMW && op.result()->type.isFloat() && op.keywordAttr("atomic_rmw_op") == "fadd")
        needed = true;
    });
  return needed;
}

// A launch too small to pay for waking worker threads: straight-line programs (no loop, no branch) whose tiles
// add up to at most 2^17 elements over the grid, a unit test's kernel. It runs on the calling thread when the
// user did not ask for a thread count: on a busy machine a woken worker can wait milliseconds for a core, and the
// launch waits for it (16 programs of a 1024-element add: 0.39 ms on one thread, 1.3 ms on two at load 8).
bool smallLaunch(const Module& module, int64_t programs) {
  int64_t largestTile = 1;
  bool straightLine = true;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      const bool branches = op.kind == OpKind::CFBr || op.kind == OpKind::CFCondBr;
      straightLine = straightLine && (&op == function.op() || (op.regions.empty() && !branches));
      for (const auto& result : op.results) largestTile = std::max(largestTile, result->type.numElements());
    });
  return straightLine && programs * largestTile <= (int64_t{1} << 17);
}

// Binds one kernel parameter; returns the tile or sets `error`.
TileRef bindParameter(const Value& parameter, const std::string& parameterName, const LaunchArgument& argument,
                      uint64_t address, std::string* error) {
  Type type = parameter.type;
  MutableTileRef tile = makeTile(type);
  if (type.isTensorDesc()) {
    Type block = type.descBlock();
    if (!argument.isTensorDesc()) {
      *error = "argument '" + argument.name + "' is not a tensor descriptor but parameter %" + parameterName +
               " is " + type.str();
      return nullptr;
    }
    const size_t rank = static_cast<size_t>(block.rank());
    if (argument.descShape.size() != rank || argument.descStrides.size() != rank ||
        (!argument.descBlockShape.empty() && argument.descBlockShape != std::vector<int64_t>(block.shape().begin(), block.shape().end()))) {
      *error = "tensor descriptor argument '" + argument.name + "' does not match parameter %" + parameterName +
               " (" + type.str() + "): rank " + std::to_string(rank) + " and the block shape must agree";
      return nullptr;
    }
    if (storageBytes(block.scalarKind()) != storageBytes(argument.elementKind)) {
      *error = "argument '" + argument.name + "' holds " + scalarKindName(argument.elementKind) +
               " elements but parameter %" + parameterName + " describes " + block.element().str();
      return nullptr;
    }
    TensorDescriptor& desc = *tile->as<TensorDescriptor>();
    desc.base = address;
    desc.rank = static_cast<int>(rank);
    desc.padding = argument.descPadding;
    for (size_t d = 0; d < rank; ++d) {
      desc.shape[d] = argument.descShape[d];
      desc.strides[d] = argument.descStrides[d];
    }
    return tile;
  }
  if (type.isPointer()) {
    if (argument.kind != LaunchArgument::Kind::Buffer) {
      *error = "argument '" + argument.name + "' is a scalar but parameter %" + parameterName + " is a pointer (" +
               type.str() + ")";
      return nullptr;
    }
    Type pointee = type.pointee();
    if (pointee.isScalar() && storageBytes(pointee.scalarKind()) != storageBytes(argument.elementKind)) {
      *error = "argument '" + argument.name + "' holds " + scalarKindName(argument.elementKind) +
               " elements but parameter %" + parameterName + " points to " + pointee.str();
      return nullptr;
    }
    tile->setBits(0, address);
    return tile;
  }
  if (argument.kind != LaunchArgument::Kind::Scalar) {
    *error = "argument '" + argument.name + "' is a buffer but parameter %" + parameterName + " is a scalar (" +
             type.str() + ")";
    return nullptr;
  }
  if (!type.isScalar()) {
    *error = "parameter %" + parameterName + " has type " + type.str() + ", which a launch cannot pass";
    return nullptr;
  }
  if (type.isFloat()) {
    tile->setBits(0, floatBitsFromDouble(argument.scalarIsFloat ? argument.floatValue
                                                                : static_cast<double>(argument.intValue),
                                         type.scalarKind()));
  } else {
    if (argument.scalarIsFloat) {
      *error = "argument '" + argument.name + "' is a float but parameter %" + parameterName + " is " + type.str();
      return nullptr;
    }
    int bits = type.bitWidth();
    if (bits < 64) {
      int64_t lo = type.scalarKind() == ScalarKind::I1 ? 0 : -(int64_t{1} << (bits - 1));
      int64_t hi = type.scalarKind() == ScalarKind::I1 ? 1 : (int64_t{1} << bits) - 1;
      if (argument.intValue < lo || argument.intValue > hi) {
        *error = "argument '" + argument.name + "' = " + std::to_string(argument.intValue) + " does not fit parameter %" +
                 parameterName + " of type " + type.str();
        return nullptr;
      }
    }
    tile->setBits(0, static_cast<uint64_t>(argument.intValue));
  }
  return tile;
}

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

// The tt.print lines of the launch: those of the lowest program ids, at most `limit` lines in all, whatever
// order the programs finish in; every other line is counted. Shared by the worker threads.
class PrintCollector {
 public:
  explicit PrintCollector(int64_t limit) : limit_(limit) {}
  void add(int64_t program, ProgramPrints prints) {
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
  int64_t dropped() const { return dropped_; }
  std::map<int64_t, std::vector<std::string>> kept;

 private:
  std::mutex mutex_;
  int64_t limit_;
  int64_t kept_ = 0;
  int64_t dropped_ = 0;
};

// Constants and ranges are built once per launch, up to this many bytes in all; larger ones (a splat of a
// huge tensor) are built when executed, so a module of many big constants does not fill memory at launch.
constexpr int64_t kConstantCacheBytes = int64_t{64} << 20;

// More worker threads than this gain nothing and only cost memory (one executor and report sink each).
constexpr int64_t kMaxThreads = 256;

LaunchOutcome runLaunchUnguarded(Launch& launch, const LaunchOptions& options, const ProgramTrace* trace) {
  LaunchOutcome outcome;
  auto fail = [&](std::string message) {
    outcome.diagnostics.push_back({SourcePos{}, std::move(message)});
    return outcome;
  };
  if (!launch.module || !launch.kernel) return fail("no kernel to launch");
  for (int64_t g : launch.grid)
    if (g < 1 || g > (int64_t{1} << 31) - 1) return fail("grid dimensions must be between 1 and 2^31-1");
  int64_t programs = 0;  // the product is checked for overflow: a wrapped product would run no program at all
  if (__builtin_mul_overflow(launch.grid[0], launch.grid[1], &programs) ||
      __builtin_mul_overflow(programs, launch.grid[2], &programs) || programs > (int64_t{1} << 30))
    return fail("grid " + std::to_string(launch.grid[0]) + "x" + std::to_string(launch.grid[1]) + "x" +
                std::to_string(launch.grid[2]) + " has more than 2^30 programs");

  std::vector<BufferPlacement> placements;
  if (Diagnostics problems = placeBuffers(launch, placements); !problems.empty()) {
    outcome.diagnostics = std::move(problems);
    return outcome;
  }
  if (Diagnostics problems = checkSpecialisation(launch, placements); !problems.empty()) {
    outcome.diagnostics = std::move(problems);
    return outcome;
  }
  // One window per buffer that owns storage; an alias points into its storage's window at its offset.
  Memory memory;
  std::vector<Buffer*> storageOf(launch.arguments.size(), nullptr);
  for (size_t i = 0; i < launch.arguments.size(); ++i) {
    LaunchArgument& argument = launch.arguments[i];
    if (!argument.isBuffer() || argument.isAlias()) continue;
    storageOf[i] = &memory.addBuffer(argument.name, argument.elementKind, argument.bytes.data(), argument.bytes.size());
  }
  if (memory.buffers().size() >= (size_t{1} << (63 - kBufferWindowBits))) return fail("too many buffers");
  for (const auto& buffer : memory.buffers())  // the wild-pointer rule needs every buffer in its window's first half
    if (buffer->sizeBytes >= kMaxBufferBytes) return fail("argument '" + buffer->name + "': buffers of 512 GiB or more are not supported");
  if (options.profile == FloatProfile::Triton || exactProfileNeedsBounds(*launch.module)) memory.enableErrorBounds();

  LaunchContext context;
  context.module = launch.module;
  context.memory = &memory;
  context.options = options;
  context.grid = launch.grid;
  for (const Function& function : launch.module->allFunctions())
    context.functions[function.name()] = {function.op(), numberValues(function)};
  context.kernel = context.functions[launch.kernel->name()];

  Function kernel = *launch.kernel;
  std::vector<bool> used(launch.arguments.size(), false);
  for (size_t p = 0; p < kernel.numArguments(); ++p) {
    const Value& parameter = *kernel.argument(p);
    const std::string parameterName = parameterBindingName(kernel, p);
    auto it = launch.arguments.begin() + static_cast<ptrdiff_t>(argumentForParameter(launch, p));
    if (it == launch.arguments.end())
      return fail("missing argument for parameter %" + parameterName + " (" + parameter.type.str() + ")");
    used[it - launch.arguments.begin()] = true;
    const size_t index = static_cast<size_t>(it - launch.arguments.begin());
    const uint64_t address =
        it->isBuffer() ? storageOf[placements[index].storage]->base + placements[index].offset : 0;
    std::string error;
    TileRef tile = bindParameter(parameter, parameterName, *it, address, &error);
    if (!tile) return fail(error);
    context.kernelArguments.push_back(tile);
    if (!parameter.type.isTensorDesc()) continue;
    // Triton 3.6's launcher passes a host descriptor as the descriptor, then its shape (i32 each), then its
    // strides (i64 each): the 2 x rank parameters after it take those values, whatever their names.
    const size_t rank = it->descShape.size();
    if (p + 2 * rank >= kernel.numArguments())
      return fail("parameter %" + parameterName + " (" + parameter.type.str() + ") must be followed by " +
                  std::to_string(rank) + " i32 shape and " + std::to_string(rank) + " i64 stride parameters");
    for (size_t k = 0; k < 2 * rank; ++k) {
      const Value& expanded = *kernel.argument(p + 1 + k);
      const bool isShape = k < rank;
      if (expanded.type != (isShape ? Type::i32() : Type::i64()))
        return fail("parameter %" + parameterBindingName(kernel, p + 1 + k) + " after tensor descriptor %" + parameterName + " must be " +
                    (isShape ? "i32 (a shape entry)" : "i64 (a stride entry)") + ", not " + expanded.type.str());
      LaunchArgument value = LaunchArgument::integer(it->name, isShape ? it->descShape[k] : it->descStrides[k - rank]);
      TileRef valueTile = bindParameter(expanded, parameterBindingName(kernel, p + 1 + k), value, 0, &error);
      if (!valueTile) return fail(error);
      context.kernelArguments.push_back(valueTile);
    }
    p += 2 * rank;
  }
  for (size_t i = 0; i < launch.arguments.size(); ++i)
    if (!used[i]) outcome.result.unusedArguments.push_back(launch.arguments[i].name);

  int64_t constantBytes = 0;
  for (const Function& function : launch.module->allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      if (op.kind != OpKind::ArithConstant && op.kind != OpKind::TTMakeRange) return;
      Type type = op.result()->type;
      const int64_t bytes = (type.isTensor() ? type.numElements() : 1) * 8;
      if (constantBytes + bytes > kConstantCacheBytes) return;  // built when executed
      constantBytes += bytes;
      context.constantTiles[&op] = op.kind == OpKind::ArithConstant ? ops::constant(op) : ops::makeRange(op);
    });

  int threads = options.threads > 0                    ? options.threads
                : smallLaunch(*launch.module, programs) ? 1
                                                        : omp_get_max_threads();
  threads = static_cast<int>(std::min<int64_t>({threads, kMaxThreads, std::max<int64_t>(programs, 1)}));
  context.trace = trace;
  // Races. A kernel without atomics (so without spin locks) runs first with the access log instead of the
  // per-element shadow: each program's plain accesses as element intervals, checked for a conflict between two
  // programs afterwards (accessLogsConflict) — no shadow pages to zero, no word per element, no compare-and-swap.
  // The shadow reports a race iff such a conflict exists, so when there is none the launch's outcome is the
  // shadow's; when there is one (or the log outgrew its budget) the launch runs again from its inputs with the
  // shadow, which reports the races. Kernels with atomics, and traced programs, use the shadow from the start.
  bool hasAtomics = false;
  for (const Function& function : launch.module->allFunctions())
    walk(*function.op(), [&](const Operation& op) { hasAtomics = hasAtomics || opFamily(op.kind) == OpFamily::Atomic; });
  const bool raceLog = options.checks && !trace && !hasAtomics;
  if (raceLog) memory.enableRaceLog();
  else if (options.checks) memory.enableRaceShadow();
  // With several threads, which program of a racing pair sees the race depends on timing. To report races the
  // same way on every run, a launch that found one runs again from its inputs on one thread in forward order.
  // Each buffer's inputs for that rerun: the caller's pristine copy when it has one, else a copy taken now.
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<const uint8_t*> inputSource;
  if (options.checks && (threads > 1 || raceLog) && !trace)
    for (size_t i = 0; i < launch.arguments.size(); ++i) {
      if (!storageOf[i]) continue;
      const Buffer& buffer = *storageOf[i];
      if (launch.arguments[i].pristine) {
        inputSource.push_back(launch.arguments[i].pristine);
      } else {
        inputs.emplace_back(buffer.data, buffer.data + buffer.sizeBytes);
        inputSource.push_back(inputs.back().data());
      }
    }
  std::vector<ReportSink> sinks;
  std::vector<AccessLog> logs;
  // The log's budget: 24 bytes a record, at most about 12 bytes per buffer element in all (the shadow needs 8).
  uint64_t totalElements = 0;
  for (const auto& buffer : memory.buffers()) totalElements += buffer->numElements();
  const size_t logBudget = static_cast<size_t>(std::max<uint64_t>(uint64_t{1} << 20, totalElements / 2));
  auto runPrograms = [&](int threadCount, const LaunchOptions& runOptions, PrintCollector& prints) {
    const ProgramOrderMap order(programs, runOptions);
    memory.setConcurrent(threadCount > 1 && !trace);
    sinks.assign(static_cast<size_t>(threadCount), ReportSink{});
    for (ReportSink& sink : sinks) sink.maxPerKind = runOptions.maxReportsPerKind;
    logs.assign(memory.raceLogEnabled() ? static_cast<size_t>(threadCount) : 0, AccessLog{});
    for (AccessLog& log : logs) log.limit = logBudget / static_cast<size_t>(threadCount) + 1024;
    auto runOne = [&](Executor& executor, int64_t linear) {
      if (context.interrupted()) return;  // Ctrl-C: the programs not yet started are skipped
      std::array<int64_t, 3> id{linear % launch.grid[0], (linear / launch.grid[0]) % launch.grid[1],
                                linear / (launch.grid[0] * launch.grid[1])};
      ProgramPrints printed;
      executor.runProgram(id, linear, &printed);
      try {
        prints.add(linear, std::move(printed));
      } catch (const std::bad_alloc&) {
        executor.noteOutOfMemory(id);
      }
    };
    if (trace) {  // the traced program runs on this thread, alone, so the hook needs no locking
      const auto& t = trace->program;
      bool inGrid = true;  // checked first: a huge --program must not overflow the linear id
      for (size_t axis = 0; axis < 3; ++axis) inGrid = inGrid && t[axis] >= 0 && t[axis] < launch.grid[axis];
      Executor executor(context, sinks[0]);
      if (!logs.empty()) executor.setAccessLog(&logs[0]);
      if (inGrid) runOne(executor, t[0] + launch.grid[0] * (t[1] + launch.grid[1] * t[2]));
      return;
    }
#pragma omp parallel num_threads(threadCount)
    {
      const auto thread = static_cast<size_t>(omp_get_thread_num());
      Executor executor(context, sinks[thread]);
      if (!logs.empty()) executor.setAccessLog(&logs[thread]);
#pragma omp for schedule(dynamic, 1)
      for (int64_t i = 0; i < programs; ++i) runOne(executor, order[i]);
    }
  };
  auto prints = std::make_unique<PrintCollector>(options.maxPrintLines);
  runPrograms(threads, options, *prints);
  if (context.stopped.load()) return fail("the launch was interrupted before it finished");
  const size_t raceKind = static_cast<size_t>(Report::Kind::Race);
  const size_t sameValueKind = static_cast<size_t>(Report::Kind::SameValueRace);
  bool raced = false;
  for (const ReportSink& sink : sinks) raced = raced || sink.counts[raceKind] > 0 || sink.counts[sameValueKind] > 0;
  if (raceLog) {
    std::vector<AccessRecord> records;
    size_t count = 0;
    for (const AccessLog& log : logs) {
      raced = raced || log.overflow;
      count += log.records.size();
    }
    if (!raced) {
      records.reserve(count);
      for (AccessLog& log : logs) {
        records.insert(records.end(), log.records.begin(), log.records.end());
        log.records = {};
      }
      raced = accessLogsConflict(records);
    }
    logs.clear();
  }
  if (raced && !inputSource.empty()) {
    for (size_t b = 0; b < inputSource.size(); ++b)
      std::copy(inputSource[b], inputSource[b] + memory.buffers()[b]->sizeBytes, memory.buffers()[b]->data);
    memory.switchToRaceShadow();
    memory.resetShadows();
    // A one-thread launch reruns in the order it asked for (its shadow run would have reported in that order).
    LaunchOptions canonical = options;
    if (threads > 1) canonical.order = ProgramOrder::Forward;
    prints = std::make_unique<PrintCollector>(options.maxPrintLines);
    context.options = canonical;
    runPrograms(1, canonical, *prints);
  }
  for (const ReportSink& sink : sinks)
    if (sink.outOfMemory) {
      const auto& p = sink.outOfMemoryProgram;
      return fail("out of memory in program (" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " +
                  std::to_string(p[2]) + "): the launch could not finish");
    }

  LaunchResult& result = outcome.result;
  for (ReportSink& sink : sinks) {
    for (size_t k = 0; k < result.totalByKind.size(); ++k) result.totalByKind[k] += sink.counts[k];
    for (Report& r : sink.reports) result.reports.push_back(std::move(r));
  }
  std::sort(result.reports.begin(), result.reports.end(), reportLess);
  for (ReportSink& sink : sinks)
    for (auto& [key, group] : sink.groups) result.groups.push_back(std::move(group));
  std::sort(result.groups.begin(), result.groups.end(),
            [](const ReportGroup& a, const ReportGroup& b) { return reportLess(a.first, b.first); });
  std::vector<Report> kept;
  std::array<int, kReportKindCount> perKind{};
  for (Report& r : result.reports)
    if (perKind[static_cast<size_t>(r.kind)]++ < options.maxReportsPerKind) kept.push_back(std::move(r));
  result.reports = std::move(kept);
  for (auto& [program, lines] : prints->kept)
    for (auto& line : lines) {
      if (options.echoPrints) std::printf("%s\n", line.c_str());
      result.printed.push_back(std::move(line));
    }
  result.droppedPrintLines = prints->dropped();
  if (options.echoPrints && result.droppedPrintLines > 0)
    std::printf("... %lld more tt.print lines not kept (the limit is %lld)\n",
                static_cast<long long>(result.droppedPrintLines), static_cast<long long>(options.maxPrintLines));
  if (memory.errorBoundsEnabled()) {
    for (size_t i = 0; i < launch.arguments.size(); ++i) {
      if (!storageOf[i]) continue;
      const Buffer& buffer = *storageOf[i];
      bool any = std::any_of(buffer.errorBound.begin(), buffer.errorBound.end(), [](double v) { return v != 0; });
      if (any) launch.arguments[i].errorBound = buffer.errorBound;
    }
  }
  refreshAliasViews(launch, placements);
  return outcome;
}

}  // namespace

// Running out of host memory (a race shadow, a huge tensor) is an error of the launch, never an abort.
LaunchOutcome runLaunch(Launch& launch, const LaunchOptions& options, const ProgramTrace* trace) {
  try {
    return runLaunchUnguarded(launch, options, trace);
  } catch (const std::bad_alloc&) {
    LaunchOutcome outcome;
    outcome.diagnostics.push_back({SourcePos{}, "out of memory: the launch needs more host memory than is available "
                                                "(the checks keep 8 bytes per buffer element; --no-check drops them)"});
    return outcome;
  }
}

std::string InterpreterEngine::description() const {
  return "interpreter (" + std::to_string(omp_get_max_threads()) + " threads)";
}

}  // namespace tilesim

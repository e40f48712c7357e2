// runLaunch: binds arguments to the kernel's parameters by name, lays out the address space, prepares
// constant tiles, then runs every program instance in parallel (OpenMP, one Executor per thread) in the
// requested order. Reports are merged and sorted so the output does not depend on thread count or order.
#include <omp.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

#include "interpreter/Dot.h"
#include "interpreter/Executor.h"
#include "ir/FloatBits.h"

namespace tilesim {

std::string describeAddress(const Launch& launch, uint64_t address) {
  uint64_t window = address >> kBufferWindowBits;
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

namespace {

// Binds one kernel parameter; returns the tile or sets `error`.
TileRef bindParameter(const Value& parameter, const LaunchArgument& argument, uint64_t address,
                      std::string* error) {
  Type type = parameter.type;
  MutableTileRef tile = makeTile(type);
  if (type.isPointer()) {
    if (argument.kind != LaunchArgument::Kind::Buffer) {
      *error = "argument '" + argument.name + "' is a scalar but parameter %" + parameter.name + " is a pointer (" +
               type.str() + ")";
      return nullptr;
    }
    Type pointee = type.pointee();
    if (pointee.isScalar() && storageBytes(pointee.scalarKind()) != storageBytes(argument.elementKind)) {
      *error = "argument '" + argument.name + "' holds " + scalarKindName(argument.elementKind) +
               " elements but parameter %" + parameter.name + " points to " + pointee.str();
      return nullptr;
    }
    tile->setBits(0, address);
    return tile;
  }
  if (argument.kind != LaunchArgument::Kind::Scalar) {
    *error = "argument '" + argument.name + "' is a buffer but parameter %" + parameter.name + " is a scalar (" +
             type.str() + ")";
    return nullptr;
  }
  if (!type.isScalar()) {
    *error = "parameter %" + parameter.name + " has type " + type.str() + ", which a launch cannot pass";
    return nullptr;
  }
  if (type.isFloat()) {
    tile->setBits(0, floatBitsFromDouble(argument.scalarIsFloat ? argument.floatValue
                                                                : static_cast<double>(argument.intValue),
                                         type.scalarKind()));
  } else {
    if (argument.scalarIsFloat) {
      *error = "argument '" + argument.name + "' is a float but parameter %" + parameter.name + " is " + type.str();
      return nullptr;
    }
    int bits = type.bitWidth();
    if (bits < 64) {
      int64_t lo = type.scalarKind() == ScalarKind::I1 ? 0 : -(int64_t{1} << (bits - 1));
      int64_t hi = type.scalarKind() == ScalarKind::I1 ? 1 : (int64_t{1} << bits) - 1;
      if (argument.intValue < lo || argument.intValue > hi) {
        *error = "argument '" + argument.name + "' = " + std::to_string(argument.intValue) + " does not fit parameter %" +
                 parameter.name + " of type " + type.str();
        return nullptr;
      }
    }
    tile->setBits(0, static_cast<uint64_t>(argument.intValue));
  }
  return tile;
}

std::vector<int64_t> programOrder(int64_t count, const LaunchOptions& options) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  if (options.order == ProgramOrder::Reverse) std::reverse(order.begin(), order.end());
  if (options.order == ProgramOrder::Shuffled) std::shuffle(order.begin(), order.end(), std::mt19937_64(options.shuffleSeed));
  return order;
}

}  // namespace

LaunchOutcome runLaunch(Launch& launch, const LaunchOptions& options, const ProgramTrace* trace) {
  LaunchOutcome outcome;
  auto fail = [&](std::string message) {
    outcome.diagnostics.push_back({SourcePos{}, std::move(message)});
    return outcome;
  };
  if (!launch.module || !launch.kernel) return fail("no kernel to launch");
  for (int64_t g : launch.grid)
    if (g < 1 || g > (int64_t{1} << 31) - 1) return fail("grid dimensions must be between 1 and 2^31-1");
  const int64_t programs = launch.grid[0] * launch.grid[1] * launch.grid[2];
  if (programs > (int64_t{1} << 30)) return fail("grid of " + std::to_string(programs) + " programs is too large");

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
  if (options.checks) memory.enableRaceShadow();
  if (options.profile == FloatProfile::Triton) memory.enableErrorBounds();

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
    auto it = std::find_if(launch.arguments.begin(), launch.arguments.end(),
                           [&](const LaunchArgument& a) { return a.name == parameter.name; });
    if (it == launch.arguments.end())
      return fail("missing argument for parameter %" + parameter.name + " (" + parameter.type.str() + ")");
    used[it - launch.arguments.begin()] = true;
    const size_t index = static_cast<size_t>(it - launch.arguments.begin());
    const uint64_t address =
        it->isBuffer() ? storageOf[placements[index].storage]->base + placements[index].offset : 0;
    std::string error;
    TileRef tile = bindParameter(parameter, *it, address, &error);
    if (!tile) return fail(error);
    context.kernelArguments.push_back(tile);
  }
  for (size_t i = 0; i < launch.arguments.size(); ++i)
    if (!used[i]) outcome.result.unusedArguments.push_back(launch.arguments[i].name);

  for (const Function& function : launch.module->allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      if (op.kind == OpKind::ArithConstant) context.constantTiles[&op] = ops::constant(op);
      if (op.kind == OpKind::TTMakeRange) context.constantTiles[&op] = ops::makeRange(op);
    });

  const std::vector<int64_t> order = programOrder(programs, options);
  std::vector<std::vector<std::string>> printed(static_cast<size_t>(programs));
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  memory.setConcurrent(threads > 1 && !trace);
  context.trace = trace;
  std::vector<ReportSink> sinks(static_cast<size_t>(threads));
  for (ReportSink& sink : sinks) sink.maxPerKind = options.maxReportsPerKind;
  auto runOne = [&](Executor& executor, int64_t linear) {
    std::array<int64_t, 3> id{linear % launch.grid[0], (linear / launch.grid[0]) % launch.grid[1],
                              linear / (launch.grid[0] * launch.grid[1])};
    executor.runProgram(id, linear, &printed[static_cast<size_t>(linear)]);
  };
  if (trace) {  // the traced program runs on this thread, alone, so the hook needs no locking
    const auto& t = trace->program;
    int64_t linear = t[0] + launch.grid[0] * (t[1] + launch.grid[1] * t[2]);
    Executor executor(context, sinks[0]);
    if (linear >= 0 && linear < programs) runOne(executor, linear);
  } else {
#pragma omp parallel num_threads(threads)
    {
      Executor executor(context, sinks[static_cast<size_t>(omp_get_thread_num())]);
#pragma omp for schedule(dynamic, 1)
      for (int64_t i = 0; i < programs; ++i) runOne(executor, order[static_cast<size_t>(i)]);
    }
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
  for (auto& lines : printed)
    for (auto& line : lines) {
      if (options.echoPrints) std::printf("%s\n", line.c_str());
      result.printed.push_back(std::move(line));
    }
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

std::string InterpreterEngine::description() const {
  return "interpreter (" + std::to_string(omp_get_max_threads()) + " threads)";
}

}  // namespace tilesim

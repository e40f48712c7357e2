// `tilesim diff TARGET --engine gpu`: runs one launch (a case directory, or a kernel with --grid/--arg) on the
// interpreter and on the named engine under the `exact` float profile, and compares every buffer bit for bit.
// `--profile triton` compares under the triton profile, the interpreter reducing every tt.reduce in the order the
// GPU backend lowers it to (reduceOrderOf, engines/EngineRegistry.h): bit-exact where the kernel's other ops are exact under
// both engines (no approximate math, no contractible mul + add outside a reduce's fold, no float tensor-core dot).
// `--recorded NAME` compares with outputs recorded earlier instead of running an engine: a case directory whose
// case.json names, per buffer, `engine_outputs: {NAME: FILE.npy}` (the fuzz RegressionWriter writes `gpu`), so a
// GPU disagreement can be replayed against a changed interpreter on a machine without a GPU; `--profile triton`
// then reduces in the order the GPU backend lowers each reduce to, as with `--engine gpu`.
// One line per buffer (bit-exact, or how many elements differ and the first one), then a summary. Under
// `--profile triton` a buffer is judged with the interpreter's error bounds (a lane with bound 0 bit for bit,
// else within it: Compare.h), and the line says how many lanes had bound 0 and how many were unconstrained.
// Under the exact profile an element the interpreter gives a bound (LaunchArgument::errorBound: only where the
// GPU's value is not determined — an approximate instruction in inline PTX, a float atomic add that several
// programs or lanes made to one address, whose sum depends on their arrival order) agrees when it is within
// that bound of the interpreter's (both NaN included): counted "within bound (REASON)", not "differ". Every
// other element must match bit for bit, NaN payloads included.
// A write the engine made outside every buffer (the GPU's redzones, ir/launch/Redzones.h) is printed and fails
// the diff, with whether the interpreter reports the same out-of-bounds write. A case that records its profile
// (case.json "profile") is compared under it unless --profile says otherwise.
// Exit 0 when every buffer agrees, 1 when one does not (or the engine cannot run the kernel, or wrote outside a
// buffer), 2 for bad input,
// 4 when the engine is not available here ("skipped: ...").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "conformance/runner/Compare.h"
#include "conformance/runner/Format.h"
#include "conformance/runner/Npy.h"
#include "interpreter/Interpreter.h"
#include "ir/FloatBits.h"
#include "ir/FileIO.h"
#include "ir/launch/Redzones.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {

struct DiffFlags {
  LaunchFlags launch;
  int numWarps = 0;  // 0: the case's, or 4 for a kernel file
  std::string recorded;  // compare with the case's recorded engine_outputs of this name instead of running one
};

// The recorded outputs of `name` into the buffers of `launch` (case.json "args", in launch order). "" or an error.
std::string loadRecorded(const std::string& directory, const std::string& name, Launch& launch,
                         std::vector<bool>& compared) {
  const std::filesystem::path dir(directory);
  std::string text, readError;
  if (!readRegularFile((dir / "case.json").string(), kMaxJsonFileBytes, text, readError))
    return (dir / "case.json").string() + ": " + readError;
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.contains("args") || !json["args"].is_array()) return (dir / "case.json").string() + ": no args";
  const nlohmann::json& args = json["args"];
  if (args.size() != launch.arguments.size()) return (dir / "case.json").string() + ": args do not match the launch";
  int found = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    LaunchArgument& argument = launch.arguments[i];
    if (!argument.isBuffer() || argument.isAlias()) continue;
    const nlohmann::json* files = args[i].contains("engine_outputs") ? &args[i]["engine_outputs"] : nullptr;
    if (!files || !files->contains(name) || !(*files)[name].is_string()) continue;  // an input: not compared
    compared[i] = true;
    NpyLoad load = readNpyFile((dir / (*files)[name].get<std::string>()).string());
    if (!load.ok()) return load.error;
    if (load.array.bytes.size() != argument.bytes.size())
      return (dir / (*files)[name].get<std::string>()).string() + ": size differs from the buffer " + argument.name;
    argument.bytes = std::move(load.array.bytes);
    ++found;
  }
  return found ? "" : (dir / "case.json").string() + ": no recorded buffers named " + name;
}

uint64_t elementBits(const LaunchArgument& argument, int64_t index) {
  const int bytes = storageBytes(argument.elementKind);
  uint64_t bits = 0;
  std::memcpy(&bits, argument.bytes.data() + index * bytes, static_cast<size_t>(bytes));
  return bits;
}

// Whether `got` is within `bound` of the interpreter's `want` (bound > 0): a float buffer by value (both NaN
// agree), any other by the integer distance (a float bound stored through a reinterpreting pointer counts
// representable floats there, interpreter/MemoryOps.cpp boundInBufferUnits).
bool withinBound(uint64_t got, uint64_t want, ScalarKind kind, double bound) {
  if (!(bound > 0)) return false;
  if (std::isinf(bound)) return true;
  if (isFloatKind(kind)) {
    const double g = doubleFromFloatBits(got, kind), w = doubleFromFloatBits(want, kind);
    return (std::isnan(g) && std::isnan(w)) || std::fabs(g - w) <= bound;
  }
  const int bits = storageBytes(kind) * 8;
  const auto signedOf = [&](uint64_t v) {
    return bits >= 64 ? static_cast<double>(static_cast<int64_t>(v))
                      : static_cast<double>(static_cast<int64_t>(v << (64 - bits)) >> (64 - bits));
  };
  return std::fabs(signedOf(got) - signedOf(want)) <= bound;
}

struct BufferVerdict {
  bool agrees = false;
  int64_t withinBound = 0;
};

// One line for a buffer. `boundReason` names where exact-profile bounds come from ("" under the triton profile:
// bit for bit only).
BufferVerdict compareBuffer(const LaunchArgument& reference, const LaunchArgument& other, const char* engineName,
                            const std::string& boundReason) {
  const int bytes = storageBytes(reference.elementKind);
  const int64_t count = static_cast<int64_t>(reference.bytes.size()) / bytes;
  const bool bounded = !boundReason.empty() && static_cast<int64_t>(reference.errorBound.size()) == count;
  int64_t differing = 0, first = -1, within = 0;
  double maxAbs = 0;
  for (int64_t i = 0; i < count; ++i)
    if (std::memcmp(reference.bytes.data() + i * bytes, other.bytes.data() + i * bytes, static_cast<size_t>(bytes)) != 0) {
      const uint64_t a = elementBits(reference, i), b = elementBits(other, i);
      if (bounded && withinBound(b, a, reference.elementKind, reference.errorBound[static_cast<size_t>(i)])) {
        ++within;
        if (isFloatKind(reference.elementKind)) {
          const double d = std::fabs(doubleFromFloatBits(a, reference.elementKind) - doubleFromFloatBits(b, reference.elementKind));
          if (!std::isnan(d)) maxAbs = std::max(maxAbs, d);
        }
        continue;
      }
      if (first < 0) first = i;
      ++differing;
    }
  std::string head = fmt::format("  {} ({}, {} elements{})", reference.name, scalarKindName(reference.elementKind), count,
                                 reference.isAlias() ? ", a view of " + reference.aliasOf : "");
  const std::string bound =
      within == 0 ? ""
                  : fmt::format("{} within the interpreter's bound ({}{})", within, boundReason,
                                maxAbs > 0 ? fmt::format("; max abs difference {:.3g}", maxAbs) : "");
  if (differing == 0) {
    if (within == 0) std::printf("%s: bit-exact\n", head.c_str());
    else std::printf("%s: %lld bit-exact, %s\n", head.c_str(), static_cast<long long>(count - within), bound.c_str());
    return {true, within};
  }
  uint64_t a = elementBits(reference, first), b = elementBits(other, first);
  std::printf("%s: %lld of %lld differ; first at [%lld]: interp %s (0x%llx), %s %s (0x%llx)\n", head.c_str(),
              static_cast<long long>(differing), static_cast<long long>(count), static_cast<long long>(first),
              formatElement(a, reference.elementKind).c_str(), static_cast<unsigned long long>(a), engineName,
              formatElement(b, reference.elementKind).c_str(), static_cast<unsigned long long>(b));
  if (within > 0) std::printf("    and %s\n", bound.c_str());
  return {false, within};
}

// Under the exact profile: what gives the kernel's elements a bound ("" when nothing can).
std::string exactBoundReason(const Module& module) {
  bool inlineAsm = false, atomics = false;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      inlineAsm = inlineAsm || op.kind == OpKind::TTElementwiseInlineAsm;
      atomics = atomics || (op.kind == OpKind::TTAtomicRMW && op.result()->type.isFloat() &&
                            op.keywordAttr("atomic_rmw_op") == "fadd");
    });
  if (inlineAsm && atomics) return "approximate inline PTX, or arrival order";
  return inlineAsm ? "approximate inline PTX" : atomics ? "arrival order" : "";
}

// Under the triton profile: the buffer judged with the interpreter's error bounds (Compare.h: a lane whose bound is
// 0 bit for bit, else within the bound; +inf: any value). One line; returns true when it passes.
bool judgeBuffer(const LaunchArgument& reference, const LaunchArgument& other, const char* engineName) {
  const int bytes = storageBytes(reference.elementKind);
  const int64_t count = static_cast<int64_t>(reference.bytes.size()) / bytes;
  const std::vector<int64_t> shape{count};
  OutputComparison comparison =
      compareOutput(reference.name, reference.elementKind, shape, other.bytes, reference.bytes, reference.errorBound);
  int64_t exactLanes = count, unconstrainedLanes = 0;
  if (!reference.errorBound.empty()) {
    exactLanes = std::count(reference.errorBound.begin(), reference.errorBound.end(), 0.0);
    unconstrainedLanes = std::count_if(reference.errorBound.begin(), reference.errorBound.end(), [](double b) { return std::isinf(b); });
  }
  if (comparison.bitExact() && exactLanes == count) return compareBuffer(reference, other, engineName, "").agrees;
  std::string head = fmt::format("  {} ({}, {} elements{})", reference.name, scalarKindName(reference.elementKind), count,
                                 reference.isAlias() ? ", a view of " + reference.aliasOf : "");
  std::string bounds = fmt::format("bound 0 (compared bit for bit) on {} of {}, unconstrained {}", exactLanes, count,
                                   unconstrainedLanes);
  if (!comparison.error.empty()) {
    std::printf("%s: %s\n", head.c_str(), comparison.error.c_str());
    return false;
  }
  if (comparison.passed()) {
    std::printf("%s: within the interpreter's bounds: %lld bit-exact, %lld within bound (%lld unconstrained); %s\n", head.c_str(),
                static_cast<long long>(comparison.exact), static_cast<long long>(comparison.withinBound),
                static_cast<long long>(comparison.unconstrained), bounds.c_str());
    return true;
  }
  compareBuffer(reference, other, engineName, "");
  std::printf("    judged with the interpreter's bounds: %lld failing, %lld bit-exact, %lld within bound; %s\n",
              static_cast<long long>(comparison.failing), static_cast<long long>(comparison.exact),
              static_cast<long long>(comparison.withinBound), bounds.c_str());
  for (const std::string& line : comparison.failureLines()) std::printf("    %s\n", line.c_str());
  return false;
}

// Writes outside every buffer: the engine's redzone findings (ir/launch/Redzones.h) printed, and judged against
// the interpreter's out-of-bounds writes. Returns true when the engine wrote outside a buffer or the two disagree.
bool judgeStrayWrites(const Launch& launch, const LaunchResult& interpreter, const LaunchResult& other, const std::string& engineName) {
  bool found = false;
  for (const Report& report : other.reports)
    if (report.kind == Report::Kind::OutOfBounds && report.op == kRedzoneCheckOp) {
      if (!found) std::printf("%s wrote outside a buffer:\n", engineName.c_str());
      std::printf("  %s\n", report.str().c_str());
      found = true;
    }
  const std::string disagreement = compareOutOfBoundsWrites(launch.arguments, interpreter.reports, other.reports, engineName,
                                                            promisedAlignment(*launch.kernel));
  if (!disagreement.empty()) std::printf("out-of-bounds writes: interp and %s disagree\n%s", engineName.c_str(), disagreement.c_str());
  else if (found) std::printf("out-of-bounds writes: the interpreter reports them too\n");
  return found || !disagreement.empty();
}

int runDiff(const DiffFlags& flags) {
  if (flags.launch.engine == "interp") {
    printError("--engine interp would compare the interpreter with itself; use --engine gpu");
    return kExitBadInput;
  }
  int exitCode = kExitOk;
  const bool recorded = !flags.recorded.empty();
  std::unique_ptr<Engine> engine = recorded ? nullptr : engineFor(flags.launch.engine, exitCode);
  if (!engine && !recorded) return exitCode;
  PreparedLaunch prepared;
  if (int code = prepareLaunch(flags.launch, prepared); code != kExitOk) return code;
  if (recorded && !prepared.goldenCase) {
    printError("--recorded needs a case directory (its case.json names the recorded files)");
    return kExitBadInput;
  }
  if (flags.numWarps > 0) prepared.launch.numWarps = flags.numWarps;
  // --profile, else the profile the case records (case.json "profile": the campaign that found it), else exact.
  const bool recordedProfile = flags.launch.profile.empty() && prepared.goldenCase && prepared.goldenCase->profile;
  const bool triton = flags.launch.profile == "triton" ||
                      (recordedProfile && *prepared.goldenCase->profile == FloatProfile::Triton);
  if (recordedProfile)
    std::printf("note: the %s profile the case records (--profile overrides it)\n", triton ? "triton" : "exact");
  LaunchOptions options = prepared.options;
  options.profile = triton ? FloatProfile::Triton : FloatProfile::Exact;
  options.echoPrints = false;
  options.reduceLayouts.clear();
  // The interpreter reduces in the other engine's order (recorded outputs are the GPU's); the registry knows it.
  const std::optional<EngineKind> other =
      recorded ? std::optional<EngineKind>(EngineKind::Gpu) : parseEngineKind(flags.launch.engine);
  if (triton && other) options.reduceLayouts = reduceOrderOf(*other, prepared.launch);

  Launch reference = prepared.launch, candidate = prepared.launch;
  InterpreterEngine interpreter;
  LaunchOutcome expected = interpreter.run(reference, options);
  if (!expected.started()) {
    printDiagnostics(expected.diagnostics);
    return kExitBadInput;
  }
  if (int64_t reports = expected.result.totalReports(); reports > 0) {
    std::printf("note: the interpreter reported %lld problem(s) in this launch (the GPU engine sees only writes "
                "outside a buffer, in its redzones):\n",
                static_cast<long long>(reports));
    printReports(expected.result);
  }
  LaunchOutcome actual;
  std::vector<bool> compared(candidate.arguments.size(), !recorded);
  if (recorded) {
    if (std::string error = loadRecorded(prepared.goldenCase->directory, flags.recorded, candidate, compared);
        !error.empty()) {
      printError("--recorded: " + error);
      return kExitBadInput;
    }
  } else {
    actual = engine->run(candidate, options);
  }
  const std::string engineName = recorded ? "recorded " + flags.recorded : engine->name();
  const std::string engineDescription = recorded ? "outputs recorded in the case" : engine->description();
  const auto& grid = prepared.launch.grid;
  std::printf("diff @%s on grid %lldx%lldx%lld, num_warps %d: interp vs %s (%s), %s\n",
              prepared.launch.kernel->name().c_str(), static_cast<long long>(grid[0]), static_cast<long long>(grid[1]),
              static_cast<long long>(grid[2]), prepared.launch.numWarps, engineName.c_str(), engineDescription.c_str(),
              triton ? fmt::format("triton profile, {} reduce(s) in the GPU's order", options.reduceLayouts.size()).c_str()
                     : "exact profile");
  if (!recorded && !actual.started()) {
    printDiagnostics(actual.diagnostics);
    std::printf("diff: the %s engine could not run this launch\n", engineName.c_str());
    return kExitFailed;
  }
  const std::string boundReason = triton ? "" : exactBoundReason(*prepared.launch.module);
  int buffers = 0, agreeing = 0, bounded = 0;
  int64_t withinElements = 0;
  for (size_t i = 0; i < reference.arguments.size(); ++i) {
    if (!reference.arguments[i].isBuffer() || !compared[i]) continue;
    ++buffers;
    if (triton) {
      const bool agrees = judgeBuffer(reference.arguments[i], candidate.arguments[i], engineName.c_str());
      agreeing += agrees ? 1 : 0;
      if (agrees && candidate.arguments[i].bytes != reference.arguments[i].bytes) ++bounded;
      continue;
    }
    const BufferVerdict verdict =
        compareBuffer(reference.arguments[i], candidate.arguments[i], engineName.c_str(), boundReason);
    agreeing += verdict.agrees ? 1 : 0;
    bounded += verdict.agrees && verdict.withinBound > 0 ? 1 : 0;
    withinElements += verdict.withinBound;
  }
  const bool stray = !recorded && judgeStrayWrites(reference, expected.result, actual.result, engineName);
  if (stray) {
    std::printf("diff: %s wrote outside a buffer (%d of %d buffers differ)\n", engineName.c_str(), buffers - agreeing, buffers);
    return kExitFailed;
  }
  if (agreeing == buffers && bounded == 0) {
    std::printf("diff: all %d buffers bit-exact\n", buffers);
    return kExitOk;
  }
  if (agreeing == buffers) {
    if (triton)
      std::printf("diff: all %d buffers agree (%d within the triton profile's bounds)\n", buffers, bounded);
    else
      std::printf("diff: all %d buffers agree, %d of them within bound (%lld elements; %s)\n", buffers, bounded,
                  static_cast<long long>(withinElements), boundReason.c_str());
    return kExitOk;
  }
  std::printf("diff: %d of %d buffers differ\n", buffers - agreeing, buffers);
  return kExitFailed;
}

}  // namespace

void addDiffCommand(CLI::App& app, int& exitCode) {
  auto [diff, flags] =
      addLaunchCommand(app, "diff", "run a launch on the interpreter and on another engine, compare bit for bit",
                       runDiff, exitCode, "gpu");
  diff->add_option("--num-warps", flags->numWarps, "warps per program (default: the case's, or 4)")->check(powerOfTwoWarps());
  diff->add_option("--recorded", flags->recorded,
                   "compare with the case's recorded outputs of this engine (case.json engine_outputs, e.g. gpu) "
                   "instead of running it");
}

}  // namespace tilesim::cli

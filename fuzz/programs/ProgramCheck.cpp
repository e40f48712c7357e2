// The interpreter-against-reference property (see ProgramCheck.h). Moved here from ProgramFuzzTest.cpp so that the
// test and `tilesim fuzz` check exactly the same thing.
#include "fuzz/programs/ProgramCheck.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>

#include "ir/FloatBits.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "ir/verify/Verifier.h"

namespace tilesim::fuzz {
namespace {

bool sameElement(uint64_t a, uint64_t b, ScalarKind kind) {
  if (a == b) return true;
  return isFloatKind(kind) && isNaNBits(a, kind) && isNaNBits(b, kind);
}

std::string compareBuffers(const LaunchArgument& got, const std::vector<uint8_t>& expected,
                           const std::vector<uint8_t>& undefined) {
  const int bytes = storageBytes(got.elementKind);
  std::string message;
  int shown = 0;
  for (size_t offset = 0; offset < expected.size(); offset += bytes) {
    uint64_t a = 0, b = 0;
    std::memcpy(&a, got.bytes.data() + offset, bytes);
    std::memcpy(&b, expected.data() + offset, bytes);
    if (undefined[offset / bytes] || sameElement(a, b, got.elementKind)) continue;
    if (shown++ < 4) {
      char line[160];
      std::snprintf(line, sizeof line, "  %s[%zu]: interpreter 0x%llx, reference 0x%llx\n", got.name.c_str(),
                    offset / bytes, static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
      message += line;
    }
  }
  return message;
}

// Adds the time from its construction (or the last lap) to a stage, when timing is on.
class StageTimer {
 public:
  explicit StageTimer(StageSeconds* stages) : stages_(stages), last_(now()) {}
  void lap(double StageSeconds::*stage) {
    if (!stages_) return;
    const auto t = now();
    stages_->*stage += std::chrono::duration<double>(t - last_).count();
    last_ = t;
  }

 private:
  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  StageSeconds* stages_;
  std::chrono::steady_clock::time_point last_;
};

// Records how the program failed and returns the message.
std::string failed(CheckedProgram& program, std::string kind, std::string message, std::vector<std::string> buffers = {}) {
  program.failure.kind = std::move(kind);
  program.failure.buffers = std::move(buffers);
  return message;
}

}  // namespace

std::string withoutNumbers(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size() && text[i] != '\n'; ++i) {
    if (text[i] >= '0' && text[i] <= '9') {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += text[i];
    }
  }
  return out;
}

namespace {

struct RunConfig {
  ProgramOrder order;
  int threads;
  uint64_t seed;
  FloatProfile profile;
};

}  // namespace

void StageSeconds::add(const StageSeconds& other) {
  for (const StageField& stage : kStageFields) this->*stage.seconds += other.*stage.seconds;
}

std::string prepareProgram(const KernelPlan& plan, CheckedProgram& program) {
  StageTimer timer(program.stages);
  program.built = buildKernel(plan);
  timer.lap(&StageSeconds::build);
  if (!program.built.error.empty()) return failed(program, "builder: " + withoutNumbers(program.built.error), "builder: " + program.built.error);
  program.text = printModule(*program.built.module);
  timer.lap(&StageSeconds::print);
  ParseResult parsed = parseModule(program.text, "fuzz.ttir");
  timer.lap(&StageSeconds::parse);
  if (!parsed.diagnostics.empty())
    return failed(program, "round-trip: re-parse", "round-trip: re-parse failed: " + parsed.diagnostics[0].str() + "\n" + program.text);
  const bool samePrint = printModule(*parsed.module) == program.text;
  timer.lap(&StageSeconds::print);
  if (!samePrint) return failed(program, "round-trip: reprint", "round-trip: printing the re-parsed module differs\n" + program.text);
  Diagnostics diagnostics = verifyModule(*parsed.module);
  timer.lap(&StageSeconds::verify);
  if (!diagnostics.empty())
    return failed(program, "verifier: " + withoutNumbers(diagnostics[0].message),
                  "verifier: rejects the builder's module: " + diagnostics[0].str() + "\n" + program.text);
  program.parsed = std::move(parsed.module);
  std::optional<Function> kernel = program.parsed->kernel();
  if (!kernel) return failed(program, "builder: no kernel", "builder: no kernel in\n" + program.text);
  program.opCounts.clear();
  for (const auto& function : program.parsed->functions)
    walk(*function, [&](const Operation& op) { ++program.opCounts[std::string(op.name())]; });
  return "";
}

std::string checkProgram(const KernelPlan& plan, Engine& interpreter, CheckedProgram& program) {
  if (std::string error = prepareProgram(plan, program); !error.empty()) return error;
  const BuiltKernel& built = program.built;
  const std::string& text = program.text;
  std::optional<Function> kernel = program.parsed->kernel();
  StageTimer timer(program.stages);

  ReferenceOutcome reference = runReference(*kernel, built.arguments, built.grid, FloatProfile::Exact, program.parsed.get());
  if (!reference.error.empty()) return failed(program, "reference: " + withoutNumbers(reference.error), "reference: " + reference.error + "\n" + text);
  // Math functions differ between the profiles (ExactMath vs correctly rounded), and f32 atomic adds flush
  // subnormals under triton, so a program with them has a triton reference of its own; for any other program the
  // two runs are the same computation (referenceDependsOnProfile) and the exact one serves both.
  ReferenceOutcome tritonReference;
  const bool profileDependent = referenceDependsOnProfile(*program.parsed);
  if (profileDependent) {
    tritonReference = runReference(*kernel, built.arguments, built.grid, FloatProfile::Triton, program.parsed.get());
    if (!tritonReference.error.empty())
      return failed(program, "reference: " + withoutNumbers(tritonReference.error), "reference: " + tritonReference.error + "\n" + text);
  }
  if (reference.outOfBounds) return failed(program, "generator: out-of-bounds", "generator: the reference saw an out-of-bounds access\n" + text);
  if (reference.assertFails) return failed(program, "generator: assert", "generator: an always-true tt.assert fails in the reference\n" + text);
  program.undefinedStore = reference.undefinedReachesMemory;
  program.undefinedBehaviour = reference.undefinedBehaviour;
  // Kept also when a check below fails: the reference is what a regression case expects.
  program.reference = reference;
  program.undefinedElements = reference.undefinedElements;
  timer.lap(&StageSeconds::reference);

  // Every run must match the reference of its profile; runs of one profile must give identical bytes.
  const RunConfig configs[] = {{ProgramOrder::Forward, 1, 1, FloatProfile::Exact},
                               {ProgramOrder::Reverse, 2, 1, FloatProfile::Exact},
                               {ProgramOrder::Shuffled, 2, plan.dataSeed | 1, FloatProfile::Exact},
                               {ProgramOrder::Shuffled, 2, plan.dataSeed + 7, FloatProfile::Triton}};
  std::vector<LaunchArgument> first;
  FloatProfile firstProfile = FloatProfile::Exact;
  for (const RunConfig& config : configs) {
    const ReferenceOutcome& expected = config.profile == FloatProfile::Exact || !profileDependent ? reference : tritonReference;
    Launch launch;
    launch.module = program.parsed.get();
    launch.kernel = kernel;
    launch.arguments = built.arguments;
    launch.grid = built.grid;
    launch.numWarps = plan.numWarps;
    LaunchOptions options = LaunchOptions::comparedRun(config.profile, config.order, config.threads);
    options.shuffleSeed = config.seed;
    options.checkUB = true;
    timer.lap(&StageSeconds::compare);
    LaunchOutcome outcome = interpreter.run(launch, options);
    timer.lap(&StageSeconds::interpret);
    if (!outcome.started())
      return failed(program, "launch: " + withoutNumbers(outcome.diagnostics[0].message), "launch: did not start: " + outcome.diagnostics[0].str() + "\n" + text);
    std::string reports;
    std::set<std::string> unexpected;  // "race in tt.store"
    bool undefinedReported = false, ubReported = false;
    for (const Report& report : outcome.result.reports) {
      if (report.kind == Report::Kind::UndefinedUse) undefinedReported = true;
      else if (report.kind == Report::Kind::UndefinedBehavior) ubReported = true;
      else {
        reports += "  unexpected report: " + report.str() + "\n";
        unexpected.insert(std::string(reportKindName(report.kind)) + " in " + report.op);
      }
    }
    if (!reports.empty()) {
      std::string kind = "reports: unexpected";
      for (const std::string& what : unexpected) kind += " " + what + ";";
      return failed(program, kind, "reports: unexpected\n" + reports + text);
    }
    if (ubReported != reference.undefinedBehaviour && !(ubReported && reference.undefinedBehaviourPossible))
      return failed(program, ubReported ? "reports: spurious undefined-behavior" : "reports: missing undefined-behavior",
                    std::string(ubReported ? "reports: interpreter reports undefined behaviour, the reference sees none"
                                           : "reports: the reference sees undefined behaviour (div by 0, shift, float->int), the interpreter reports none") +
                        "\n" + built.summary + text);
    if (undefinedReported != reference.undefinedReachesMemory)
      return failed(program, undefinedReported ? "reports: spurious undefined-value" : "reports: missing undefined-value",
                    std::string(undefinedReported ? "reports: interpreter reports an undefined value reaching memory, the reference does not"
                                                  : "reports: the reference sees an undefined value reach memory, the interpreter reports nothing") +
                        "\n" + text);
    if (first.empty() || config.profile != firstProfile) {
      std::string mismatches;
      std::vector<std::string> differing;
      size_t buffer = 0;
      for (const LaunchArgument& argument : launch.arguments)
        if (argument.kind == LaunchArgument::Kind::Buffer) {
          std::string mismatch = compareBuffers(argument, expected.buffers.at(buffer), expected.undefinedElements.at(buffer));
          if (!mismatch.empty()) differing.push_back(argument.name);
          mismatches += mismatch;
          ++buffer;
        }
      if (!mismatches.empty())
        return failed(program, "mismatch", "mismatch: interpreter and reference disagree\n" + mismatches + built.summary + text,
                      differing);
      if (config.profile == FloatProfile::Exact) program.exactOutputs = launch.arguments;
      else program.tritonOutputs = launch.arguments;
      first = std::move(launch.arguments);
      firstProfile = config.profile;
    } else {
      std::vector<std::string> differing;
      for (size_t i = 0; i < first.size(); ++i)
        if (first[i].bytes != launch.arguments[i].bytes) differing.push_back(first[i].name);
      if (!differing.empty())
        return failed(program, "determinism",
                      "determinism: result depends on program order or threads (" + differing[0] + ")\n" + text, differing);
    }
  }
  timer.lap(&StageSeconds::compare);
  return "";
}

}  // namespace tilesim::fuzz

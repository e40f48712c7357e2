// The real-Triton target (TritonTarget.h): one program through the Triton worker, then the interpreter on
// Triton's optimised TTIR against the interpreter on the original, and the classification of what went wrong.
#include "fuzz/campaign/TritonTarget.h"

#include <cstring>
#include <regex>

#include "conformance/runner/Compare.h"
#include "fuzz/campaign/TargetChecks.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim::fuzz {
namespace {

// Known Triton 3.6 bugs (docs/findings.md) that generated programs hit often: counted as skipped with the
// finding's name, not shrunk again and again. Each pattern is matched against the whole diagnostic.
struct KnownFinding {
  const char* id;
  const char* pattern;
};
constexpr KnownFinding kKnownFindings[] = {
    // A noinline function with tensor parameters: ConvertTritonToTritonGPU does not convert its signature (two
    // messages, depending on whether a use of a parameter or the signature is legalised first).
    {"T3 (docs/findings.md: noinline function with tensor parameters, triton-lang/triton PR #7996)",
     "failed to legalize unresolved materialization"},
    {"T3 (docs/findings.md: noinline function with tensor parameters, triton-lang/triton PR #7996)",
     "arguments to match function signature"},
    // Arith ops Triton's frontend never writes (it writes 0 - x and tt.bitcast): ConvertTritonToTritonGPU has no
    // pattern for them on tensors.
    {"T8 (docs/findings.md: arith.negf on a tensor is illegal in ConvertTritonToTritonGPU)",
     "failed to legalize operation 'arith.negf'"},
    {"T8 (docs/findings.md: arith.bitcast on a tensor is illegal in ConvertTritonToTritonGPU)",
     "failed to legalize operation 'arith.bitcast'"},
    // The later stages (--triton-run gpu compiles to a cubin): an i1 store through !tt.ptr<i1>, f64 clampf.
    {"T1 (docs/findings.md: i1 store through !tt.ptr<i1> aborts in CastInst::Create)", "Invalid cast!"},
    {"T4 (docs/findings.md: constant i1 store aborts in FoldBitCast)", "Invalid constantexpr bitcast!"},
    {"T5 (docs/findings.md: f64 tt.clampf lowers to a missing NVVM intrinsic)", "fmin.xorsign.abs"},
    {"T2 (docs/findings.md: packLLElements assertion in ConvertTritonGPUToLLVM)", "resultVals.size() == 1"},
    // Integer -> fp8 casts, which Triton's frontend writes through a wider float: its LLVM lowering makes an
    // llvm.sitofp / llvm.uitofp whose result is the fp8 storage type i8.
    {"T9 (docs/findings.md: arith.sitofp/uitofp to fp8 fails in ConvertTritonGPUToLLVM)",
     "op result #0 must be floating point LLVM type or LLVM dialect-compatible vector of floating point LLVM type, but got 'i8'"},
    {"T10 (docs/findings.md: f64 -> fp8 with rounding mode rtne aborts in ConvertTritonGPUToLLVM)",
     "Unsupported conversion from f64 to f8"},
};

std::string describeNumber(const char* what, int64_t n) { return std::to_string(n) + " " + what; }

size_t countOf(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + word.size())) ++n;
  return n;
}

}  // namespace

TritonVerdict tritonFailure(const std::string& check, const std::string& stage, const std::string& diagnostic,
                            const std::string& programText) {
  const std::string concise = conciseTritonDiagnostic(diagnostic);
  if (std::string known = knownTritonFinding(diagnostic); !known.empty())
    return TritonVerdict::skip("triton-known", known + ": " + concise);
  return TritonVerdict::finding(
      check, check + ": " + withoutNumbers(concise),
      check + ": " + stage + ": " + concise + "\n" + diagnostic.substr(0, 4000) + "\n" + programText);
}

namespace {

// The optimised launch: the original's arguments, each bound to its parameter by position (Triton prints the
// parameters of a module it rewrote as %arg0, %arg1, ...: findings F1).
Launch optimisedLaunch(const KernelPlan& plan, const CheckedProgram& program, const Module& optimised) {
  Launch original = launchOf(plan, program);
  Launch launch = original;
  launch.module = &optimised;
  launch.kernel = optimised.kernel();
  for (size_t p = 0; original.kernel && p < original.kernel->numArguments(); ++p) {
    const size_t i = argumentForParameter(original, p);
    if (i < launch.arguments.size() && launch.arguments[i].parameter < 0) launch.arguments[i].parameter = static_cast<int>(p);
  }
  return launch;
}

// The buffers of `got` against the original's; bounds from `bounded` (a triton-profile run) when given.
std::string compareBuffers(const CheckedProgram& program, const std::vector<LaunchArgument>& got,
                           const std::vector<LaunchArgument>* bounded, std::vector<std::string>& differing) {
  std::string message;
  const std::vector<LaunchArgument>& expected = program.exactOutputs;
  size_t buffer = 0;
  for (size_t i = 0; i < expected.size() && i < got.size(); ++i) {
    if (!expected[i].isBuffer()) continue;
    const std::vector<uint8_t>& undefined = program.undefinedElements.at(buffer++);
    const int bytes = storageBytes(expected[i].elementKind);
    const int64_t count = static_cast<int64_t>(expected[i].bytes.size()) / bytes;
    std::vector<uint8_t> candidate = got[i].bytes;
    if (candidate.size() != expected[i].bytes.size()) candidate.resize(expected[i].bytes.size());
    // Where an undefined lane was stored the optimiser may store anything: those elements take the original's bits.
    for (int64_t e = 0; e < count; ++e)
      if (undefined[static_cast<size_t>(e)])
        std::memcpy(candidate.data() + e * bytes, expected[i].bytes.data() + e * bytes, static_cast<size_t>(bytes));
    std::vector<int64_t> shape{count};
    std::vector<double> bounds = bounded ? (*bounded)[i].errorBound : std::vector<double>{};
    OutputComparison comparison = compareOutput(expected[i].name, expected[i].elementKind, shape, candidate,
                                                expected[i].bytes, bounds);
    if (!comparison.passed()) {
      message += "  optimised " + comparison.details() + "\n";
      differing.push_back(expected[i].name);
    }
  }
  return message;
}

// Reports of the optimised run the original did not have ("" when none): undefined values reaching memory are
// allowed only where the original had them too.
std::string newReports(const CheckedProgram& program, const LaunchResult& result) {
  std::string text;
  for (const Report& report : result.reports) {
    if (report.kind == Report::Kind::UndefinedUse && program.undefinedStore) continue;
    text += "  " + report.str() + "\n";
  }
  return text;
}

}  // namespace

std::string conciseTritonDiagnostic(const std::string& diagnostic) {
  static const std::regex kPosition(R"(^\S*:\d+:\d+: (error: )?)");
  static const std::regex kPass(R"(Pipeline failed while executing \[`(\w+)`)");
  std::string first, last;
  size_t start = 0;
  while (start < diagnostic.size()) {
    size_t end = diagnostic.find('\n', start);
    if (end == std::string::npos) end = diagnostic.size();
    const std::string line = diagnostic.substr(start, end - start);
    start = end + 1;
    if (line.find("Failures have been detected") != std::string::npos) continue;
    if (first.empty() && (line.find("error:") != std::string::npos || line.find("Assertion") != std::string::npos))
      first = std::regex_replace(line, kPosition, "");
    if (!line.empty() && line[0] != ' ') last = line;
  }
  if (first.empty()) first = last.empty() ? "(no diagnostic)" : last;
  std::smatch pass;
  if (std::regex_search(diagnostic, pass, kPass)) first += " (pass " + pass[1].str() + ")";
  return first.substr(0, 400);
}

std::string knownTritonFinding(const std::string& diagnostic) {
  for (const KnownFinding& known : kKnownFindings)
    if (diagnostic.find(known.pattern) != std::string::npos) return known.id;
  return "";
}

OptimisedComparison compareOptimised(const KernelPlan& plan, const CheckedProgram& program, Engine& interpreter,
                                     const Module& optimised, const std::string& optimisedText,
                                     const std::function<void(const char*)>& ran) {
  OptimisedComparison compared;
  Launch launch = optimisedLaunch(plan, program, optimised);
  LaunchOptions options;
  options.echoPrints = false;
  options.threads = 1;
  options.profile = FloatProfile::Exact;
  LaunchOutcome outcome = interpreter.run(launch, options);
  if (!outcome.started()) {
    compared.startError = outcome.diagnostics.empty() ? "the launch did not start" : outcome.diagnostics.front().str();
    return compared;
  }
  ran("triton-compare");
  compared.difference = compareBuffers(program, launch.arguments, nullptr, compared.differing);
  compared.reports = newReports(program, outcome.result);
  if (!compared.difference.empty() && compared.reports.empty() && program.opCounts.count("tt.dot") &&
      countOf(optimisedText, "arith.addf") < countOf(program.text, "arith.addf")) {
    // combine's dot fusion changes where the accumulator starts: judged within the triton profile's dot bound.
    Launch bounded = optimisedLaunch(plan, program, optimised);
    options.profile = FloatProfile::Triton;
    if (interpreter.run(bounded, options).started()) {
      std::vector<std::string> stillDiffering;
      if (compareBuffers(program, launch.arguments, &bounded.arguments, stillDiffering).empty()) {
        ran("triton-dot-fusion-within-bounds");
        compared.difference.clear();
        compared.differing.clear();
      }
    }
  }
  return compared;
}

TritonProbe probeTritonTarget(TritonTargetOptions& options) {
  TritonProbe probe;
  std::vector<std::string> candidates = tritonPythonCandidates(probe.badInput);
  if (!probe.badInput.empty()) return probe;
  options.script = findTritonWorkerScript();
  if (options.script.empty()) {
    probe.unavailable = "conformance/triton/triton_worker.py not found in the source tree or above the executable";
    return probe;
  }
  if (candidates.empty()) probe.unavailable = "no Python found (TILESIM_PYTHON, .venv, .venv-peer, python3 on PATH)";
  for (const std::string& python : candidates) {
    TritonWorker worker(python, options.script, options.timeoutSeconds, options.launcher);
    std::string why = worker.start();
    if (why.empty()) {
      options.python = python;
      probe.unavailable.clear();
      probe.version = worker.version() + " (" + python + ")";
      return probe;
    }
    probe.unavailable += (probe.unavailable.empty() ? "" : "; ") + why;
  }
  return probe;
}

TritonTarget::TritonTarget(const TritonTargetOptions& options)
    : worker_(options.python, options.script, options.timeoutSeconds, options.launcher),
      onGpu_(!options.launcher.empty()), passByPass_(options.passByPass) {}

TritonVerdict TritonTarget::check(const KernelPlan& plan, const CheckedProgram& program, Engine& interpreter,
                                  bool compareResults, const std::function<void(const char*)>& ran) {
  if (onGpu_) return checkOnGpu(plan, program, compareResults, ran);
  if (passByPass_) return checkPassByPass(plan, program, interpreter, compareResults, ran);
  TritonAnswer answer = worker_.compile(program.text, plan.numWarps);
  switch (answer.kind) {
    case TritonAnswer::Kind::Unavailable:
    case TritonAnswer::Kind::Timeout: {
      TritonVerdict verdict;
      verdict.skipped = true;
      verdict.check = "target-unavailable";
      verdict.message = answer.diagnostic;
      return verdict;
    }
    case TritonAnswer::Kind::Crash:
      return tritonFailure("triton-crash", "the compiler aborted", answer.diagnostic, program.text);
    case TritonAnswer::Kind::ParseError:
      return tritonFailure("triton-rejects-input", "Triton's parser rejects tilesim's TTIR", answer.diagnostic,
                           program.text);
    case TritonAnswer::Kind::TtirPass:
      return tritonFailure("triton-crash", "a TTIR pass failed", answer.diagnostic, program.text);
    case TritonAnswer::Kind::TtgirPass:
    case TritonAnswer::Kind::Ok:
      break;
    case TritonAnswer::Kind::Launched:
    case TritonAnswer::Kind::CompileError:
    case TritonAnswer::Kind::LaunchError:
      return TritonVerdict::finding("triton-crash", "triton-crash: protocol",
                                    "triton-crash: the worker answered a compile request "
                                    "as a launch");
  }
  ran("triton-ttir");
  TritonVerdict verdict;
  verdict.files["triton-optimised.ttir"] = answer.ttir;
  if (answer.kind == TritonAnswer::Kind::TtgirPass) {
    // The TTIR passes worked: their output is still compared below, unless this is a finding of its own.
    verdict = tritonFailure("triton-crash", "make_ttgir failed", answer.diagnostic, program.text);
    verdict.files["triton-optimised.ttir"] = answer.ttir;
    if (verdict.failed) return verdict;
  } else {
    ran("triton-ttgir");
    verdict.files["triton.ttgir"] = answer.ttgir;
  }
  if (!compareResults && !verdict.skipped) {
    verdict.skipped = true;
    verdict.check = "target-ub";
    verdict.message = "the program has undefined behaviour in some lane; Triton compiled it, its result is not compared";
    return verdict;
  }
  auto rejected = [&](const std::string& why) {
    TritonVerdict result =
        TritonVerdict::finding("triton-output-rejected", "triton-output-rejected: " + withoutNumbers(why),
                               "triton-output-rejected: tilesim cannot " + why + "\n" + answer.ttir);
    result.files = verdict.files;
    return result;
  };
  ParseResult parsed = parseModule(answer.ttir, "triton-optimised.ttir");
  if (!parsed.module) return rejected("parse Triton's optimised TTIR: " + parsed.diagnostics.front().str());
  if (Diagnostics problems = verifyModule(*parsed.module); !problems.empty())
    return rejected("verify Triton's optimised TTIR: " + problems.front().str());
  if (!parsed.module->kernel()) return rejected("find the kernel in Triton's optimised TTIR");
  OptimisedComparison compared = compareOptimised(plan, program, interpreter, *parsed.module,
                                                  answer.ttir, ran);
  if (!compared.startError.empty()) return rejected("run Triton's optimised TTIR: " + compared.startError);
  const std::string& difference = compared.difference;
  const std::string& reports = compared.reports;
  std::vector<std::string>& differing = compared.differing;
  if (difference.empty() && reports.empty()) return verdict;  // passed, or skipped as a known make_ttgir bug
  TritonVerdict mismatch = TritonVerdict::finding(
      "triton-opt-mismatch", reports.empty() ? "triton-opt-mismatch" : "triton-opt-mismatch: reports",
      "triton-opt-mismatch: the interpreter gives other results for Triton's optimised "
      "TTIR (" +
          describeNumber("buffers differ", static_cast<int64_t>(differing.size())) +
          (reports.empty() ? "" : ", new reports") + ")\n" + difference +
          (reports.empty() ? "" : "  reports of the optimised kernel:\n" + reports) + program.built.summary +
          program.text + "\n// Triton's optimised TTIR:\n" + answer.ttir);
  mismatch.failure.buffers = differing;
  mismatch.files = verdict.files;
  return mismatch;
}

}  // namespace tilesim::fuzz

// bench_interpreter: runs the kernels in bench/interpreter/kernels/ through an engine (the interpreter by
// default, `--engine gpu` for the GPU backend), checks each output against a C++ reference (a wrong result fails
// loudly, exit 1), times the launch (best of --repeat runs after one warm-up; steady_clock around Engine::run only)
// and prints one table with the Triton 3.6 interpreter's time where one is known. Also times tt.dot alone (evalDot
// on 64x64x32 and 512^3 f32 tiles).
//   bench_interpreter [--kernel NAME]... [--engine interp|gpu] [--threads N] [--repeat N] [--profile exact|triton]
//                     [--no-checks]
#include <omp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>

#include "bench/interpreter/BenchCases.h"
#include "engines/EngineRegistry.h"
#include "interpreter/Dot.h"
#include "ir/text/Parser.h"

#ifndef TILESIM_BENCH_KERNELS_DIR
#define TILESIM_BENCH_KERNELS_DIR "bench/interpreter/kernels"
#endif

namespace tilesim::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Settings {
  std::vector<std::string> kernels;  // empty = all
  int threads = 0;
  int repeat = 5;
  std::string profile = "exact";
  bool checks = true;
  std::string kernelsDir = TILESIM_BENCH_KERNELS_DIR;
  std::string engine = "interp";
};

std::string cpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

bool selected(const Settings& settings, const std::string& name) {
  if (settings.kernels.empty()) return true;
  for (const std::string& wanted : settings.kernels)
    if (wanted == name || wanted == "all") return true;
  return false;
}

std::string rate(double work, bool flops, double seconds) {
  char text[64];
  if (flops) std::snprintf(text, sizeof text, "%.2f GFLOP/s", work / seconds * 1e-9);
  else std::snprintf(text, sizeof text, "%.1f Melem/s", work / seconds * 1e-6);
  return text;
}

void printRow(const std::string& kernel, const std::string& shape, int threads, double milliseconds,
              const std::string& throughput, const std::string& error, double tritonSeconds) {
  std::string triton = "-", speedup = "-";
  if (tritonSeconds > 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f ms", tritonSeconds * 1e3);
    triton = text;
    std::snprintf(text, sizeof text, "%.0fx", tritonSeconds * 1e3 / milliseconds);
    speedup = text;
  }
  std::printf("%-11s %-30s %7d %10.3f %16s %10s %12s %8s\n", kernel.c_str(), shape.c_str(), threads, milliseconds,
              throughput.c_str(), error.c_str(), triton.c_str(), speedup.c_str());
  std::fflush(stdout);
}

// Returns false (after saying why) when the kernel does not parse, does not start, reports, or is wrong.
bool runCase(BenchCase& benchCase, const Settings& settings, int threads, Engine& engine) {
  std::string path = settings.kernelsDir + "/" + benchCase.file;
  ParseResult parsed = parseModuleFile(path);
  if (!parsed.module) {
    for (const Diagnostic& diagnostic : parsed.diagnostics) std::cerr << diagnostic.str() << "\n";
    std::cerr << "bench_interpreter: " << benchCase.name << ": " << path << " does not parse\n";
    return false;
  }
  LaunchOptions options;
  options.threads = threads;
  options.checks = settings.checks;
  options.profile = settings.profile == "triton" ? FloatProfile::Triton : FloatProfile::Exact;
  options.echoPrints = false;
  double best = 1e300, maxError = 0;
  for (int run = 0; run <= settings.repeat; ++run) {  // run 0 is the warm-up, and the one that is checked
    Launch launch;
    launch.module = parsed.module.get();
    launch.kernel = parsed.module->kernel();
    launch.arguments = benchCase.arguments;  // fresh inputs, copied outside the timed region
    launch.grid = benchCase.grid;
    Clock::time_point start = Clock::now();
    LaunchOutcome outcome = engine.run(launch, options);
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!outcome.started()) {
      for (const Diagnostic& diagnostic : outcome.diagnostics) std::cerr << diagnostic.str() << "\n";
      std::cerr << "bench_interpreter: " << benchCase.name << ": launch did not start\n";
      return false;
    }
    if (!outcome.result.ok()) {
      for (const Report& report : outcome.result.reports) std::cerr << report.str() << "\n";
      std::cerr << "bench_interpreter: " << benchCase.name << ": the launch reported problems\n";
      return false;
    }
    if (run == 0) {
      CheckResult check = benchCase.check(launch.arguments);
      std::fprintf(stderr, "%s: max abs error %.3g (%s, tolerance %.3g)\n", benchCase.name.c_str(), check.maxAbsError,
                   check.what.c_str(), check.tolerance);
      if (!check.ok()) {
        std::cerr << "bench_interpreter: " << benchCase.name << ": WRONG RESULT\n";
        return false;
      }
      maxError = check.maxAbsError;
    }
    if (run > 0 || settings.repeat == 0) best = std::min(best, seconds);
  }
  char error[32];
  std::snprintf(error, sizeof error, "%.1e", maxError);
  printRow(benchCase.name, benchCase.shape, threads, best * 1e3, rate(benchCase.work, benchCase.workIsFlops, best), error,
           benchCase.tritonSeconds);
  return true;
}

// tt.dot alone: evalDot on f32 tiles, one thread, tf32 like Triton's default.
void runDotCase(int64_t rows, int64_t columns, int64_t depth, const Settings& settings) {
  Block block;
  Operation op(OpKind::TTDot);
  Type aType = Type::tensor({rows, depth}, Type::f32()), bType = Type::tensor({depth, columns}, Type::f32());
  Type cType = Type::tensor({rows, columns}, Type::f32());
  op.operands = {block.addArgument(aType, "a"), block.addArgument(bType, "b"), block.addArgument(cType, "c")};
  op.addResult(cType, "d");
  op.setAttr(kInputPrecisionAttr, Attribute::keyword("tf32"));
  Tile a(aType), b(bType), c(cType);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (Tile* tile : {&a, &b, &c})
    for (int64_t i = 0; i < tile->size(); ++i) tile->as<float>()[i] = dist(random);
  double flops = 2.0 * rows * columns * depth;
  int calls = std::max(1, static_cast<int>(2e8 / flops));  // about 0.2 GFLOP per timing
  double best = 1e300;
  std::string error;
  for (int run = 0; run <= std::max(settings.repeat, 1); ++run) {
    Clock::time_point start = Clock::now();
    for (int call = 0; call < calls; ++call)
      if (!evalDot(op, a, b, c, FloatProfile::Exact, &error)) {
        std::cerr << "bench_interpreter: evalDot failed: " << error << "\n";
        std::exit(1);
      }
    double seconds = std::chrono::duration<double>(Clock::now() - start).count() / calls;
    if (run > 0) best = std::min(best, seconds);
  }
  std::string shape = std::to_string(rows) + "x" + std::to_string(columns) + "x" + std::to_string(depth) +
                      " evalDot " + multiplyAccumulateF32Variant();
  printRow("dot", shape, 1, best * 1e3, rate(flops, true, best), "-", 0);
}

}  // namespace
}  // namespace tilesim::bench

int main(int argc, char** argv) {
  using namespace tilesim::bench;
  Settings settings;
  CLI::App app{"Times the tilesim interpreter on TTIR kernels and checks their outputs."};
  app.add_option("--kernel", settings.kernels,
                 "vadd, softmax, matmul256, matmul512, layernorm, attention, dot, all (repeatable; default all)");
  app.add_option("--threads", settings.threads, "OpenMP threads (default: all)")->check(CLI::NonNegativeNumber);
  app.add_option("--repeat", settings.repeat, "timed runs after one warm-up; the best is reported")->check(CLI::NonNegativeNumber);
  app.add_option("--profile", settings.profile, "float profile")->check(CLI::IsMember({"exact", "triton"}));
  app.add_flag("!--no-checks", settings.checks, "turn off out-of-bounds/undefined/race checks");
  app.add_option("--kernels-dir", settings.kernelsDir, "directory of the .ttir kernels");
  app.add_option("--engine", settings.engine, "the engine to time: interp (default) or gpu")
      ->check(CLI::IsMember({"interp", "gpu"}));
  CLI11_PARSE(app, argc, argv);
  tilesim::EngineChoice choice = tilesim::createEngine(*tilesim::parseEngineKind(settings.engine));
  if (!choice.engine) {
    std::fprintf(stderr, "bench_interpreter: skipped: the %s engine is not available: %s\n", settings.engine.c_str(),
                 choice.unavailable.c_str());
    return 4;
  }

  int threads = settings.threads > 0 ? settings.threads : omp_get_max_threads();
  if (settings.threads > 0) omp_set_num_threads(settings.threads);
  std::printf("machine: %s, %u hardware threads; engine %s; OpenMP threads %d; profile %s; checks %s; best of %d\n",
              cpuModel().c_str(), std::thread::hardware_concurrency(), choice.engine->description().c_str(), threads,
              settings.profile.c_str(),
              settings.checks ? "on" : "off", settings.repeat);
  std::printf("%-11s %-30s %7s %10s %16s %10s %12s %8s\n", "kernel", "shape", "threads", "time ms", "throughput",
              "max err", "triton-int", "speedup");
  std::fflush(stdout);

  bool ok = true;
  std::vector<BenchCase> cases = makeBenchCases();
  for (BenchCase& benchCase : cases)
    if (selected(settings, benchCase.name)) ok = runCase(benchCase, settings, threads, *choice.engine) && ok;
  if (selected(settings, "dot")) {
    runDotCase(64, 64, 32, settings);
    runDotCase(512, 512, 512, settings);
  }
  std::printf("triton-int: Triton 3.6 interpreter (TRITON_INTERPRET=1, NumPy) on the same problem, measured by "
              "bench/triton/triton_interpreter_bench.py on the H200 host (16-vCPU Xeon); compare with runs on "
              "that machine\n");
  if (!ok) {
    std::fprintf(stderr, "bench_interpreter: FAILED\n");
    return 1;
  }
  return 0;
}

// Probe replay: the key oracle for the elementwise numerics. Every record of conformance/probes/probes.json
// with a `ttir` is a single-op Triton 3.6 kernel run on an H200 on 16 inputs. We run that TTIR through the
// whole pipeline a user's kernel takes: parseModule, verifyModule (when the verifier is built) and runLaunch
// on grid (1,1,1) under the triton float profile with checks on. Input buffers are bound by parameter name
// (a_ptr <- `a`; b_ptr and s_ptr <- `b`: shifts load their amount from s_ptr), converted into the pointee
// type as the probe's host tensors were; the output buffers (of_ptr f64 / oi_ptr i64, or o_ptr for casts)
// are compared with the GPU's values. Bit-exact, except where the launch's per-element error bound allows
// slack (fp32 `/` is div.full.f32 on the GPU). Any parse/verify diagnostic or interpreter report fails.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/probes/ProbeRecords.h"
#include "interpreter/Interpreter.h"
#include "ir/FloatBits.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim {
namespace {

// One probe input (a double from the JSON) as the probe's host tensor of dtype `dtype` held it, in the bits
// of `kind` (saturating at the int64/uint64 limits, which the JSON's doubles round up to 2^63 / 2^64).
uint64_t inputBits(double value, ScalarKind kind, const std::string& dtype) {
  if (isFloatKind(kind)) return floatBitsFromDouble(value, kind);
  if (kind == ScalarKind::I1) return value != 0;
  if (dtype.rfind("uint", 0) == 0) return value >= 0x1p64 ? ~uint64_t{0} : static_cast<uint64_t>(value);
  return value >= 0x1p63 ? static_cast<uint64_t>(INT64_MAX) : static_cast<uint64_t>(static_cast<int64_t>(value));
}

std::vector<uint8_t> bufferOf(const std::vector<double>& values, ScalarKind kind, const std::string& dtype) {
  size_t width = static_cast<size_t>(storageBytes(kind));
  std::vector<uint8_t> bytes(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t bits = inputBits(values[i], kind, dtype);
    std::memcpy(bytes.data() + i * width, &bits, width);  // little-endian host, as the interpreter's memory
  }
  return bytes;
}

uint64_t elementBits(const LaunchArgument& buffer, int64_t index) {
  size_t width = static_cast<size_t>(storageBytes(buffer.elementKind));
  uint64_t bits = 0;
  std::memcpy(&bits, buffer.bytes.data() + static_cast<size_t>(index) * width, width);
  return bits;
}

int64_t signExtend(uint64_t bits, int width) {
  return width >= 64 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
}

bool sameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

std::vector<double> doubles(const nlohmann::json& array) {
  std::vector<double> values;
  for (const auto& x : array) values.push_back(probes::probeNumber(x));
  return values;
}

struct Replay {
  std::unique_ptr<Module> module;
  std::vector<LaunchArgument> arguments;  // after the launch: the output buffers and their error bounds
  std::string error;                      // a diagnostic or a report; empty when the run was clean
};

// Parses, verifies and runs one probe kernel on its inputs.
Replay replay(const nlohmann::json& probe) {
  Replay out;
  const auto& job = probe["job"];
  bool isCast = job[0] == "cast";
  ParseResult parsed = parseModule(probe["ttir"].get<std::string>(), "probe.ttir");
  for (const Diagnostic& diagnostic : parsed.diagnostics) out.error += "\n  parse: " + diagnostic.str();
  if (!parsed.module) return out;
  out.module = std::move(parsed.module);
  for (const Diagnostic& diagnostic : verifyModule(*out.module)) out.error += "\n  verify: " + diagnostic.str();
  if (!out.error.empty()) return out;
  std::optional<Function> kernel = out.module->kernel();
  if (!kernel) {
    out.error = "no kernel";
    return out;
  }
  // Which probe array and host dtype feeds each input parameter; the rest are outputs, zero-filled.
  std::map<std::string, std::pair<std::string, std::string>> inputs = {{"a_ptr", {"a", job[isCast ? 1 : 2]}}};
  if (!isCast) inputs["b_ptr"] = inputs["s_ptr"] = {"b", job[3]};
  for (size_t i = 0; i < kernel->numArguments(); ++i) {
    std::string name = kernel->argumentName(i);
    Type type = kernel->argument(i)->type;
    if (!type.isPointer()) {
      out.error = "unexpected scalar parameter %" + name;
      return out;
    }
    ScalarKind kind = type.pointee().scalarKind();
    auto input = inputs.find(name);
    std::vector<double> values =
        input != inputs.end() ? doubles(probe[input->second.first]) : std::vector<double>(16, 0.0);
    out.arguments.push_back(LaunchArgument::buffer(name, kind, bufferOf(values, kind, input != inputs.end() ? input->second.second : "")));
  }
  Launch launch;
  launch.module = out.module.get();
  launch.kernel = kernel;
  launch.arguments = std::move(out.arguments);
  launch.grid = {1, 1, 1};
  LaunchOptions options;
  options.profile = FloatProfile::Triton;
  options.checks = true;
  options.echoPrints = false;
  InterpreterEngine engine;
  LaunchOutcome outcome = engine.run(launch, options);
  out.arguments = std::move(launch.arguments);
  for (const Diagnostic& diagnostic : outcome.diagnostics) out.error += "\n  launch: " + diagnostic.str();
  for (const Report& report : outcome.result.reports) out.error += "\n  report: " + report.str();
  return out;
}

const LaunchArgument* findArgument(const std::vector<LaunchArgument>& arguments, const std::string& name) {
  for (const LaunchArgument& argument : arguments)
    if (argument.name == name) return &argument;
  return nullptr;
}

TEST(ProbeReplay, EveryProbeMatchesTheGpu) {
  std::ifstream file(std::string(TILESIM_SOURCE_DIR) + "/conformance/probes/probes.json");
  ASSERT_TRUE(file) << "probes.json not found";
  std::stringstream buffer;
  buffer << file.rdbuf();
  nlohmann::json probes = nlohmann::json::parse(probes::quoteNonFiniteNumbers(buffer.str()));

  struct Count {
    int exact = 0, withinBound = 0, total = 0;
  };
  std::map<std::string, Count> counts;
  int mismatches = 0, replayErrors = 0, kernels = 0;
  for (const auto& probe : probes) {
    if (!probe.contains("ttir")) continue;
    ++kernels;
    const auto& job = probe["job"];
    bool isCast = job[0] == "cast";
    std::string category = isCast ? "cast" : job[1].get<std::string>();
    Replay result;
    try {
      result = replay(probe);
    } catch (const std::exception& e) {
      result.error = std::string("replay threw: ") + e.what();
    }
    if (!result.error.empty()) {
      ++replayErrors;
      ADD_FAILURE() << job.dump() << ":" << result.error;
      continue;
    }
    std::vector<std::pair<std::string, std::string>> outputs;
    if (isCast) outputs = {{"o_ptr", "out"}};
    else outputs = {{"of_ptr", "f64"}, {"oi_ptr", "i64"}};
    for (const auto& [pointer, key] : outputs) {
      const LaunchArgument* stored = findArgument(result.arguments, pointer);
      if (!stored) {
        ++replayErrors;
        ADD_FAILURE() << job.dump() << ": the kernel has no parameter " << pointer;
        continue;
      }
      ScalarKind kind = stored->elementKind;
      int width = kind == ScalarKind::I1 ? 1 : storageBytes(kind) * 8;
      bool unsignedTarget = isCast && job[2].get<std::string>().rfind("uint", 0) == 0;
      for (int64_t i = 0; i < 16; ++i) {
        Count& count = counts[category];
        ++count.total;
        uint64_t bits = elementBits(*stored, i);
        double ours;
        double gpu;
        bool exact;
        if (key == "i64") {
          int64_t expected = probe[key][i].get<int64_t>();
          exact = signExtend(bits, 64) == expected;
          ours = static_cast<double>(signExtend(bits, 64));
          gpu = static_cast<double>(expected);
        } else {
          gpu = probes::probeNumber(probe[key][i]);
          if (isFloatKind(kind)) ours = doubleFromFloatBits(bits, kind);
          else if (kind == ScalarKind::I1) ours = static_cast<double>(bits & 1);
          else if (unsignedTarget) ours = static_cast<double>(bits);
          else ours = static_cast<double>(signExtend(bits, width));
          exact = sameDouble(ours, gpu);
        }
        if (exact) {
          ++count.exact;
          continue;
        }
        double bound = stored->errorBound.empty() ? 0.0 : stored->errorBound[static_cast<size_t>(i)];
        if (std::fabs(ours - gpu) <= bound) {
          ++count.withinBound;
          continue;
        }
        ++mismatches;
        ADD_FAILURE() << job.dump() << " lane " << i << " a=" << probe["a"][i].dump()
                      << (isCast ? "" : " b=" + probe["b"][i].dump()) << " " << key << ": gpu " << gpu << ", ours "
                      << ours << " (bound " << bound << ")";
      }
    }
  }
  int exact = 0, within = 0, total = 0;
  for (const auto& [category, count] : counts) {
    std::printf("  %-18s exact %5d/%5d  within bound %d\n", category.c_str(), count.exact, count.total, count.withinBound);
    exact += count.exact;
    within += count.withinBound;
    total += count.total;
  }
  const char* verified = "verified";
  std::printf("probe replay: exact %d/%d, within bound %d, mismatches %d, replay errors %d (%d kernels, %s)\n", exact,
              total, within, mismatches, replayErrors, kernels, verified);
  EXPECT_EQ(kernels, 1433);
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(replayErrors, 0);
}

}  // namespace
}  // namespace tilesim

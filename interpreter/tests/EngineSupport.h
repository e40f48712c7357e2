// Shared helpers of the engine tests that need the C++ API (EngineAtomicTest.cpp, EngineControlTest.cpp,
// EngineReduceScanOrderTest.cpp, EngineTtgirTest.cpp, EngineWarpSpecializeTest.cpp): parse a TTIR kernel and
// require the verifier to accept it, bind typed host buffers and scalars by name, run it with runLaunch under
// chosen LaunchOptions, and read the buffers back; fill a kernel template's placeholders and find the line a
// report must name. Nothing here computes an expected value. Tests of what a launch writes or reports are conformance
// cases (conformance/engine/), not tests here.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <gtest/gtest.h>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interpreter/Interpreter.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim::enginetest {

template <typename T>
std::vector<uint8_t> toBytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

inline uint32_t floatBits(float value) { return std::bit_cast<uint32_t>(value); }

// Options for tests: checks on, no echo of tt.print to stdout, a fixed thread count.
inline LaunchOptions testOptions() {
  LaunchOptions options;
  options.echoPrints = false;
  options.threads = 2;
  return options;
}

class KernelRun {
 public:
  explicit KernelRun(std::string_view ttir) {
    ParseResult parsed = parseModule(ttir, "engine_test.ttir");
    for (const Diagnostic& diagnostic : parsed.diagnostics) ADD_FAILURE() << "parse: " << diagnostic.str();
    module_ = std::move(parsed.module);
    if (module_)
      for (const Diagnostic& diagnostic : verifyModule(*module_)) ADD_FAILURE() << "verify: " << diagnostic.str();
  }

  template <typename T>
  KernelRun& buffer(const std::string& name, ScalarKind kind, const std::vector<T>& values) {
    arguments_.push_back(LaunchArgument::buffer(name, kind, toBytes(values)));
    return *this;
  }
  KernelRun& integer(const std::string& name, int64_t value) {
    arguments_.push_back(LaunchArgument::integer(name, value));
    return *this;
  }
  KernelRun& grid(int64_t x, int64_t y = 1, int64_t z = 1) {
    grid_ = {x, y, z};
    return *this;
  }

  // Runs on fresh copies of the bound buffers, so a KernelRun can be launched again with other options.
  LaunchResult run(const LaunchOptions& options = testOptions()) {
    outputs_.clear();
    if (!module_) {
      ADD_FAILURE() << "no module to run";
      return {};
    }
    Launch launch;
    launch.module = module_.get();
    launch.kernel = module_->kernel();
    launch.arguments = arguments_;
    launch.grid = grid_;
    LaunchOutcome outcome = runLaunch(launch, options);
    for (const Diagnostic& diagnostic : outcome.diagnostics) ADD_FAILURE() << "launch: " << diagnostic.str();
    for (LaunchArgument& argument : launch.arguments) {
      outputs_[argument.name] = std::move(argument.bytes);
      errorBounds_[argument.name] = std::move(argument.errorBound);
    }
    return outcome.result;
  }

  const Module* module() const { return module_.get(); }
  // The triton profile's per-element bounds of a buffer after the launch (empty: all 0).
  std::vector<double> errorBounds(const std::string& name) const {
    auto it = errorBounds_.find(name);
    return it == errorBounds_.end() ? std::vector<double>{} : it->second;
  }

  const std::vector<uint8_t>& bytes(const std::string& name) const {
    static const std::vector<uint8_t> kEmpty;
    auto it = outputs_.find(name);
    if (it == outputs_.end()) {
      ADD_FAILURE() << "no output buffer " << name;
      return kEmpty;
    }
    return it->second;
  }
  template <typename T>
  std::vector<T> values(const std::string& name) const {
    const std::vector<uint8_t>& raw = bytes(name);
    std::vector<T> out(raw.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), raw.data(), out.size() * sizeof(T));
    return out;
  }

 private:
  std::unique_ptr<Module> module_;
  std::vector<LaunchArgument> arguments_;
  std::array<int64_t, 3> grid_{1, 1, 1};
  std::map<std::string, std::vector<uint8_t>> outputs_;
  std::map<std::string, std::vector<double>> errorBounds_;
};

// `text` with each placeholder replaced (its first occurrence, in the order given) by its text; a test's kernel
// template plants its variants this way.
inline std::string withPlaceholders(std::string text,
                                    std::initializer_list<std::pair<std::string_view, std::string_view>> replacements) {
  for (const auto& [placeholder, replacement] : replacements) {
    const size_t at = text.find(placeholder);
    if (at == std::string::npos) {
      ADD_FAILURE() << "no placeholder " << placeholder << " in the kernel";
      continue;
    }
    text.replace(at, placeholder.size(), replacement);
  }
  return text;
}

// The 1-based line of `text` where `needle` first stands (-1 when it does not): the line a report must name.
inline int lineOf(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  return at == std::string::npos
             ? -1
             : 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

// `count` floats start, start + 1, ...: inputs whose every element differs, so a misplaced copy shows.
inline std::vector<float> floatRamp(size_t count, float start) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i) + start;
  return values;
}

inline std::string describe(const LaunchResult& result) {
  std::string text;
  for (const Report& report : result.reports) text += report.str() + "\n";
  return text;
}

}  // namespace tilesim::enginetest

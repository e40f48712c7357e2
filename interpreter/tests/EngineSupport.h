// Shared helpers of the engine semantics tests (Engine*Test.cpp): parse a TTIR kernel and require the verifier
// to accept it, bind typed host buffers and scalars by name, run it with runLaunch, and read the buffers back.
// Nothing here computes an expected value: each test derives those from the op's definition.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
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
inline float floatFromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

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
    for (LaunchArgument& argument : launch.arguments) outputs_[argument.name] = std::move(argument.bytes);
    return outcome.result;
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
};

// TTIR that defines %offs : tensor<4x8xi32> = r * 8 + c, the row-major offsets of a 4x8 tile, and a kernel
// `signature` whose body starts with it.
inline constexpr const char* kTileOffsets = R"(
    %cst_rows = arith.constant dense<8> : tensor<4x1xi32>
    %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %rows_0 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %rows_1 = arith.muli %rows_0, %cst_rows : tensor<4x1xi32>
    %rows_2 = tt.broadcast %rows_1 : tensor<4x1xi32> -> tensor<4x8xi32>
    %cols = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %cols_0 = tt.expand_dims %cols {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
    %cols_1 = tt.broadcast %cols_0 : tensor<1x8xi32> -> tensor<4x8xi32>
    %offs = arith.addi %rows_2, %cols_1 : tensor<4x8xi32>
)";

inline std::string tileKernel(const std::string& signature, const std::string& body) {
  return "module {\n  tt.func public @" + signature + " attributes {noinline = false} {" + kTileOffsets + body +
         "    tt.return\n  }\n}\n";
}

inline int64_t countOf(const LaunchResult& result, Report::Kind kind) {
  return result.totalByKind[static_cast<size_t>(kind)];
}

inline std::string describe(const LaunchResult& result) {
  std::string text;
  for (const Report& report : result.reports) text += report.str() + "\n";
  return text;
}

}  // namespace tilesim::enginetest

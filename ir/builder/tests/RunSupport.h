// Shared by the builder tests that run what they build (RunTest.cpp, ControlFlowTest.cpp): build -> check well
// formed -> runLaunch, with any diagnostic or report failing the test. Typed host buffers: ir/launch/HostBytes.h.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "interpreter/Interpreter.h"
#include "ir/builder/KernelBuilder.h"
#include "ir/builder/tests/WellFormed.h"
#include "ir/launch/HostBytes.h"
#include "ir/text/Printer.h"

namespace tilesim::builder::testing {

inline const Operation* findOp(const Module& module, OpKind kind) {
  const Operation* found = nullptr;
  walk(*module.kernel()->op(), [&](const Operation& op) {
    if (!found && op.kind == kind) found = &op;
  });
  return found;
}

// Checks a built kernel well formed (and, if given, that an op of `expectKind` is present) and runs it under the
// triton profile; returns the arguments after the launch (empty on failure). TILESIM_PRINT_BUILT=1 prints the IR.
inline std::vector<LaunchArgument> runBuilt(BuildResult built, std::vector<LaunchArgument> arguments,
                                            std::array<int64_t, 3> grid,
                                            std::optional<OpKind> expectKind = std::nullopt) {
  if (!built.module) {
    ADD_FAILURE() << "build failed: " << (built.error ? built.error->str() : "");
    return {};
  }
  EXPECT_EQ(checkWellFormed(*built.module), "");
  if (std::getenv("TILESIM_PRINT_BUILT")) std::printf("%s\n", printModule(*built.module).c_str());
  if (expectKind) {
    EXPECT_NE(findOp(*built.module, *expectKind), nullptr);
  }
  Launch launch;
  launch.module = built.module.get();
  launch.kernel = built.module->kernel();
  launch.arguments = std::move(arguments);
  launch.grid = grid;
  LaunchOptions options;
  options.profile = FloatProfile::Triton;
  options.echoPrints = false;
  InterpreterEngine engine;
  LaunchOutcome outcome = engine.run(launch, options);
  for (const Diagnostic& diagnostic : outcome.diagnostics) ADD_FAILURE() << diagnostic.str();
  for (const Report& report : outcome.result.reports) ADD_FAILURE() << report.str();
  if (!outcome.started() || !outcome.result.ok()) return {};
  return std::move(launch.arguments);
}

// Finishes `kb` and runs it (runBuilt).
inline std::vector<LaunchArgument> buildAndRun(KernelBuilder& kb, std::vector<LaunchArgument> arguments,
                                               std::array<int64_t, 3> grid,
                                               std::optional<OpKind> expectKind = std::nullopt) {
  return runBuilt(kb.finish(), std::move(arguments), grid, expectKind);
}

// Same, requiring an op of `expectKind` in the built module (e.g. the scf.for a control-flow test is about).
inline std::vector<LaunchArgument> buildAndRun(KernelBuilder& kb, OpKind expectKind,
                                               std::vector<LaunchArgument> arguments, std::array<int64_t, 3> grid) {
  return buildAndRun(kb, std::move(arguments), grid, expectKind);
}

}  // namespace tilesim::builder::testing

// Shared helpers of the analysis unit tests: parse and verify a hand-written TTIR snippet, and find values and
// ops in it by their SSA names.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "ir/IR.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim::analysistest {

inline std::unique_ptr<Module> parseVerified(std::string_view text) {
  ParseResult parsed = parseModule(text, "test.ttir");
  EXPECT_TRUE(parsed.diagnostics.empty()) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  if (!parsed.module) return nullptr;
  Diagnostics problems = verifyModule(*parsed.module);
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems[0].str());
  return std::move(parsed.module);
}

// The value named `name` (results and block arguments, in every function); fails the test when absent.
inline Value* findValue(const Module& module, std::string_view name) {
  Value* found = nullptr;
  for (const Function& function : module.allFunctions()) {
    for (const auto& argument : function.body().arguments)
      if (argument->name == name) found = argument.get();
    walk(*function.op(), [&](const Operation& op) {
      for (const auto& result : op.results)
        if (result->name == name) found = result.get();
      for (const auto& region : op.regions)
        for (const auto& block : region->blocks)
          for (const auto& argument : block->arguments)
            if (argument->name == name) found = argument.get();
    });
  }
  EXPECT_NE(found, nullptr) << "no value %" << name;
  return found;
}

inline Operation* definingOp(const Module& module, std::string_view name) { return findValue(module, name)->definingOp; }

}  // namespace tilesim::analysistest

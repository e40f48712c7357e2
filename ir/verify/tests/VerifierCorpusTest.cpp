// Real TTIR must verify clean: the 15 golden kernels (conformance/golden/*/kernel.ttir) and every probe TTIR
// in conformance/probes/probes.json were printed by Triton 3.6 itself, so any diagnostic here is a verifier
// (or parser) bug, never a defect of the input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"
#include "ir/verify/tests/ProbeTtir.h"

namespace tilesim {
namespace {

const std::filesystem::path kSource = TILESIM_SOURCE_DIR;

// "" when the text parses and verifies clean, else the first diagnostic.
std::string firstProblem(const std::string& text, const std::string& name) {
  ParseResult parsed = parseModule(text, name);
  if (!parsed.diagnostics.empty()) return "parse: " + parsed.diagnostics[0].str();
  if (!parsed.module) return "parse: no module and no diagnostic";
  Diagnostics diagnostics = verifyModule(*parsed.module);
  return diagnostics.empty() ? "" : "verify: " + diagnostics[0].str() + " (" + std::to_string(diagnostics.size()) + " in all)";
}

TEST(VerifierCorpus, GoldenKernelsVerifyClean) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "conformance/golden")) {
    std::filesystem::path file = entry.path() / "kernel.ttir";
    if (!std::filesystem::exists(file)) continue;
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(firstProblem(text.str(), file.string()), "") << file;
    ++checked;
  }
  EXPECT_EQ(checked, 15);
  std::cout << "[ VerifierCorpus ] golden kernels verified clean: " << checked << "\n";
}

TEST(VerifierCorpus, ProbesVerifyClean) {
  int checked = 0, failed = 0;
  for (const testing::ProbeTtir& probe : testing::loadProbeTtirs(kSource)) {
    std::string problem = firstProblem(probe.ttir, "probe" + std::to_string(probe.index) + ".ttir");
    ++checked;
    if (!problem.empty() && ++failed <= 5) ADD_FAILURE() << "probe " << probe.index << " " << probe.job << ": " << problem;
  }
  EXPECT_EQ(failed, 0) << failed << " of " << checked << " probes failed";
  EXPECT_EQ(checked, 1433);
  std::cout << "[ VerifierCorpus ] probes verified clean: " << (checked - failed) << " of " << checked << "\n";
}

}  // namespace
}  // namespace tilesim

// The malformed-input suite: every .ttir (and TTGIR .ttgir) file here is a realistic kernel with one defect, and expected.txt
// says where the one diagnostic must point and what it must say (`file.ttir: LINE:COL: message substring`).
// Each file goes through parse and, when parsing succeeds, verify; the result must be exactly one one-line
// diagnostic, never a crash and never a silent success.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim {
namespace {

const std::filesystem::path kDirectory = std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance/malformed";

struct Expectation {
  int line = 0;
  int column = 0;
  std::string substring;
};

std::map<std::string, Expectation> readExpectations() {
  std::map<std::string, Expectation> expectations;
  std::ifstream in(kDirectory / "expected.txt");
  std::string row;
  while (std::getline(in, row)) {
    if (row.empty() || row[0] == '#') continue;
    size_t colon = row.find(": ");
    Expectation expectation;
    char separator = 0;
    std::istringstream rest(row.substr(colon + 2));
    rest >> expectation.line >> separator >> expectation.column >> separator;
    std::getline(rest >> std::ws, expectation.substring);
    expectations[row.substr(0, colon)] = expectation;
  }
  return expectations;
}

std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(Malformed, EveryFileHasAnExpectation) {
  std::map<std::string, Expectation> expectations = readExpectations();
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kDirectory))
    if (entry.path().extension() == ".ttir" || entry.path().extension() == ".ttgir") files.insert(entry.path().filename().string());
  for (const std::string& file : files) EXPECT_TRUE(expectations.count(file)) << file << " has no line in expected.txt";
  for (const auto& [file, expectation] : expectations) EXPECT_TRUE(files.count(file)) << "expected.txt names missing " << file;
  EXPECT_GE(files.size(), 30u);
}

TEST(Malformed, EachFileGivesItsOneDiagnostic) {
  for (const auto& [file, expectation] : readExpectations()) {
    SCOPED_TRACE(file);
    std::string path = (kDirectory / file).string();
    ParseResult parsed = parseModule(readBytes(kDirectory / file), path);
    Diagnostics diagnostics = parsed.diagnostics;
    if (diagnostics.empty()) {
      ASSERT_NE(parsed.module, nullptr) << "no module and no diagnostic";
      diagnostics = verifyModule(*parsed.module);
    } else {
      EXPECT_EQ(parsed.module, nullptr) << "a module came back with parse errors";
    }
    ASSERT_EQ(diagnostics.size(), 1u) << (diagnostics.empty() ? "accepted" : diagnostics[0].str() + " | " + diagnostics.back().str());
    const Diagnostic& diagnostic = diagnostics[0];
    std::string text = diagnostic.str();
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    EXPECT_FALSE(diagnostic.message.empty());
    EXPECT_EQ(diagnostic.pos.file, path);
    EXPECT_EQ(diagnostic.pos.line, expectation.line) << text;
    EXPECT_EQ(diagnostic.pos.column, expectation.column) << text;
    EXPECT_NE(diagnostic.message.find(expectation.substring), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace tilesim

// Round trip over real Triton 3.6 TTIR: every golden kernel.ttir and every probe record's `ttir` parses, prints,
// re-parses to an equal module, and printing again gives identical text. For the goldens the printed text must
// also equal Triton's own text (same names, loc aliases and layout), which checks the printer against MLIR.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "conformance/probes/ProbeRecords.h"
#include "ir/text/Equality.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "ir/text/tests/ReadFile.h"

namespace tilesim {
namespace {

// Returns an empty string on success, otherwise what went wrong.
std::string roundTrip(const std::string& text, const std::string& name, bool expectSameText) {
  ParseResult first = parseModule(text, name);
  if (!first.module) return "parse: " + first.diagnostics.at(0).str();
  std::string printed = printModule(*first.module);
  ParseResult second = parseModule(printed, name + ".printed");
  if (!second.module) return "re-parse: " + second.diagnostics.at(0).str() + "\n" + printed;
  std::string difference;
  if (!modulesEqual(*first.module, *second.module, &difference)) return "not equal after re-parse: " + difference;
  std::string printedAgain = printModule(*second.module);
  if (printedAgain != printed) return "printing is not idempotent";
  if (expectSameText && printed != text) {
    size_t at = 0;
    while (at < printed.size() && at < text.size() && printed[at] == text[at]) ++at;
    return "printed text differs from Triton's at byte " + std::to_string(at) + ": '" + printed.substr(at, 80) +
           "' vs '" + text.substr(at, 80) + "'";
  }
  return "";
}

TEST(RoundTrip, GoldenKernels) {
  std::filesystem::path dir = std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance" / "golden";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::filesystem::path file = entry.path() / "kernel.ttir";
    if (!std::filesystem::exists(file)) continue;
    ++count;
    EXPECT_EQ(roundTrip(readFile(file), file.string(), true), "") << file;
  }
  EXPECT_EQ(count, 15);
  std::cout << "[ RoundTrip ] golden kernels round-tripped: " << count << "\n";
}

// Round-trips every .ttir of ir/text/tests/<folder> byte for byte; returns how many there were.
int roundTripFolder(const char* folder) {
  std::filesystem::path dir = std::filesystem::path(TILESIM_SOURCE_DIR) / "ir" / "text" / "tests" / folder;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".ttir") continue;
    ++count;
    EXPECT_EQ(roundTrip(readFile(entry.path()), entry.path().string(), true), "") << entry.path();
  }
  return count;
}

// Tensor descriptors as Triton 3.6 prints them (ir/text/tests/descriptors/README.md): byte-identical round trip.
TEST(RoundTrip, DescriptorKernels) { EXPECT_EQ(roundTripFolder("descriptors"), 5); }

// Signed / unsigned descriptor blocks and llvm.intr.assume as Triton 3.6 prints them
// (ir/text/tests/triton36/README.md): byte-identical round trip.
TEST(RoundTrip, Triton36Kernels) { EXPECT_EQ(roundTripFolder("triton36"), 6); }

TEST(RoundTrip, Probes) {
  nlohmann::json records = probes::loadProbeRecords(TILESIM_SOURCE_DIR);
  int count = 0, failures = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i].contains("ttir") || !records[i]["ttir"].is_string()) continue;
    ++count;
    std::string text = records[i]["ttir"].get<std::string>();
    std::string error = roundTrip(text, "probes.json[" + std::to_string(i) + "]", true);
    if (!error.empty() && ++failures <= 5) ADD_FAILURE() << "probe " << i << ": " << error;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(count, 1433);
  std::cout << "[ RoundTrip ] probes round-tripped: " << (count - failures) << " of " << count << "\n";
}

}  // namespace
}  // namespace tilesim

// Parser/verifier fuzzing: real TTIR (the golden kernels and a sample of probes) with random mutations
// (lines and tokens deleted, duplicated or swapped; truncation; flipped and inserted bytes; numbers replaced by
// extreme values; type names and SSA names changed; hostile shapes: float exponents out of range, huge tensor
// dims, deep bracket nesting, long attribute dictionaries with a duplicate key, gather kernels with bad index
// shapes) goes through parse -> verify -> print -> reparse. Properties: nothing
// crashes; every diagnostic is one line with a known line:col inside the input; a module that parses and
// verifies prints to text that reparses to an equal module, and printing is idempotent.
// Cases: RC_PARAMS="max_success=N" (default below). TILESIM_FUZZ_DUMP=path writes each input there before it
// runs, so a crash (ASan abort) leaves its reproducer behind.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/text/Equality.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "ir/verify/Verifier.h"
#include "ir/verify/tests/ProbeTtir.h"

namespace tilesim {
namespace {

// RapidCheck reads RC_PARAMS lazily; give it a default that runs well under a minute in a sanitizer build.
const bool kDefaultCases = [] { return setenv("RC_PARAMS", "max_success=20000", /*overwrite=*/0) == 0; }();

const std::filesystem::path kSource = TILESIM_SOURCE_DIR;

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<std::string>& seeds() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> result;
    std::vector<std::filesystem::path> golden;
    for (const auto& entry : std::filesystem::directory_iterator(kSource / "conformance/golden"))
      if (std::filesystem::exists(entry.path() / "kernel.ttir")) golden.push_back(entry.path() / "kernel.ttir");
    std::sort(golden.begin(), golden.end());
    for (const auto& path : golden) result.push_back(readText(path));
    result.push_back(readText(kSource / "conformance/golden-extra/gather_2d_f32/kernel.ttir"));
    std::vector<testing::ProbeTtir> probes = testing::loadProbeTtirs(kSource);
    for (size_t i = 0; i < probes.size(); i += 40) result.push_back(probes[i].ttir);
    return result;
  }();
  return texts;
}

struct Span {
  size_t begin, end;
};

enum class Mutation { DeleteLine, DuplicateLine, SwapLines, DeleteToken, DuplicateToken, SwapTokens, Truncate,
                      FlipBit, ReplaceNumber, ChangeTypeName, InsertBytes, ReplaceValueName, DeepNesting,
                      LongAttributeDict, HugeShape, kCount };

// Spans of SSA names (`%offs_2`, `%acc#1`).
std::vector<Span> valueNames(const std::string& text) {
  std::vector<Span> result;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    size_t end = i + 1;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '#')) ++end;
    if (end > i + 1) result.push_back({i, end});
    i = end - 1;
  }
  return result;
}

// Lines (without their '\n') or whitespace-separated tokens of `text`.
std::vector<Span> pieces(const std::string& text, bool lines) {
  std::vector<Span> result;
  size_t i = 0;
  while (i < text.size()) {
    if (lines) {
      size_t end = text.find('\n', i);
      if (end == std::string::npos) end = text.size();
      result.push_back({i, end});
      i = end + 1;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(text[i]))) { ++i; continue; }
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    result.push_back({i, end});
    i = end;
  }
  return result;
}

// Spans of `text` matching any of `words` as a whole identifier-ish run, or digit runs when words is empty.
std::vector<Span> matches(const std::string& text, const std::vector<std::string>& words) {
  std::vector<Span> result;
  for (size_t i = 0; i < text.size();) {
    if (words.empty()) {
      if (std::isdigit(static_cast<unsigned char>(text[i]))) {
        size_t end = i;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        result.push_back({i, end});
        i = end;
      } else {
        ++i;
      }
      continue;
    }
    bool found = false;
    for (const std::string& word : words)
      if (text.compare(i, word.size(), word) == 0) {
        result.push_back({i, i + word.size()});
        i += word.size();
        found = true;
        break;
      }
    if (!found) ++i;
  }
  return result;
}

const std::vector<std::string> kExtremeNumbers = {"0", "-1", "1", "3", "2147483647", "2147483648", "4294967296",
                                                  "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                                                  "99999999999999999999999999999", "1048577", "1e309", "0x7FFFFFFF",
                                                  "-0", "65536", "1.0e+400", "3.4028236e+38", "1e-400",
                                                  "65520.0", "1099511627777", "18446744073709551617"};
const std::vector<std::string> kTypeNames = {"f8E4M3FN", "f8E5M2", "bf16", "f16", "f32", "f64", "i16", "i32", "i64",
                                             "i8", "i1", "!tt.ptr", "tensor"};
const std::vector<std::string> kReplacementTypes = {"i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
                                                    "f8E5M2", "i33", "f128", "index", "tensor<", "!tt.ptr<", "i0",
                                                    "tensor<0x", "vector<4xf32>", "!tt.ptr<tensor<", "none"};

std::string mutate(std::string text, Mutation kind, size_t a, size_t b, const std::string& bytes) {
  auto replace = [&](const std::vector<Span>& spans, const std::string& with) {
    if (spans.empty()) return;
    Span s = spans[a % spans.size()];
    text.replace(s.begin, s.end - s.begin, with);
  };
  switch (kind) {
    case Mutation::DeleteLine:
    case Mutation::DeleteToken: {
      std::vector<Span> spans = pieces(text, kind == Mutation::DeleteLine);
      if (spans.empty()) return text;
      Span s = spans[a % spans.size()];
      text.erase(s.begin, s.end - s.begin + (kind == Mutation::DeleteLine && s.end < text.size() ? 1 : 0));
      return text;
    }
    case Mutation::DuplicateLine:
    case Mutation::DuplicateToken: {
      bool lines = kind == Mutation::DuplicateLine;
      std::vector<Span> spans = pieces(text, lines);
      if (spans.empty()) return text;
      Span from = spans[a % spans.size()], to = spans[b % spans.size()];
      std::string copy = text.substr(from.begin, from.end - from.begin) + (lines ? "\n" : " ");
      text.insert(to.begin, copy);
      return text;
    }
    case Mutation::SwapLines:
    case Mutation::SwapTokens: {
      std::vector<Span> spans = pieces(text, kind == Mutation::SwapLines);
      if (spans.size() < 2) return text;
      Span first = spans[a % spans.size()], second = spans[b % spans.size()];
      if (first.begin > second.begin) std::swap(first, second);
      if (first.begin == second.begin) return text;
      std::string left = text.substr(first.begin, first.end - first.begin);
      std::string right = text.substr(second.begin, second.end - second.begin);
      text.replace(second.begin, second.end - second.begin, left);
      text.replace(first.begin, first.end - first.begin, right);
      return text;
    }
    case Mutation::Truncate: text.resize(a % (text.size() + 1)); return text;
    case Mutation::FlipBit:
      if (!text.empty()) text[a % text.size()] = static_cast<char>(text[a % text.size()] ^ (1 << (b % 8)));
      return text;
    case Mutation::ReplaceNumber: replace(matches(text, {}), kExtremeNumbers[b % kExtremeNumbers.size()]); return text;
    case Mutation::ChangeTypeName: replace(matches(text, kTypeNames), kReplacementTypes[b % kReplacementTypes.size()]); return text;
    case Mutation::InsertBytes: text.insert(a % (text.size() + 1), bytes); return text;
    case Mutation::ReplaceValueName: {  // a use of another value: type, dominance and scoping errors
      std::vector<Span> names = valueNames(text);
      if (names.empty()) return text;
      Span from = names[b % names.size()];
      replace(names, text.substr(from.begin, from.end - from.begin));
      return text;
    }
    case Mutation::DeepNesting: {  // thousands of one bracket: the parser's depth guard, not the stack, ends it
      static const char kOpen[] = {'(', '[', '{', '<'};
      text.insert(a % (text.size() + 1), std::string(1000 + b % 8000, kOpen[b % 4]));
      return text;
    }
    case Mutation::LongAttributeDict: {  // a dictionary of thousands of entries, sometimes with a duplicate key
      size_t at = text.find("attributes {");
      if (at == std::string::npos) return text;
      std::string entries;
      const size_t count = 1000 + a % 8000;
      for (size_t i = 0; i < count; ++i) entries += "k" + std::to_string(i) + " = " + std::to_string(i) + " : i32, ";
      if (b % 2) entries += "k" + std::to_string(b % count) + " = 0 : i32, ";
      text.insert(at + 12, entries);
      return text;
    }
    case Mutation::HugeShape: {  // one tensor dimension replaced by a huge or overflowing extent
      static const char* kDims[] = {"1099511627776", "4294967296x4294967296", "9223372036854775807", "0", "3",
                                    "1048576x1048576", "99999999999999999999"};
      std::vector<Span> spans = matches(text, {"tensor<"});
      if (spans.empty()) return text;
      size_t start = spans[a % spans.size()].end;
      size_t end = start;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      text.replace(start, end - start, kDims[b % 7]);
      return text;
    }
    case Mutation::kCount: break;
  }
  return text;
}

// The problem with `diagnostics` for an input `text`, or "".
std::string diagnosticProblem(const Diagnostics& diagnostics, const std::string& text, const std::string& name) {
  std::vector<Span> lines = pieces(text + "\n", true);
  for (const Diagnostic& d : diagnostics) {
    std::string line = d.str();
    if (line.find('\n') != std::string::npos) return "diagnostic spans lines: " + line;
    if (d.message.empty()) return "empty message: " + line;
    if (d.pos.file != name) return "diagnostic names another file: " + line;
    if (!d.pos.known() || d.pos.column < 1) return "diagnostic without line:col: " + line;
    if (static_cast<size_t>(d.pos.line) > lines.size() + 1) return "line past the end of the input: " + line;
    size_t width = static_cast<size_t>(d.pos.line) <= lines.size() ? lines[d.pos.line - 1].end - lines[d.pos.line - 1].begin : 0;
    if (static_cast<size_t>(d.pos.column) > width + 1) return "column past the end of its line: " + line;
  }
  return "";
}

// Runs the whole pipeline on one input; "" when every property holds.
std::string checkInput(const std::string& text, std::string* outcome = nullptr) {
  std::string ignored;
  if (!outcome) outcome = &ignored;
  const std::string name = "fuzz.ttir";
  if (const char* dump = std::getenv("TILESIM_FUZZ_DUMP")) std::ofstream(dump, std::ios::binary) << text;
  ParseResult parsed = parseModule(text, name);
  *outcome = "rejected by the parser";
  if (!parsed.diagnostics.empty()) return diagnosticProblem(parsed.diagnostics, text, name);
  if (!parsed.module) return "no module and no diagnostic";
  Diagnostics verified = verifyModule(*parsed.module);
  *outcome = "rejected by the verifier";
  if (!verified.empty()) return diagnosticProblem(verified, text, name);
  *outcome = "accepted and round-tripped";
  std::string printed = printModule(*parsed.module);
  ParseResult reparsed = parseModule(printed, "printed.ttir");
  if (!reparsed.diagnostics.empty()) return "printed text does not reparse: " + reparsed.diagnostics[0].str() + "\n" + printed;
  std::string difference;
  if (!modulesEqual(*parsed.module, *reparsed.module, &difference)) return "round trip differs: " + difference + "\n" + printed;
  Diagnostics reverified = verifyModule(*reparsed.module);
  if (!reverified.empty()) return "reparsed module fails verification: " + reverified[0].str();
  if (printModule(*reparsed.module) != printed) return "printing is not idempotent\n" + printed;
  return "";
}

TEST(ParserFuzz, SeedsPassUnmutated) {
  ASSERT_TRUE(kDefaultCases);
  ASSERT_GE(seeds().size(), 15u + 1u + 30u);
  for (size_t i = 0; i < seeds().size(); ++i) EXPECT_EQ(checkInput(seeds()[i]), "") << "seed " << i;
}

RC_GTEST_PROP(ParserFuzz, MutatedTTIRNeverCrashesAndRoundTrips, ()) {
  size_t seed = *rc::gen::inRange<size_t>(0, seeds().size());
  std::string text = seeds()[seed];
  int count = *rc::gen::inRange(1, 3);
  for (int i = 0; i < count; ++i) {
    auto kind = static_cast<Mutation>(*rc::gen::inRange(0, static_cast<int>(Mutation::kCount)));
    size_t a = *rc::gen::inRange<size_t>(0, 1u << 20);
    size_t b = *rc::gen::inRange<size_t>(0, 1u << 20);
    std::string bytes = kind == Mutation::InsertBytes ? *rc::gen::container<std::string>(*rc::gen::inRange(1, 8), rc::gen::arbitrary<char>()) : "";
    text = mutate(std::move(text), kind, a, b, bytes);
  }
  std::string outcome;
  std::string problem = checkInput(text, &outcome);
  RC_TAG(outcome);
  if (!problem.empty()) RC_FAIL(problem + "\n--- input (seed " + std::to_string(seed) + ") ---\n" + text);
}

}  // namespace
}  // namespace tilesim

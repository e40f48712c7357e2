// Loads the `ttir` strings of conformance/probes/probes.json for tests (verifier corpus, parser fuzzing).
// probes.json was written by Python's json, which emits bare NaN / Infinity; those become null before
// nlohmann::json sees them (only the strings are used).
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace tilesim::testing {

struct ProbeTtir {
  size_t index;      // record number in probes.json
  std::string job;   // the record's `job`, for messages
  std::string ttir;
};

inline std::string jsonWithoutNonFiniteNumbers(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  bool inString = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < json.size()) out += json[++i];
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    size_t skip = json.compare(i, 3, "NaN") == 0         ? 3
                  : json.compare(i, 9, "-Infinity") == 0 ? 9
                  : json.compare(i, 8, "Infinity") == 0  ? 8
                                                         : 0;
    if (skip) {
      out += "null";
      i += skip - 1;
    } else {
      out += c;
    }
  }
  return out;
}

inline std::vector<ProbeTtir> loadProbeTtirs(const std::filesystem::path& sourceDir) {
  std::ifstream in(sourceDir / "conformance/probes/probes.json", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json records = nlohmann::json::parse(jsonWithoutNonFiniteNumbers(text.str()));
  std::vector<ProbeTtir> probes;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].contains("ttir") && records[i]["ttir"].is_string())
      probes.push_back({i, records[i]["job"].dump(), records[i]["ttir"].get<std::string>()});
  return probes;
}

}  // namespace tilesim::testing

// Loads conformance/probes/probes.json for tests and tools. Python's json wrote NaN / Infinity / -Infinity as
// bare words, which JSON (and nlohmann) reject; they are read as the strings "NaN", "Infinity", "-Infinity",
// and probeNumber() turns a value back into a double. Header-only: every test that reads probes uses it.
#pragma once

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace tilesim::probes {

inline std::string quoteNonFiniteNumbers(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 4096);
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    bool quoted = false;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      size_t length = std::strlen(word);
      if (text.compare(i, length, word) == 0) {
        out += '"';
        out += word;
        out += '"';
        i += length - 1;
        quoted = true;
        break;
      }
    }
    if (!quoted) out += c;
  }
  return out;
}

// All records of probes.json (an array); throws nlohmann::json::exception if the file is damaged.
inline nlohmann::json loadProbeRecords(const std::filesystem::path& sourceDir) {
  std::ifstream in(sourceDir / "conformance/probes/probes.json", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(quoteNonFiniteNumbers(text.str()));
}

inline double probeNumber(const nlohmann::json& value) {
  if (value.is_string()) {
    const std::string word = value.get<std::string>();
    if (word == "NaN") return std::nan("");
    return word[0] == '-' ? -INFINITY : INFINITY;
  }
  return value.get<double>();
}

struct ProbeTtir {
  size_t index;     // record number in probes.json
  std::string job;  // the record's `job`, for messages
  std::string ttir;
};

// The records that compiled (1,433 of 1,560), with their TTIR.
inline std::vector<ProbeTtir> loadProbeTtirs(const std::filesystem::path& sourceDir) {
  nlohmann::json records = loadProbeRecords(sourceDir);
  std::vector<ProbeTtir> result;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].contains("ttir") && records[i]["ttir"].is_string())
      result.push_back({i, records[i]["job"].dump(), records[i]["ttir"].get<std::string>()});
  return result;
}

}  // namespace tilesim::probes

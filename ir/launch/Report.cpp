// Report text: one line per report or group, the same whichever engine produced it.
#include "ir/launch/Report.h"

#include <tuple>

namespace tilesim {

const char* reportKindName(Report::Kind kind) {
  switch (kind) {
#define TILESIM_REPORT_KIND_NAME(id, name, meaning) \
  case Report::Kind::id: return name;
    TILESIM_REPORT_KINDS(TILESIM_REPORT_KIND_NAME)
#undef TILESIM_REPORT_KIND_NAME
  }
  return "?";
}

const char* reportKindMeaning(Report::Kind kind) {
  switch (kind) {
#define TILESIM_REPORT_KIND_MEANING(id, name, meaning) \
  case Report::Kind::id: return meaning;
    TILESIM_REPORT_KINDS(TILESIM_REPORT_KIND_MEANING)
#undef TILESIM_REPORT_KIND_MEANING
  }
  return "?";
}

std::string Report::str() const {
  std::string s = ttirPos.known() ? ttirPos.str() + ": " : "";
  s += std::string(reportKindName(kind)) + ": " + message;
  // A program of -1: not known (a GPU redzone finding sees only the bytes, Redzones.h).
  s += program[0] < 0 ? " [program unknown"
                      : " [program (" + std::to_string(program[0]) + ", " + std::to_string(program[1]) + ", " +
                            std::to_string(program[2]) + ")";
  if (!lane.empty()) {
    s += ", lane (";
    for (size_t i = 0; i < lane.size(); ++i) s += (i ? ", " : "") + std::to_string(lane[i]);
    s += ")";
  }
  s += ", " + op;
  if (!sourceLoc.empty()) s += ", source " + sourceLoc;
  return s + "]";
}

std::string ReportGroup::str() const {
  if (count <= 1) return first.str();
  auto laneText = [](const std::vector<int64_t>& lane) {
    if (lane.size() == 1) return std::to_string(lane[0]);
    std::string text = "(";
    for (size_t i = 0; i < lane.size(); ++i) text += (i ? ", " : "") + std::to_string(lane[i]);
    return text + ")";
  };
  std::string s = first.ttirPos.known() ? first.ttirPos.str() + ": " : "";
  s += std::string(reportKindName(first.kind)) + ": program (" + std::to_string(first.program[0]) + ", " +
       std::to_string(first.program[1]) + ", " + std::to_string(first.program[2]) + "), lanes " +
       laneText(first.lane) + ".." + laneText(lastLane) + " (" + std::to_string(count) + ")";
  if (!first.buffer.empty() && minByteOffset >= 0)
    s += ", " + first.buffer + " bytes " + std::to_string(minByteOffset) + ".." + std::to_string(maxByteOffset);
  s += ": " + first.message + " [first lane; " + first.op;
  if (!first.sourceLoc.empty()) s += ", source " + first.sourceLoc;
  return s + "]";
}

bool reportLess(const Report& a, const Report& b) {
  if (a.kind != b.kind) return a.kind < b.kind;
  if (a.program != b.program)
    return std::tie(a.program[2], a.program[1], a.program[0]) < std::tie(b.program[2], b.program[1], b.program[0]);
  if (a.ttirPos.line != b.ttirPos.line) return a.ttirPos.line < b.ttirPos.line;
  if (a.lane != b.lane) return a.lane < b.lane;
  return a.message < b.message;
}

int64_t LaunchResult::totalReports() const {
  int64_t total = 0;
  for (int64_t count : totalByKind) total += count;
  return total;
}

}  // namespace tilesim

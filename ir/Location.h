// Source locations, two kinds:
// - SourcePos: a position in the TTIR text we parsed (file:line:col), used for diagnostics about the TTIR.
// - Location: the MLIR `loc(...)` attached to ops, the Python source position Triton recorded
//   (`loc("kernels.py":12:24)`, named `loc("offs"(#loc3))`, `loc(unknown)`, `loc(callsite(a at b))`,
//   `loc(fused[a, b])`). Locations live in the module's LocationTable and are referred to by index;
//   `#locN = loc(...)` aliases are kept so the printer can write the same table back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilesim {

struct SourcePos {
  std::string file;  // shared by all positions of one parse in practice; small-string optimised
  int line = 0;      // 1-based; 0 = unknown
  int column = 0;    // 1-based
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
  bool known() const { return line > 0; }
};

using LocId = int32_t;
constexpr LocId kNoLoc = -1;

struct Location {
  enum class Kind : uint8_t { Unknown, FileLineCol, Name, CallSite, Fused };
  Kind kind = Kind::Unknown;
  std::string text;             // FileLineCol: file name; Name: the name
  int line = 0, column = 0;     // FileLineCol
  std::vector<LocId> children;  // Name: [child] (optional); CallSite: [callee, caller]; Fused: parts
  bool operator==(const Location&) const = default;
};

struct LocationAlias {
  std::string name;  // "loc", "loc12" (without '#')
  LocId target = kNoLoc;
  bool beforeModule = false;  // printed before `module {` (where Triton put it)
};

class LocationTable {
 public:
  LocId add(Location location) {
    locations_.push_back(std::move(location));
    return static_cast<LocId>(locations_.size() - 1);
  }
  const Location& at(LocId id) const { return locations_[static_cast<size_t>(id)]; }
  Location& at(LocId id) { return locations_[static_cast<size_t>(id)]; }
  size_t size() const { return locations_.size(); }
  std::vector<LocationAlias>& aliases() { return aliases_; }
  const std::vector<LocationAlias>& aliases() const { return aliases_; }

  // The first file:line:col reachable from `id` (through names, call sites' callee, fused parts), for messages:
  // "kernels.py:12:24". Empty when there is none.
  std::string describe(LocId id) const;
  // The innermost name of a Name location ("offs"), or empty.
  std::string variableName(LocId id) const;

 private:
  std::vector<Location> locations_;
  std::vector<LocationAlias> aliases_;
};

}  // namespace tilesim

#include "ir/Location.h"

namespace tilesim {

std::string LocationTable::describe(LocId id) const {
  for (int depth = 0; id != kNoLoc && depth < 64; ++depth) {
    const Location& loc = at(id);
    switch (loc.kind) {
      case Location::Kind::Unknown: return "";
      case Location::Kind::FileLineCol:
        return loc.text + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
      case Location::Kind::Name:
      case Location::Kind::CallSite:
      case Location::Kind::Fused:
        if (loc.children.empty()) return "";
        id = loc.children[0];
        break;
    }
  }
  return "";
}

std::string LocationTable::variableName(LocId id) const {
  if (id == kNoLoc) return "";
  const Location& loc = at(id);
  return loc.kind == Location::Kind::Name ? loc.text : "";
}

}  // namespace tilesim

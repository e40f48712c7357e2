// The printer's locations: ` loc(...)` after an op, argument or module, written through a `#loc` alias where the
// module defines one for it (the aliases themselves are written by printModule), else spelled out: unknown,
// "file":line:col, "name"(child), callsite(callee at caller), fused[...].
#include "ir/text/Lexer.h"
#include "ir/text/PrinterImpl.h"

namespace tilesim::text {

namespace {

// A fused or callsite location nested deeper than this prints `unknown` (a hostile file cannot overflow the stack).
constexpr int kMaxLocationDepth = 256;

}  // namespace

void PrinterImpl::printLocation(LocId loc) {
  if (!options_.locations || loc < 0 || static_cast<size_t>(loc) >= module_.locations.size()) return;
  out += " loc(";
  printLocationReference(loc);
  out += ")";
}

void PrinterImpl::printLocationReference(LocId loc, int depth) {
  auto it = aliasOf_.find(loc);
  if (it != aliasOf_.end()) {
    out += "#" + *it->second;
    return;
  }
  printLocationBody(loc, depth);
}

void PrinterImpl::printLocationBody(LocId loc, int depth) {
  if (loc < 0 || static_cast<size_t>(loc) >= module_.locations.size() || depth > kMaxLocationDepth) {
    out += "unknown";
    return;
  }
  const Location& location = module_.locations.at(loc);
  // `open` child `separator` child ... `close`: a name's one child, a call site's two, a fusion's list (as the
  // parser builds them, ParseLocations.cpp).
  auto children = [&](const char* open, const char* separator, const char* close) {
    out += open;
    for (size_t i = 0; i < location.children.size(); ++i) {
      if (i) out += separator;
      printLocationReference(location.children[i], depth + 1);
    }
    out += close;
  };
  switch (location.kind) {
    case Location::Kind::Unknown: out += "unknown"; return;
    case Location::Kind::FileLineCol:
      out += quoteString(location.text) + ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
      return;
    case Location::Kind::Name:
      out += quoteString(location.text);
      if (!location.children.empty()) children("(", "", ")");
      return;
    case Location::Kind::CallSite: children("callsite(", " at ", ")"); return;
    case Location::Kind::Fused: children("fused[", ", ", "]"); return;
  }
}

}  // namespace tilesim::text

// User diagnostics: the first of tilesim's three failure channels. Bad TTIR, bad launch arguments and
// front-end type errors become a Diagnostic (position + message) that is returned, printed as one line
// `file:line:col: error: message`, and turned into a non-zero exit status. Never an abort.
#pragma once

#include <string>
#include <vector>

#include "ir/Location.h"

namespace tilesim {

struct Diagnostic {
  SourcePos pos;
  std::string message;
  std::string str() const { return (pos.known() ? pos.str() + ": " : pos.file.empty() ? "" : pos.file + ": ") + "error: " + message; }
};

using Diagnostics = std::vector<Diagnostic>;

}  // namespace tilesim

#include "ir/Assert.h"

#include <cstdio>
#include <cstdlib>

namespace tilesim::detail {
void assertionFailed(const char* condition, const std::string& message, const char* file, int line) {
  std::fprintf(stderr, "tilesim internal error: %s:%d: %s: %s\n(this is a bug in tilesim; please report it)\n", file,
               line, condition, message.c_str());
  std::abort();
}
}  // namespace tilesim::detail

// Internal invariants: the second of tilesim's three failure channels (see docs/architecture.md).
// A failed TILESIM_ASSERT is a bug in tilesim, never a user error: it prints where and why, then aborts.
// User errors are Diagnostics (ir/Diagnostic.h); program outcomes are interpreter Traps.
#pragma once

#include <string>

namespace tilesim::detail {
[[noreturn]] void assertionFailed(const char* condition, const std::string& message, const char* file, int line);
}

#define TILESIM_ASSERT(condition, message)                                                \
  do {                                                                                    \
    if (!(condition)) ::tilesim::detail::assertionFailed(#condition, (message), __FILE__, __LINE__); \
  } while (0)

#define TILESIM_UNREACHABLE(message) ::tilesim::detail::assertionFailed("unreachable", (message), __FILE__, __LINE__)

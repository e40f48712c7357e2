// Printing element values for people: one element in its own type (shortest text that reads back to the same
// bits, as NumPy prints), and whole arrays summarised like NumPy (`[1.5, 2, ..., 7]`, nested per dimension).
// Used by comparisons (failing elements), `tilesim trace` and `tilesim run`.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "ir/Type.h"

namespace tilesim {

// `bits` holds the element in its low bits (as Tile::bitsAt gives it: integers sign-extended, floats raw).
std::string formatElement(uint64_t bits, ScalarKind kind, bool isUnsigned = false);

struct SummaryOptions {
  int64_t threshold = 64;  // arrays with more elements than this are summarised
  int64_t edgeItems = 3;   // elements shown at each end of a summarised dimension
};

// Formats a row-major array of `shape` whose element i is `element(i)` (already formatted).
std::string summarizeArray(std::span<const int64_t> shape, const std::function<std::string(int64_t)>& element,
                           const SummaryOptions& options = {});

// The value of a float element as a double (NaN and infinities included).
double floatValueOf(uint64_t bits, ScalarKind kind);
// Distance in units in the last place between two values of a float kind: how many representable values lie
// between them (+0 and -0 are 0 apart). Saturates at INT64_MAX; NaN against anything else is INT64_MAX.
int64_t ulpDistance(uint64_t bitsA, uint64_t bitsB, ScalarKind kind);

}  // namespace tilesim

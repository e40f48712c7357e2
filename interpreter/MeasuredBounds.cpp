// The measured error table (interpreter/MeasuredBounds.h). Rows come from the generated
// MeasuredBoundsTable.inc, grouped by (function, kind) so a tile resolves its function once.
#include "interpreter/MeasuredBounds.h"

#include <climits>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace tilesim {
namespace {

constexpr MeasuredBound kRows[] = {
#include "MeasuredBoundsTable.inc"
    {"", ScalarKind::F32, 0, 0, 0, 0, false, false},  // sentinel, so an empty table still compiles
};
constexpr size_t kRowCount = sizeof(kRows) / sizeof(kRows[0]) - 1;

using Key = std::pair<std::string, ScalarKind>;

const std::map<Key, std::span<const MeasuredBound>>& index() {
  static const std::map<Key, std::span<const MeasuredBound>> table = [] {
    std::map<Key, std::span<const MeasuredBound>> result;
    size_t begin = 0;
    for (size_t i = 1; i <= kRowCount; ++i) {  // rows of one function are adjacent in the file
      if (i < kRowCount && kRows[i].function == kRows[begin].function && kRows[i].kind == kRows[begin].kind) continue;
      if (begin < kRowCount) result[{std::string(kRows[begin].function), kRows[begin].kind}] = {kRows + begin, i - begin};
      begin = i;
    }
    return result;
  }();
  return table;
}

}  // namespace

int boundExponent(double x) {
  if (x == 0) return kZeroExponent;
  if (!std::isfinite(x)) return kSpecialExponent;
  return std::ilogb(x);
}

const MeasuredBound* MeasuredFunction::at(double x) const {
  const int exponent = boundExponent(x);
  const int sign = std::signbit(x) ? -1 : 1;
  for (const MeasuredBound& row : rows_)
    if ((row.sign == 0 || row.sign == sign) && row.exponentLow <= exponent && exponent < row.exponentHigh) return &row;
  return nullptr;
}

MeasuredFunction findMeasuredFunction(std::string_view function, ScalarKind kind) {
  auto found = index().find({std::string(function), kind});
  return found == index().end() ? MeasuredFunction{} : MeasuredFunction{found->second};
}

std::span<const MeasuredBound> measuredBounds() { return {kRows, kRowCount}; }

}  // namespace tilesim

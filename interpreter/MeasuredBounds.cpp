// The measured error table (interpreter/MeasuredBounds.h). Rows come from the generated
// MeasuredBoundsTable.inc, grouped by (function, kind) so a tile resolves its function once.
#include "interpreter/MeasuredBounds.h"

#include <climits>
#include <cmath>
#include <algorithm>
#include <bit>
#include <map>
#include <memory>
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

// The first row (in file order, as the scan finds it) covering each exponent from kZeroExponent to
// kSpecialExponent, per sign; -1 where none does.
constexpr int kExponents = kSpecialExponent - kZeroExponent + 1;

struct Indexed {
  std::span<const MeasuredBound> rows;
  std::unique_ptr<MeasuredRowIndex> rowIndex;
};

}  // namespace

struct MeasuredRowIndex {
  std::vector<int32_t> rowOf[2];  // [0]: negative inputs, [1]: positive; by exponent - kZeroExponent

  explicit MeasuredRowIndex(std::span<const MeasuredBound> rows) {
    for (int side = 0; side < 2; ++side) {
      rowOf[side].assign(kExponents, -1);
      const int sign = side == 0 ? -1 : 1;
      for (size_t r = 0; r < rows.size(); ++r) {
        if (rows[r].sign != 0 && rows[r].sign != sign) continue;
        const int low = std::max(rows[r].exponentLow, kZeroExponent);
        const int high = std::min(rows[r].exponentHigh, kSpecialExponent + 1);
        for (int e = low; e < high; ++e)
          if (rowOf[side][e - kZeroExponent] < 0) rowOf[side][e - kZeroExponent] = static_cast<int32_t>(r);
      }
    }
  }
};

namespace {

const std::map<Key, Indexed>& index() {
  static const std::map<Key, Indexed> table = [] {
    std::map<Key, Indexed> result;
    size_t begin = 0;
    for (size_t i = 1; i <= kRowCount; ++i) {  // rows of one function are adjacent in the file
      if (i < kRowCount && kRows[i].function == kRows[begin].function && kRows[i].kind == kRows[begin].kind) continue;
      if (begin < kRowCount) {
        std::span<const MeasuredBound> rows{kRows + begin, i - begin};
        result[{std::string(kRows[begin].function), kRows[begin].kind}] =
            Indexed{rows, std::make_unique<MeasuredRowIndex>(rows)};
      }
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
  // ilogb(x) from the bits (once per lane of every measured op): the biased exponent, or for a subnormal the
  // position of its highest set bit.
  const uint64_t bits = std::bit_cast<uint64_t>(x) & ~(uint64_t{1} << 63);
  const int biased = static_cast<int>(bits >> 52);
  return biased != 0 ? biased - 1023 : (63 - std::countl_zero(bits)) - 1074;
}

const MeasuredBound* MeasuredFunction::at(double x) const {
  const int exponent = boundExponent(x);
  const int sign = std::signbit(x) ? -1 : 1;
  if (index_) {  // boundExponent is within [kZeroExponent, kSpecialExponent]
    const int32_t row = index_->rowOf[sign > 0 ? 1 : 0][exponent - kZeroExponent];
    return row < 0 ? nullptr : &rows_[static_cast<size_t>(row)];
  }
  for (const MeasuredBound& row : rows_)
    if ((row.sign == 0 || row.sign == sign) && row.exponentLow <= exponent && exponent < row.exponentHigh) return &row;
  return nullptr;
}

MeasuredFunction findMeasuredFunction(std::string_view function, ScalarKind kind) {
  auto found = index().find({std::string(function), kind});
  return found == index().end() ? MeasuredFunction{}
                                : MeasuredFunction{found->second.rows, found->second.rowIndex.get()};
}

std::span<const MeasuredBound> measuredBounds() { return {kRows, kRowCount}; }

}  // namespace tilesim

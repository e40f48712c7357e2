// Element and array formatting. Floats print with the fewest significant digits that round back to the same
// bits in their own format (so a bf16 prints as `1.5`, not as the float32 it widens to), matching NumPy's repr.
#include "conformance/runner/Format.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "ir/FloatBits.h"

namespace tilesim {
namespace {

uint64_t lowBits(uint64_t bits, int width) { return width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1); }

std::string formatFloat(uint64_t bits, ScalarKind kind) {
  double value = doubleFromFloatBits(lowBits(bits, bitWidth(kind)), kind);
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  char text[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    double parsed = std::strtod(text, nullptr);
    if (floatBitsFromDouble(parsed, kind) == lowBits(bits, bitWidth(kind))) break;
  }
  return text;
}

// Appends the summarised sub-array of dimension `dim` starting at flat offset `base`.
void appendDimension(std::string& out, std::span<const int64_t> shape, size_t dim, int64_t base, bool summarise,
                     const std::function<std::string(int64_t)>& element, const SummaryOptions& options) {
  int64_t stride = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d) stride *= shape[d];
  int64_t extent = shape[dim];
  bool elide = summarise && extent > 2 * options.edgeItems;
  std::string separator = dim + 1 == shape.size() ? ", " : ",\n" + std::string(dim + 1, ' ');
  out += '[';
  for (int64_t i = 0; i < extent; ++i) {
    if (elide && i == options.edgeItems) {
      out += "..." + separator;
      i = extent - options.edgeItems - 1;
      continue;
    }
    if (dim + 1 == shape.size()) out += element(base + i);
    else appendDimension(out, shape, dim + 1, base + i * stride, summarise, element, options);
    if (i + 1 < extent) out += separator;
  }
  out += ']';
}

}  // namespace

std::string formatElement(uint64_t bits, ScalarKind kind, bool isUnsigned) {
  if (isFloatKind(kind)) return formatFloat(bits, kind);
  int width = bitWidth(kind);
  if (kind == ScalarKind::I1) return (bits & 1) ? "true" : "false";
  uint64_t raw = lowBits(bits, width);
  if (isUnsigned) return std::to_string(raw);
  int64_t value = width >= 64 ? static_cast<int64_t>(raw)
                              : static_cast<int64_t>(raw << (64 - width)) >> (64 - width);
  return std::to_string(value);
}

std::string summarizeArray(std::span<const int64_t> shape, const std::function<std::string(int64_t)>& element,
                           const SummaryOptions& options) {
  if (shape.empty()) return element(0);
  int64_t count = 1;
  for (int64_t extent : shape)
    if (extent < 0 || __builtin_mul_overflow(count, extent, &count)) return "[<shape with too many elements>]";
  if (count == 0) return "[]";
  // The nesting recurses once per dimension: an absurd rank prints flat, so it cannot exhaust the stack.
  constexpr size_t kMaxNestedRank = 32;
  const int64_t flat[] = {count};
  if (shape.size() > kMaxNestedRank) shape = flat;
  std::string out;
  appendDimension(out, shape, 0, 0, count > options.threshold, element, options);
  return out;
}

double floatValueOf(uint64_t bits, ScalarKind kind) { return doubleFromFloatBits(lowBits(bits, bitWidth(kind)), kind); }

int64_t ulpDistance(uint64_t bitsA, uint64_t bitsB, ScalarKind kind) {
  int width = bitWidth(kind);
  bitsA = lowBits(bitsA, width);
  bitsB = lowBits(bitsB, width);
  bool nanA = isNaNBits(bitsA, kind), nanB = isNaNBits(bitsB, kind);
  if (nanA || nanB) return nanA && nanB ? 0 : std::numeric_limits<int64_t>::max();
  // Map sign-magnitude bit patterns onto a line where neighbours differ by one.
  uint64_t signBit = uint64_t{1} << (width - 1);
  auto ordered = [&](uint64_t bits) -> long double {
    long double magnitude = static_cast<long double>(bits & ~signBit);
    return (bits & signBit) ? -magnitude : magnitude;
  };
  long double distance = std::fabs(ordered(bitsA) - ordered(bitsB));
  if (distance >= static_cast<long double>(std::numeric_limits<int64_t>::max())) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(distance);
}

}  // namespace tilesim

// The per-function error of Triton's math lowering as measured on the H200 (conformance/triton/
// measure_bounds.py writes conformance/triton/measured_bounds.tsv; the build turns it into a table). Each row:
// for inputs of one sign whose binary exponent lies in [exponentLow, exponentHigh), the largest distance of the
// GPU's result from the exact value, in units of the result format's spacing at the exact value, and whether the
// function reads subnormal inputs as zero / flushes subnormal results (FTZ). Zero inputs have exponent
// kZeroExponent, inf and NaN kSpecialExponent (boundExponent). Functions are named as the TTIR names them:
// libdevice symbols (`__nv_tanhf`) and ops (`math.exp`, `arith.divf`, ...). A function with no row keeps the
// documented assumptions (docs/semantics.md "Error bounds").
#pragma once

#include <span>
#include <string_view>

#include "ir/Type.h"

namespace tilesim {

struct MeasuredBound {
  std::string_view function;
  ScalarKind kind;
  int sign;  // +1, -1, or 0 for both
  int exponentLow, exponentHigh;
  double maxUlp;
  bool flushesInput, flushesResult;
};

constexpr int kZeroExponent = -2000;
constexpr int kSpecialExponent = 2000;

// The exponent a row's range is stated in: ilogb(x) (subnormals below the normal minimum), or the two markers.
int boundExponent(double x);

// Every row of one function and kind (empty when it was not measured).
// The row of each (sign, exponent) of one function, found once (MeasuredBounds.cpp): a lane's lookup is one load
// instead of a scan over the function's rows (a few hundred for the measured ones).
struct MeasuredRowIndex;

class MeasuredFunction {
 public:
  MeasuredFunction() = default;
  explicit MeasuredFunction(std::span<const MeasuredBound> rows, const MeasuredRowIndex* index = nullptr)
      : rows_(rows), index_(index) {}
  bool measured() const { return !rows_.empty(); }
  // The row covering x, or null (a measured function with a gap in its ranges gives null there too).
  const MeasuredBound* at(double x) const;
  bool flushesInput() const { return measured() && rows_.front().flushesInput; }
  bool flushesResult() const { return measured() && rows_.front().flushesResult; }

 private:
  std::span<const MeasuredBound> rows_;
  const MeasuredRowIndex* index_ = nullptr;  // null: scan the rows (a table built by hand, in tests)
};

MeasuredFunction findMeasuredFunction(std::string_view function, ScalarKind kind);

// All rows, for tests and `tilesim` diagnostics.
std::span<const MeasuredBound> measuredBounds();

}  // namespace tilesim

// The rules the `triton` profile's float bounds share (ElementwiseBounds.cpp) with libdevice's
// (LibdeviceBounds.cpp): ulps, FTZ, the measured error table. Private to interpreter/.
#pragma once

#include <limits>
#include <string>

#include "interpreter/MeasuredBounds.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::elementwise {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What one op's lanes share: the measured rows of its function and, for tt.extern_elementwise, which
// libdevice function it calls.
struct OpBoundContext {
  MeasuredFunction measured;
  const scalar::LibdeviceFunction* libdevice = nullptr;
  std::string symbol;  // tt.extern_elementwise's libdevice symbol
};

// Distance between adjacent values of `kind` around `value` (subnormal spacing below the normal range).
double ulpOf(double value, ScalarKind kind);
bool isF32Subnormal(double value, ScalarKind kind);
// Spacing of `kind` at the largest magnitude within `reach` of r, so that k spacings cover k steps of the
// format even when they cross into the next binade.
double spacingAround(double r, double reach, ScalarKind kind);
// |GPU - r| for a measured function on exact operands (`assumed` where the table has no row for the range).
double measuredOwnError(const MeasuredBound* row, double r, ScalarKind kind, double assumed);
// The table's name for an op: the libdevice symbol, or the op's mnemonic (`math.exp`, `arith.divf`).
std::string measuredName(const Operation& op);

// tt.extern_elementwise (libdevice): the bound of one lane (LibdeviceBounds.cpp); context.libdevice is set.
double libdeviceBound(const OpBoundContext& context, ScalarKind kind, double x, double y, double z, double ex,
                      double ey, double ez, double r);

}  // namespace tilesim::elementwise

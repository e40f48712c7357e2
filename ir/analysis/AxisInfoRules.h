// The per-op transfer functions of AxisInfo (internal to ir/analysis; AxisInfo.h is the public API).
#pragma once

#include <vector>

#include "ir/IR.h"
#include "ir/analysis/AxisInfo.h"

namespace tilesim::analysis {

// `results` arrives pessimistic; each rule overwrites what it can prove (see the rules in AxisInfo.h).
void transferAxisInfo(const Operation& op, const std::vector<const AxisInfo*>& operands, std::vector<AxisInfo>& results);
// x % n for a remainder in AxisAssumptions::positiveRemainders (x in [0, signed max], n > 0 everywhere).
AxisInfo positiveRemainder(const AxisInfo& lhs, const AxisInfo& rhs, AxisInfo info);

}  // namespace tilesim::analysis

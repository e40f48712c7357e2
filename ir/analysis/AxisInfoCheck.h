// Checks AxisInfo claims against concrete values (one run-time tile): the test oracle for AxisInfo's
// soundness. Values are given as int64 per element in row-major order: integers sign-extended (i1 as 0/1),
// pointers as byte addresses. `step` is what "contiguous" means between neighbours (1 for integers, the
// pointee size in bytes for pointers); `width` is the integer width (differences are taken modulo 2^width;
// 64 for pointers).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/analysis/AxisInfo.h"

namespace tilesim::analysis {

struct AxisInfoCheck {
  int64_t claimsChecked = 0;         // non-trivial claims (contiguity, divisibility or constancy > 1, a constant)
  std::vector<std::string> failures;  // one line per wrong claim: which claim, dim, first lane that breaks it
};

AxisInfoCheck checkAxisInfo(const AxisInfo& claims, std::span<const int64_t> values, std::span<const int64_t> shape,
                            int64_t step, int width);

}  // namespace tilesim::analysis

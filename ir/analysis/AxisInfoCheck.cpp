// Element-by-element verification of AxisInfo claims (see AxisInfoCheck.h).
#include "ir/analysis/AxisInfoCheck.h"

namespace tilesim::analysis {

namespace {

uint64_t ringDifference(int64_t later, int64_t earlier, int width) {
  uint64_t difference = static_cast<uint64_t>(later) - static_cast<uint64_t>(earlier);
  return width >= 64 ? difference : difference & ((uint64_t{1} << width) - 1);
}

}  // namespace

AxisInfoCheck checkAxisInfo(const AxisInfo& claims, std::span<const int64_t> values, std::span<const int64_t> shape,
                            int64_t step, int width) {
  AxisInfoCheck check;
  std::vector<int64_t> dims(shape.begin(), shape.end());
  if (dims.empty()) dims = {1};
  if (static_cast<int>(dims.size()) != claims.rank()) {
    check.failures.push_back("rank " + std::to_string(claims.rank()) + " claims for a rank " + std::to_string(dims.size()) + " value");
    return check;
  }
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  auto fail = [&](const std::string& claim, int dim, int64_t lane) {
    check.failures.push_back(claim + " along dim " + std::to_string(dim) + " fails at element " + std::to_string(lane) +
                             " (value " + std::to_string(values[lane]) + "); claims " + claims.str());
  };
  const int64_t count = static_cast<int64_t>(values.size());
  for (int d = 0; d < claims.rank(); ++d) {
    const int64_t contiguity = claims.contiguity[d], divisibility = claims.divisibility[d], constancy = claims.constancy[d];
    check.claimsChecked += (contiguity > 1) + (divisibility > 1) + (constancy > 1);
    for (int64_t lane = 0; lane < count; ++lane) {
      const int64_t index = (lane / strides[d]) % dims[d];
      if (contiguity > 1 && index % contiguity != 0 &&
          ringDifference(values[lane], values[lane - strides[d]], width) != static_cast<uint64_t>(step)) {
        fail("contiguity " + std::to_string(contiguity), d, lane);
        break;
      }
      if (constancy > 1 && index % constancy != 0 && values[lane] != values[lane - strides[d]]) {
        fail("constancy " + std::to_string(constancy), d, lane);
        break;
      }
      if (divisibility > 1 && index % contiguity == 0 && values[lane] % divisibility != 0) {
        fail("divisibility " + std::to_string(divisibility), d, lane);
        break;
      }
    }
  }
  if (claims.constantValue) {
    ++check.claimsChecked;
    for (int64_t lane = 0; lane < count; ++lane)
      if (values[lane] != *claims.constantValue) {
        fail("constant " + std::to_string(*claims.constantValue), 0, lane);
        break;
      }
  }
  return check;
}

}  // namespace tilesim::analysis

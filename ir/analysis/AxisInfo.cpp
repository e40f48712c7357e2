// The AxisInfo lattice (join, the pessimistic and constant states) and the analysis driver: kernel arguments
// seeded from `tt.divisibility`, every op through the transfer rules of AxisInfoRules.cpp, control flow through
// ForwardDataflow.
#include "ir/analysis/AxisInfo.h"

#include <numeric>
#include <utility>

#include "ir/analysis/AxisInfoRules.h"
#include "ir/analysis/ForwardDataflow.h"

namespace tilesim::analysis {

int64_t powerOfTwoDivisor(int64_t value) {
  if (value == 0) return kMaxDivisibility;
  uint64_t bits = static_cast<uint64_t>(value);
  uint64_t lowest = bits & (~bits + 1);
  return lowest >= static_cast<uint64_t>(kMaxDivisibility) ? kMaxDivisibility : static_cast<int64_t>(lowest);
}

int axisRank(Type type) { return type.isTensor() ? type.rank() : 1; }

bool tracksAxisInfo(Type type) {
  Type element = type.element();
  if (element.isPointer()) return !element.pointee().isTensor();
  return element.isScalar() && element.isInteger();
}

AxisInfo AxisInfo::pessimistic(int rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

AxisInfo AxisInfo::constant(int64_t value, std::span<const int64_t> shape) {
  int rank = shape.empty() ? 1 : static_cast<int>(shape.size());
  AxisInfo info = pessimistic(rank);
  for (int d = 0; d < rank; ++d) {
    info.divisibility[d] = powerOfTwoDivisor(value);
    info.constancy[d] = shape.empty() ? 1 : shape[d];
  }
  info.constantValue = value;
  return info;
}

int64_t AxisInfo::divisibilityAtStride(int dim, int64_t stride) const {
  if (stride % contiguity[dim] == 0) return divisibility[dim];
  return std::gcd(divisibility[dim], stride);
}

AxisInfo AxisInfo::join(const AxisInfo& a, const AxisInfo& b) {
  if (a.rank() != b.rank()) return pessimistic(std::max(a.rank(), b.rank()));
  AxisInfo joined = pessimistic(a.rank());
  for (int d = 0; d < a.rank(); ++d) {
    joined.contiguity[d] = std::gcd(a.contiguity[d], b.contiguity[d]);
    joined.divisibility[d] = std::gcd(a.divisibilityAtStride(d, joined.contiguity[d]),
                                      b.divisibilityAtStride(d, joined.contiguity[d]));
    joined.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constantValue == b.constantValue) joined.constantValue = a.constantValue;
  return joined;
}

std::string AxisInfo::str() const {
  auto list = [](const std::vector<int64_t>& values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
  };
  return "contiguity=" + list(contiguity) + " divisibility=" + list(divisibility) + " constancy=" + list(constancy) +
         " constant=" + (constantValue ? std::to_string(*constantValue) : std::string("none"));
}

class AxisInfoAnalysis::Dataflow : public ForwardDataflow<AxisInfo> {
 public:
  explicit Dataflow(AxisAssumptions assumptions) : assumptions_(std::move(assumptions)) {}

  AxisInfo pessimistic(const Value& value) const override { return AxisInfo::pessimistic(axisRank(value.type)); }

  AxisInfo argumentState(const Function& function, const Value& argument) const override {
    AxisInfo info = pessimistic(argument);
    if (!function.isPublic() || !tracksAxisInfo(argument.type) || argument.type.isTensor()) return info;
    const Attribute* divisibility = findAttribute(function.argumentAttributes(argument.index), "tt.divisibility");
    if (divisibility && divisibility->kind() == Attribute::Kind::Integer && divisibility->intValue() > 0)
      info.divisibility[0] = powerOfTwoDivisor(divisibility->intValue());
    return info;
  }

  void transfer(const Operation& op, const std::vector<const AxisInfo*>& operands,
                std::vector<AxisInfo>& results) const override {
    if (assumptions_.positiveRemainders.contains(&op) && !results.empty()) {
      results[0] = positiveRemainder(*operands[0], *operands[1], results[0]);
      return;
    }
    transferAxisInfo(op, operands, results);
  }

  AxisInfo inductionVariable(const Operation& forOp, const AxisInfo& lower, const AxisInfo&,
                             const AxisInfo& step) const override {
    AxisInfo info = pessimistic(*forOp.region(0).front().argument(0));
    info.divisibility[0] = std::gcd(lower.divisibility[0], step.divisibility[0]);
    return info;
  }

 private:
  AxisAssumptions assumptions_;
};

AxisInfoAnalysis::AxisInfoAnalysis(const Module& module, AxisAssumptions assumptions)
    : dataflow_(std::make_unique<Dataflow>(std::move(assumptions))) {
  dataflow_->run(module);
}

AxisInfoAnalysis::~AxisInfoAnalysis() = default;

AxisInfo AxisInfoAnalysis::info(const Value& value) const {
  if (!tracksAxisInfo(value.type)) return AxisInfo::pessimistic(axisRank(value.type));
  return dataflow_->stateOf(value);
}

}  // namespace tilesim::analysis

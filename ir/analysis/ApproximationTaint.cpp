// ApproximationTaint (see ApproximationTaint.h): the two-point lattice, the per-op rules read from the op table
// (ir/OpFacts.def: the precision and BoundFlow columns) and the search for the first unfollowed use.
#include "ir/analysis/ApproximationTaint.h"

#include "ir/OpAttributes.h"
#include "ir/OpFacts.h"
#include "ir/analysis/ForwardDataflow.h"

namespace tilesim::analysis {

bool approximateUnderTriton(const Operation& op) {
  const bool floatResult = op.numResults() > 0 && op.result()->type.element().isFloat();
  switch (opFacts(op.kind).precision) {
    case TritonPrecision::Exact: return false;
    case TritonPrecision::Approximate: return floatResult;
  }
  return false;
}

bool boundFollows(const Operation& op, size_t operand) {
  switch (opFacts(op.kind).boundFlow) {
    case BoundFlow::None: return false;
    case BoundFlow::AllOperands: return true;
    case BoundFlow::LoopCarried: return operand >= 3;
    case BoundFlow::Forwarded: return operand >= 1;
    case BoundFlow::StoredValue: return operand == 1;
    case BoundFlow::ComparedAndStored: return operand >= 1;
    case BoundFlow::FloatOperands: return op.operand(operand)->type.element().isFloat();
  }
  return false;
}

namespace {

struct Approximation {
  bool approximate = false;
  bool operator==(const Approximation&) const = default;
  static Approximation join(const Approximation& a, const Approximation& b) { return {a.approximate || b.approximate}; }
};

bool anyApproximate(const std::vector<const Approximation*>& states) {
  for (const Approximation* state : states)
    if (state->approximate) return true;
  return false;
}

}  // namespace

class ApproximationTaint::Dataflow : public ForwardDataflow<Approximation> {
 public:
  explicit Dataflow(const Module& module) : module_(module) {}

  Approximation pessimistic(const Value&) const override { return {true}; }
  // A kernel's arguments are exact inputs.
  Approximation argumentState(const Function&, const Value&) const override { return {false}; }

  void transfer(const Operation& op, const std::vector<const Approximation*>& operands,
                std::vector<Approximation>& results) const override {
    const bool approximate = approximateUnderTriton(op) || anyApproximate(operands);
    for (Approximation& result : results) result.approximate = approximate;
  }

  void transferCall(const Operation& call, const std::vector<const Approximation*>& operands,
                    std::vector<Approximation>& results) const override {
    std::optional<Function> callee = module_.findFunction(CallView{call}.callee());
    if (!callee) return;  // unknown: pessimistic
    bool approximate = anyApproximate(operands);
    walk(*callee->op(), [&](const Operation& op) { approximate = approximate || approximateUnderTriton(op); });
    for (Approximation& result : results) result.approximate = approximate;
  }

  Approximation inductionVariable(const Operation&, const Approximation& lower, const Approximation& upper,
                                  const Approximation& step) const override {
    return Approximation::join(lower, Approximation::join(upper, step));
  }

 private:
  const Module& module_;
};

ApproximationTaint::ApproximationTaint(const Module& module, const Function& kernel)
    : dataflow_(std::make_unique<Dataflow>(module)), kernel_(kernel) {
  dataflow_->run(kernel);
}

ApproximationTaint::~ApproximationTaint() = default;

bool ApproximationTaint::isApproximate(const Value& value) const {
  const Approximation* state = dataflow_->lookup(value);
  return state && state->approximate;
}

std::optional<ApproximationTaint::UnfollowedUse> ApproximationTaint::firstUnfollowedUse() const {
  std::optional<UnfollowedUse> found;
  walk(*kernel_.op(), [&](const Operation& op) {
    for (size_t k = 0; k < op.operands.size() && !found; ++k)
      if (isApproximate(*op.operands[k]) && !boundFollows(op, k)) found = UnfollowedUse{&op, k};
  });
  return found;
}

}  // namespace tilesim::analysis

// ApproximationTaint: which values of a kernel are known only within an error bound under the `triton` float
// profile, and whether one of them reaches a use the interpreter's bounds do not follow. Under that profile a
// float from an approximate instruction (the op table's TritonPrecision::Approximate: div.full, ex2.approx,
// libdevice, a tensor-core dot, an atomic float add whose order is open) is judged within its bound, and the
// interpreter follows the bound into everything computed from it (fptosi, cmpf, bitcast, then integer ops,
// addresses, gather indices, stores: docs/semantics.md "Error bounds", docs/findings.md G9). Where an op's
// BoundFlow column says the bound is not followed (a control-flow decision, an atomic's address, block pointers,
// inline asm, ...), the GPU may take another path or touch other memory without either engine being wrong.
//
// A forward dataflow analysis (ForwardDataflow.h) over the two-point lattice {exact, approximate}: a value is
// approximate when an approximate op computed it as a float, or when any operand of the op that computed it is
// approximate; loop-carried values, scf.if and scf.while results join over their yields. A tt.call's results are
// approximate when an operand is or when the callee contains an approximate op; the block arguments of
// combine regions (tt.reduce, tt.scan) count as approximate (their uses are elementwise, always followed).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "ir/IR.h"

namespace tilesim::analysis {

// Whether `op`'s results are known only within an error bound under the triton profile: an approximate op
// (the op table's precision column) with a float result.
bool approximateUnderTriton(const Operation& op);
// Whether the interpreter's bounds follow a value known only within a bound used as operand `operand` of `op`
// (the op table's BoundFlow column).
bool boundFollows(const Operation& op, size_t operand);

class ApproximationTaint {
 public:
  // Analyses `kernel` (the functions it calls are looked up in `module` for approximate ops, not analysed).
  ApproximationTaint(const Module& module, const Function& kernel);
  ~ApproximationTaint();
  ApproximationTaint(const ApproximationTaint&) = delete;
  ApproximationTaint& operator=(const ApproximationTaint&) = delete;

  // Whether `value` may be known only within an error bound (false for values the analysis never reached).
  bool isApproximate(const Value& value) const;

  struct UnfollowedUse {
    const Operation* user;
    size_t operand;
  };
  // The first use, in the kernel's op order, of an approximate value as an operand whose bound is not followed.
  std::optional<UnfollowedUse> firstUnfollowedUse() const;

 private:
  class Dataflow;
  std::unique_ptr<Dataflow> dataflow_;
  Function kernel_;
};

}  // namespace tilesim::analysis

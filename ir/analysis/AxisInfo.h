// AxisInfo: what is known, per tensor dimension, about the integer and pointer values of a kernel — Triton's
// lib/Analysis/AxisInfo.cpp, re-derived for tilesim's semantics. The GPU backend vectorises memory accesses on
// these claims, so every claim must hold for EVERY launch (conservative; a wrong claim is silent corruption).
//
// Along dimension d (indices i along d, every other index fixed), for a value of rank R (a scalar is rank 1,
// size 1):
//   contiguity c:    in each aligned run of c elements (i = k*c ... k*c + c-1) the value grows by exactly 1
//                    from one element to the next (pointers: by one pointee, sizeof(T) bytes). Integers wrap:
//                    "grows by 1" is modulo 2^width.
//   divisibility v:  every element at an index i that is a multiple of c (the first of each run) is a multiple
//                    of v: integers as signed values, pointers as byte addresses. (tilesim places every buffer
//                    at a multiple of 2^40, so `tt.divisibility = 16` on a pointer argument is a fact about
//                    the address.) With c = 1 this is every element.
//   constancy k:     in each aligned run of k elements all elements are equal.
//   constantValue:   every element equals this (integers, sign-extended; i1 is 0 or 1).
// All three numbers are powers of two, at most the dimension's size for contiguity and constancy; the
// pessimistic state (nothing known) is 1, 1, 1 and no constant. Floats and block pointers are always
// pessimistic. Soundness rules beyond Triton's: division and remainder say nothing unless the divisor is a
// known non-zero constant (tilesim defines x / 0 = -1); a contiguity survives sign extension (extsi, an i32
// tt.addptr offset) only up to the divisibility of the run's first element, which keeps runs from crossing
// 2^31; remsi never claims contiguity (negative dividends restart a run). docs/analysis.md has the rules.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/IR.h"

namespace tilesim::analysis {

// The largest divisibility claimed (the divisibility of 0).
inline constexpr int64_t kMaxDivisibility = int64_t{1} << 62;

struct AxisInfo {
  std::vector<int64_t> contiguity, divisibility, constancy;  // one entry per dimension
  std::optional<int64_t> constantValue;

  static AxisInfo pessimistic(int rank);
  // A value whose every element equals `value`, of the given shape (empty = scalar).
  static AxisInfo constant(int64_t value, std::span<const int64_t> shape);
  static AxisInfo join(const AxisInfo& a, const AxisInfo& b);

  int rank() const { return static_cast<int>(contiguity.size()); }
  // The divisibility that holds at every index along `dim` that is a multiple of `stride` (a power of two).
  int64_t divisibilityAtStride(int dim, int64_t stride) const;
  bool operator==(const AxisInfo& other) const = default;
  std::string str() const;  // "contiguity=[1024] divisibility=[16] constancy=[1] constant=none"
};

// The largest power of two dividing `value` (kMaxDivisibility for 0).
int64_t powerOfTwoDivisor(int64_t value);
// The rank AxisInfo uses for a value of `type`: the tensor rank, 1 for scalars.
int axisRank(Type type);
// Whether AxisInfo tracks values of `type`: integers (i1 included) and pointers to scalars, scalar or tensor.
bool tracksAxisInfo(Type type);

// Facts a caller makes true by guarding the code it compiles with them (the GPU backend's remainder versioning,
// gpu_backend/RemainderVersioning.h): every op in `positiveRemainders` is an arith.remsi or arith.remui whose
// dividend elements all lie in [0, signed max] and whose divisor elements are all positive, so x % n is the plain
// mathematical remainder and an aligned run of x stays contiguous up to the divisibility of n. Without such a
// guard a remsi claims no contiguity (AxisInfo.h's header): the analysis never assumes these on its own.
struct AxisAssumptions {
  std::unordered_set<const Operation*> positiveRemainders;
};

class AxisInfoAnalysis {
 public:
  // Runs over every function of the module; kernel pointer and integer arguments are seeded from their
  // `tt.divisibility` attribute (absent = 1). Arguments of private functions know nothing.
  explicit AxisInfoAnalysis(const Module& module, AxisAssumptions assumptions = {});
  ~AxisInfoAnalysis();
  AxisInfoAnalysis(const AxisInfoAnalysis&) = delete;
  AxisInfoAnalysis& operator=(const AxisInfoAnalysis&) = delete;

  // The claims for `value` (pessimistic for untracked types and unreached code).
  AxisInfo info(const Value& value) const;

 private:
  class Dataflow;
  std::unique_ptr<Dataflow> dataflow_;
};

}  // namespace tilesim::analysis

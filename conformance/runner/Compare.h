// Comparing an output buffer with the buffer real hardware produced. The rule, element by element:
//   - the same bits: exact;
//   - both NaN (any payloads): within bound;
//   - a float whose error bound is positive and |got - expected| <= bound: within bound;
//   - an integer whose bound is positive and whose distance modulo 2^w from the target is <= bound: within bound
//     (an integer's bound allows ours + d, |d| <= bound, wrapping; docs/semantics.md "Error bounds");
//   - anything else fails. A bound of 0 means bit for bit.
// The bounds come from LaunchArgument::errorBound after a launch under FloatProfile::Triton: 0 where the value
// came from exact data flow, the accumulated approximation error where an approximate op touched it.
//
// An engine without bounds of its own (the GPU engine) is judged with the interpreter's: compareWithReference
// takes the interpreter's output (the reference r) and bounds b of the same launch. A bound b says that any
// GPU's value — Triton's expected e, and the GPU engine's own g — lies within b of r. So an element of g passes
// when it is bit for bit e (or both NaN), or when it is within b of e (the rule above) AND within b of r (or
// bit for bit r, or both NaN): inside the interval the bound promises. One within b of e but outside r +- b is
// counted in `outsideReference` (the bound does not cover that GPU value: a bound or backend bug).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/Type.h"

namespace tilesim {

struct ElementMismatch {
  int64_t index = 0;           // flat, row-major
  std::vector<int64_t> where;  // multi-index in the buffer's shape
  std::string got, expected;   // formatted in the buffer's dtype
  double absError = 0;
  double bound = 0;
  std::string reference;  // compareWithReference: the reference engine's value (empty otherwise)
};

struct OutputComparison {
  std::string name;
  ScalarKind kind = ScalarKind::F32;
  int64_t total = 0;
  int64_t exact = 0;        // bit for bit
  int64_t withinBound = 0;  // not bit for bit, but both NaN or within the element's error bound
  int64_t unconstrained = 0;  // of those, elements whose bound is infinite (the GPU's value is unspecified)
  int64_t failing = 0;
  int64_t outsideReference = 0;  // of the failing: within the bound of expected, not of the reference's value
  // Over the elements that are not bit for bit (floats only): ulps in the buffer's dtype, absolute error.
  int64_t maxUlp = 0;
  double maxAbsError = 0;
  std::vector<ElementMismatch> firstFailures;
  std::string error;  // the buffers could not be compared at all (size mismatch)

  bool bitExact() const { return error.empty() && exact == total; }
  bool passed() const { return error.empty() && failing == 0; }
  // "y_ptr: pass, bit-exact (5000 elements)" or "... fail, 3 of 5000 failing, max 4 ulp, max abs error 1.2e-07".
  std::string summary() const;
  // One line per shown failing element ("y[1, 0]: got 2, expected 2.5 (...)"), and a count of the rest.
  std::vector<std::string> failureLines() const;
  // summary() followed by failureLines(), indented.
  std::string details() const;
};

struct CompareOptions {
  int maxFailuresShown = 5;
  bool isUnsigned = false;  // for printing integer values
};

// `got` and `expected` are row-major buffers of `kind` with `shape`; `errorBound` is empty (all 0) or per element.
OutputComparison compareOutput(const std::string& name, ScalarKind kind, std::span<const int64_t> shape,
                               std::span<const uint8_t> got, std::span<const uint8_t> expected,
                               std::span<const double> errorBound, const CompareOptions& options = {});

// `got` (an engine without bounds) judged against `expected` with `reference`'s bounds, as above; `reference`
// and `referenceBound` are the bounding engine's output and LaunchArgument::errorBound for the same launch.
OutputComparison compareWithReference(const std::string& name, ScalarKind kind, std::span<const int64_t> shape,
                                      std::span<const uint8_t> got, std::span<const uint8_t> expected,
                                      std::span<const uint8_t> reference, std::span<const double> referenceBound,
                                      const CompareOptions& options = {});

}  // namespace tilesim

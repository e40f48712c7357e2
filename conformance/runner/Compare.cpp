// Element-by-element comparison of an output buffer with its expectation (rules in Compare.h).
#include "conformance/runner/Compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "conformance/runner/Format.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

uint64_t loadBits(std::span<const uint8_t> buffer, int64_t index, int bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, buffer.data() + index * bytes, static_cast<size_t>(bytes));  // little-endian host
  return bits;
}

std::vector<int64_t> multiIndex(int64_t flat, std::span<const int64_t> shape) {
  std::vector<int64_t> where(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t extent = shape[d] > 0 ? shape[d] : 1;
    where[d] = flat % extent;
    flat /= extent;
  }
  return where;
}

std::string indexText(const std::vector<int64_t>& where) {
  return fmt::format("[{}]", fmt::join(where, ", "));
}

// One element against a target under a bound: the same bits, both NaN, or (bound > 0) within the bound.
struct ElementJudgement {
  bool sameBits = false;
  bool ok = false;
  double absError = 0;
};

ElementJudgement judgeElement(uint64_t gotBits, uint64_t targetBits, ScalarKind kind, double bound) {
  ElementJudgement judgement;
  judgement.sameBits = gotBits == targetBits;
  if (judgement.sameBits) {
    judgement.ok = true;
    return judgement;
  }
  if (isFloatKind(kind)) {
    double gotValue = floatValueOf(gotBits, kind), targetValue = floatValueOf(targetBits, kind);
    bool bothNaN = std::isnan(gotValue) && std::isnan(targetValue);
    judgement.absError = bothNaN ? 0.0 : std::fabs(gotValue - targetValue);
    if (std::isnan(judgement.absError)) judgement.absError = INFINITY;  // inf - inf, or NaN against a number
    judgement.ok = bothNaN || (bound > 0 && judgement.absError <= bound);
  } else {
    // The distance modulo 2^w: an integer's bound allows ours + d, |d| <= bound, wrapping (docs/semantics.md).
    const int width = bitWidth(kind);
    const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    const uint64_t up = (gotBits - targetBits) & mask, down = (targetBits - gotBits) & mask;
    judgement.absError = static_cast<double>(std::min(up, down));
    judgement.ok = bound > 0 && judgement.absError <= bound;  // integers carry a bound where the GPU's value is
                                                              // unspecified, or where a float with an error bound
                                                              // was stored through a reinterpreting pointer (the
                                                              // bound then counts representable floats, MemoryOps.cpp)
  }
  return judgement;
}

OutputComparison compareElements(const std::string& name, ScalarKind kind, std::span<const int64_t> shape,
                                 std::span<const uint8_t> got, std::span<const uint8_t> expected,
                                 std::span<const uint8_t> reference, std::span<const double> errorBound,
                                 const CompareOptions& options) {
  OutputComparison result;
  result.name = name;
  result.kind = kind;
  int bytes = storageBytes(kind);
  if (got.size() != expected.size() || got.size() % static_cast<size_t>(bytes) != 0) {
    result.error = fmt::format("{} bytes produced but {} expected", got.size(), expected.size());
    return result;
  }
  if (!reference.empty() && reference.size() != got.size()) {
    result.error = fmt::format("{} bytes produced but the reference engine produced {}", got.size(), reference.size());
    return result;
  }
  result.total = static_cast<int64_t>(got.size()) / bytes;
  if (!errorBound.empty() && static_cast<int64_t>(errorBound.size()) != result.total) {
    result.error = fmt::format("{} error bounds for {} elements", errorBound.size(), result.total);
    return result;
  }
  for (int64_t i = 0; i < result.total; ++i) {
    uint64_t gotBits = loadBits(got, i, bytes), expectedBits = loadBits(expected, i, bytes);
    if (gotBits == expectedBits) {
      ++result.exact;
      continue;
    }
    double bound = errorBound.empty() ? 0.0 : errorBound[static_cast<size_t>(i)];
    ElementJudgement judgement = judgeElement(gotBits, expectedBits, kind, bound);
    if (isFloatKind(kind)) {
      result.maxUlp = std::max(result.maxUlp, ulpDistance(gotBits, expectedBits, kind));
      result.maxAbsError = std::max(result.maxAbsError, judgement.absError);
    }
    bool ok = judgement.ok;
    const uint64_t referenceBits = reference.empty() ? 0 : loadBits(reference, i, bytes);
    if (ok && !reference.empty() && !judgeElement(gotBits, referenceBits, kind, bound).ok) {
      ok = false;
      ++result.outsideReference;
    }
    if (ok) {
      ++result.withinBound;
      if (std::isinf(bound)) ++result.unconstrained;
      continue;
    }
    ++result.failing;
    if (static_cast<int>(result.firstFailures.size()) < options.maxFailuresShown) {
      ElementMismatch mismatch;
      mismatch.index = i;
      mismatch.where = multiIndex(i, shape);
      mismatch.got = formatElement(gotBits, kind, options.isUnsigned);
      mismatch.expected = formatElement(expectedBits, kind, options.isUnsigned);
      mismatch.absError = judgement.absError;
      mismatch.bound = bound;
      if (!reference.empty()) mismatch.reference = formatElement(referenceBits, kind, options.isUnsigned);
      result.firstFailures.push_back(std::move(mismatch));
    }
  }
  return result;
}

}  // namespace

OutputComparison compareOutput(const std::string& name, ScalarKind kind, std::span<const int64_t> shape,
                               std::span<const uint8_t> got, std::span<const uint8_t> expected,
                               std::span<const double> errorBound, const CompareOptions& options) {
  return compareElements(name, kind, shape, got, expected, {}, errorBound, options);
}

OutputComparison compareWithReference(const std::string& name, ScalarKind kind, std::span<const int64_t> shape,
                                      std::span<const uint8_t> got, std::span<const uint8_t> expected,
                                      std::span<const uint8_t> reference, std::span<const double> referenceBound,
                                      const CompareOptions& options) {
  if (reference.empty() && !got.empty()) {
    OutputComparison result;
    result.name = name;
    result.kind = kind;
    result.error = "the reference engine produced no output";
    return result;
  }
  return compareElements(name, kind, shape, got, expected, reference, referenceBound, options);
}

std::string OutputComparison::summary() const {
  if (!error.empty()) return fmt::format("{}: error, {}", name, error);
  std::string text = fmt::format("{}: {}, ", name, passed() ? "pass" : "FAIL");
  if (bitExact()) return text + fmt::format("bit-exact ({} elements)", total);
  if (failing > 0) text += fmt::format("{} of {} failing, ", failing, total);
  if (outsideReference > 0) text += fmt::format("{} outside the reference's bound, ", outsideReference);
  text += fmt::format("{} bit-exact, {} within bound", exact, withinBound);
  if (unconstrained > 0) text += fmt::format(" ({} unconstrained)", unconstrained);
  if (isFloatKind(kind)) {
    std::string ulps = maxUlp == INT64_MAX ? std::string("inf") : std::to_string(maxUlp);
    text += fmt::format(", max {} ulp ({}), max abs error {:.3g}", ulps, scalarKindName(kind), maxAbsError);
  }
  return text;
}

std::vector<std::string> OutputComparison::failureLines() const {
  std::vector<std::string> lines;
  for (const ElementMismatch& mismatch : firstFailures) {
    std::string line = fmt::format("{}{}: got {}, expected {}", name, indexText(mismatch.where), mismatch.got, mismatch.expected);
    if (isFloatKind(kind)) line += fmt::format(" (abs error {:.3g}, bound {:.3g})", mismatch.absError, mismatch.bound);
    if (!mismatch.reference.empty()) line += ", interpreter " + mismatch.reference;
    lines.push_back(std::move(line));
  }
  if (failing > static_cast<int64_t>(firstFailures.size()))
    lines.push_back(fmt::format("... and {} more", failing - static_cast<int64_t>(firstFailures.size())));
  return lines;
}

std::string OutputComparison::details() const {
  std::string text = summary();
  for (const std::string& line : failureLines()) text += "\n    " + line;
  return text;
}

}  // namespace tilesim

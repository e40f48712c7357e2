// Shared pieces of the oracle cross-check tests: a mismatch counter that keeps the first few examples, and
// operand samplers biased toward what changes a result (type limits, powers of two, rounding ties of narrower
// formats, subnormals, NaN payloads, signed zeros), mixed with uniformly random bit patterns.
#pragma once

#include <cstdint>
#include <cstdio>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

#include "ir/Type.h"

namespace tilesim::fuzz::oracle::testing {

// Sample counts: the 32/64-bit checks draw this many operand tuples per op (the whole test stays under ~10 s).
constexpr int kSamples = 40000;

class Mismatches {
 public:
  explicit Mismatches(std::string what) : what_(std::move(what)) {}
  // `describe` builds the example only when the two disagree.
  template <typename Describe>
  void expectSame(uint64_t oracle, uint64_t scalarEval, Describe describe) {
    if (oracle == scalarEval) return;
    if (count_++ < 5) {
      char values[96];
      std::snprintf(values, sizeof values, ": oracle 0x%llx, ir/eval 0x%llx", static_cast<unsigned long long>(oracle),
                    static_cast<unsigned long long>(scalarEval));
      examples_ += "\n  " + describe() + values;
    }
  }
  ~Mismatches() { EXPECT_EQ(count_, 0) << what_ << ": " << count_ << " mismatches, the first:" << examples_; }

 private:
  std::string what_;
  int count_ = 0;
  std::string examples_;
};

inline std::string hex(uint64_t bits) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bits));
  return text;
}

inline uint64_t widthMask(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

// An integer of `width` bits: limits and their neighbours, small values, powers of two +-1, or random bits.
inline uint64_t sampleInteger(int width, std::mt19937_64& random) {
  const uint64_t mask = widthMask(width);
  const uint64_t signBit = uint64_t{1} << (width - 1);
  const uint64_t r = random();
  switch (r % 8) {
    case 0: {
      const uint64_t edges[] = {0, 1, mask, signBit, signBit - 1, signBit + 1, mask - 1, 2};
      return edges[(r >> 8) % 8] & mask;
    }
    case 1: return ((r >> 8) % 33 - 16) & mask;                                         // small, both signs
    case 2: return ((uint64_t{1} << ((r >> 8) % width)) + ((r >> 16) % 3) - 1) & mask;  // 2^k - 1, 2^k, 2^k + 1
    case 3: return ((r >> 8) % (width + 3)) & mask;                                     // shift amounts near the width
    default: return random() & mask;
  }
}

// Bits of float `kind` (f16, bf16, f32, f64): specials, NaN payloads, subnormals, values at and next to rounding
// ties of the narrower formats, or random bits.
inline uint64_t sampleFloat(ScalarKind kind, std::mt19937_64& random) {
  const int width = bitWidth(kind);
  const int mantissaBits = kind == ScalarKind::F64   ? 52
                           : kind == ScalarKind::F32 ? 23
                           : kind == ScalarKind::F16 ? 10
                                                     : 7;
  const uint64_t mask = widthMask(width), sign = uint64_t{1} << (width - 1);
  const uint64_t exponentOnes = (mask >> 1) & ~widthMask(mantissaBits);
  const uint64_t r = random(), s = random();
  const uint64_t maybeSign = (r >> 63) ? sign : 0;
  switch (r % 10) {
    case 0: {  // +-0, +-inf, quiet NaN, signalling NaN with payload, min/max subnormal, min normal, max finite
      const uint64_t mantissaMask = widthMask(mantissaBits);
      const uint64_t specials[] = {0,
                                   exponentOnes,
                                   exponentOnes | (uint64_t{1} << (mantissaBits - 1)),
                                   exponentOnes | (s & mantissaMask) | 1,
                                   1,
                                   mantissaMask,
                                   mantissaMask + 1,
                                   exponentOnes - 1};
      return maybeSign | specials[(r >> 8) % 8];
    }
    case 1: return maybeSign | (s & widthMask(mantissaBits));  // subnormal
    case 2:
    case 3: {  // a tie or a near-tie of a narrower format: keep k mantissa bits, then 10...0 +- 1 below them
      const int keep = static_cast<int>((r >> 8) % mantissaBits);
      const uint64_t cut = widthMask(mantissaBits - keep);
      const uint64_t tie = (uint64_t{1} << (mantissaBits - keep - 1));
      const uint64_t low = tie + ((r >> 16) % 3) - 1;
      return ((s & mask & ~cut) | (low & cut)) & mask;
    }
    case 4: {  // a moderate magnitude (exponent within +-40 of 1.0): sums and products that stay finite
      const int bias = static_cast<int>(widthMask(width == 64 ? 10 : width == 32 || kind == ScalarKind::BF16 ? 7 : 4));
      const int exponent = bias + static_cast<int>((r >> 8) % 41) - 20;
      const int clamped = exponent < 1 ? 1 : exponent > 2 * bias ? 2 * bias : exponent;
      return maybeSign | (static_cast<uint64_t>(clamped) << mantissaBits) | (s & widthMask(mantissaBits));
    }
    default: return s & mask;
  }
}

}  // namespace tilesim::fuzz::oracle::testing

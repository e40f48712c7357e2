// The value side of the PTX subset's instructions: the type modifiers (`.b32`, `.s16`, `.f16x2`, `.e4m3x2`) as a
// class and a width, bit-width masks and sign extension, float bits to and from double with NVIDIA's canonical NaN,
// flush-to-zero, and floatLanes, which applies a float operation to a scalar or to both halves of a packed pair.
// Internal to interpreter/ptx/.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "interpreter/ptx/PtxSubset.h"
#include "ir/FloatBits.h"

namespace tilesim::ptx {

enum class Class : uint8_t { Bits, Unsigned, Signed, Float, BFloat, Half2, BFloat2, Pred, Fp8x2E4M3, Fp8x2E5M2 };

struct TypeInfo {
  Class cls = Class::Bits;
  int width = 32;
};

std::optional<TypeInfo> typeNamed(std::string_view name);  // "b32" -> {Bits, 32}; nullopt for other modifiers
bool isFloatClass(Class cls);  // f16 / f32 / f64, bf16 and the packed f16x2 / bf16x2

uint64_t mask(int width);
int64_t signExtend(uint64_t bits, int width);

ScalarKind floatKind(Class cls, int width);
inline double toDouble(uint64_t bits, ScalarKind kind) { return doubleFromFloatBits(bits, kind); }
// Rounds to `kind` (nearest even unless `rounding` says otherwise); NaN becomes NVIDIA's canonical NaN.
uint64_t fromDouble(double value, ScalarKind kind, Rounding rounding = Rounding::NearestEven, bool saturate = false);
double flushSubnormal(double value, bool ftz);

bool has(const PtxInstruction& instruction, std::string_view modifier);
// The instruction's type modifiers in order: the last is the operation's type; cvt's are destination, source.
std::vector<TypeInfo> typesOf(const PtxInstruction& instruction);

// Applies a float operation `op(x, y, z)` lane by lane to packed or scalar floats of class `type`.
template <typename Op>
uint64_t floatLanes(uint64_t a, uint64_t b, uint64_t c, TypeInfo type, bool ftz, Op op) {
  const bool packed = type.cls == Class::Half2 || type.cls == Class::BFloat2;
  const ScalarKind kind = floatKind(type.cls, type.width);
  const int laneWidth = packed ? 16 : type.width;
  uint64_t result = 0;
  for (int lane = 0; lane < (packed ? 2 : 1); ++lane) {
    const int shift = lane * laneWidth;
    auto get = [&](uint64_t bits) {
      return flushSubnormal(toDouble((bits >> shift) & mask(laneWidth), kind), ftz && kind == ScalarKind::F32);
    };
    double value = op(get(a), get(b), get(c));
    value = flushSubnormal(value, ftz && kind == ScalarKind::F32);
    uint64_t bits = fromDouble(value, kind);
    if (ftz && kind == ScalarKind::F32) bits = fromDouble(flushSubnormal(toDouble(bits, kind), true), kind);
    result |= (bits & mask(laneWidth)) << shift;
  }
  return result;
}

}  // namespace tilesim::ptx

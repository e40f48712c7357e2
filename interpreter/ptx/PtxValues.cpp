// The value helpers of the PTX subset's instructions (interpreter/ptx/PtxValues.h).
#include "interpreter/ptx/PtxValues.h"

#include <map>

namespace tilesim::ptx {

std::optional<TypeInfo> typeNamed(std::string_view name) {
  static const std::map<std::string_view, TypeInfo, std::less<>> kTypes = {
      {"b8", {Class::Bits, 8}},       {"b16", {Class::Bits, 16}},     {"b32", {Class::Bits, 32}},
      {"b64", {Class::Bits, 64}},     {"u8", {Class::Unsigned, 8}},   {"u16", {Class::Unsigned, 16}},
      {"u32", {Class::Unsigned, 32}}, {"u64", {Class::Unsigned, 64}}, {"s8", {Class::Signed, 8}},
      {"s16", {Class::Signed, 16}},   {"s32", {Class::Signed, 32}},   {"s64", {Class::Signed, 64}},
      {"f16", {Class::Float, 16}},    {"f32", {Class::Float, 32}},    {"f64", {Class::Float, 64}},
      {"bf16", {Class::BFloat, 16}},  {"f16x2", {Class::Half2, 32}},  {"bf16x2", {Class::BFloat2, 32}},
      {"pred", {Class::Pred, 1}},     {"e4m3x2", {Class::Fp8x2E4M3, 16}}, {"e5m2x2", {Class::Fp8x2E5M2, 16}},
  };
  auto it = kTypes.find(name);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

bool isFloatClass(Class cls) {
  return cls == Class::Float || cls == Class::BFloat || cls == Class::Half2 || cls == Class::BFloat2;
}

uint64_t mask(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

int64_t signExtend(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>(((bits & mask(width)) ^ sign) - sign);
}

ScalarKind floatKind(Class cls, int width) {
  if (cls == Class::BFloat || cls == Class::BFloat2) return ScalarKind::BF16;
  if (cls == Class::Fp8x2E4M3) return ScalarKind::F8E4M3FN;
  if (cls == Class::Fp8x2E5M2) return ScalarKind::F8E5M2;
  return width == 16 || cls == Class::Half2 ? ScalarKind::F16 : width == 64 ? ScalarKind::F64 : ScalarKind::F32;
}

uint64_t fromDouble(double value, ScalarKind kind, Rounding rounding, bool saturate) {
  if (std::isnan(value)) return canonicalNaNBits(kind);
  return floatBitsFromDouble(value, kind, rounding, saturate);
}

double flushSubnormal(double value, bool ftz) {
  return ftz && value != 0 && std::fabs(value) < 0x1p-126 ? std::copysign(0.0, value) : value;
}

bool has(const PtxInstruction& instruction, std::string_view modifier) {
  for (const std::string& m : instruction.modifiers)
    if (m == modifier) return true;
  return false;
}

std::vector<TypeInfo> typesOf(const PtxInstruction& instruction) {
  std::vector<TypeInfo> types;
  for (const std::string& m : instruction.modifiers)
    if (std::optional<TypeInfo> type = typeNamed(m)) types.push_back(*type);
  return types;
}

}  // namespace tilesim::ptx

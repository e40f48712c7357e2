// Names of the semantic switches (Profiles.h), as the command line, case.json and TTIR spell them.
#include "ir/launch/Profiles.h"

namespace tilesim {

const char* floatProfileName(FloatProfile profile) {
  switch (profile) {
    case FloatProfile::Exact: return "exact";
    case FloatProfile::Triton: return "triton";
  }
  return "?";
}

std::optional<FloatProfile> parseFloatProfile(std::string_view name) {
  if (name == "exact") return FloatProfile::Exact;
  if (name == "triton") return FloatProfile::Triton;
  return std::nullopt;
}

const char* ubKindName(UBKind kind) {
  switch (kind) {
    case UBKind::DivisionByZero: return "integer division by zero";
    case UBKind::ShiftOutOfRange: return "shift amount >= bit width";
    case UBKind::FloatToIntOutOfRange: return "float to int conversion out of range or NaN";
    case UBKind::SignedOverflow: return "signed overflow (nsw)";
  }
  return "?";
}

const char* inputPrecisionName(InputPrecision precision) {
  switch (precision) {
    case InputPrecision::TF32: return "tf32";
    case InputPrecision::TF32x3: return "tf32x3";
    case InputPrecision::IEEE: return "ieee";
    case InputPrecision::BF16x3: return "bf16x3";
    case InputPrecision::BF16x6: return "bf16x6";
  }
  return "?";
}

std::optional<InputPrecision> parseInputPrecision(std::string_view name) {
  for (InputPrecision p : {InputPrecision::TF32, InputPrecision::TF32x3, InputPrecision::IEEE, InputPrecision::BF16x3,
                           InputPrecision::BF16x6})
    if (name == inputPrecisionName(p)) return p;
  return std::nullopt;
}

}  // namespace tilesim

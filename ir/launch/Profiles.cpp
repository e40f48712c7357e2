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

const char* inputPrecisionName(InputPrecision precision) { return keywordName(precision).data(); }

std::optional<InputPrecision> parseInputPrecision(std::string_view name) { return parseKeyword<InputPrecision>(name); }

}  // namespace tilesim

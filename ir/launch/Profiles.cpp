// Names of the semantic switches (Profiles.h), as the command line, case.json and TTIR spell them.
#include "ir/launch/Profiles.h"

namespace tilesim {

// The float profiles' names in enum order, read both ways through the keyword tables of ir/OpAttributes.h.
constexpr std::string_view kFloatProfileNames[] = {"exact", "triton"};
template <> std::span<const std::string_view> keywordNames<FloatProfile>() { return kFloatProfileNames; }

const char* floatProfileName(FloatProfile profile) { return keywordName(profile).data(); }

std::optional<FloatProfile> parseFloatProfile(std::string_view name) { return parseKeyword<FloatProfile>(name); }

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

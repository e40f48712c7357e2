// Float literals in TTIR text, bit-exact in both directions. Formatting follows MLIR's printFloatValue:
// `%.6e`-style (`1.000000e+00`) when that reads back to the same bits, else APFloat's shortest-form decimal
// (`4.6566126E-10`), else (NaN, infinity, or no exact decimal form) the raw bits in hex (`0x7FC00000`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/Type.h"

namespace tilesim::text {

// A decimal literal (digits, '.', optional exponent; `negative` applies the sign) rounded to `kind`, as bits.
// Decimal literals cannot spell infinity or NaN (those are hex), so a non-finite result means the literal is
// out of range for `kind`: the parser rejects it (`1.0e+400 : f32`), as MLIR does, rather than rounding it.
std::optional<uint64_t> parseDecimalFloat(std::string_view literal, bool negative, ScalarKind kind);
bool isFiniteFloatBits(uint64_t bits, ScalarKind kind);
// A hex literal `0x...` as raw bits of `kind`; nullopt when it does not fit the width.
std::optional<uint64_t> parseHexBits(std::string_view literal, int bitWidth);
std::string formatFloat(uint64_t bits, ScalarKind kind);

}  // namespace tilesim::text

// The semantic switches every engine honours, named once: the float profile (what "agree" means for floats), the
// kinds of undefined behaviour tilesim defines and can report, and the input precision of tt.dot. Engines,
// runners and the command line all read these names from here, so `--profile triton` means one thing everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ir/OpAttributes.h"

namespace tilesim {

// docs/semantics.md "Floats" (the two float profiles).
//   Exact:  correctly rounded + - * / sqrt, no FMA contraction, math functions by tilesim's own deterministic
//           algorithms (ir/eval); an engine under this profile must agree with the interpreter bit for bit.
//   Triton: what Triton's GPU lowering produces (div.full, ex2.approx, sqrt.approx.ftz, contraction, libdevice);
//           the interpreter computes correctly rounded values plus a per-lane error bound carried through data
//           flow, and results are judged against that bound.
enum class FloatProfile : uint8_t { Exact, Triton };
const char* floatProfileName(FloatProfile profile);  // "exact" | "triton"
std::optional<FloatProfile> parseFloatProfile(std::string_view name);

// Conditions LLVM treats as undefined behaviour. tilesim gives each NVIDIA's value (docs/semantics.md §Integers)
// and, with --check=ub, reports every lane that hits one. A GPU engine must guard them so it never relies on LLVM.
enum class UBKind : uint8_t { DivisionByZero, ShiftOutOfRange, FloatToIntOutOfRange, SignedOverflow };
const char* ubKindName(UBKind kind);

// tt.dot's `inputPrecision` (Triton's TritonOps.td InputPrecision): how f32 operands enter the multiply. The enum
// and its keyword table are defined with the other enumerated op attributes in ir/OpAttributes.h.
const char* inputPrecisionName(InputPrecision precision);  // "tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"
std::optional<InputPrecision> parseInputPrecision(std::string_view name);

}  // namespace tilesim

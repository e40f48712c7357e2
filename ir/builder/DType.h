// Triton's front-end dtypes (triton.language.dtype): the scalar element types a kernel computes with, signedness
// included. The IR has signless integers (ir/Type.h); signedness lives here and decides which op the builder
// emits (divsi/divui, extsi/extui, cmpi slt/ult, shrsi/shrui, sitofp/uitofp). Names and the order of kinds
// (bool < int < float) follow triton/language/core.py of Triton 3.6.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/Type.h"

namespace tilesim::builder {

enum class DType : uint8_t {
  Int1, Int8, Int16, Int32, Int64,
  UInt8, UInt16, UInt32, UInt64,
  Fp8E4Nv, Fp8E5, Fp16, BF16, Fp32, Fp64,
};

// Triton's dtype.KIND: the order used by the weak-literal rule of computation_type_impl.
enum class DTypeKind : uint8_t { Boolean = 0, Integral = 1, Floating = 2 };

// 128-bit integer for Python int literals, which may be anywhere in [-2^63, 2^64) and beyond (then an error).
__extension__ typedef __int128 BigInt;

std::string_view dtypeName(DType dtype);  // Triton's dtype.name: "int8", "uint32", "fp16", "bf16", "fp8e4nv"
std::string dtypeRepr(DType dtype);       // repr(): "triton.language.int8"
// Accepts Triton's names and the Python spellings ("float16", "bfloat16", "float32", "bool", "float8e4nv").
std::optional<DType> dtypeFromName(std::string_view name);

ScalarKind scalarKindOf(DType dtype);
Type irType(DType dtype);
DTypeKind dtypeKind(DType dtype);

bool isBool(DType dtype);
bool isInt(DType dtype);            // int1 included
bool isSignedInt(DType dtype);      // int8..int64
bool isUnsignedInt(DType dtype);    // int1 and uint8..uint64 (Triton counts int1 as unsigned)
bool isFloating(DType dtype);
bool isFp8(DType dtype);
bool isStandardFloating(DType dtype);  // fp16, bf16, fp32, fp64
int primitiveBitWidth(DType dtype);
int mantissaWidth(DType dtype);     // fp_mantissa_width (fp64: 52)
BigInt intMinValue(DType dtype);    // requires isInt
BigInt intMaxValue(DType dtype);
// The integer dtype of the given width and signedness (1 -> int1).
DType intDType(int bits, bool isSigned);

}  // namespace tilesim::builder

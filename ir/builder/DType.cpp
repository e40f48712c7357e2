// Properties of the front-end dtypes, as triton.language.core.dtype defines them in 3.6.
#include "ir/builder/DType.h"

#include "ir/Assert.h"

namespace tilesim::builder {

std::string_view dtypeName(DType dtype) {
  switch (dtype) {
    case DType::Int1: return "int1";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::UInt8: return "uint8";
    case DType::UInt16: return "uint16";
    case DType::UInt32: return "uint32";
    case DType::UInt64: return "uint64";
    case DType::Fp8E4Nv: return "fp8e4nv";
    case DType::Fp8E5: return "fp8e5";
    case DType::Fp16: return "fp16";
    case DType::BF16: return "bf16";
    case DType::Fp32: return "fp32";
    case DType::Fp64: return "fp64";
  }
  TILESIM_UNREACHABLE("bad DType");
}

std::string dtypeRepr(DType dtype) { return "triton.language." + std::string(dtypeName(dtype)); }

std::optional<DType> dtypeFromName(std::string_view name) {
  struct Alias { std::string_view name; DType dtype; };
  static constexpr Alias kAliases[] = {
      {"bool", DType::Int1},       {"float8e4nv", DType::Fp8E4Nv}, {"float8e5", DType::Fp8E5},
      {"float16", DType::Fp16},    {"bfloat16", DType::BF16},      {"float32", DType::Fp32},
      {"float64", DType::Fp64},
  };
  for (const Alias& alias : kAliases)
    if (alias.name == name) return alias.dtype;
  for (int i = 0; i <= static_cast<int>(DType::Fp64); ++i)
    if (dtypeName(static_cast<DType>(i)) == name) return static_cast<DType>(i);
  return std::nullopt;
}

ScalarKind scalarKindOf(DType dtype) {
  switch (dtype) {
    case DType::Int1: return ScalarKind::I1;
    case DType::Int8:
    case DType::UInt8: return ScalarKind::I8;
    case DType::Int16:
    case DType::UInt16: return ScalarKind::I16;
    case DType::Int32:
    case DType::UInt32: return ScalarKind::I32;
    case DType::Int64:
    case DType::UInt64: return ScalarKind::I64;
    case DType::Fp8E4Nv: return ScalarKind::F8E4M3FN;
    case DType::Fp8E5: return ScalarKind::F8E5M2;
    case DType::Fp16: return ScalarKind::F16;
    case DType::BF16: return ScalarKind::BF16;
    case DType::Fp32: return ScalarKind::F32;
    case DType::Fp64: return ScalarKind::F64;
  }
  TILESIM_UNREACHABLE("bad DType");
}

Type irType(DType dtype) { return Type::scalar(scalarKindOf(dtype)); }

DTypeKind dtypeKind(DType dtype) {
  if (isBool(dtype)) return DTypeKind::Boolean;
  return isInt(dtype) ? DTypeKind::Integral : DTypeKind::Floating;
}

bool isBool(DType dtype) { return dtype == DType::Int1; }
bool isInt(DType dtype) { return dtype <= DType::UInt64; }
bool isSignedInt(DType dtype) { return dtype >= DType::Int8 && dtype <= DType::Int64; }
bool isUnsignedInt(DType dtype) { return dtype == DType::Int1 || (dtype >= DType::UInt8 && dtype <= DType::UInt64); }
bool isFloating(DType dtype) { return dtype >= DType::Fp8E4Nv; }
bool isFp8(DType dtype) { return dtype == DType::Fp8E4Nv || dtype == DType::Fp8E5; }
bool isStandardFloating(DType dtype) { return dtype >= DType::Fp16; }
int primitiveBitWidth(DType dtype) { return bitWidth(scalarKindOf(dtype)); }

int mantissaWidth(DType dtype) {
  switch (dtype) {
    case DType::Fp8E4Nv: return 3;
    case DType::Fp8E5: return 2;
    case DType::Fp16: return 10;
    case DType::BF16: return 7;
    case DType::Fp32: return 23;
    case DType::Fp64: return 52;
    case DType::Int1:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: return 0;
  }
  TILESIM_UNREACHABLE("bad DType");
}

BigInt intMinValue(DType dtype) {
  TILESIM_ASSERT(isInt(dtype), "intMinValue of a float dtype");
  if (isUnsignedInt(dtype)) return 0;
  return -(static_cast<BigInt>(1) << (primitiveBitWidth(dtype) - 1));
}

BigInt intMaxValue(DType dtype) {
  TILESIM_ASSERT(isInt(dtype), "intMaxValue of a float dtype");
  int bits = primitiveBitWidth(dtype);
  if (isUnsignedInt(dtype)) return (static_cast<BigInt>(1) << bits) - 1;
  return (static_cast<BigInt>(1) << (bits - 1)) - 1;
}

DType intDType(int bits, bool isSigned) {
  switch (bits) {
    case 1: return DType::Int1;
    case 8: return isSigned ? DType::Int8 : DType::UInt8;
    case 16: return isSigned ? DType::Int16 : DType::UInt16;
    case 32: return isSigned ? DType::Int32 : DType::UInt32;
    case 64: return isSigned ? DType::Int64 : DType::UInt64;
    default: TILESIM_UNREACHABLE("no integer dtype of this width");
  }
}

}  // namespace tilesim::builder

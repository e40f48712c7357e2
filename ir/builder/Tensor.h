// The values a kernel written with the builder manipulates, mirroring triton.language:
// - Tensor: an IR Value with its front-end dtype (signedness included) and shape; shape {} is a 0-d scalar,
//   anything else a block. A pointer tensor has `pointer` set and `dtype` is the pointee.
// - Literal: a Python number written in the kernel (bool, int, float). Literals are *weak* in arithmetic,
//   bitwise ops and tl.where (they take the tensor's dtype when their kind is not higher), and *strong* in
//   comparisons and maximum/minimum (to_tensor first). Ints keep their exact value so range checks can run.
// - Operand: either one, so `kb.add(x, 1)` and `kb.add(x, y)` both read naturally.
// - FrontendError: a compile error with Triton's exception kind and wording.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/IR.h"
#include "ir/builder/DType.h"

namespace tilesim::builder {

struct FrontendError {
  enum class Kind : uint8_t { TypeError, ValueError, IncompatibleTypeError, AssertionError, UnsupportedLanguageConstruct };
  Kind kind = Kind::TypeError;
  std::string message;
  std::string str() const;  // "TypeError: message"
};
const char* frontendErrorKindName(FrontendError::Kind kind);

struct Tensor {
  Value* value = nullptr;
  DType dtype = DType::Int32;
  bool pointer = false;         // a pointer to `dtype` elements
  std::vector<int64_t> shape;   // {} for a scalar

  bool valid() const { return value != nullptr; }
  bool isBlock() const { return !shape.empty(); }
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const;
};

struct Literal {
  enum class Kind : uint8_t { Bool, Int, Float };
  Kind kind = Kind::Int;
  BigInt intValue = 0;     // Bool (0/1) and Int
  double floatValue = 0;   // Float

  Literal() = default;
  Literal(bool value) : kind(Kind::Bool), intValue(value ? 1 : 0) {}
  Literal(int value) : kind(Kind::Int), intValue(value) {}
  Literal(long value) : kind(Kind::Int), intValue(value) {}
  Literal(long long value) : kind(Kind::Int), intValue(value) {}
  Literal(unsigned value) : kind(Kind::Int), intValue(value) {}
  Literal(unsigned long value) : kind(Kind::Int), intValue(value) {}
  Literal(unsigned long long value) : kind(Kind::Int), intValue(value) {}
  Literal(double value) : kind(Kind::Float), floatValue(value) {}
  static Literal bigInt(BigInt value) { Literal l; l.intValue = value; return l; }

  bool isNegative() const { return kind == Kind::Float ? floatValue < 0 : intValue < 0; }
  double asDouble() const { return kind == Kind::Float ? floatValue : static_cast<double>(intValue); }
  std::string str() const;  // as Python prints it: 1099511627776, 2.5, True
};

struct Operand {
  std::variant<Tensor, Literal> item;
  Operand(const Tensor& tensor) : item(tensor) {}
  Operand(const Literal& literal) : item(literal) {}
  Operand(bool value) : item(Literal(value)) {}
  Operand(int value) : item(Literal(value)) {}
  Operand(long value) : item(Literal(value)) {}
  Operand(long long value) : item(Literal(value)) {}
  Operand(unsigned value) : item(Literal(value)) {}
  Operand(unsigned long value) : item(Literal(value)) {}
  Operand(unsigned long long value) : item(Literal(value)) {}
  Operand(double value) : item(Literal(value)) {}

  bool isLiteral() const { return std::holds_alternative<Literal>(item); }
  const Literal& literal() const { return std::get<Literal>(item); }
  const Tensor& tensor() const { return std::get<Tensor>(item); }
};

}  // namespace tilesim::builder

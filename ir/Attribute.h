// Attributes attached to ops, function arguments and modules: the compile-time constants of TTIR
// (`{axis = 1 : i32}`, `dense<0.0> : tensor<16xf32>`, `array<i32: 1, 0>`, `"__nv_powf"`, `@helper`, keywords
// such as `slt`, `acq_rel`, `tf32`). Numeric payloads are stored as raw bits in the attribute's type, so a
// printed-and-reparsed attribute is bit-identical (NaN payloads and -0.0 included).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Type.h"

namespace tilesim {

struct NamedAttribute;

class Attribute {
 public:
  enum class Kind : uint8_t {
    Invalid,
    Unit,        // `{isVolatile}` (present, no value)
    Bool,        // true / false
    Integer,     // 16 : i32 (type may be invalid for an untyped integer)
    Float,       // 1.000000e+00 : f32 (bits in the type's format)
    String,      // "text"
    TypeAttr,    // a type used as a value
    SymbolRef,   // @name
    Keyword,     // a bare identifier in op syntax: x, slt, acq_rel, tf32, evict_last, rtne
    DenseArray,  // array<i32: 1, 0>
    Dense,       // dense<...> : tensor<...>   (splat or one value per element, raw bits)
    Array,       // [a, b, c]
    Dictionary,  // {a = 1, b = 2}
    Encoding,    // a TTGIR layout or shared encoding (ir/Encoding.h): #blocked, #ttg.slice<{...}>
  };

  Attribute() = default;
  static Attribute unit();
  static Attribute boolean(bool value);
  static Attribute integer(int64_t value, Type type);
  static Attribute floating(uint64_t bits, Type type);  // bits in the format of `type`
  static Attribute floatingFromDouble(double value, Type type);  // rounds to `type` (RTNE)
  static Attribute string(std::string value);
  static Attribute typeAttr(Type type);
  static Attribute symbolRef(std::string name);
  static Attribute keyword(std::string word);
  static Attribute denseArray(Type elementType, std::vector<int64_t> values);
  // Raw element bits, one per element of `tensorType`, or exactly one for a splat.
  static Attribute dense(Type tensorType, std::vector<uint64_t> elementBits);
  static Attribute array(std::vector<Attribute> elements);
  static Attribute dictionary(std::vector<NamedAttribute> entries);
  static Attribute encodingAttr(Encoding encoding);

  Kind kind() const { return kind_; }
  bool isValid() const { return kind_ != Kind::Invalid; }
  Type type() const { return type_; }                        // Integer, Float, TypeAttr, DenseArray (element), Dense
  bool boolValue() const { return int_ != 0; }               // Bool
  int64_t intValue() const { return int_; }                  // Integer
  uint64_t bits() const { return static_cast<uint64_t>(int_); }  // Float: raw bits
  double floatValue() const;                                 // Float: converted to double
  const std::string& text() const { return text_; }          // String, SymbolRef, Keyword
  const std::vector<int64_t>& arrayValues() const { return ints_; }  // DenseArray
  bool isSplat() const { return kind_ == Kind::Dense && bits_.size() == 1; }
  const std::vector<uint64_t>& denseBits() const { return bits_; }   // Dense
  uint64_t denseBitsAt(int64_t index) const { return isSplat() ? bits_[0] : bits_[index]; }
  const std::vector<Attribute>& elements() const { return elements_; }  // Array
  const std::vector<NamedAttribute>& entries() const;                   // Dictionary
  Encoding encoding() const { return encoding_; }                       // Encoding

  bool operator==(const Attribute& other) const;
  bool operator!=(const Attribute& other) const { return !(*this == other); }

 private:
  Kind kind_ = Kind::Invalid;
  Type type_;
  int64_t int_ = 0;
  std::string text_;
  std::vector<int64_t> ints_;
  std::vector<uint64_t> bits_;
  std::vector<Attribute> elements_;
  std::shared_ptr<std::vector<NamedAttribute>> entries_;
  Encoding encoding_;
};

struct NamedAttribute {
  std::string name;
  Attribute value;
  bool operator==(const NamedAttribute& other) const { return name == other.name && value == other.value; }
};

// Lookup in an attribute list; nullptr when absent.
const Attribute* findAttribute(const std::vector<NamedAttribute>& attributes, std::string_view name);

}  // namespace tilesim

#include "ir/Attribute.h"

#include "ir/Assert.h"
#include "ir/FloatBits.h"

namespace tilesim {

Attribute Attribute::unit() {
  Attribute a;
  a.kind_ = Kind::Unit;
  return a;
}

Attribute Attribute::boolean(bool value) {
  Attribute a;
  a.kind_ = Kind::Bool;
  a.int_ = value ? 1 : 0;
  return a;
}

Attribute Attribute::integer(int64_t value, Type type) {
  Attribute a;
  a.kind_ = Kind::Integer;
  a.int_ = value;
  a.type_ = type;
  return a;
}

Attribute Attribute::floating(uint64_t bits, Type type) {
  TILESIM_ASSERT(type.isFloat() && type.isScalar(), "float attribute needs a scalar float type");
  Attribute a;
  a.kind_ = Kind::Float;
  a.int_ = static_cast<int64_t>(bits);
  a.type_ = type;
  return a;
}

Attribute Attribute::floatingFromDouble(double value, Type type) {
  return floating(floatBitsFromDouble(value, type.scalarKind()), type);
}

double Attribute::floatValue() const {
  TILESIM_ASSERT(kind_ == Kind::Float, "floatValue() of a non-float attribute");
  return doubleFromFloatBits(bits(), type_.scalarKind());
}

Attribute Attribute::string(std::string value) {
  Attribute a;
  a.kind_ = Kind::String;
  a.text_ = std::move(value);
  return a;
}

Attribute Attribute::encodingAttr(Encoding encoding) {
  TILESIM_ASSERT(encoding.isValid(), "an invalid encoding as an attribute");
  Attribute a;
  a.kind_ = Kind::Encoding;
  a.encoding_ = encoding;
  return a;
}

Attribute Attribute::typeAttr(Type type) {
  Attribute a;
  a.kind_ = Kind::TypeAttr;
  a.type_ = type;
  return a;
}

Attribute Attribute::symbolRef(std::string name) {
  Attribute a;
  a.kind_ = Kind::SymbolRef;
  a.text_ = std::move(name);
  return a;
}

Attribute Attribute::keyword(std::string word) {
  Attribute a;
  a.kind_ = Kind::Keyword;
  a.text_ = std::move(word);
  return a;
}

Attribute Attribute::denseArray(Type elementType, std::vector<int64_t> values) {
  Attribute a;
  a.kind_ = Kind::DenseArray;
  a.type_ = elementType;
  a.ints_ = std::move(values);
  return a;
}

Attribute Attribute::dense(Type tensorType, std::vector<uint64_t> elementBits) {
  TILESIM_ASSERT(elementBits.size() == 1 || static_cast<int64_t>(elementBits.size()) == tensorType.numElements(),
                 "dense attribute needs one value or one per element");
  Attribute a;
  a.kind_ = Kind::Dense;
  a.type_ = tensorType;
  a.bits_ = std::move(elementBits);
  return a;
}

Attribute Attribute::array(std::vector<Attribute> elements) {
  Attribute a;
  a.kind_ = Kind::Array;
  a.elements_ = std::move(elements);
  return a;
}

Attribute Attribute::dictionary(std::vector<NamedAttribute> entries) {
  Attribute a;
  a.kind_ = Kind::Dictionary;
  a.entries_ = std::make_shared<std::vector<NamedAttribute>>(std::move(entries));
  return a;
}

const std::vector<NamedAttribute>& Attribute::entries() const {
  static const std::vector<NamedAttribute> empty;
  return entries_ ? *entries_ : empty;
}

bool Attribute::operator==(const Attribute& other) const {
  if (kind_ != other.kind_ || type_ != other.type_ || int_ != other.int_ || text_ != other.text_ ||
      ints_ != other.ints_ || bits_ != other.bits_ || elements_ != other.elements_ || encoding_ != other.encoding_)
    return false;
  return entries() == other.entries();
}

const Attribute* findAttribute(const std::vector<NamedAttribute>& attributes, std::string_view name) {
  for (const NamedAttribute& a : attributes)
    if (a.name == name) return &a.value;
  return nullptr;
}

}  // namespace tilesim

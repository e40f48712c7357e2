// The printer's attributes as Triton's MLIR prints them: scalars with their type (`1 : i32`), floats in the
// shortest form that reads back to the same bits (FloatText.h), strings quoted, `array<i32: 1, 0>`, `dense<...>`
// splat or nested by shape, arrays and dictionaries; and the trailing `{name = value, ...}` of an op, which leaves
// out the attributes the op's syntax already spelled.
#include "ir/text/FloatText.h"
#include "ir/text/Lexer.h"
#include "ir/text/PrinterImpl.h"

namespace tilesim::text {

void PrinterImpl::printAttribute(const Attribute& attribute) {
  switch (attribute.kind()) {
    case Attribute::Kind::Invalid: out += "unit"; return;
    case Attribute::Kind::Unit: out += "unit"; return;
    case Attribute::Kind::Bool: out += attribute.boolValue() ? "true" : "false"; return;
    case Attribute::Kind::Integer:
      out += std::to_string(attribute.intValue());
      if (attribute.type().isValid()) out += " : " + attribute.type().str();
      return;
    case Attribute::Kind::Float:
      out += formatFloat(attribute.bits(), attribute.type().scalarKind()) + " : " + attribute.type().str();
      return;
    case Attribute::Kind::String: out += quoteString(attribute.text()); return;
    case Attribute::Kind::TypeAttr: out += attribute.type().str(); return;
    case Attribute::Kind::SymbolRef: printSymbol(out, attribute.text()); return;
    case Attribute::Kind::Keyword: out += attribute.text(); return;
    case Attribute::Kind::DenseArray: {
      out += "array<" + attribute.type().str();
      bool isBool = attribute.type() == Type::i1();
      for (size_t i = 0; i < attribute.arrayValues().size(); ++i) {
        out += i ? ", " : ": ";
        int64_t v = attribute.arrayValues()[i];
        out += isBool ? (v ? "true" : "false") : std::to_string(v);
      }
      out += ">";
      return;
    }
    case Attribute::Kind::Dense: {
      Type type = attribute.type();
      ScalarKind kind = type.scalarKind();
      int width = bitWidth(kind);
      auto element = [&](uint64_t bits) {
        if (kind == ScalarKind::I1) {
          out += (bits & 1) ? "true" : "false";
        } else if (isIntegerKind(kind)) {
          int64_t value = width == 64 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
          out += std::to_string(value);
        } else {
          out += formatFloat(bits, kind);
        }
      };
      out += "dense<";
      if (attribute.isSplat()) {
        element(attribute.denseBits()[0]);
      } else {
        // Nested brackets by shape, row-major.
        std::span<const int64_t> shape = type.shape();
        int64_t index = 0;
        auto nested = [&](auto& self, size_t dim) -> void {
          out += "[";
          for (int64_t i = 0; i < shape[dim]; ++i) {
            if (i) out += ", ";
            if (dim + 1 < shape.size()) {
              self(self, dim + 1);
            } else {
              element(attribute.denseBits()[static_cast<size_t>(index++)]);
            }
          }
          out += "]";
        };
        if (shape.empty()) out += "[]";
        else nested(nested, 0);
      }
      out += "> : " + type.str();
      return;
    }
    case Attribute::Kind::Array:
      out += "[";
      for (size_t i = 0; i < attribute.elements().size(); ++i) {
        if (i) out += ", ";
        printAttribute(attribute.elements()[i]);
      }
      out += "]";
      return;
    case Attribute::Kind::Encoding: out += attribute.encoding().reference(); return;
    case Attribute::Kind::Dictionary:
      out += "{";
      printAttributeDictEntries(attribute.entries(), {});
      out += "}";
      return;
  }
}

void PrinterImpl::printAttributeDictEntries(const std::vector<NamedAttribute>& attributes,
                                            std::initializer_list<std::string_view> skip) {
  bool first = true;
  for (const NamedAttribute& entry : attributes) {
    bool skipped = false;
    for (std::string_view name : skip) skipped = skipped || entry.name == name;
    if (skipped) continue;
    if (!first) out += ", ";
    first = false;
    out += isBareIdentifier(entry.name) ? entry.name : quoteString(entry.name);
    if (entry.value.kind() == Attribute::Kind::Unit) continue;
    out += " = ";
    printAttribute(entry.value);
  }
}

void PrinterImpl::printAttributeDict(const std::vector<NamedAttribute>& attributes,
                                     std::initializer_list<std::string_view> skip) {
  size_t shown = 0;
  for (const NamedAttribute& entry : attributes) {
    bool skipped = false;
    for (std::string_view name : skip) skipped = skipped || entry.name == name;
    if (!skipped) ++shown;
  }
  if (shown == 0) return;
  out += " {";
  printAttributeDictEntries(attributes, skip);
  out += "}";
}

}  // namespace tilesim::text

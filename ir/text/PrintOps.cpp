// Op syntax for the printer: the table-driven forms of ir/OpKind.h and the generic form (tt.reduce, tt.scan);
// each Custom op's Triton assembly format is its pair in ir/text/syntax/. Mirrors ParseOps.cpp; attributes that
// the syntax spells out are left out of the trailing `{...}`.
#include "ir/text/PrinterImpl.h"
#include "ir/text/syntax/CustomSyntax.h"
#include "ir/text/syntax/SyntaxHelpers.h"

namespace tilesim::text {

using syntax::attributeText;
using syntax::functionTypeOf;

void PrinterImpl::printOpBody(const Operation& op, int indent) {
  const OpInfo& info = opInfo(op.kind);
  out += info.mnemonic;
  Type resultType = op.results.empty() ? Type() : op.results[0]->type;
  Type firstOperandType = op.operands.empty() ? Type() : op.operands[0]->type;
  // ` %a, %b {attrs} : TYPES`, the form every table-driven syntax but Compare and Constant shares.
  auto operandsThenTypes = [&](const std::string& types) {
    out += " ";
    printUses(op.operands);
    printAttributeDict(op.attributes);
    out += " : " + types;
  };
  switch (info.syntax) {
    case Syntax::Binary:
    case Syntax::Unary:
    case Syntax::Ternary: operandsThenTypes(resultType.str()); return;
    case Syntax::Cast: operandsThenTypes(firstOperandType.str() + " to " + resultType.str()); return;
    case Syntax::Arrow: operandsThenTypes(firstOperandType.str() + " -> " + resultType.str()); return;
    case Syntax::Compare:
      out += " " + attributeText(op, "predicate") + ", ";
      printUses(op.operands);
      printAttributeDict(op.attributes, {"predicate"});
      out += " : " + firstOperandType.str();
      return;
    case Syntax::Select:  // the condition's type only when it is a tensor
      operandsThenTypes(firstOperandType != Type::i1() ? firstOperandType.str() + ", " + resultType.str() : resultType.str());
      return;
    case Syntax::Constant: {
      printAttributeDict(op.attributes, {"value"});
      out += " ";
      const Attribute* value = op.attr("value");
      if (value) printAttribute(*value);
      return;
    }
    case Syntax::Generic: printGenericBody(op, indent); return;
    case Syntax::Custom: printCustomBody(op, indent); return;
  }
}

void PrinterImpl::printGenericBody(const Operation& op, int indent) {
  // Called after the mnemonic was written: rewrite it quoted, as MLIR's generic form.
  out.resize(out.size() - opInfo(op.kind).mnemonic.size());
  out += "\"" + std::string(opInfo(op.kind).mnemonic) + "\"(";
  printUses(op.operands);
  out += ")";
  // tt.reduce / tt.scan keep their inherent attributes in properties, as Triton prints them.
  std::vector<NamedAttribute> properties, discardable;
  for (const NamedAttribute& a : op.attributes)
    (a.name == "axis" || a.name == "reverse" ? properties : discardable).push_back(a);
  if (!properties.empty()) {
    out += " <{";
    printAttributeDictEntries(properties, {});
    out += "}>";
  }
  if (!op.regions.empty()) {
    out += " (";
    for (size_t i = 0; i < op.regions.size(); ++i) {
      if (i) out += ", ";
      printRegion(*op.regions[i], indent, true, false, kNoLoc);
    }
    out += ")";
  }
  printAttributeDict(discardable);
  out += " : " + functionTypeOf(op.operands, op);
}

void PrinterImpl::printCustomBody(const Operation& op, int indent) {
  customSyntax(customSyntaxOp(op.kind)).print(*this, op, indent);
}

}  // namespace tilesim::text

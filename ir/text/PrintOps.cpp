// Op syntax for the printer: the table-driven forms of ir/OpKind.h, the generic form (tt.reduce, tt.scan), and
// each Custom op's Triton assembly format. Mirrors ParseOps.cpp; attributes that the syntax spells out are left
// out of the trailing `{...}`.
#include "ir/text/FloatText.h"
#include "ir/text/Lexer.h"
#include "ir/text/PrinterImpl.h"

namespace tilesim::text {

namespace {

std::string keyword(const Operation& op, std::string_view name) {
  const Attribute* a = op.attr(name);
  return a ? a->text() : "";
}

std::string functionType(const std::vector<Value*>& inputs, const Operation& op) {
  std::vector<Type> in, out;
  for (const Value* v : inputs) in.push_back(v->type);
  for (const auto& r : op.results) out.push_back(r->type);
  return Type::function(in, out).str();
}

}  // namespace

void PrinterImpl::printOpBody(const Operation& op, int indent) {
  const OpInfo& info = opInfo(op.kind);
  out += info.mnemonic;
  Type resultType = op.results.empty() ? Type() : op.results[0]->type;
  Type firstOperandType = op.operands.empty() ? Type() : op.operands[0]->type;
  switch (info.syntax) {
    case Syntax::Binary:
    case Syntax::Unary:
    case Syntax::Ternary:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + resultType.str();
      return;
    case Syntax::Cast:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + firstOperandType.str() + " to " + resultType.str();
      return;
    case Syntax::Arrow:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + firstOperandType.str() + " -> " + resultType.str();
      return;
    case Syntax::Compare:
      out += " " + keyword(op, "predicate") + ", ";
      printUses(op.operands);
      printAttributeDict(op.attributes, {"predicate"});
      out += " : " + firstOperandType.str();
      return;
    case Syntax::Select:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : ";
      if (firstOperandType != Type::i1()) out += firstOperandType.str() + ", ";
      out += resultType.str();
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
  out += " : " + functionType(op.operands, op);
}

void PrinterImpl::printCustomBody(const Operation& op, int indent) {
  Type resultType = op.results.empty() ? Type() : op.results[0]->type;
  auto operandType = [&](size_t i) { return i < op.operands.size() ? op.operands[i]->type.str() : std::string("?"); };
  auto usesAndTypes = [&](size_t begin) {  // ` %a, %b : T, U` for the operands from `begin`
    if (begin >= op.operands.size()) return;
    out += " ";
    printUses(op.operands, begin);
    out += " : ";
    printTypes(op.operands, begin);
  };
  switch (customSyntaxOp(op.kind)) {
    case CustomSyntaxOp::TTGetProgramId:
    case CustomSyntaxOp::TTGetNumPrograms:
      out += " " + keyword(op, "axis");
      printAttributeDict(op.attributes, {"axis"});
      out += " : " + resultType.str();
      return;
    case CustomSyntaxOp::TTMakeRange:
      printAttributeDict(op.attributes);
      out += " : " + resultType.str();
      return;
    case CustomSyntaxOp::TTUnsplat:  // the result type is the operand's element type; Triton prints no `-> T`
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + operandType(0);
      return;
    case CustomSyntaxOp::TTReshape:
      out += " ";
      printUses(op.operands);
      if (op.hasAttr("allow_reorder")) out += " allow_reorder";
      if (op.hasAttr("efficient_layout")) out += " efficient_layout";
      printAttributeDict(op.attributes, {"allow_reorder", "efficient_layout"});
      out += " : " + operandType(0) + " -> " + resultType.str();
      return;
    case CustomSyntaxOp::TTGather:
      out += " ";
      printUses(op.operands, 0, 1);
      out += "[";
      printUses(op.operands, 1, 2);
      out += "]";
      printAttributeDict(op.attributes);
      out += " : " + functionType(op.operands, op);
      return;
    case CustomSyntaxOp::TTAddPtr:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + resultType.str() + ", " + operandType(1);
      return;
    case CustomSyntaxOp::TTLoad:
    case CustomSyntaxOp::TTStore:
      out += " ";
      printUses(op.operands);
      if (op.hasAttr("cache")) out += " cacheModifier = " + keyword(op, "cache");
      if (op.hasAttr("evict")) out += " evictionPolicy = " + keyword(op, "evict");
      printAttributeDict(op.attributes, {"cache", "evict"});
      out += " : " + operandType(0);
      return;
    case CustomSyntaxOp::TTMakeTensorPtr: {
      size_t rank = op.operands.empty() ? 0 : (op.operands.size() - 1) / 3;
      out += " ";
      printUses(op.operands, 0, 1);
      for (size_t list = 0; list < 3; ++list) {
        out += ", [";
        printUses(op.operands, 1 + list * rank, 1 + (list + 1) * rank);
        out += "]";
      }
      printAttributeDict(op.attributes);
      out += " : " + strippedPointerType(resultType);
      return;
    }
    case CustomSyntaxOp::TTMakeTensorDescriptor: {
      size_t rank = op.operands.empty() ? 0 : (op.operands.size() - 1) / 2;
      out += " ";
      printUses(op.operands, 0, 1);
      for (size_t list = 0; list < 2; ++list) {
        out += ", [";
        printUses(op.operands, 1 + list * rank, 1 + (list + 1) * rank);
        out += "]";
      }
      printAttributeDict(op.attributes);
      out += " : " + strippedPointerType(op.operands[0]->type) + ", <" +
             (resultType.isTensorDesc() ? resultType.descBlock().str() : resultType.str()) + ">";
      return;
    }
    case CustomSyntaxOp::TTDescriptorLoad:
    case CustomSyntaxOp::TTDescriptorStore:
    case CustomSyntaxOp::TTDescriptorGather:
    case CustomSyntaxOp::TTDescriptorScatter: {
      const bool stores = op.kind == OpKind::TTDescriptorStore || op.kind == OpKind::TTDescriptorScatter;
      const size_t end = stores ? op.operands.size() - 1 : op.operands.size();
      out += " ";
      printUses(op.operands, 0, 1);
      out += "[";
      printUses(op.operands, 1, end);
      out += "]";
      if (stores) {
        out += ", ";
        printUses(op.operands, end, end + 1);
      }
      if (op.hasAttr("cache")) out += " cacheModifier = " + keyword(op, "cache");
      if (op.hasAttr("evict")) out += " evictionPolicy = " + keyword(op, "evict");
      printAttributeDict(op.attributes, {"cache", "evict"});
      if (op.kind == OpKind::TTDescriptorGather) {
        out += " : " + functionType(op.operands, op);
      } else if (op.kind == OpKind::TTDescriptorScatter) {
        out += " : " + operandType(0) + ", " + operandType(1) + ", " + operandType(2) + ", " + operandType(3);
      } else if (stores) {
        out += " : " + operandType(0) + ", " + operandType(end);
      } else {
        out += " : " + operandType(0) + " -> " + resultType.str();
      }
      return;
    }
    case CustomSyntaxOp::TTAdvance:
      out += " ";
      printUses(op.operands, 0, 1);
      out += ", [";
      printUses(op.operands, 1);
      out += "]";
      printAttributeDict(op.attributes);
      out += " : " + strippedPointerType(resultType);
      return;
    case CustomSyntaxOp::TTAtomicRMW:
    case CustomSyntaxOp::TTAtomicCAS:
      out += " ";
      if (op.kind == OpKind::TTAtomicRMW) out += keyword(op, "atomic_rmw_op") + ", ";
      out += keyword(op, "sem") + ", " + keyword(op, "scope") + ", ";
      printUses(op.operands);
      printAttributeDict(op.attributes, {"atomic_rmw_op", "sem", "scope"});
      out += " : " + functionType(op.operands, op);
      return;
    case CustomSyntaxOp::TTDot:
      out += " ";
      printUses(op.operands);
      if (op.hasAttr("inputPrecision")) out += ", inputPrecision = " + keyword(op, "inputPrecision");
      printAttributeDict(op.attributes, {"inputPrecision"});
      out += " : " + operandType(0) + " * " + operandType(1) + " -> " + resultType.str();
      return;
    case CustomSyntaxOp::TTFpToFp:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes, {"rounding"});
      if (op.hasAttr("rounding")) out += ", rounding = " + keyword(op, "rounding");
      out += " : " + operandType(0) + " -> " + resultType.str();
      return;
    case CustomSyntaxOp::TTClampF:
      out += " ";
      printUses(op.operands);
      out += ", propagateNan = " + keyword(op, "propagateNan");
      printAttributeDict(op.attributes, {"propagateNan"});
      out += " : " + resultType.str();
      return;
    case CustomSyntaxOp::TTExternElementwise:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + functionType(op.operands, op);
      return;
    case CustomSyntaxOp::TTCall: {
      const Attribute* callee = op.attr("callee");
      std::string name = callee ? callee->text() : "";
      out += " @" + (isBareIdentifier(name) ? name : quoteString(name)) + "(";
      printUses(op.operands);
      out += ")";
      printAttributeDict(op.attributes, {"callee"});
      out += " : " + functionType(op.operands, op);
      return;
    }
    case CustomSyntaxOp::TTElementwiseInlineAsm: {
      out += " " + quoteString(keyword(op, "asm_string"));
      printAttributeDict(op.attributes, {"asm_string"});
      usesAndTypes(0);
      out += " -> ";
      for (size_t i = 0; i < op.results.size(); ++i) out += (i ? ", " : "") + op.results[i]->type.str();
      return;
    }
    case CustomSyntaxOp::TTPrint:
      out += " " + quoteString(keyword(op, "prefix"));
      printAttributeDict(op.attributes, {"prefix"});
      if (!op.operands.empty()) {
        out += " :";
        usesAndTypes(0);
      }
      return;
    case CustomSyntaxOp::LLVMAssume:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + operandType(0);
      return;
    case CustomSyntaxOp::TTAssert:
      out += " ";
      printUses(op.operands);
      out += ", " + quoteString(keyword(op, "message"));
      printAttributeDict(op.attributes, {"message"});
      out += " : " + operandType(0);
      return;
    case CustomSyntaxOp::TTReturn:
    case CustomSyntaxOp::TTReduceReturn:
    case CustomSyntaxOp::TTScanReturn:
    case CustomSyntaxOp::SCFYield:
      printAttributeDict(op.attributes);
      usesAndTypes(0);
      return;
    case CustomSyntaxOp::GPUBarrier:
      printAttributeDict(op.attributes);
      return;
    case CustomSyntaxOp::CFBr:
      printSuccessor(op, 0);
      printAttributeDict(op.attributes);
      return;
    case CustomSyntaxOp::CFCondBr:
      out += " ";
      printUses(op.operands, 0, 1);
      out += ",";
      printSuccessor(op, 0);
      out += ",";
      printSuccessor(op, 1);
      printAttributeDict(op.attributes);
      return;
    case CustomSyntaxOp::SCFCondition:
      out += "(";
      printUses(op.operands, 0, 1);
      out += ")";
      printAttributeDict(op.attributes);
      usesAndTypes(1);
      return;
    case CustomSyntaxOp::UBPoison:
      printAttributeDict(op.attributes);
      out += " : " + resultType.str();
      return;
    case CustomSyntaxOp::SCFFor: {
      const Block* body = op.regions.empty() || op.regions[0]->empty() ? nullptr : &op.regions[0]->front();
      out += " ";
      if (op.hasAttr("unsignedCmp")) out += "unsigned ";
      out += (body && !body->arguments.empty() ? use(body->argument(0)) : std::string("%<<iv>>")) + " = ";
      printUses(op.operands, 0, 1);
      out += " to ";
      printUses(op.operands, 1, 2);
      out += " step ";
      printUses(op.operands, 2, 3);
      if (op.operands.size() > 3) {
        out += " iter_args(";
        for (size_t i = 3; i < op.operands.size(); ++i) {
          if (i > 3) out += ", ";
          out += (body && i - 2 < body->arguments.size() ? use(body->argument(i - 2)) : std::string("%<<arg>>")) + " = " +
                 use(op.operands[i]);
        }
        out += ") -> (";
        for (size_t i = 0; i < op.results.size(); ++i) out += (i ? ", " : "") + op.results[i]->type.str();
        out += ")";
      }
      out += "  : " + operandType(0) + " ";
      if (!op.regions.empty()) printRegion(*op.regions[0], indent, false, op.results.empty(), op.loc);
      printAttributeDict(op.attributes, {"unsignedCmp"});
      return;
    }
    case CustomSyntaxOp::SCFIf:
      out += " ";
      printUses(op.operands);
      if (!op.results.empty()) {
        out += " -> (";
        for (size_t i = 0; i < op.results.size(); ++i) out += (i ? ", " : "") + op.results[i]->type.str();
        out += ")";
      }
      out += " ";
      if (!op.regions.empty()) printRegion(*op.regions[0], indent, false, op.results.empty(), op.loc);
      if (op.regions.size() > 1 && !op.regions[1]->empty()) {
        out += " else ";
        printRegion(*op.regions[1], indent, false, op.results.empty(), op.loc);
      }
      printAttributeDict(op.attributes);
      return;
    case CustomSyntaxOp::SCFWhile: {
      const Block* before = op.regions.empty() || op.regions[0]->empty() ? nullptr : &op.regions[0]->front();
      if (!op.operands.empty()) {
        out += " (";
        for (size_t i = 0; i < op.operands.size(); ++i) {
          if (i) out += ", ";
          out += (before && i < before->arguments.size() ? use(before->argument(i)) : std::string("%<<arg>>")) + " = " +
                 use(op.operands[i]);
        }
        out += ")";
      }
      out += " : " + functionType(op.operands, op) + " ";
      if (!op.regions.empty()) printRegion(*op.regions[0], indent, false, false, kNoLoc);
      out += " do ";
      if (op.regions.size() > 1) printRegion(*op.regions[1], indent, true, false, kNoLoc);
      if (!op.attributes.empty()) {
        out += " attributes {";
        printAttributeDictEntries(op.attributes, {});
        out += "}";
      }
      return;
    }
    case CustomSyntaxOp::TTFunc: return;  // printed by printFunction
  }
}

}  // namespace tilesim::text

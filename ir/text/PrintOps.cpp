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
  switch (op.kind) {
    case OpKind::TTGetProgramId:
    case OpKind::TTGetNumPrograms:
      out += " " + keyword(op, "axis");
      printAttributeDict(op.attributes, {"axis"});
      out += " : " + resultType.str();
      return;
    case OpKind::TTMakeRange:
      printAttributeDict(op.attributes);
      out += " : " + resultType.str();
      return;
    case OpKind::TTReshape:
      out += " ";
      printUses(op.operands);
      if (op.hasAttr("allow_reorder")) out += " allow_reorder";
      if (op.hasAttr("efficient_layout")) out += " efficient_layout";
      printAttributeDict(op.attributes, {"allow_reorder", "efficient_layout"});
      out += " : " + operandType(0) + " -> " + resultType.str();
      return;
    case OpKind::TTGather:
      out += " ";
      printUses(op.operands, 0, 1);
      out += "[";
      printUses(op.operands, 1, 2);
      out += "]";
      printAttributeDict(op.attributes);
      out += " : " + functionType(op.operands, op);
      return;
    case OpKind::TTAddPtr:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + resultType.str() + ", " + operandType(1);
      return;
    case OpKind::TTLoad:
    case OpKind::TTStore:
      out += " ";
      printUses(op.operands);
      if (op.hasAttr("cache")) out += " cacheModifier = " + keyword(op, "cache");
      if (op.hasAttr("evict")) out += " evictionPolicy = " + keyword(op, "evict");
      printAttributeDict(op.attributes, {"cache", "evict"});
      out += " : " + operandType(0);
      return;
    case OpKind::TTMakeTensorPtr: {
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
    case OpKind::TTAdvance:
      out += " ";
      printUses(op.operands, 0, 1);
      out += ", [";
      printUses(op.operands, 1);
      out += "]";
      printAttributeDict(op.attributes);
      out += " : " + strippedPointerType(resultType);
      return;
    case OpKind::TTAtomicRMW:
    case OpKind::TTAtomicCAS:
      out += " ";
      if (op.kind == OpKind::TTAtomicRMW) out += keyword(op, "atomic_rmw_op") + ", ";
      out += keyword(op, "sem") + ", " + keyword(op, "scope") + ", ";
      printUses(op.operands);
      printAttributeDict(op.attributes, {"atomic_rmw_op", "sem", "scope"});
      out += " : " + functionType(op.operands, op);
      return;
    case OpKind::TTDot:
      out += " ";
      printUses(op.operands);
      if (op.hasAttr("inputPrecision")) out += ", inputPrecision = " + keyword(op, "inputPrecision");
      printAttributeDict(op.attributes, {"inputPrecision"});
      out += " : " + operandType(0) + " * " + operandType(1) + " -> " + resultType.str();
      return;
    case OpKind::TTFpToFp:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes, {"rounding"});
      if (op.hasAttr("rounding")) out += ", rounding = " + keyword(op, "rounding");
      out += " : " + operandType(0) + " -> " + resultType.str();
      return;
    case OpKind::TTClampF:
      out += " ";
      printUses(op.operands);
      out += ", propagateNan = " + keyword(op, "propagateNan");
      printAttributeDict(op.attributes, {"propagateNan"});
      out += " : " + resultType.str();
      return;
    case OpKind::TTExternElementwise:
      out += " ";
      printUses(op.operands);
      printAttributeDict(op.attributes);
      out += " : " + functionType(op.operands, op);
      return;
    case OpKind::TTCall: {
      const Attribute* callee = op.attr("callee");
      std::string name = callee ? callee->text() : "";
      out += " @" + (isBareIdentifier(name) ? name : quoteString(name)) + "(";
      printUses(op.operands);
      out += ")";
      printAttributeDict(op.attributes, {"callee"});
      out += " : " + functionType(op.operands, op);
      return;
    }
    case OpKind::TTElementwiseInlineAsm: {
      out += " " + quoteString(keyword(op, "asm_string"));
      printAttributeDict(op.attributes, {"asm_string"});
      usesAndTypes(0);
      out += " -> ";
      for (size_t i = 0; i < op.results.size(); ++i) out += (i ? ", " : "") + op.results[i]->type.str();
      return;
    }
    case OpKind::TTPrint:
      out += " " + quoteString(keyword(op, "prefix"));
      printAttributeDict(op.attributes, {"prefix"});
      if (!op.operands.empty()) {
        out += " :";
        usesAndTypes(0);
      }
      return;
    case OpKind::TTAssert:
      out += " ";
      printUses(op.operands);
      out += ", " + quoteString(keyword(op, "message"));
      printAttributeDict(op.attributes, {"message"});
      out += " : " + operandType(0);
      return;
    case OpKind::TTReturn:
    case OpKind::TTReduceReturn:
    case OpKind::TTScanReturn:
    case OpKind::SCFYield:
      printAttributeDict(op.attributes);
      usesAndTypes(0);
      return;
    case OpKind::GPUBarrier:
      printAttributeDict(op.attributes);
      return;
    case OpKind::CFBr:
      printSuccessor(op, 0);
      printAttributeDict(op.attributes);
      return;
    case OpKind::CFCondBr:
      out += " ";
      printUses(op.operands, 0, 1);
      out += ",";
      printSuccessor(op, 0);
      out += ",";
      printSuccessor(op, 1);
      printAttributeDict(op.attributes);
      return;
    case OpKind::SCFCondition:
      out += "(";
      printUses(op.operands, 0, 1);
      out += ")";
      printAttributeDict(op.attributes);
      usesAndTypes(1);
      return;
    case OpKind::UBPoison:
      printAttributeDict(op.attributes);
      out += " : " + resultType.str();
      return;
    case OpKind::SCFFor: {
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
    case OpKind::SCFIf:
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
    case OpKind::SCFWhile: {
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
    case OpKind::TTFunc: return;  // printed by printFunction
    case OpKind::ArithAddI: case OpKind::ArithSubI: case OpKind::ArithMulI: case OpKind::ArithDivSI:
    case OpKind::ArithDivUI: case OpKind::ArithRemSI: case OpKind::ArithRemUI: case OpKind::ArithAndI:
    case OpKind::ArithOrI: case OpKind::ArithXOrI: case OpKind::ArithShLI: case OpKind::ArithShRSI:
    case OpKind::ArithShRUI: case OpKind::ArithMaxSI: case OpKind::ArithMinSI: case OpKind::ArithMaxUI:
    case OpKind::ArithMinUI: case OpKind::ArithAddF: case OpKind::ArithSubF: case OpKind::ArithMulF:
    case OpKind::ArithDivF: case OpKind::ArithRemF: case OpKind::ArithNegF: case OpKind::ArithMaxNumF:
    case OpKind::ArithMinNumF: case OpKind::ArithMaximumF: case OpKind::ArithMinimumF: case OpKind::ArithCmpI:
    case OpKind::ArithCmpF: case OpKind::ArithSelect: case OpKind::ArithConstant: case OpKind::ArithExtSI:
    case OpKind::ArithExtUI: case OpKind::ArithTruncI: case OpKind::ArithSIToFP: case OpKind::ArithUIToFP:
    case OpKind::ArithFPToSI: case OpKind::ArithFPToUI: case OpKind::ArithExtF: case OpKind::ArithTruncF:
    case OpKind::ArithBitcast: case OpKind::MathExp: case OpKind::MathExp2: case OpKind::MathLog:
    case OpKind::MathLog2: case OpKind::MathSin: case OpKind::MathCos: case OpKind::MathSqrt:
    case OpKind::MathRsqrt: case OpKind::MathErf: case OpKind::MathFloor: case OpKind::MathCeil:
    case OpKind::MathAbsF: case OpKind::MathAbsI: case OpKind::MathFma: case OpKind::TTSplat:
    case OpKind::TTUnsplat: case OpKind::TTBroadcast: case OpKind::TTExpandDims: case OpKind::TTTrans:
    case OpKind::TTJoin: case OpKind::TTSplit: case OpKind::TTCat: case OpKind::TTHistogram:
    case OpKind::TTIntToPtr: case OpKind::TTPtrToInt: case OpKind::TTBitcast: case OpKind::TTPreciseDivF:
    case OpKind::TTPreciseSqrt: case OpKind::TTMulhiUI: case OpKind::TTReduce: case OpKind::TTScan:
      printGenericBody(op, indent);  // not reached: these have a table-driven syntax
      return;
  }
}

}  // namespace tilesim::text

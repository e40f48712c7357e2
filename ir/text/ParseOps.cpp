// Op syntax: the table-driven forms (Binary, Unary, Cast, Arrow, Compare, Select, Constant; ir/OpKind.h), the
// generic form every op accepts, and each Custom op's Triton assembly format. Each returns the op's result
// types, derived where the text leaves them implicit (cmpi -> i1 of the operand shape, tt.load -> pointee).
#include "ir/text/ParserImpl.h"

namespace tilesim::text {

namespace {

const std::vector<PendingArgument> kNoArguments;

}  // namespace

std::vector<Type> ParserImpl::parseOpBody(Operation& op) {
  const OpInfo& info = opInfo(op.kind);
  switch (info.syntax) {
    case Syntax::Binary:
    case Syntax::Unary:
    case Syntax::Ternary: {
      std::vector<OperandRef> refs = parseOperandRefList();
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the type");
      Type type = parseType();
      resolveAllSame(op, refs, type);
      return {type};
    }
    case Syntax::Cast: {
      std::vector<OperandRef> refs = parseOperandRefList();
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the source type");
      Type from = parseType();
      expectKeyword("to", "between the cast types");
      Type to = parseType();
      resolveAllSame(op, refs, from);
      return {to};
    }
    case Syntax::Arrow: {
      std::vector<OperandRef> refs = parseOperandRefList();
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the operand type");
      Type from = parseType();
      expect(TokenKind::Arrow, "between the operand and result types");
      Type to = parseType();
      for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(resolve(refs[i], i == 0 ? from : Type()));
      return std::vector<Type>(static_cast<size_t>(std::max(info.numResults, 1)), to);
    }
    case Syntax::Compare: {
      op.setAttr("predicate", Attribute::keyword(parseKeywordWord("a comparison predicate")));
      expect(TokenKind::Comma, "after the predicate");
      std::vector<OperandRef> refs = parseOperandRefList();
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the type");
      size_t typeOffset = token_.offset;
      Type type = parseType();
      if (type.isFunction() || type.element().isTensor()) failAt(typeOffset, "comparison of " + type.str());
      resolveAllSame(op, refs, type);
      return {type.withElement(Type::i1())};
    }
    case Syntax::Select: {
      std::vector<OperandRef> refs = parseOperandRefList();
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the type");
      Type condition = parseType();
      Type type = condition;
      if (consumeIf(TokenKind::Comma)) {
        type = parseType();
      } else {
        condition = Type::i1();
      }
      for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(resolve(refs[i], i == 0 ? condition : type));
      return {type};
    }
    case Syntax::Constant: {
      parseOptionalAttributeDict(op.attributes);
      size_t valueOffset = token_.offset;
      Attribute value = parseAttribute();
      Type type;
      switch (value.kind()) {
        case Attribute::Kind::Bool: type = Type::i1(); break;
        case Attribute::Kind::Integer:
        case Attribute::Kind::Float:
        case Attribute::Kind::Dense: type = value.type(); break;
        default: break;
      }
      if (!type.isValid()) failAt(valueOffset, "constant value needs a type (`1 : i32`, `dense<0> : tensor<4xi32>`)");
      op.attributes.insert(op.attributes.begin(), NamedAttribute{"value", std::move(value)});
      return {type};
    }
    case Syntax::Generic: fail(std::string(info.mnemonic) + " must be written in generic form (\"" + std::string(info.mnemonic) + "\"(...))");
    case Syntax::Custom: return parseCustomBody(op);
  }
  fail("unhandled op syntax");
}

std::vector<Type> ParserImpl::parseGenericBody(Operation& op, size_t nameOffset) {
  expect(TokenKind::LParen, "to open the operand list");
  std::vector<OperandRef> refs = parseOperandRefList();
  expect(TokenKind::RParen, "to close the operand list");
  if (at(TokenKind::LSquare)) fail("successor blocks are not supported");
  if (consumeIf(TokenKind::Less)) {
    if (!at(TokenKind::LBrace)) fail("expected '{' after '<' (properties)");
    parseAttributeDict(op.attributes);
    expect(TokenKind::Greater, "to close the properties");
  }
  if (consumeIf(TokenKind::LParen)) {
    do parseRegion(op, op.addRegion(), nullptr);
    while (consumeIf(TokenKind::Comma));
    expect(TokenKind::RParen, "to close the region list");
  }
  parseOptionalAttributeDict(op.attributes);
  expect(TokenKind::Colon, "before the op's function type");
  size_t typeOffset = token_.offset;
  Type type = parseFunctionType();
  if (type.inputs().size() != refs.size())
    failAt(typeOffset, "generic op has " + std::to_string(refs.size()) + " operands but its type lists " +
                           std::to_string(type.inputs().size()));
  (void)nameOffset;
  resolveInto(op, refs, std::vector<Type>(type.inputs().begin(), type.inputs().end()));
  return std::vector<Type>(type.results().begin(), type.results().end());
}

namespace {

// tt.load's result: the pointee for a scalar or block pointer, the pointee element per lane for a pointer tensor.
Type loadedType(Type pointer) {
  if (pointer.isPointer()) return pointer.pointee();
  if (pointer.isTensor() && pointer.element().isPointer() && !pointer.element().pointee().isTensor())
    return pointer.withElement(pointer.element().pointee());
  return Type();
}

}  // namespace

std::vector<Type> ParserImpl::parseCustomBody(Operation& op) {
  auto typeAfterColon = [&] {
    parseOptionalAttributeDict(op.attributes);
    expect(TokenKind::Colon, "before the type");
    return parseType();
  };
  auto functionTypeAfterColon = [&] {
    parseOptionalAttributeDict(op.attributes);
    expect(TokenKind::Colon, "before the function type");
    return parseFunctionType();
  };
  auto keywordAttr = [&](const char* name, const char* what) { op.setAttr(name, Attribute::keyword(parseKeywordWord(what))); };
  auto memoryOptions = [&] {
    for (;;) {
      if (consumeKeywordIf("cacheModifier")) {
        expect(TokenKind::Equal, "after 'cacheModifier'");
        keywordAttr("cache", "a cache modifier");
      } else if (consumeKeywordIf("evictionPolicy")) {
        expect(TokenKind::Equal, "after 'evictionPolicy'");
        keywordAttr("evict", "an eviction policy");
      } else {
        return;
      }
    }
  };
  auto operandsThenTypes = [&] {  // `%a, %b : T, U` or nothing (yield, return)
    std::vector<OperandRef> refs = parseOperandRefList();
    parseOptionalAttributeDict(op.attributes);
    if (refs.empty()) return;
    expect(TokenKind::Colon, "before the operand types");
    resolveInto(op, refs, parseTypeList());
  };
  auto results = [](Type function) { return std::vector<Type>(function.results().begin(), function.results().end()); };
  auto inputs = [](Type function) { return std::vector<Type>(function.inputs().begin(), function.inputs().end()); };

  switch (customSyntaxOp(op.kind)) {
    case CustomSyntaxOp::TTGetProgramId:
    case CustomSyntaxOp::TTGetNumPrograms: keywordAttr("axis", "an axis (x, y or z)"); return {typeAfterColon()};
    case CustomSyntaxOp::TTMakeRange: return {typeAfterColon()};
    case CustomSyntaxOp::TTReshape: {
      OperandRef ref = parseOperandRef();
      if (consumeKeywordIf("allow_reorder")) op.setAttr("allow_reorder", Attribute::unit());
      if (consumeKeywordIf("efficient_layout")) op.setAttr("efficient_layout", Attribute::unit());
      Type from = typeAfterColon();
      expect(TokenKind::Arrow, "between the reshape types");
      Type to = parseType();
      op.operands.push_back(resolve(ref, from));
      return {to};
    }
    case CustomSyntaxOp::TTUnsplat: {  // `%a : tensor<1xT>` as Triton 3.6 prints it (the result is T); `-> T` too
      OperandRef ref = parseOperandRef();
      parseOptionalAttributeDict(op.attributes);
      Type from = typeAfterColon();
      Type to = from.isTensor() ? from.element() : from;
      if (consumeIf(TokenKind::Arrow)) to = parseType();
      op.operands.push_back(resolve(ref, from));
      return {to};
    }
    case CustomSyntaxOp::TTGather: {
      OperandRef source = parseOperandRef();
      expect(TokenKind::LSquare, "before the gather indices");
      OperandRef indices = parseOperandRef();
      expect(TokenKind::RSquare, "after the gather indices");
      Type type = functionTypeAfterColon();
      resolveInto(op, {source, indices}, inputs(type));
      return results(type);
    }
    case CustomSyntaxOp::TTAddPtr: {
      OperandRef pointer = parseOperandRef();
      expect(TokenKind::Comma, "between pointer and offset");
      OperandRef offset = parseOperandRef();
      Type result = typeAfterColon();
      expect(TokenKind::Comma, "between the pointer and offset types");
      Type offsetType = parseType();
      resolveInto(op, {pointer, offset}, {result, offsetType});
      return {result};
    }
    case CustomSyntaxOp::TTLoad:
    case CustomSyntaxOp::TTStore: {
      std::vector<OperandRef> refs = parseOperandRefList();
      if (refs.empty()) fail("expected a pointer operand");
      memoryOptions();
      size_t typeOffset = 0;
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the pointer type");
      typeOffset = token_.offset;
      Type pointer = parseType();
      for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(resolve(refs[i], i == 0 ? pointer : Type()));
      if (op.kind == OpKind::TTStore) return {};
      Type loaded = loadedType(pointer);
      if (!loaded.isValid()) failAt(typeOffset, "tt.load needs a pointer or a tensor of pointers, got " + pointer.str());
      return {loaded};
    }
    case CustomSyntaxOp::TTMakeTensorPtr: {
      OperandRef base = parseOperandRef();
      std::vector<std::vector<OperandRef>> lists;
      for (int list = 0; list < 3; ++list) {
        expect(TokenKind::Comma, "before a bracketed operand list");
        expect(TokenKind::LSquare, "to open an operand list");
        lists.push_back(parseOperandRefList());
        expect(TokenKind::RSquare, "to close the operand list");
      }
      if (lists[0].size() != lists[1].size() || lists[0].size() != lists[2].size())
        fail("tt.make_tensor_ptr needs as many strides and offsets as shape dimensions");
      Type result = typeAfterColon();
      op.operands.push_back(resolve(base));
      for (const auto& list : lists) resolveUntyped(op, list);
      return {result};
    }
    case CustomSyntaxOp::TTMakeTensorDescriptor: {
      // tt.make_tensor_descriptor %base, [%shape...], [%strides...] {padding = 2 : i32} : <f32>, <tensor<16x32xf32>>
      OperandRef base = parseOperandRef();
      std::vector<std::vector<OperandRef>> lists;
      for (int list = 0; list < 2; ++list) {
        expect(TokenKind::Comma, "before a bracketed operand list");
        expect(TokenKind::LSquare, "to open an operand list");
        lists.push_back(parseOperandRefList());
        expect(TokenKind::RSquare, "to close the operand list");
      }
      if (lists[0].size() != lists[1].size()) fail("tt.make_tensor_descriptor needs as many strides as shape dimensions");
      Type baseType = typeAfterColon();
      expect(TokenKind::Comma, "between the base and descriptor types");
      Type result;
      if (at(TokenKind::ExclaimId)) {
        size_t offset = token_.offset;
        result = parseType();
        if (!result.isTensorDesc()) failAt(offset, "expected a tensor descriptor type, got " + result.str());
      } else {
        expect(TokenKind::Less, "to open the descriptor type <tensor<...>>");
        result = finishTensorDescType();
      }
      op.operands.push_back(resolve(base, baseType));
      for (const auto& list : lists) resolveUntyped(op, list);
      return {result};
    }
    case CustomSyntaxOp::TTDescriptorLoad:
    case CustomSyntaxOp::TTDescriptorStore:
    case CustomSyntaxOp::TTDescriptorGather:
    case CustomSyntaxOp::TTDescriptorScatter: {
      // %desc[%i, %j] [, %value] [cacheModifier = ..] [evictionPolicy = ..] {attrs} : types (see PrintOps.cpp)
      const bool stores = op.kind == OpKind::TTDescriptorStore || op.kind == OpKind::TTDescriptorScatter;
      const bool gathers = op.kind == OpKind::TTDescriptorGather || op.kind == OpKind::TTDescriptorScatter;
      OperandRef desc = parseOperandRef();
      expect(TokenKind::LSquare, "to open the descriptor indices");
      std::vector<OperandRef> indices = parseOperandRefList();
      expect(TokenKind::RSquare, "to close the descriptor indices");
      if (gathers && indices.size() != 2) fail(std::string(mnemonic(op.kind)) + " takes two offsets: x offsets and a y offset");
      std::optional<OperandRef> value;
      if (stores) {
        expect(TokenKind::Comma, "before the stored value");
        value = parseOperandRef();
      }
      memoryOptions();
      if (op.kind == OpKind::TTDescriptorGather) {
        Type type = functionTypeAfterColon();
        std::vector<OperandRef> refs = {desc, indices[0], indices[1]};
        resolveInto(op, refs, inputs(type));
        return results(type);
      }
      parseOptionalAttributeDict(op.attributes);
      expect(TokenKind::Colon, "before the descriptor type");
      size_t typeOffset = token_.offset;
      std::vector<Type> types = parseTypeList();
      if (types.empty() || !types[0].isTensorDesc())
        failAt(typeOffset, std::string(mnemonic(op.kind)) + " needs a tensor descriptor type first");
      if (op.kind == OpKind::TTDescriptorScatter) {
        if (types.size() != 4) failAt(typeOffset, "tt.descriptor_scatter lists four types: descriptor, x offsets, y offset, value");
        resolveInto(op, {desc, indices[0], indices[1], *value}, types);
        return {};
      }
      if (types.size() != (stores ? 2u : 1u))
        failAt(typeOffset, stores ? "tt.descriptor_store lists two types: descriptor, value" : "tt.descriptor_load lists one type before '->'");
      op.operands.push_back(resolve(desc, types[0]));
      resolveUntyped(op, indices);
      if (stores) {
        op.operands.push_back(resolve(*value, types[1]));
        return {};
      }
      expect(TokenKind::Arrow, "before the loaded type");
      return {parseType()};
    }
    case CustomSyntaxOp::TTAdvance: {
      OperandRef pointer = parseOperandRef();
      expect(TokenKind::Comma, "before the offsets");
      expect(TokenKind::LSquare, "to open the offsets");
      std::vector<OperandRef> offsets = parseOperandRefList();
      expect(TokenKind::RSquare, "to close the offsets");
      Type result = typeAfterColon();
      op.operands.push_back(resolve(pointer, result));
      resolveUntyped(op, offsets);
      return {result};
    }
    case CustomSyntaxOp::TTAtomicRMW:
    case CustomSyntaxOp::TTAtomicCAS: {
      if (op.kind == OpKind::TTAtomicRMW) {
        keywordAttr("atomic_rmw_op", "an atomic operation (add, fadd, max, ...)");
        expect(TokenKind::Comma, "after the atomic operation");
      }
      keywordAttr("sem", "a memory semantic (relaxed, acquire, release, acq_rel)");
      expect(TokenKind::Comma, "after the memory semantic");
      keywordAttr("scope", "a memory scope (gpu, cta, sys)");
      expect(TokenKind::Comma, "after the memory scope");
      std::vector<OperandRef> refs = parseOperandRefList();
      Type type = functionTypeAfterColon();
      resolveInto(op, refs, inputs(type));
      return results(type);
    }
    case CustomSyntaxOp::TTDot: {
      std::vector<OperandRef> refs = parseOperandRefList();
      while (consumeIf(TokenKind::Comma)) {
        if (consumeKeywordIf("inputPrecision")) {
          expect(TokenKind::Equal, "after 'inputPrecision'");
          keywordAttr("inputPrecision", "an input precision (tf32, ieee, ...)");
        } else if (consumeKeywordIf("maxNumImpreciseAcc")) {
          expect(TokenKind::Equal, "after 'maxNumImpreciseAcc'");
          Attribute value = parseAttribute();
          if (value.kind() != Attribute::Kind::Integer) fail("maxNumImpreciseAcc must be an integer");
          op.setAttr("maxNumImpreciseAcc", Attribute::integer(value.intValue(), Type::i32()));
        } else {
          fail("expected 'inputPrecision' or 'maxNumImpreciseAcc'");
        }
      }
      Type a = typeAfterColon();
      expect(TokenKind::Star, "between the dot operand types");
      Type b = parseType();
      expect(TokenKind::Arrow, "before the dot result type");
      Type d = parseType();
      resolveInto(op, refs, std::vector<Type>{a, b, d});
      return {d};
    }
    case CustomSyntaxOp::TTFpToFp: {
      OperandRef source = parseOperandRef();
      parseOptionalAttributeDict(op.attributes);
      if (consumeIf(TokenKind::Comma)) {
        expectKeyword("rounding", "after ','");
        expect(TokenKind::Equal, "after 'rounding'");
        keywordAttr("rounding", "a rounding mode (rtz, rtne)");
      }
      Type from = typeAfterColon();
      expect(TokenKind::Arrow, "between the conversion types");
      Type to = parseType();
      op.operands.push_back(resolve(source, from));
      return {to};
    }
    case CustomSyntaxOp::TTClampF: {
      std::vector<OperandRef> refs = parseOperandRefList();
      expect(TokenKind::Comma, "before 'propagateNan'");
      expectKeyword("propagateNan", "after the clamp operands");
      expect(TokenKind::Equal, "after 'propagateNan'");
      keywordAttr("propagateNan", "none or all");
      Type type = typeAfterColon();
      resolveAllSame(op, refs, type);
      return {type};
    }
    case CustomSyntaxOp::TTExternElementwise:
    case CustomSyntaxOp::TTCall: {
      if (op.kind == OpKind::TTCall) {
        op.setAttr("callee", Attribute::symbolRef(parseSymbolName()));
        expect(TokenKind::LParen, "to open the call arguments");
      }
      std::vector<OperandRef> refs = parseOperandRefList();
      if (op.kind == OpKind::TTCall) expect(TokenKind::RParen, "to close the call arguments");
      Type type = functionTypeAfterColon();
      resolveInto(op, refs, inputs(type));
      return results(type);
    }
    case CustomSyntaxOp::TTElementwiseInlineAsm: {
      op.setAttr("asm_string", Attribute::string(parseStringLiteral()));
      parseOptionalAttributeDict(op.attributes);
      std::vector<OperandRef> refs = parseOperandRefList();
      if (!refs.empty()) {
        expect(TokenKind::Colon, "before the argument types");
        resolveInto(op, refs, parseTypeList());
      }
      expect(TokenKind::Arrow, "before the result types");
      return parseTypeList();
    }
    case CustomSyntaxOp::TTPrint: {
      op.setAttr("prefix", Attribute::string(parseStringLiteral()));
      parseOptionalAttributeDict(op.attributes);
      if (consumeIf(TokenKind::Colon)) {
        std::vector<OperandRef> refs = parseOperandRefList();
        expect(TokenKind::Colon, "before the printed types");
        resolveInto(op, refs, parseTypeList());
      }
      return {};
    }
    case CustomSyntaxOp::LLVMAssume: {  // `llvm.intr.assume %cond : i1` (Triton emits no operand bundles)
      OperandRef condition = parseOperandRef();
      parseOptionalAttributeDict(op.attributes);
      op.operands.push_back(resolve(condition, typeAfterColon()));
      return {};
    }
    case CustomSyntaxOp::TTAssert: {
      OperandRef condition = parseOperandRef();
      expect(TokenKind::Comma, "before the assert message");
      op.setAttr("message", Attribute::string(parseStringLiteral()));
      Type type = typeAfterColon();
      op.operands.push_back(resolve(condition, type));
      return {};
    }
    case CustomSyntaxOp::TTReturn:
    case CustomSyntaxOp::TTReduceReturn:
    case CustomSyntaxOp::TTScanReturn:
    case CustomSyntaxOp::SCFYield:
      parseOptionalAttributeDict(op.attributes);
      operandsThenTypes();
      return {};
    case CustomSyntaxOp::GPUBarrier:
      parseOptionalAttributeDict(op.attributes);
      return {};
    case CustomSyntaxOp::CFBr:
      parseSuccessor(op);
      parseOptionalAttributeDict(op.attributes);
      return {};
    case CustomSyntaxOp::CFCondBr: {
      OperandRef condition = parseOperandRef();
      op.operands.push_back(resolve(condition, Type::i1()));
      expect(TokenKind::Comma, "after the branch condition");
      parseSuccessor(op);
      expect(TokenKind::Comma, "between the two successors");
      parseSuccessor(op);
      parseOptionalAttributeDict(op.attributes);
      return {};
    }
    case CustomSyntaxOp::SCFCondition: {
      expect(TokenKind::LParen, "before the condition");
      OperandRef condition = parseOperandRef();
      expect(TokenKind::RParen, "after the condition");
      op.operands.push_back(resolve(condition));
      parseOptionalAttributeDict(op.attributes);
      operandsThenTypes();
      return {};
    }
    case CustomSyntaxOp::UBPoison: {
      parseOptionalAttributeDict(op.attributes);
      if (at(TokenKind::Less)) fail("ub.poison with a value is not supported");
      expect(TokenKind::Colon, "before the type");
      return {parseType()};
    }
    case CustomSyntaxOp::SCFFor: return parseForBody(op);
    case CustomSyntaxOp::SCFIf: {
      OperandRef condition = parseOperandRef();
      op.operands.push_back(resolve(condition));
      std::vector<Type> types;
      if (consumeIf(TokenKind::Arrow)) types = parseResultTypeList();
      if (!at(TokenKind::LBrace)) fail("expected '{' to open the then region");
      size_t closeOffset = token_.offset;
      Region& thenRegion = op.addRegion();
      parseRegion(op, thenRegion, &kNoArguments);
      addImplicitYield(thenRegion, closeOffset);
      Region& elseRegion = op.addRegion();
      if (consumeKeywordIf("else")) {
        if (!at(TokenKind::LBrace)) fail("expected '{' to open the else region");
        closeOffset = token_.offset;
        parseRegion(op, elseRegion, &kNoArguments);
        addImplicitYield(elseRegion, closeOffset);
      }
      parseOptionalAttributeDict(op.attributes);
      return types;
    }
    case CustomSyntaxOp::SCFWhile: {
      std::vector<PendingArgument> arguments;
      std::vector<OperandRef> inits;
      if (consumeIf(TokenKind::LParen)) {
        if (!consumeIf(TokenKind::RParen)) {
          do {
            OperandRef name = parseOperandRef();
            arguments.push_back(PendingArgument{name.name, name.offset, Type(), kNoLoc});
            expect(TokenKind::Equal, "after the loop-carried value's name");
            inits.push_back(parseOperandRef());
          } while (consumeIf(TokenKind::Comma));
          expect(TokenKind::RParen, "to close the while initializers");
        }
      }
      expect(TokenKind::Colon, "before the while's function type");
      size_t typeOffset = token_.offset;
      Type type = parseFunctionType();
      if (type.inputs().size() != inits.size())
        failAt(typeOffset, "scf.while has " + std::to_string(inits.size()) + " initial values but its type lists " +
                               std::to_string(type.inputs().size()));
      resolveInto(op, inits, inputs(type));
      for (size_t i = 0; i < arguments.size(); ++i) arguments[i].type = type.inputs()[i];
      if (!at(TokenKind::LBrace)) fail("expected '{' to open the before region");
      parseRegion(op, op.addRegion(), &arguments);
      expectKeyword("do", "between the while regions");
      if (!at(TokenKind::LBrace)) fail("expected '{' to open the after region");
      parseRegion(op, op.addRegion(), nullptr);
      if (consumeKeywordIf("attributes")) {
        if (!at(TokenKind::LBrace)) fail("expected '{' after 'attributes'");
        parseAttributeDict(op.attributes);
      }
      return results(type);
    }
    case CustomSyntaxOp::TTFunc: fail("tt.func is only allowed at module level");
  }
  fail("internal: op " + std::string(mnemonic(op.kind)) + " has no custom syntax");
}

std::vector<Type> ParserImpl::parseForBody(Operation& op) {
  if (consumeKeywordIf("unsigned")) op.setAttr("unsignedCmp", Attribute::unit());
  OperandRef inductionName = parseOperandRef();
  expect(TokenKind::Equal, "after the induction variable");
  OperandRef lower = parseOperandRef();
  expectKeyword("to", "after the lower bound");
  OperandRef upper = parseOperandRef();
  expectKeyword("step", "after the upper bound");
  OperandRef step = parseOperandRef();
  std::vector<PendingArgument> arguments;
  arguments.push_back(PendingArgument{inductionName.name, inductionName.offset, Type(), kNoLoc});
  std::vector<OperandRef> inits;
  std::vector<Type> types;
  if (consumeKeywordIf("iter_args")) {
    expect(TokenKind::LParen, "after 'iter_args'");
    do {
      OperandRef name = parseOperandRef();
      arguments.push_back(PendingArgument{name.name, name.offset, Type(), kNoLoc});
      expect(TokenKind::Equal, "after the iter_arg name");
      inits.push_back(parseOperandRef());
    } while (consumeIf(TokenKind::Comma));
    expect(TokenKind::RParen, "to close iter_args");
    expect(TokenKind::Arrow, "before the loop result types");
    size_t typeOffset = token_.offset;
    types = parseResultTypeList();
    if (types.size() != inits.size())
      failAt(typeOffset, "scf.for has " + std::to_string(inits.size()) + " iter_args but " + std::to_string(types.size()) +
                             " result types");
  }
  Type inductionType;
  if (consumeIf(TokenKind::Colon)) inductionType = parseType();
  op.operands.push_back(resolve(lower, inductionType));
  if (!inductionType.isValid()) inductionType = op.operands[0]->type;
  op.operands.push_back(resolve(upper, inductionType));
  op.operands.push_back(resolve(step, inductionType));
  resolveInto(op, inits, types);
  arguments[0].type = inductionType;
  for (size_t i = 0; i < types.size(); ++i) arguments[i + 1].type = types[i];
  if (!at(TokenKind::LBrace)) fail("expected '{' to open the loop body");
  size_t closeOffset = token_.offset;
  Region& body = op.addRegion();
  parseRegion(op, body, &arguments);
  addImplicitYield(body, closeOffset);
  parseOptionalAttributeDict(op.attributes);
  return types;
}

}  // namespace tilesim::text

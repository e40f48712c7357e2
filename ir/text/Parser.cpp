// TTIR parser: the module, functions, regions and blocks. SSA names live in ParseValues.cpp, op syntax in
// ParseOps.cpp and ir/text/syntax/, types in ParseTypes.cpp, attributes in ParseAttributes.cpp, locations in
// ParseLocations.cpp. The first error stops the parse and becomes the one Diagnostic.
//
// Attribute names for the words written bare in op syntax (all Attribute::Kind::Keyword unless noted);
// docs/ir-syntax.md repeats this table for engine authors:
//   arith.cmpi / arith.cmpf     predicate       eq ne slt ... / oeq olt ... une
//   tt.get_program_id/num_prog  axis            x y z
//   tt.load / tt.store          cache, evict    `cacheModifier = cg`, `evictionPolicy = evict_last`
//   tt.dot                      inputPrecision  tf32 tf32x3 ieee ...   (maxNumImpreciseAcc stays an i32 Integer)
//   tt.atomic_rmw               atomic_rmw_op, sem, scope     add fadd ... / relaxed acq_rel ... / gpu cta sys
//   tt.atomic_cas               sem, scope
//   tt.fp_to_fp                 rounding        rtz rtne
//   tt.clampf                   propagateNan    none all
//   tt.reshape                  allow_reorder, efficient_layout   (Unit)
//   tt.elementwise_inline_asm   asm_string      (String)
//   tt.print                    prefix          (String)
//   tt.assert                   message         (String)
//   tt.call                     callee          (SymbolRef)
//   tt.func                     sym_name, sym_visibility (String), function_type (TypeAttr), arg_attrs, res_attrs
//   scf.for                     unsignedCmp     (Unit, `scf.for unsigned`)
//   tt.make_tensor_ptr          operands: base, then shape, strides, offsets (equal counts = result rank)
// Value names: `%12` and a block argument `%arg3` are unnamed (Value::name empty; the printer renumbers them the
// way MLIR does), every other name is kept as written.
#include "ir/text/Parser.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "ir/OpAttributes.h"
#include "ir/FileIO.h"
#include "ir/text/ParserImpl.h"

namespace tilesim {

namespace text {

ParserImpl::ParserImpl(std::string_view text, std::string_view fileName)
    : fileName_(fileName), lines_(text), lexer_(text) {}

ParserImpl::DepthGuard::DepthGuard(ParserImpl& p) : parser(p) {
  if (++parser.depth_ > kMaxNestingDepth) {
    --parser.depth_;
    parser.fail("nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  }
}

SourcePos ParserImpl::positionOf(size_t offset) const {
  SourcePos pos;
  pos.file = fileName_;
  lines_.lineColumn(offset, pos.line, pos.column);
  return pos;
}

Diagnostic ParserImpl::diagnosticFor(const ParseFailure& failure) const {
  return Diagnostic{positionOf(failure.offset), failure.message};
}

void ParserImpl::fail(std::string message) const {
  if (token_.kind == TokenKind::Error) throw ParseFailure{token_.offset, lexer_.errorMessage()};
  throw ParseFailure{token_.offset, std::move(message)};
}

void ParserImpl::failAt(size_t offset, std::string message) const { throw ParseFailure{offset, std::move(message)}; }

bool ParserImpl::consumeIf(TokenKind kind) {
  if (token_.kind != kind) return false;
  advance();
  return true;
}

bool ParserImpl::consumeKeywordIf(std::string_view word) {
  if (!token_.isKeyword(word)) return false;
  advance();
  return true;
}

Token ParserImpl::expect(TokenKind kind, std::string_view context) {
  if (token_.kind != kind) {
    std::string found = token_.kind == TokenKind::Eof ? "end of input" : "'" + std::string(token_.text) + "'";
    fail("expected " + std::string(tokenKindName(kind)) + " " + std::string(context) + ", found " + found);
  }
  Token t = token_;
  advance();
  return t;
}

void ParserImpl::expectKeyword(std::string_view word, std::string_view context) {
  if (!token_.isKeyword(word)) {
    std::string found = token_.kind == TokenKind::Eof ? "end of input" : "'" + std::string(token_.text) + "'";
    fail("expected '" + std::string(word) + "' " + std::string(context) + ", found " + found);
  }
  advance();
}

Token ParserImpl::peekNext() {
  size_t save = lexer_.position();
  Token next = lexer_.next();
  lexer_.setPosition(save);
  return next;
}

// ---------------------------------------------------------------- structure

std::unique_ptr<Module> ParserImpl::parseTopLevel() {
  module_ = std::make_unique<Module>();
  module_->sourceName = fileName_;
  advance();
  bool sawModule = false;
  bool sawBareFunction = false;
  pushScope();
  while (!at(TokenKind::Eof)) {
    if (at(TokenKind::HashId)) {
      parseAliasDefinition(!sawModule && !sawBareFunction);
    } else if (atKeyword("module")) {
      if (sawModule || sawBareFunction) fail("only one module is allowed");
      sawModule = true;
      advance();
      if (at(TokenKind::AtId)) advance();
      if (consumeKeywordIf("attributes")) {
        if (!at(TokenKind::LBrace)) fail("expected '{' after 'attributes'");
        parseAttributeDict(module_->attributes);
      }
      expect(TokenKind::LBrace, "to open the module body");
      parseModuleBody();
      module_->loc = parseOptionalLocation();
    } else if (atKeyword("tt.func")) {
      if (sawModule) fail("tt.func outside the module");
      sawBareFunction = true;
      module_->functions.push_back(parseFunctionOp());
    } else {
      fail("expected 'module', 'tt.func' or a #loc alias definition, found '" + std::string(token_.text) + "'");
    }
  }
  const AliasSlot* undefined = nullptr;
  std::string undefinedName;
  for (const auto& [name, slot] : aliases_) {
    if (!slot.defined && (!undefined || slot.firstUse < undefined->firstUse)) {
      undefined = &slot;
      undefinedName = name;
    }
  }
  if (undefined) failAt(undefined->firstUse, "undefined location alias #" + undefinedName);
  return std::move(module_);
}

void ParserImpl::parseModuleBody() {
  while (!consumeIf(TokenKind::RBrace)) {
    if (at(TokenKind::Eof)) fail("expected '}' to close the module");
    if (!atKeyword("tt.func")) fail("expected 'tt.func' in the module body, found '" + std::string(token_.text) + "'");
    module_->functions.push_back(parseFunctionOp());
  }
}

std::unique_ptr<Operation> ParserImpl::parseFunctionOp() {
  auto op = std::make_unique<Operation>(OpKind::TTFunc);
  op->textPos = positionOf(token_.offset);
  advance();
  parseFunction(*op);
  op->loc = parseOptionalLocation();
  return op;
}

void ParserImpl::parseFunction(Operation& op) {
  if (atKeyword("public") || atKeyword("private") || atKeyword("nested")) {
    op.setAttr("sym_visibility", Attribute::string(std::string(token_.text)));
    advance();
  }
  if (!at(TokenKind::AtId)) fail("expected the function name (@name)");
  op.setAttr("sym_name", Attribute::string(parseSymbolName()));
  expect(TokenKind::LParen, "to open the parameter list");
  std::vector<PendingArgument> args;
  std::vector<Attribute> argAttrs;
  bool anyArgAttrs = false;
  if (!consumeIf(TokenKind::RParen)) {
    for (;;) {
      if (!at(TokenKind::PercentId)) fail("expected a parameter (%name: type); function declarations without a body are not supported");
      OperandRef ref = parseOperandRef();
      if (ref.number != 0 || ref.name.find('#') != std::string_view::npos) failAt(ref.offset, "a parameter name cannot have '#'");
      PendingArgument arg{ref.name, ref.offset, Type(), kNoLoc};
      expect(TokenKind::Colon, "after the parameter name");
      arg.type = parseType();
      std::vector<NamedAttribute> attrs;
      if (at(TokenKind::LBrace)) parseAttributeDict(attrs);
      anyArgAttrs = anyArgAttrs || !attrs.empty();
      argAttrs.push_back(Attribute::dictionary(std::move(attrs)));
      arg.loc = parseOptionalLocation();
      args.push_back(arg);
      if (consumeIf(TokenKind::Comma)) continue;
      expect(TokenKind::RParen, "to close the parameter list");
      break;
    }
  }
  std::vector<Type> results;
  std::vector<Attribute> resultAttrs;
  bool anyResultAttrs = false;
  if (consumeIf(TokenKind::Arrow)) {
    // Result attributes only exist inside parentheses: `-> i32 {` opens the body.
    auto parseOne = [&](bool allowAttributes) {
      results.push_back(parseType());
      std::vector<NamedAttribute> attrs;
      if (allowAttributes && at(TokenKind::LBrace)) parseAttributeDict(attrs);
      anyResultAttrs = anyResultAttrs || !attrs.empty();
      resultAttrs.push_back(Attribute::dictionary(std::move(attrs)));
    };
    if (consumeIf(TokenKind::LParen)) {
      if (!consumeIf(TokenKind::RParen)) {
        do parseOne(true);
        while (consumeIf(TokenKind::Comma));
        expect(TokenKind::RParen, "to close the result list");
      }
    } else {
      parseOne(false);
    }
  }
  if (consumeKeywordIf("attributes")) {
    if (!at(TokenKind::LBrace)) fail("expected '{' after 'attributes'");
    parseAttributeDict(op.attributes);
  }
  std::vector<Type> inputs;
  for (const PendingArgument& arg : args) inputs.push_back(arg.type);
  op.setAttr("function_type", Attribute::typeAttr(Type::function(inputs, results)));
  if (anyArgAttrs) op.setAttr("arg_attrs", Attribute::array(std::move(argAttrs)));
  if (anyResultAttrs) op.setAttr("res_attrs", Attribute::array(std::move(resultAttrs)));
  if (!at(TokenKind::LBrace)) fail("expected '{' to open the function body");
  parseRegion(op, op.addRegion(), &args);
}

void ParserImpl::parseRegion(Operation& op, Region& region, const std::vector<PendingArgument>* entryArgs) {
  DepthGuard guard(*this);
  (void)op;
  expect(TokenKind::LBrace, "to open a region");
  pushScope();
  const size_t successorMark = pendingSuccessors_.size();
  Block* block = &region.addBlock();
  if (entryArgs)
    for (const PendingArgument& arg : *entryArgs) addBlockArgument(*block, arg);
  bool first = true;
  for (;;) {
    if (at(TokenKind::RBrace)) break;
    if (at(TokenKind::Eof)) fail("expected '}' to close the region");
    if (at(TokenKind::CaretId)) {
      if (!first || !block->operations.empty()) block = &region.addBlock();
      else if (entryArgs && !entryArgs->empty()) fail("this region's arguments are given by the op; no block label expected");
      block->label = std::string(token_.text.substr(1));
      advance();
      if (consumeIf(TokenKind::LParen)) {
        do {
          OperandRef ref = parseOperandRef();
          if (ref.number != 0) failAt(ref.offset, "a block argument name cannot have '#'");
          PendingArgument arg{ref.name, ref.offset, Type(), kNoLoc};
          expect(TokenKind::Colon, "after the block argument name");
          arg.type = parseType();
          arg.loc = parseOptionalLocation();
          addBlockArgument(*block, arg);
        } while (consumeIf(TokenKind::Comma));
        expect(TokenKind::RParen, "to close the block arguments");
      }
      expect(TokenKind::Colon, "after the block label");
      first = false;
      continue;
    }
    first = false;
    block->append(parseOperation());
  }
  // Branches inside this region name its blocks (nested regions resolved theirs when they closed).
  for (size_t i = successorMark; i < pendingSuccessors_.size(); ++i) {
    const PendingSuccessor& pending = pendingSuccessors_[i];
    Block* target = nullptr;
    for (size_t b = 0; b < region.blocks.size(); ++b) {
      const Block& candidate = *region.blocks[b];
      const std::string name = candidate.label.empty() ? "bb" + std::to_string(b) : candidate.label;
      if (name == pending.label) target = region.blocks[b].get();
    }
    if (!target) failAt(pending.offset, "no block ^" + pending.label + " in this region");
    pending.op->successors[pending.index] = target;
  }
  pendingSuccessors_.resize(successorMark);
  advance();
  popScope();
}

void ParserImpl::parseSuccessor(Operation& op) {
  if (!at(TokenKind::CaretId)) fail("expected a successor block (^bb1)");
  pendingSuccessors_.push_back({&op, op.successors.size(), std::string(token_.text.substr(1)), token_.offset});
  op.successors.push_back(nullptr);
  advance();
  unsigned count = 0;
  if (consumeIf(TokenKind::LParen)) {
    std::vector<OperandRef> refs = parseOperandRefList();
    expect(TokenKind::Colon, "before the successor's argument types");
    std::vector<Type> types = parseTypeList();
    if (types.size() != refs.size()) fail("successor arguments and types differ in number");
    expect(TokenKind::RParen, "to close the successor's arguments");
    for (size_t i = 0; i < refs.size(); ++i) op.operands.push_back(resolve(refs[i], types[i]));
    count = static_cast<unsigned>(refs.size());
  }
  op.successorOperandCounts.push_back(count);
}

void ParserImpl::addImplicitYield(Region& region, size_t offset) {
  if (region.blocks.empty()) return;
  Block& block = *region.blocks.back();
  if (!block.operations.empty() && hasTrait(block.operations.back()->kind, kTerminator)) return;
  auto yield = std::make_unique<Operation>(OpKind::SCFYield);
  yield->textPos = positionOf(offset);
  pendingYields_.push_back(block.append(std::move(yield)));
}

std::unique_ptr<Operation> ParserImpl::parseOperation() {
  size_t start = token_.offset;
  std::vector<ResultDef> defs;
  if (at(TokenKind::PercentId)) {
    for (;;) {
      Token t = expect(TokenKind::PercentId, "(a result name)");
      ResultDef def;
      def.name = t.text.substr(1);
      def.offset = t.offset;
      if (def.name.find('#') != std::string_view::npos) failAt(t.offset, "a result name cannot have '#'");
      if (consumeIf(TokenKind::Colon)) {
        Token count = expect(TokenKind::Integer, "(result count after ':')");
        auto [ptr, ec] = std::from_chars(count.text.data(), count.text.data() + count.text.size(), def.count);
        if (ec != std::errc() || ptr != count.text.data() + count.text.size() || def.count == 0 || def.count > 4096)
          failAt(count.offset, "bad result count");
        def.group = true;
      }
      defs.push_back(def);
      if (!consumeIf(TokenKind::Comma)) break;
    }
    expect(TokenKind::Equal, "after the result names");
  }
  size_t nameOffset = token_.offset;
  std::unique_ptr<Operation> op;
  std::vector<Type> types;
  size_t yieldMark = pendingYields_.size();
  if (at(TokenKind::String)) {
    std::string name = parseStringLiteral();
    std::optional<OpKind> kind = lookupOp(name);
    if (!kind) failAt(nameOffset, "unknown op '" + name + "'");
    if (*kind == OpKind::TTFunc) failAt(nameOffset, "tt.func is only allowed at module level");
    op = std::make_unique<Operation>(*kind);
    types = parseGenericBody(*op, nameOffset);
  } else if (at(TokenKind::BareId)) {
    std::optional<OpKind> kind = lookupOp(token_.text);
    if (!kind) fail("unknown op '" + std::string(token_.text) + "'");
    if (*kind == OpKind::TTFunc) fail("tt.func is only allowed at module level");
    if (opInfo(*kind).syntax == Syntax::Generic)
      fail(std::string(token_.text) + " must be written in generic form (\"" + std::string(token_.text) + "\"(...))");
    op = std::make_unique<Operation>(*kind);
    advance();
    types = parseOpBody(*op);
  } else {
    fail(token_.kind == TokenKind::Eof ? "expected an operation, found end of input"
                                       : "expected an operation, found '" + std::string(token_.text) + "'");
  }
  const OpInfo& info = opInfo(op->kind);
  int numOperands = static_cast<int>(op->operands.size());
  if (numOperands < info.minOperands || (info.maxOperands >= 0 && numOperands > info.maxOperands))
    failAt(nameOffset, std::string(info.mnemonic) + " takes " +
                           (info.maxOperands == info.minOperands ? std::to_string(info.minOperands)
                            : info.maxOperands < 0               ? "at least " + std::to_string(info.minOperands)
                                                   : std::to_string(info.minOperands) + " to " + std::to_string(info.maxOperands)) +
                           " operands, got " + std::to_string(numOperands));
  if (info.numResults >= 0 && types.size() != static_cast<size_t>(info.numResults))
    failAt(nameOffset, std::string(info.mnemonic) + " has " + std::to_string(info.numResults) + " results, got " +
                           std::to_string(types.size()));
  size_t named = 0;
  for (const ResultDef& def : defs) named += def.count;
  if (named != types.size())
    failAt(defs.empty() ? nameOffset : start, std::string(info.mnemonic) + " produces " + std::to_string(types.size()) +
                                                  " result(s) but " + std::to_string(named) + " name(s) are given");
  normaliseKeywordAttributes(*op);  // one canonical spelling per enumerated attribute (ir/OpAttributes.h)
  op->textPos = positionOf(start);
  op->loc = parseOptionalLocation();
  for (size_t i = yieldMark; i < pendingYields_.size(); ++i) pendingYields_[i]->loc = op->loc;
  pendingYields_.resize(yieldMark);
  defineResults(*op, defs, types);
  for (auto& region : op->regions) region->parentOp = op.get();
  return op;
}

}  // namespace text

ParseResult parseModule(std::string_view text, std::string_view fileName) {
  ParseResult result;
  text::ParserImpl parser(text, fileName);
  try {
    result.module = parser.parseTopLevel();
  } catch (const text::ParseFailure& failure) {
    result.module.reset();
    result.diagnostics.push_back(parser.diagnosticFor(failure));
  }
  return result;
}

ParseResult parseModuleFile(const std::string& path) {
  // Only a regular file within the size limit: a FIFO or /dev/zero is a diagnostic, never a hang.
  std::string text, error;
  if (!readRegularFile(path, kMaxKernelFileBytes, text, error)) {
    ParseResult result;
    result.diagnostics.push_back(Diagnostic{SourcePos{path, 0, 0}, error});
    return result;
  }
  return parseModule(text, path);
}

}  // namespace tilesim

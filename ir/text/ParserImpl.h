// The parser's internal state, shared by the files that implement it: Parser.cpp (module, functions, regions,
// blocks, SSA names), ParseLocations.cpp (loc(...) and #loc aliases), ParseTypes.cpp (types), ParseAttributes.cpp
// (attributes), ParseOps.cpp (op syntax) and the custom-syntax pairs of ir/text/syntax/. Errors throw
// ParseFailure, caught once in parseModule: the first error stops the parse.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/Diagnostic.h"
#include "ir/IR.h"
#include "ir/text/Lexer.h"

namespace tilesim::text {

struct ParseFailure {
  size_t offset;
  std::string message;
};

// A `%name` or `%name#N` use, resolved once its expected type (if the syntax states one) is known.
struct OperandRef {
  std::string_view name;  // without '%' and '#N'
  unsigned number = 0;    // N of `#N`
  size_t offset = 0;
};

// A block argument as written in op syntax (`%iv`, `%a = %init`), defined when its region is parsed.
struct PendingArgument {
  std::string_view name;
  size_t offset = 0;
  Type type;
  LocId loc = kNoLoc;
};

// What parseOperation collected before the op-specific syntax: result names and where the op starts.
struct ResultDef {
  std::string_view name;
  unsigned count = 1;
  bool group = false;  // written `%name:N`
  size_t offset = 0;
};

class ParserImpl {
 public:
  ParserImpl(std::string_view text, std::string_view fileName);
  std::unique_ptr<Module> parseTopLevel();
  Diagnostic diagnosticFor(const ParseFailure& failure) const;

  // ---- tokens ----
  void advance() { token_ = lexer_.next(); }
  const Token& token() const { return token_; }
  bool at(TokenKind kind) const { return token_.kind == kind; }
  bool atKeyword(std::string_view word) const { return token_.isKeyword(word); }
  bool consumeIf(TokenKind kind);
  bool consumeKeywordIf(std::string_view word);
  Token expect(TokenKind kind, std::string_view context);
  void expectKeyword(std::string_view word, std::string_view context);
  Token peekNext();  // the token after the current one, without consuming
  [[noreturn]] void fail(std::string message) const;
  [[noreturn]] void failAt(size_t offset, std::string message) const;
  SourcePos positionOf(size_t offset) const;
  struct DepthGuard {
    ParserImpl& parser;
    DepthGuard(ParserImpl& p);
    ~DepthGuard() { --parser.depth_; }
  };

  // ---- types (ParseTypes.cpp) and attributes (ParseAttributes.cpp) ----
  Type parseType();
  Type finishTensorDescType();
  bool atType() const;
  Type parseFunctionType();
  std::vector<Type> parseTypeList();  // T, U, ... (at least one)
  std::vector<Type> parseResultTypeList();  // `(T, U)`, `()` or a single T
  Attribute parseAttribute();
  void parseAttributeDict(std::vector<NamedAttribute>& into);  // `{...}` (current token is '{')
  void parseOptionalAttributeDict(std::vector<NamedAttribute>& into);
  std::string parseStringLiteral();
  std::string parseSymbolName();  // @name or @"name"
  std::string parseKeywordWord(std::string_view context);

  // ---- TTGIR encodings and memory descriptor types (ParseEncodings.cpp) ----
  Encoding parseEncoding();  // `#alias` or `#ttg.kind<{...}>` (current token is the HashId)
  void parseEncodingAliasDefinition(const std::string& name, size_t nameOffset, bool beforeModule);
  // The rest of a memory descriptor type from raw position `pos`, right after its `<`.
  Type finishMemDescType(size_t pos);
  // Dimensions `4x8x` from raw position `pos` (moved past them), as tensor<...> and memdesc<...> write them.
  std::vector<int64_t> scanShape(size_t& pos);

  // ---- values (ParseValues.cpp) ----
  OperandRef parseOperandRef();
  std::vector<OperandRef> parseOperandRefList();  // zero or more, comma separated, while at '%'
  Value* resolve(const OperandRef& ref, Type expected = Type());
  void resolveInto(Operation& op, const std::vector<OperandRef>& refs, const std::vector<Type>& types);
  void resolveAllSame(Operation& op, const std::vector<OperandRef>& refs, Type type);
  void resolveUntyped(Operation& op, const std::vector<OperandRef>& refs);
  void defineValue(std::string_view name, size_t offset, Value* first, unsigned count);
  // The op's results, `types` in order, named and defined as `defs` (what parseOperation read before the op) says.
  void defineResults(Operation& op, const std::vector<ResultDef>& defs, const std::vector<Type>& types);
  void pushScope() { scopes_.emplace_back(); }
  void popScope();

  // ---- structure (Parser.cpp) ----
  std::unique_ptr<Operation> parseOperation();
  void parseRegion(Operation& op, Region& region, const std::vector<PendingArgument>* entryArgs);
  LocId parseOptionalLocation();  // ` loc(...)` when present
  LocId parseLocationBody();
  Value* addBlockArgument(Block& block, const PendingArgument& arg);
  void addImplicitYield(Region& region, size_t offset);

  // ---- op syntax (ParseOps.cpp): fills operands, attributes, regions; returns result types ----
  std::vector<Type> parseOpBody(Operation& op);
  std::vector<Type> parseGenericBody(Operation& op, size_t nameOffset);
  std::vector<Type> parseCustomBody(Operation& op);
  void parseFunction(Operation& op);

  std::string fileName_;
  LineTable lines_;
  Lexer lexer_;
  Token token_;
  std::unique_ptr<Module> module_;
  int depth_ = 0;
  std::vector<Operation*> pendingYields_;  // implicit scf.yield ops that take their parent's loc
  // Branch successors name blocks that may come later in the region: resolved when the region closes.
  struct PendingSuccessor {
    Operation* op;
    size_t index;
    std::string label;
    size_t offset;
  };
  std::vector<PendingSuccessor> pendingSuccessors_;
  void parseSuccessor(Operation& op);  // ^label or ^label(%a, %b : T, U)

 private:
  struct NameEntry {
    Value* first = nullptr;
    unsigned count = 1;
  };
  std::unordered_map<std::string_view, NameEntry> names_;
  std::vector<std::vector<std::string_view>> scopes_;

  struct AliasSlot {
    LocId id = kNoLoc;
    bool defined = false;
    size_t firstUse = 0;
  };
  std::unordered_map<std::string, AliasSlot> aliases_;
  std::unordered_map<std::string, Encoding> encodingAliases_;
  std::vector<std::string> aliasUseOrder_;
  LocId aliasReference(std::string_view name, size_t offset);
  void parseAliasDefinition(bool beforeModule);
  void parseModuleBody();
  Location parseLocationStruct();
  std::unique_ptr<Operation> parseFunctionOp();
};

constexpr int kMaxNestingDepth = 200;
constexpr int kMaxTensorRank = 16;  // also the deepest nesting of a dense<[[...]]> list

}  // namespace tilesim::text

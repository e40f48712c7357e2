#include "ir/OpKind.h"

#include <string>
#include <unordered_map>

namespace tilesim {
namespace {

constexpr OpInfo kOpInfos[] = {
#define TILESIM_OP(Id, Mnemonic, SyntaxKind, MinOperands, MaxOperands, NumResults, Traits, Doc) \
  {OpKind::Id, Mnemonic, Syntax::SyntaxKind, MinOperands, MaxOperands, NumResults, Traits, Doc},
#include "ir/Ops.def"
#undef TILESIM_OP
};

}  // namespace

const OpInfo& opInfo(OpKind kind) { return kOpInfos[static_cast<size_t>(kind)]; }
std::string_view mnemonic(OpKind kind) { return opInfo(kind).mnemonic; }
bool hasTrait(OpKind kind, OpTrait trait) { return (opInfo(kind).traits & trait) != 0; }
int numOpKinds() { return static_cast<int>(std::size(kOpInfos)); }

std::optional<OpKind> lookupOp(std::string_view name) {
  static const auto* table = [] {
    auto* map = new std::unordered_map<std::string, OpKind>();
    for (const OpInfo& info : kOpInfos) map->emplace(std::string(info.mnemonic), info.kind);
    return map;
  }();
  auto it = table->find(std::string(name));
  if (it == table->end()) return std::nullopt;
  return it->second;
}

const char* syntaxName(Syntax syntax) {
  switch (syntax) {
    case Syntax::Binary: return "binary";
    case Syntax::Unary: return "unary";
    case Syntax::Ternary: return "ternary";
    case Syntax::Cast: return "cast";
    case Syntax::Arrow: return "arrow";
    case Syntax::Compare: return "compare";
    case Syntax::Select: return "select";
    case Syntax::Constant: return "constant";
    case Syntax::Generic: return "generic";
    case Syntax::Custom: return "custom";
  }
  return "?";
}

}  // namespace tilesim

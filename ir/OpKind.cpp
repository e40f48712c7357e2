#include "ir/OpKind.h"

#include <array>
#include <string>
#include <unordered_map>

namespace tilesim {
namespace {

constexpr size_t kNumOps = 0
#define TILESIM_OP(...) +1
#include "ir/Ops.def"
#undef TILESIM_OP
    ;

struct FamilyInfo {
  std::string_view name;
  std::string_view description;
};

constexpr FamilyInfo kFamilyInfos[] = {
#define TILESIM_FAMILY(Name, Description) {#Name, Description},
#define TILESIM_OP(...)
#include "ir/Ops.def"
#undef TILESIM_OP
#undef TILESIM_FAMILY
};

// Each row belongs to the family opened by the nearest TILESIM_FAMILY line above it.
constexpr std::array<OpInfo, kNumOps> kOpInfos = [] {
  std::array<OpInfo, kNumOps> infos{};
  OpFamily family{};
#define TILESIM_FAMILY(Name, Description) family = OpFamily::Name;
#define TILESIM_OP(Id, Mnemonic, SyntaxKind, MinOperands, MaxOperands, NumResults, Traits, Doc) \
  infos[static_cast<size_t>(OpKind::Id)] =                                                      \
      OpInfo{OpKind::Id, family, Mnemonic, Syntax::SyntaxKind, MinOperands, MaxOperands, NumResults, Traits, Doc};
#include "ir/Ops.def"
#undef TILESIM_OP
#undef TILESIM_FAMILY
  return infos;
}();

}  // namespace

const OpInfo& opInfo(OpKind kind) { return kOpInfos[static_cast<size_t>(kind)]; }
OpFamily opFamily(OpKind kind) { return opInfo(kind).family; }
std::string_view familyName(OpFamily family) { return kFamilyInfos[static_cast<size_t>(family)].name; }
std::string_view familyDescription(OpFamily family) { return kFamilyInfos[static_cast<size_t>(family)].description; }
int numOpFamilies() { return static_cast<int>(std::size(kFamilyInfos)); }
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

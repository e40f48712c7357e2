// Encodings (ir/Encoding.h): interning, the parameter tables of the eight kinds, the shape checks and the
// printing of the full form with the aliases of the innermost EncodingAliasScope.
#include "ir/Encoding.h"

#include <map>
#include <memory>
#include <mutex>

#include "ir/Assert.h"
#include "ir/Attribute.h"

namespace tilesim {

struct EncodingStorage {
  EncodingKind kind = EncodingKind::Blocked;
  std::vector<NamedAttribute> params;
  std::string fullText;  // the full form with nested encodings written in full: the interning key
};

namespace {

struct EncodingInfo {
  EncodingKind kind;
  std::string_view mnemonic;
};
constexpr EncodingInfo kEncodings[] = {
    {EncodingKind::Blocked, "ttg.blocked"},          {EncodingKind::Slice, "ttg.slice"},
    {EncodingKind::NvidiaMma, "ttg.nvidia_mma"},     {EncodingKind::DotOperand, "ttg.dot_op"},
    {EncodingKind::Linear, "ttg.linear"},            {EncodingKind::SwizzledShared, "ttg.swizzled_shared"},
    {EncodingKind::NvmmaShared, "ttg.nvmma_shared"}, {EncodingKind::SharedMemory, "ttg.shared_memory"},
};

// What a parameter holds: an integer, a boolean, a list of integers, a list of lists of integers, an encoding.
enum class ParamShape : uint8_t { Int, Bool, IntList, IntListList, Layout };
struct ParamRule {
  std::string_view name;
  ParamShape shape;
  bool optional;
};

std::vector<ParamRule> rulesFor(EncodingKind kind) {
  switch (kind) {
    case EncodingKind::Blocked:
      return {{"sizePerThread", ParamShape::IntList, false}, {"threadsPerWarp", ParamShape::IntList, false},
              {"warpsPerCTA", ParamShape::IntList, false}, {"order", ParamShape::IntList, false},
              {"CTAsPerCGA", ParamShape::IntList, true}, {"CTASplitNum", ParamShape::IntList, true},
              {"CTAOrder", ParamShape::IntList, true}};
    case EncodingKind::Slice: return {{"dim", ParamShape::Int, false}, {"parent", ParamShape::Layout, false}};
    case EncodingKind::NvidiaMma:
      return {{"versionMajor", ParamShape::Int, false}, {"versionMinor", ParamShape::Int, false},
              {"warpsPerCTA", ParamShape::IntList, false}, {"CTAsPerCGA", ParamShape::IntList, true},
              {"CTASplitNum", ParamShape::IntList, true}, {"CTAOrder", ParamShape::IntList, true},
              {"instrShape", ParamShape::IntList, false}};
    case EncodingKind::DotOperand:
      return {{"opIdx", ParamShape::Int, false}, {"parent", ParamShape::Layout, false}, {"kWidth", ParamShape::Int, true}};
    case EncodingKind::Linear:
      return {{"register", ParamShape::IntListList, false}, {"lane", ParamShape::IntListList, false},
              {"warp", ParamShape::IntListList, false}, {"block", ParamShape::IntListList, false}};
    case EncodingKind::SwizzledShared:
      return {{"vec", ParamShape::Int, false}, {"perPhase", ParamShape::Int, false}, {"maxPhase", ParamShape::Int, false},
              {"order", ParamShape::IntList, false}, {"CTAsPerCGA", ParamShape::IntList, true},
              {"CTASplitNum", ParamShape::IntList, true}, {"CTAOrder", ParamShape::IntList, true}};
    case EncodingKind::NvmmaShared:
      return {{"swizzlingByteWidth", ParamShape::Int, false}, {"transposed", ParamShape::Bool, false},
              {"elementBitWidth", ParamShape::Int, false}, {"fp4Padded", ParamShape::Bool, true},
              {"rank", ParamShape::Int, true}, {"CTAsPerCGA", ParamShape::IntList, true},
              {"CTASplitNum", ParamShape::IntList, true}, {"CTAOrder", ParamShape::IntList, true}};
    case EncodingKind::SharedMemory: return {};
  }
  TILESIM_UNREACHABLE("bad EncodingKind");
}

bool isIntList(const Attribute& a) {
  if (a.kind() != Attribute::Kind::Array) return false;
  for (const Attribute& e : a.elements())
    if (e.kind() != Attribute::Kind::Integer) return false;
  return true;
}

bool fits(const Attribute& a, ParamShape shape) {
  switch (shape) {
    case ParamShape::Int: return a.kind() == Attribute::Kind::Integer;
    case ParamShape::Bool: return a.kind() == Attribute::Kind::Bool;
    case ParamShape::IntList: return isIntList(a);
    case ParamShape::IntListList:
      if (a.kind() != Attribute::Kind::Array) return false;
      for (const Attribute& e : a.elements())
        if (!isIntList(e)) return false;
      return true;
    case ParamShape::Layout: return a.kind() == Attribute::Kind::Encoding && a.encoding().isDistributed();
  }
  return false;
}

const char* shapeWords(ParamShape shape) {
  switch (shape) {
    case ParamShape::Int: return "an integer";
    case ParamShape::Bool: return "true or false";
    case ParamShape::IntList: return "a list of integers";
    case ParamShape::IntListList: return "a list of integer lists";
    case ParamShape::Layout: return "a register layout";
  }
  return "?";
}

thread_local const std::vector<EncodingAlias>* activeAliases = nullptr;

void printParamValue(std::string& out, const Attribute& a, bool full) {
  switch (a.kind()) {
    case Attribute::Kind::Integer: out += std::to_string(a.intValue()); return;
    case Attribute::Kind::Bool: out += a.boolValue() ? "true" : "false"; return;
    case Attribute::Kind::Array:
      out += '[';
      for (size_t i = 0; i < a.elements().size(); ++i) {
        if (i) out += ", ";
        printParamValue(out, a.elements()[i], full);
      }
      out += ']';
      return;
    case Attribute::Kind::Encoding: out += full ? a.encoding().str() : a.encoding().reference(); return;
    default: out += "?"; return;  // ruled out by checkEncodingParameters
  }
}

std::string formOf(EncodingKind kind, const std::vector<NamedAttribute>& params, bool full) {
  std::string out = "#" + std::string(encodingMnemonic(kind));
  if (kind == EncodingKind::SharedMemory) return out;
  out += "<{";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += params[i].name + " = ";
    printParamValue(out, params[i].value, full);
  }
  return out + "}>";
}

}  // namespace

std::optional<EncodingKind> encodingKindByMnemonic(std::string_view mnemonic) {
  for (const EncodingInfo& info : kEncodings)
    if (info.mnemonic == mnemonic) return info.kind;
  return std::nullopt;
}

std::string_view encodingMnemonic(EncodingKind kind) {
  for (const EncodingInfo& info : kEncodings)
    if (info.kind == kind) return info.mnemonic;
  TILESIM_UNREACHABLE("bad EncodingKind");
}

std::string checkEncodingParameters(EncodingKind kind, const std::vector<NamedAttribute>& params) {
  const std::string name = "#" + std::string(encodingMnemonic(kind));
  std::vector<ParamRule> rules = rulesFor(kind);
  for (const NamedAttribute& param : params) {
    const ParamRule* rule = nullptr;
    for (const ParamRule& r : rules)
      if (r.name == param.name) rule = &r;
    if (!rule) return name + " has no parameter '" + param.name + "'";
    if (!fits(param.value, rule->shape)) return name + " parameter '" + param.name + "' must be " + shapeWords(rule->shape);
    int count = 0;
    for (const NamedAttribute& other : params) count += other.name == param.name ? 1 : 0;
    if (count > 1) return name + " parameter '" + param.name + "' is given twice";
  }
  for (const ParamRule& rule : rules) {
    if (rule.optional) continue;
    bool present = false;
    for (const NamedAttribute& param : params) present = present || param.name == rule.name;
    if (!present) return name + " needs the parameter '" + std::string(rule.name) + "'";
  }
  return "";
}

Encoding Encoding::get(EncodingKind kind, std::vector<NamedAttribute> params) {
  static std::mutex* mutex = new std::mutex();
  static auto* table = new std::map<std::string, std::unique_ptr<EncodingStorage>>();  // never destroyed
  std::string key = formOf(kind, params, true);
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = table->find(key);
  if (it != table->end()) return Encoding(it->second.get());
  auto storage = std::make_unique<EncodingStorage>();
  storage->kind = kind;
  storage->params = std::move(params);
  storage->fullText = key;
  const EncodingStorage* result = storage.get();
  table->emplace(std::move(key), std::move(storage));
  return Encoding(result);
}

EncodingKind Encoding::kind() const {
  TILESIM_ASSERT(storage_, "kind() of an invalid encoding");
  return storage_->kind;
}

std::string_view Encoding::mnemonic() const { return encodingMnemonic(kind()); }

const std::vector<NamedAttribute>& Encoding::params() const {
  TILESIM_ASSERT(storage_, "params() of an invalid encoding");
  return storage_->params;
}

const Attribute* Encoding::param(std::string_view name) const { return storage_ ? findAttribute(storage_->params, name) : nullptr; }

std::vector<int64_t> Encoding::ints(std::string_view name) const {
  std::vector<int64_t> values;
  if (const Attribute* a = param(name); a && a->kind() == Attribute::Kind::Array)
    for (const Attribute& e : a->elements())
      if (e.kind() == Attribute::Kind::Integer) values.push_back(e.intValue());
  return values;
}

int64_t Encoding::integer(std::string_view name, int64_t absent) const {
  const Attribute* a = param(name);
  return a && a->kind() == Attribute::Kind::Integer ? a->intValue() : absent;
}

Encoding Encoding::parent() const {
  const Attribute* a = param("parent");
  return a && a->kind() == Attribute::Kind::Encoding ? a->encoding() : Encoding();
}

std::string Encoding::str() const {
  if (!storage_) return "<<no encoding>>";
  return activeAliases ? formOf(storage_->kind, storage_->params, false) : storage_->fullText;
}

std::string Encoding::reference() const {
  if (activeAliases)
    for (const EncodingAlias& alias : *activeAliases)
      if (alias.encoding == *this) return "#" + alias.name;
  return str();
}

int encodingRank(Encoding encoding) {
  if (!encoding.isValid()) return -1;
  switch (encoding.kind()) {
    case EncodingKind::Blocked: return static_cast<int>(encoding.ints("order").size());
    case EncodingKind::Slice: {
      int parent = encodingRank(encoding.parent());
      return parent < 0 ? -1 : parent - 1;
    }
    case EncodingKind::NvidiaMma: return static_cast<int>(encoding.ints("warpsPerCTA").size());
    case EncodingKind::DotOperand: return encodingRank(encoding.parent());
    case EncodingKind::Linear: {
      const Attribute* lane = encoding.param("lane");
      if (!lane || lane->elements().empty()) return -1;
      return static_cast<int>(lane->elements()[0].elements().size());
    }
    case EncodingKind::SwizzledShared: return static_cast<int>(encoding.ints("order").size());
    case EncodingKind::NvmmaShared: return static_cast<int>(encoding.integer("rank", -1));
    case EncodingKind::SharedMemory: return -1;
  }
  return -1;
}

std::string checkEncodingForShape(Encoding encoding, int rank, int numWarps, int threadsPerWarp) {
  if (!encoding.isValid()) return "";
  const std::string name = "#" + std::string(encoding.mnemonic());
  int expected = encodingRank(encoding);
  // A shared encoding lays out the trailing dims: a multi-buffered allocation (3x64x32) adds leading buffer dims.
  if (encoding.isShared() && expected >= 0 && expected < rank) expected = rank;
  if (expected >= 0 && expected != rank)
    return name + " lays out rank " + std::to_string(expected) + ", the type has rank " + std::to_string(rank);
  if (encoding.kind() == EncodingKind::Slice) {
    int64_t dim = encoding.integer("dim", -1);
    if (dim < 0 || dim > rank) return name + " dim " + std::to_string(dim) + " is outside the parent's rank " + std::to_string(rank + 1);
    return checkEncodingForShape(encoding.parent(), rank + 1, numWarps, threadsPerWarp);  // the parent's warps too
  }
  if (encoding.kind() == EncodingKind::Blocked) {
    std::vector<int64_t> order = encoding.ints("order");
    for (std::string_view field : {"sizePerThread", "threadsPerWarp", "warpsPerCTA"})
      if (encoding.ints(field).size() != order.size()) return name + " " + std::string(field) + " and order differ in length";
    std::vector<bool> seen(order.size(), false);
    for (int64_t d : order) {
      if (d < 0 || d >= static_cast<int64_t>(order.size()) || seen[d]) return name + " order is not a permutation";
      seen[d] = true;
    }
    int64_t threads = 1, warps = 1;
    for (int64_t t : encoding.ints("threadsPerWarp")) threads *= t;
    for (int64_t w : encoding.ints("warpsPerCTA")) warps *= w;
    if (threadsPerWarp > 0 && threads != threadsPerWarp)
      return name + " threadsPerWarp multiply to " + std::to_string(threads) + ", the module has " + std::to_string(threadsPerWarp) + " threads per warp";
    if (numWarps > 0 && warps != numWarps)
      return name + " warpsPerCTA multiply to " + std::to_string(warps) + ", the module has " + std::to_string(numWarps) + " warps";
  }
  if (encoding.kind() == EncodingKind::NvidiaMma) {
    int64_t major = encoding.integer("versionMajor", 0);
    if (major != 2 && major != 3) return name + " versionMajor " + std::to_string(major) + " is not 2 or 3 (sm_80 / sm_90)";
    int64_t warps = 1;
    for (int64_t w : encoding.ints("warpsPerCTA")) warps *= w;
    if (numWarps > 0 && warps != numWarps)
      return name + " warpsPerCTA multiply to " + std::to_string(warps) + ", the module has " + std::to_string(numWarps) + " warps";
  }
  if (encoding.kind() == EncodingKind::DotOperand) {
    int64_t opIdx = encoding.integer("opIdx", -1);
    if (opIdx != 0 && opIdx != 1) return name + " opIdx must be 0 or 1";
    return checkEncodingForShape(encoding.parent(), rank, numWarps, threadsPerWarp);
  }
  return "";
}

EncodingAliasScope::EncodingAliasScope(const std::vector<EncodingAlias>& aliases) : previous_(activeAliases) {
  activeAliases = &aliases;
}

EncodingAliasScope::~EncodingAliasScope() { activeAliases = previous_; }

}  // namespace tilesim

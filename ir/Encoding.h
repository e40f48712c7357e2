// Layout encodings of TTGIR (Triton's GPU IR), as typed attributes: the `#ttg.blocked<{...}>`, `#ttg.slice<...>`,
// `#ttg.nvidia_mma<...>`, `#ttg.dot_op<...>`, `#ttg.linear<...>` layouts of register tensors, the shared-memory
// encodings `#ttg.swizzled_shared<...>` / `#ttg.nvmma_shared<...>` of memory descriptors, and the memory space
// `#ttg.shared_memory` (`#smem`). An Encoding is interned like a Type (equal encodings are one object, `==` is a
// pointer compare) and keeps its parameters as written, in Triton's order, so it prints back unchanged.
//
// tilesim's values are layout-transparent: an encoding says how Triton would spread a tensor over threads, never
// what the tensor holds, so the interpreter ignores it. It is carried for printing and checked by the verifier
// (checkEncodingParameters when parsed, checkEncodingForShape for each tensor type that uses it).
//
// Printing: Triton writes every encoding once, as an alias at the top of the file (`#blocked = #ttg.blocked<...>`),
// and refers to it by that name. While an EncodingAliasScope is open (the printer opens one per module), str()
// and reference() write aliased encodings by name; outside one (diagnostics) they write the full form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilesim {

struct NamedAttribute;
class Attribute;

enum class EncodingKind : uint8_t {
  Blocked,         // #ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>
  Slice,           // #ttg.slice<{dim, parent}>: the parent layout with dimension `dim` removed
  NvidiaMma,       // #ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA, instrShape}>: mma v2 (sm_80) / v3 (wgmma)
  DotOperand,      // #ttg.dot_op<{opIdx, parent, kWidth}>: operand A (0) or B (1) of an mma parent
  Linear,          // #ttg.linear<{register, lane, warp, block}>: a linear layout's bases
  SwizzledShared,  // #ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>
  NvmmaShared,     // #ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth[, rank]}>
  SharedMemory,    // #ttg.shared_memory: the memory space of a memory descriptor
};

struct EncodingStorage;

class Encoding {
 public:
  Encoding() = default;
  // The parameters as written; callers check them first with checkEncodingParameters.
  static Encoding get(EncodingKind kind, std::vector<NamedAttribute> params);

  bool isValid() const { return storage_ != nullptr; }
  EncodingKind kind() const;
  std::string_view mnemonic() const;  // "ttg.blocked"
  const std::vector<NamedAttribute>& params() const;
  const Attribute* param(std::string_view name) const;  // nullptr when absent
  std::vector<int64_t> ints(std::string_view name) const;  // `[1, 2]`; empty when absent
  int64_t integer(std::string_view name, int64_t absent) const;
  Encoding parent() const;  // Slice and DotOperand; invalid otherwise
  bool isShared() const { return isValid() && (kind() == EncodingKind::SwizzledShared || kind() == EncodingKind::NvmmaShared); }
  bool isDistributed() const { return isValid() && !isShared() && kind() != EncodingKind::SharedMemory; }

  std::string str() const;        // the full form; nested encodings by alias inside an EncodingAliasScope
  std::string reference() const;  // the alias name inside an EncodingAliasScope that has one, else str()
  bool operator==(const Encoding& other) const { return storage_ == other.storage_; }
  bool operator!=(const Encoding& other) const { return storage_ != other.storage_; }
  const void* opaque() const { return storage_; }

 private:
  explicit Encoding(const EncodingStorage* storage) : storage_(storage) {}
  const EncodingStorage* storage_ = nullptr;
};

std::optional<EncodingKind> encodingKindByMnemonic(std::string_view mnemonic);  // "ttg.blocked" -> Blocked
std::string_view encodingMnemonic(EncodingKind kind);

// The parameter names and value kinds each encoding requires (Triton 3.6's): the problem, or "" when they fit.
std::string checkEncodingParameters(EncodingKind kind, const std::vector<NamedAttribute>& params);
// A distributed encoding against the tensor it lays out: rank, and for blocked layouts the products of
// threadsPerWarp and warpsPerCTA against the module's `ttg.threads-per-warp` and `ttg.num-warps` (0 = unknown).
// A shared encoding against the memory descriptor's rank. The problem, or "".
std::string checkEncodingForShape(Encoding encoding, int rank, int numWarps, int threadsPerWarp);
// The rank an encoding lays out (blocked: its arrays' length; slice: the parent's less one; ...); -1 if open.
int encodingRank(Encoding encoding);

// `#name = <encoding>` before a TTGIR module. Triton interleaves these with the location aliases it prints before
// the module (MLIR sorts aliases by name); `locationAliasesBefore` keeps the position, so the text prints back as read.
struct EncodingAlias {
  std::string name;  // without '#'
  Encoding encoding;
  size_t locationAliasesBefore = 0;
};

// Aliases in force for printing on this thread while the scope lives (scopes nest; the innermost wins).
class EncodingAliasScope {
 public:
  explicit EncodingAliasScope(const std::vector<EncodingAlias>& aliases);
  ~EncodingAliasScope();
  EncodingAliasScope(const EncodingAliasScope&) = delete;
  EncodingAliasScope& operator=(const EncodingAliasScope&) = delete;

 private:
  const std::vector<EncodingAlias>* previous_;
};

}  // namespace tilesim

// The op enumeration, its families and its per-op properties, all generated from ir/Ops.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/Assert.h"

namespace tilesim {

enum class OpKind : uint16_t {
#define TILESIM_OP(Id, ...) Id,
#include "ir/Ops.def"
#undef TILESIM_OP
};

// The families of ir/Ops.def (its TILESIM_FAMILY lines), in table order. Engines dispatch on the family
// first, then on the family's own enum below.
enum class OpFamily : uint8_t {
#define TILESIM_FAMILY(Name, Description) Name,
#define TILESIM_OP(...)
#include "ir/Ops.def"
#undef TILESIM_OP
#undef TILESIM_FAMILY
};

// One enum per family holding exactly its ops, with OpKind's values: IntArithOp, FloatArithOp, MathOp,
// CompareOp, CastOp, ExternalOp, ConstantOp, ProgramOp, ShapeOp, PointerOp, MemoryOp, AtomicOp, DotOp,
// ReduceScanOp, ControlFlowOp, FunctionOp, TerminatorOp, DebugOp, SharedMemoryOp, HopperOp. A switch over one of them with no
// default covers the family, so a row added to a family does not compile until its switches handle it.
// (Each TILESIM_FAMILY line closes the enum before it and opens its own; the first closes this empty one.)
enum class OpFamilyNone_ : uint16_t {
#define TILESIM_FAMILY(Name, Description) \
  }                                       \
  ;                                       \
  enum class Name##Op : uint16_t {
#define TILESIM_OP(Id, ...) Id = static_cast<uint16_t>(OpKind::Id),
#include "ir/Ops.def"
#undef TILESIM_OP
#undef TILESIM_FAMILY
};

// The family of each family enum (undefined for any other type, so familyOp<int> does not compile).
template <typename FamilyEnum>
struct FamilyOfEnum;
#define TILESIM_FAMILY(Name, Description)                 \
  template <>                                             \
  struct FamilyOfEnum<Name##Op> {                         \
    static constexpr OpFamily value = OpFamily::Name;     \
  };
#define TILESIM_OP(...)
#include "ir/Ops.def"
#undef TILESIM_OP
#undef TILESIM_FAMILY

// The textual form of an op (how the printer writes it and the parser reads it):
//   Binary:   %r = op %a, %b {attrs} : T              (operands and result share T)
//   Unary:    %r = op %a {attrs} : T
//   Ternary:  %r = op %a, %b, %c {attrs} : T
//   Cast:     %r = op %a {attrs} : T to U
//   Arrow:    %r... = op %a, ... {attrs} : T -> U     (T is the first operand's type; results share U)
//   Compare:  %r = op pred, %a, %b {attrs} : T        (result is i1 of T's shape)
//   Select:   %r = op %c, %a, %b {attrs} : T          or `: C, T` when the condition is a tensor
//   Constant: %r = op value-attr                      (`1 : i32`, `true`, `dense<0.0> : tensor<4xf32>`)
//   Generic:  "op"(%a, ...) <{props}> ({regions}) {attrs} : (T...) -> (U...)
//   Custom:   written by hand: a parse and print pair per op in ir/text/syntax/ (CustomSyntax.cpp dispatches)
// Every op is also accepted by the parser in the generic form.
enum class Syntax : uint8_t { Binary, Unary, Ternary, Cast, Arrow, Compare, Select, Constant, Generic, Custom };

// The ops of Syntax::Custom, with OpKind's values: what ir/text/syntax/CustomSyntax.cpp switches over (no
// default), so a new custom-syntax row does not compile until it has a parse and print pair.
#define TILESIM_CUSTOM_Binary(Id)
#define TILESIM_CUSTOM_Unary(Id)
#define TILESIM_CUSTOM_Ternary(Id)
#define TILESIM_CUSTOM_Cast(Id)
#define TILESIM_CUSTOM_Arrow(Id)
#define TILESIM_CUSTOM_Compare(Id)
#define TILESIM_CUSTOM_Select(Id)
#define TILESIM_CUSTOM_Constant(Id)
#define TILESIM_CUSTOM_Generic(Id)
#define TILESIM_CUSTOM_Custom(Id) Id = static_cast<uint16_t>(OpKind::Id),
enum class CustomSyntaxOp : uint16_t {
#define TILESIM_OP(Id, Mnemonic, SyntaxKind, ...) TILESIM_CUSTOM_##SyntaxKind(Id)
#include "ir/Ops.def"
#undef TILESIM_OP
};
#undef TILESIM_CUSTOM_Binary
#undef TILESIM_CUSTOM_Unary
#undef TILESIM_CUSTOM_Ternary
#undef TILESIM_CUSTOM_Cast
#undef TILESIM_CUSTOM_Arrow
#undef TILESIM_CUSTOM_Compare
#undef TILESIM_CUSTOM_Select
#undef TILESIM_CUSTOM_Constant
#undef TILESIM_CUSTOM_Generic
#undef TILESIM_CUSTOM_Custom

enum OpTrait : uint32_t {
  kNone = 0,
  kElementwise = 1u << 0,   // applies lane by lane; operands broadcast-free, same shape as the result
  kCommutative = 1u << 1,
  kSameType = 1u << 2,      // all operands and the result have one type
  kTerminator = 1u << 3,
  kHasRegions = 1u << 4,
  kReadsMemory = 1u << 5,
  kWritesMemory = 1u << 6,
  kSideEffect = 1u << 7,    // observable besides memory (print, assert)
};

struct OpInfo {
  OpKind kind;
  OpFamily family;
  std::string_view mnemonic;
  Syntax syntax;
  int minOperands;
  int maxOperands;  // -1: variadic
  int numResults;   // -1: variadic
  uint32_t traits;
  std::string_view semantics;
};

const OpInfo& opInfo(OpKind kind);
OpFamily opFamily(OpKind kind);
std::string_view familyName(OpFamily family);         // "IntArith"
std::string_view familyDescription(OpFamily family);  // the TILESIM_FAMILY line's text
int numOpFamilies();
std::string_view mnemonic(OpKind kind);
bool hasTrait(OpKind kind, OpTrait trait);
std::optional<OpKind> lookupOp(std::string_view mnemonic);
int numOpKinds();
const char* syntaxName(Syntax syntax);

// `kind` as its family's enum, e.g. `switch (familyOp<ShapeOp>(op.kind))` inside the Shape family's file.
// Calling it for an op of another family is an internal error (the family dispatch rules it out).
template <typename FamilyEnum>
FamilyEnum familyOp(OpKind kind) {
  constexpr OpFamily family = FamilyOfEnum<FamilyEnum>::value;
  TILESIM_ASSERT(opFamily(kind) == family,
                 "op " + std::string(mnemonic(kind)) + " is not in family " + std::string(familyName(family)));
  return static_cast<FamilyEnum>(kind);
}

// `kind` as a CustomSyntaxOp; an op with a table-driven syntax is an internal error here.
inline CustomSyntaxOp customSyntaxOp(OpKind kind) {
  TILESIM_ASSERT(opInfo(kind).syntax == Syntax::Custom, "op " + std::string(mnemonic(kind)) + " has no custom syntax");
  return static_cast<CustomSyntaxOp>(kind);
}

}  // namespace tilesim

// The op enumeration and its per-op properties, all generated from ir/Ops.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tilesim {

enum class OpKind : uint16_t {
#define TILESIM_OP(Id, Mnemonic, Syntax, MinOperands, MaxOperands, NumResults, Traits, Doc) Id,
#include "ir/Ops.def"
#undef TILESIM_OP
};

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
//   Custom:   written by hand in ir/text/ (one function per op)
// Every op is also accepted by the parser in the generic form.
enum class Syntax : uint8_t { Binary, Unary, Ternary, Cast, Arrow, Compare, Select, Constant, Generic, Custom };

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
  std::string_view mnemonic;
  Syntax syntax;
  int minOperands;
  int maxOperands;  // -1: variadic
  int numResults;   // -1: variadic
  uint32_t traits;
  std::string_view semantics;
};

const OpInfo& opInfo(OpKind kind);
std::string_view mnemonic(OpKind kind);
bool hasTrait(OpKind kind, OpTrait trait);
std::optional<OpKind> lookupOp(std::string_view mnemonic);
int numOpKinds();
const char* syntaxName(Syntax syntax);

}  // namespace tilesim

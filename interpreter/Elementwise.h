// Whole-tile evaluation of every elementwise op: arith (except constant), math, tt.fp_to_fp, tt.bitcast of
// non-pointers, tt.precise_divf/sqrt, tt.mulhiui, tt.clampf, tt.extern_elementwise (libdevice), arith.select.
// Per-element semantics come from ir/eval/ScalarEval.h, so the interpreter and the fuzzer's expected values
// cannot disagree. Pointer ops (tt.addptr, int_to_ptr, ptr_to_int) belong to the engine.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "interpreter/Tile.h"
#include "ir/IR.h"
#include "ir/launch/Profiles.h"

namespace tilesim {

struct UBEvent {
  int64_t lane;
  UBKind kind;
};

struct ElementwiseContext {
  FloatProfile profile = FloatProfile::Exact;
  std::vector<UBEvent>* ubEvents = nullptr;  // when non-null, every UB lane is appended
};

// `operands` all have the shape of the op's result (the IR has no implicit broadcasting). Returns the result
// tile with data and, under the triton profile, error bounds; undefined masks are the engine's business.
// Returns null and sets `error` for an op that cannot be evaluated (unknown libdevice symbol, inline asm).
MutableTileRef evalElementwise(const Operation& op, std::span<const Tile* const> operands,
                               const ElementwiseContext& context, std::string* error);

}  // namespace tilesim

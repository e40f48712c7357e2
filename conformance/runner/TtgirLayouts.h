// Reads the layouts Triton chose for a kernel's tt.reduce ops from its TTGIR (kernel.ttgir beside a golden
// case), so the interpreter can combine in Triton's order (LaunchOptions::reduceLayouts). Only what that needs
// is parsed: the `#name = #ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>` definitions and,
// for every "tt.reduce" in text order, its axis and its first operand's type (a #blocked tensor, or a
// #ttg.slice of one). The i-th reduce of the TTGIR is matched with the i-th reduce of the TTIR kernel (pre-order
// walk); a reduce whose shape differs, whose layout is not blocked (#linear, #mma), or any count mismatch
// leaves that reduce in the contract order. A malformed definition or reduce header is an error (the case fails).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/launch/Launch.h"

namespace tilesim {

struct TtgirReduce {
  int axis = 0;
  std::vector<int64_t> shape;
  bool blocked = false;  // false: a layout whose order we do not model
  ReduceAxisLayout layout;
};

struct TtgirLayouts {
  std::vector<TtgirReduce> reduces;  // in text order
  std::string error;                 // malformed text: "file:line:col: error: message"; empty when it parsed
};

// A scanner, not a regex: one pass over the text with line:col, bounded work per character and no recursion,
// so any input (a 100 KB line, a number out of range, a zero in sizePerThread) is a diagnostic, never a crash.
// Blocked definitions must have positive entries (at most 2^20) and three lists of one length; a tt.reduce
// must read as `"tt.reduce"(OPERANDS) <{... axis = N ...}> ({REGION}) : (TYPE, ...)`. Everything else in the
// file (other ops, other layouts, locations) is skipped.
TtgirLayouts parseTtgirReduces(const std::string& text, const std::string& fileName = "kernel.ttgir");

// Matches the TTGIR's reduces with `kernel`'s; returns the layouts by op and counts what was left out.
struct ReduceLayoutMatch {
  std::map<const Operation*, ReduceAxisLayout> layouts;
  int unmatched = 0;  // reduces left in the contract order
};
ReduceLayoutMatch matchReduceLayouts(const TtgirLayouts& ttgir, const Function& kernel);

}  // namespace tilesim

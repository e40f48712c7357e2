// The Debug family on one program (Executor.h): tt.assert (a failed lane ends the program with an AssertFailed
// report), llvm.intr.assume (a false or undefined condition is reported and the program goes on) and tt.print
// (the lines are collected per program; LaunchOptions::maxPrintLines bounds them).
#include <cinttypes>
#include <cstdio>

#include "interpreter/Executor.h"
#include "ir/FloatBits.h"

namespace tilesim {

void Executor::executeAssert(const Operation& op, Frame& frame) {
  const Tile& condition = *get(frame, op.operand(0));
  for (int64_t lane = 0; lane < condition.size(); ++lane) {
    if (condition.undefinedMask() && condition.undefinedMask()[lane]) continue;
    if ((condition.bitsAt(lane) & 1) == 0) {
      Report r = makeReport(Report::Kind::AssertFailed, op, &condition, lane,
                            "assertion failed: " + AssertView{op}.message());
      throw ProgramTrap{std::move(r)};
    }
  }
}

// llvm.intr.assume (tl.assume): LLVM may compile the kernel as if the condition held, so a false one is
// undefined behaviour there. The interpreter reports it (and an undefined condition) and goes on: the values it
// computes are not affected by the promise.
void Executor::executeAssume(const Operation& op, Frame& frame) {
  const Tile& condition = *get(frame, op.operand(0));
  if (condition.undefinedMask() && condition.undefinedMask()[0]) {
    if (checks()) report(Report::Kind::UndefinedUse, op, &condition, 0, "an undefined value is assumed true");
    return;
  }
  if ((condition.bitsAt(0) & 1) == 0)
    report(Report::Kind::AssumeViolated, op, &condition, 0,
           "assumption is false: tl.assume promises it is true, and LLVM may compile the kernel as if it were");
}

void Executor::executePrint(const Operation& op, Frame& frame) {
  const PrintView print{op};
  std::string prefix = print.prefix();
  bool hex = print.hex();
  char head[96];
  std::snprintf(head, sizeof head, "pid (%" PRId64 ", %" PRId64 ", %" PRId64 ")", programId_[0], programId_[1],
                programId_[2]);
  const int64_t maxLines = context_.options.maxPrintLines;
  auto keep = [&](std::string line) {
    if (static_cast<int64_t>(printed_->lines.size()) < maxLines) printed_->lines.push_back(std::move(line));
    else ++printed_->dropped;
  };
  if (op.numOperands() == 0) {
    keep(std::string(head) + prefix);
    return;
  }
  for (const Value* v : op.operands) {
    const Tile& t = *get(frame, v);
    Type element = t.elementType();
    for (int64_t lane = 0; lane < t.size(); ++lane) {
      if (static_cast<int64_t>(printed_->lines.size()) >= maxLines) {  // only counted: do not build the text
        ++printed_->dropped;
        continue;
      }
      std::string line = head;
      if (t.type().isTensor()) {
        line += " idx (";
        auto index = ops::laneIndex(t.shape(), lane);
        for (size_t d = 0; d < index.size(); ++d) line += (d ? ", " : "") + std::to_string(index[d]);
        line += ")";
      }
      line += prefix;
      char value[64];
      if (hex || element.isPointer()) {
        std::snprintf(value, sizeof value, "0x%" PRIx64, t.bitsAt(lane));
      } else if (element.isFloat()) {
        std::snprintf(value, sizeof value, "%f", doubleFromFloatBits(t.bitsAt(lane), element.scalarKind()));
      } else {
        std::snprintf(value, sizeof value, "%" PRId64, t.signedAt(lane));
      }
      line += value;
      if (t.undefinedMask() && t.undefinedMask()[lane]) line += " (undefined)";
      keep(std::move(line));
    }
  }
}

}  // namespace tilesim

// The ControlFlow and Function families on one program (Executor.h): scf.for, scf.if, scf.while and tt.call,
// each running its regions through Executor::runBlock, which counts every op a body runs (its yield included)
// against the step limit, so a runaway loop ends with a StepLimit report; calls nest at most kMaxCallDepth deep.
#include <algorithm>

#include "interpreter/Executor.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim {
namespace {

constexpr int kMaxCallDepth = 64;

}  // namespace

bool Executor::scalarCondition(const Operation& op, const Tile& tile) {
  if (tile.undefinedMask() && tile.undefinedMask()[0] && checks())
    report(Report::Kind::UndefinedUse, op, &tile, 0, "an undefined value decides control flow");
  return tile.bitsAt(0) & 1;
}

int64_t Executor::scalarInt(const Operation& op, const Tile& tile, const char* what) {
  if (tile.undefinedMask() && tile.undefinedMask()[0] && checks())
    report(Report::Kind::UndefinedUse, op, &tile, 0, std::string("an undefined value is used as the loop ") + what);
  return tile.signedAt(0);
}

void Executor::executeFor(const Operation& op, Frame& frame) {
  const int64_t lower = scalarInt(op, *get(frame, op.operand(0)), "lower bound");
  const int64_t upper = scalarInt(op, *get(frame, op.operand(1)), "upper bound");
  const int64_t step = scalarInt(op, *get(frame, op.operand(2)), "step");
  if (step <= 0) trap(Report::Kind::UndefinedBehavior, op, "scf.for with a step of " + std::to_string(step));
  const Block& body = op.region(0).front();
  Type ivType = body.argument(0)->type;
  std::vector<TileRef> carried;
  for (size_t i = 3; i < op.numOperands(); ++i) carried.push_back(get(frame, op.operand(i)));
  std::vector<TileRef> arguments(carried.size() + 1);
  // The induction variable lives in its own type: the loop ends when iv + step would leave that type's range
  // (docs/semantics.md, "scf.for"), so no counter overflows and every loop with a positive step terminates.
  const int width = ivType.bitWidth();
  const int64_t ivMax = width >= 64 ? INT64_MAX : (int64_t{1} << (width - 1)) - 1;
  const Operation* outerLoop = currentLoop_;
  currentLoop_ = &op;
  for (int64_t iv = lower; TILESIM_MUTANT(interp_for_skips_last_iteration, iv < upper, iv < upper - 1);) {
    MutableTileRef ivTile = makeTile(ivType);
    ivTile->setBits(0, static_cast<uint64_t>(iv));
    arguments[0] = ivTile;
    std::copy(carried.begin(), carried.end(), arguments.begin() + 1);
    std::vector<TileRef> yielded = runBlock(body, arguments, frame);
    carried = std::move(yielded);  // the verifier checked that scf.yield carries exactly the iter_args
    if (iv > ivMax - step) {  // iv + step would overflow the induction variable's type
      // The GPU's counter (a plain add and a signed compare) wraps to a negative value and runs on: --check=ub
      // reports the overflow at the loop.
      if (context_.options.checkUB)
        report(Report::Kind::UndefinedBehavior, op, nullptr, -1,
               "scf.for induction variable overflow: " + std::to_string(iv) + " + step " + std::to_string(step) +
                   " exceeds the largest " + ivType.str() + " (" + std::to_string(ivMax) + ") before the upper bound " +
                   std::to_string(upper) + "; a GPU's counter wraps and the loop runs on, tilesim ends it here");
      break;
    }
    iv += step;
  }
  currentLoop_ = outerLoop;
  for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), carried[i]);
}

void Executor::executeIf(const Operation& op, Frame& frame) {
  bool condition = scalarCondition(op, *get(frame, op.operand(0)));
  const Region* region = condition ? &op.region(0) : (op.regions.size() > 1 ? &op.region(1) : nullptr);
  if (!region || region->empty()) return;
  std::vector<TileRef> yielded = runBlock(region->front(), {}, frame);
  for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), yielded[i]);
}

void Executor::executeWhile(const Operation& op, Frame& frame) {
  std::vector<TileRef> values;
  for (const Value* v : op.operands) values.push_back(get(frame, v));
  const Block& before = op.region(0).front();
  const Block& after = op.region(1).front();
  const Operation* condition = before.terminator();
  const Operation* outerLoop = currentLoop_;
  currentLoop_ = &op;
  for (;;) {
    std::vector<TileRef> forwarded = runBlock(before, values, frame);
    TILESIM_ASSERT(!forwarded.empty(), "scf.condition without a flag");
    bool keepGoing = scalarCondition(*condition, *forwarded[0]);
    forwarded.erase(forwarded.begin());
    if (!keepGoing) {
      for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), forwarded[i]);
      currentLoop_ = outerLoop;
      return;
    }
    values = runBlock(after, forwarded, frame);
  }
}

std::vector<TileRef> Executor::callFunction(const PreparedFunction& function, std::span<const TileRef> arguments) {
  Frame callee;
  callee.values.resize(function.numValues);
  return runBlock(function.op->region(0).front(), arguments, callee);
}

void Executor::executeCall(const Operation& op, Frame& frame) {
  const std::string& callee = CallView{op}.callee();
  auto it = context_.functions.find(callee);
  if (it == context_.functions.end()) trap(Report::Kind::Unsupported, op, "call of unknown function @" + callee);
  if (callDepth_ + 1 > kMaxCallDepth) trap(Report::Kind::Unsupported, op, "call depth exceeds 64 (recursion?)");
  std::vector<TileRef> arguments;
  for (const Value* v : op.operands) arguments.push_back(get(frame, v));
  ++callDepth_;
  std::vector<TileRef> results;
  try {
    results = callFunction(it->second, arguments);
  } catch (...) {  // a trap in the callee ends the program; the depth must not stay raised for the next one
    --callDepth_;
    throw;
  }
  --callDepth_;
  for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), results[i]);
}

}  // namespace tilesim

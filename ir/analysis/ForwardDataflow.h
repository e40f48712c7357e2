// ForwardDataflow<Lattice>: a sparse forward dataflow framework over SSA values. Each Value gets a lattice
// state; an analysis supplies the transfer function of ordinary ops and the state of values it cannot see
// into, and the framework handles structured control flow and iteration to a fixed point:
//   - ordinary op: results = transfer(op, operand states), once every operand has a state;
//   - scf.for: induction variable from inductionVariable(lb, ub, step); iter args = join(inits, yields);
//     results = join(inits, yields) (the loop may run zero times);
//   - scf.if: results = join(then yields, else yields);
//   - scf.while: before args = join(inits, after-region yields); after args and results = the values
//     scf.condition forwards;
//   - block arguments of other regions (tt.reduce / tt.scan combine regions): pessimistic (no combine-region
//     reasoning); results of tt.call: transferCall(), pessimistic unless overridden; kernel arguments:
//     argumentState();
//   - arguments of the non-entry blocks of a function's CFG (cf.br / cf.cond_br successors): pessimistic.
// States only grow (each update joins into the old state), and a value updated more than kWideningLimit times
// jumps to pessimistic, so the worklist terminates even for a lattice of unbounded height.
//
// Lattice requirements: copyable; `bool operator==`; `static Lattice join(const Lattice&, const Lattice&)`
// (commutative, associative, idempotent; joining with the pessimistic state gives the pessimistic state).
// "No state yet" (bottom) is represented by the framework itself, so lattices need no bottom element.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/IR.h"
#include "ir/analysis/UseLists.h"

namespace tilesim::analysis {

template <typename Lattice>
class ForwardDataflow {
 public:
  static constexpr unsigned kWideningLimit = 32;

  virtual ~ForwardDataflow() = default;

  // Analyses every function of the module (each with its own use lists).
  void run(const Module& module) {
    for (const Function& function : module.allFunctions()) run(function);
  }
  void run(const Function& function) {
    UseLists uses(*function.op());
    uses_ = &uses;
    for (size_t i = 0; i < function.numArguments(); ++i)
      update(*function.argument(i), argumentState(function, *function.argument(i)));
    const Region& body = function.op()->region(0);
    for (size_t b = 1; b < body.blocks.size(); ++b)
      for (const auto& argument : body.blocks[b]->arguments) update(*argument, pessimistic(*argument));
    walk(*function.op(), [&](const Operation& op) {
      if (&op != function.op() && !isStructuredLoopOrBranch(op.kind))
        for (const auto& region : op.regions)
          for (const auto& block : region->blocks)
            for (const auto& argument : block->arguments) update(*argument, pessimistic(*argument));
      enqueue(op);
    });
    while (!worklist_.empty()) {
      const Operation* op = worklist_.front();
      worklist_.pop_front();
      queued_.erase(op);
      visit(*op);
    }
    uses_ = nullptr;
  }

  // The state of `value`, or null when the analysis never reached it (dead code).
  const Lattice* lookup(const Value& value) const {
    auto found = states_.find(&value);
    return found == states_.end() ? nullptr : &found->second.state;
  }
  // The state, pessimistic when never reached.
  Lattice stateOf(const Value& value) const {
    const Lattice* state = lookup(value);
    return state ? *state : pessimistic(value);
  }

 protected:
  // Knows nothing about the value (the top of the lattice, where widening goes).
  virtual Lattice pessimistic(const Value& value) const = 0;
  // The state of a function argument on entry.
  virtual Lattice argumentState(const Function&, const Value& argument) const { return pessimistic(argument); }
  // Transfer of an ordinary op: `results` arrives filled with pessimistic states; overwrite what is known.
  virtual void transfer(const Operation& op, const std::vector<const Lattice*>& operands,
                        std::vector<Lattice>& results) const = 0;
  // Transfer of a tt.call: `results` arrives pessimistic and stays so unless the analysis knows better (it is
  // not inter-procedural: it may only look at the callee as a whole).
  virtual void transferCall(const Operation& /*call*/, const std::vector<const Lattice*>& /*operands*/,
                            std::vector<Lattice>& /*results*/) const {}
  // The induction variable of an scf.for from the states of its bounds and step.
  virtual Lattice inductionVariable(const Operation& forOp, const Lattice& /*lower*/, const Lattice& /*upper*/,
                                    const Lattice& /*step*/) const {
    return pessimistic(*forOp.region(0).front().argument(0));
  }

 private:
  struct Entry {
    Lattice state;
    unsigned updates = 0;
  };

  static bool isStructuredLoopOrBranch(OpKind kind) {
    return kind == OpKind::SCFFor || kind == OpKind::SCFIf || kind == OpKind::SCFWhile;
  }

  void enqueue(const Operation& op) {
    if (queued_.insert(&op).second) worklist_.push_back(&op);
  }

  // Joins `incoming` into the state of `value`; on a change, every user of `value` is revisited.
  void update(const Value& value, const Lattice& incoming) {
    auto found = states_.find(&value);
    if (found == states_.end()) {
      states_.emplace(&value, Entry{incoming, 1});
    } else {
      Entry& entry = found->second;
      Lattice joined = Lattice::join(entry.state, incoming);
      if (joined == entry.state) return;
      entry.state = ++entry.updates > kWideningLimit ? pessimistic(value) : std::move(joined);
    }
    for (const Use& use : uses_->uses(&value)) enqueue(*use.user);
  }

  // Joins the states of `sources` (those that have one) into `targets`, pairwise.
  template <typename Targets>
  void forward(std::span<Value* const> sources, const Targets& targets) {
    for (size_t i = 0; i < sources.size() && i < targets.size(); ++i)
      if (const Lattice* state = lookup(*sources[i])) update(*targets[i], *state);
  }

  static std::vector<const Value*> results(const Operation& op) {
    std::vector<const Value*> values;
    for (const auto& result : op.results) values.push_back(result.get());
    return values;
  }
  static std::vector<const Value*> arguments(const Block& block, size_t first = 0) {
    std::vector<const Value*> values;
    for (size_t i = first; i < block.arguments.size(); ++i) values.push_back(block.arguments[i].get());
    return values;
  }

  // scf ops and their terminators move states between regions; false for every other op. An if-chain, since
  // a switch over OpKind would have to list every ordinary op (the style forbids `default:` there).
  bool visitControlFlow(const Operation& op) {
    std::span<Value* const> operands(op.operands);
    if (op.kind == OpKind::SCFFor) {
      const Block& body = op.region(0).front();
      const Lattice *lower = lookup(*op.operand(0)), *upper = lookup(*op.operand(1)), *step = lookup(*op.operand(2));
      if (lower && upper && step) update(*body.argument(0), inductionVariable(op, *lower, *upper, *step));
      forward(operands.subspan(3), arguments(body, 1));
      forward(operands.subspan(3), results(op));
      return true;
    }
    if (op.kind == OpKind::SCFWhile) {
      forward(operands, arguments(op.region(0).front()));
      return true;
    }
    if (op.kind == OpKind::SCFIf) return true;  // its results come from the yields
    const Operation* parent = op.parentOp();
    if (op.kind == OpKind::SCFYield && parent) {
      if (parent->kind == OpKind::SCFFor) forward(operands, arguments(parent->region(0).front(), 1));
      if (parent->kind == OpKind::SCFWhile) forward(operands, arguments(parent->region(0).front()));
      else forward(operands, results(*parent));
      return true;
    }
    if (op.kind == OpKind::SCFCondition && parent && parent->kind == OpKind::SCFWhile) {
      forward(operands.subspan(1), arguments(parent->region(1).front()));
      forward(operands.subspan(1), results(*parent));
      return true;
    }
    return false;
  }

  void visit(const Operation& op) {
    if (visitControlFlow(op)) return;
    if (op.numResults() == 0) return;
    std::vector<const Lattice*> operandStates;
    for (const Value* operand : op.operands) {
      const Lattice* state = lookup(*operand);
      if (!state) return;  // revisited once the operand has a state
      operandStates.push_back(state);
    }
    std::vector<Lattice> resultStates;
    for (const auto& result : op.results) resultStates.push_back(pessimistic(*result));
    if (op.kind == OpKind::TTCall) transferCall(op, operandStates, resultStates);
    else transfer(op, operandStates, resultStates);
    for (size_t i = 0; i < op.numResults(); ++i) update(*op.result(i), resultStates[i]);
  }

  std::unordered_map<const Value*, Entry> states_;
  std::deque<const Operation*> worklist_;
  std::unordered_set<const Operation*> queued_;
  UseLists* uses_ = nullptr;
};

}  // namespace tilesim::analysis

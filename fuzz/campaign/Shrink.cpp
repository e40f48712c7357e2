// The plan shrinker (see Shrink.h).
#include "fuzz/campaign/Shrink.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tilesim::fuzz {
namespace {

class Shrinker {
 public:
  Shrinker(KernelPlan plan, const ShrinkPredicate& stillFails, int budget)
      : plan_(std::move(plan)), stillFails_(stillFails), budget_(budget) {
    for (size_t j = 0; j < plan_.outputs.size(); ++j) origin_.push_back(static_cast<int>(j));
  }

  KernelPlan run(ShrinkStats* stats) {
    bool progress = true;
    while (progress && stats_.tried < budget_) {
      progress = false;
      progress |= dropOutputs();
      progress |= dropNodeRanges();
      progress |= dropInputs();
      progress |= retargetOutputs();
      progress |= simplifyNodes();
      progress |= shrinkLaunch();
      progress |= simplifyDTypes();
    }
    if (stats) *stats = stats_;
    return plan_;
  }

 private:
  // Tries `candidate` (outputs as in the current plan, or as `origin` says); keeps it when it still fails.
  bool attempt(const KernelPlan& candidate) { return attempt(candidate, origin_); }
  bool attempt(const KernelPlan& candidate, const std::vector<int>& origin) {
    if (stats_.tried >= budget_) return false;
    ++stats_.tried;
    if (!stillFails_(candidate, origin)) return false;
    plan_ = candidate;
    origin_ = origin;
    ++stats_.accepted;
    return true;
  }

  // Tries removing each element of a list in turn, never the last one: `count(plan)` is the list's length, and
  // `removeAndAttempt(i)` removes element i from a copy of the plan and says whether the copy still fails (then
  // it is the plan, and the element now at i is tried next).
  template <typename Count, typename RemoveAndAttempt>
  bool dropEach(Count count, RemoveAndAttempt removeAndAttempt) {
    bool any = false;
    for (size_t i = 0; count(plan_) > 1 && i < count(plan_);)
      if (removeAndAttempt(i)) any = true; else ++i;
    return any;
  }

  bool dropOutputs() {
    return dropEach([](const KernelPlan& plan) { return plan.outputs.size(); }, [&](size_t j) {
      KernelPlan c = plan_;
      c.outputs.erase(c.outputs.begin() + static_cast<long>(j));
      if (j < c.outputTrims.size()) c.outputTrims.erase(c.outputTrims.begin() + static_cast<long>(j));
      if (j < c.outputPointers.size()) c.outputPointers.erase(c.outputPointers.begin() + static_cast<long>(j));
      std::vector<int> origin = origin_;
      origin.erase(origin.begin() + static_cast<long>(j));
      return attempt(c, origin);
    });
  }

  // Value indices as the builder resolves them (KernelWriter::pick): operand x of node j names value
  // x % (inputs + values made by nodes before j) unless x % 8 == 7 (pid / offs); outputs index all values. Which
  // nodes make a value comes from building the plan. Removing a node or an input shifts the later values down;
  // references to the removed value go to value 0 (the first input).
  static uint32_t encode(uint32_t value, uint32_t available) {
    if (available == 0) return 0;
    for (uint32_t k = 0; k < 16; ++k) {
      uint32_t x = value + k * available;
      if (x % 8 != 7) return x;
    }
    return value;
  }
  static std::vector<uint8_t> madeValues(const KernelPlan& plan) {
    BuiltKernel built = buildKernel(plan);
    if (built.nodeMadeValue.size() != plan.nodes.size()) return std::vector<uint8_t>(plan.nodes.size(), 1);
    return built.nodeMadeValue;
  }
  // `old` is the plan before the removal, `c` after: node `removedNode` (>= 0) or input `removedInput` (>= 0) gone.
  static void remap(const KernelPlan& old, KernelPlan& c, int removedNode, int removedInput) {
    const std::vector<uint8_t> made = madeValues(old);
    const uint32_t inputs = static_cast<uint32_t>(old.inputs.size());
    // The removed value's index (or none) in the old numbering.
    int64_t gone = -1;
    uint32_t before = inputs;
    if (removedInput >= 0) gone = removedInput;
    for (size_t j = 0; j < old.nodes.size(); ++j) {
      if (static_cast<int>(j) == removedNode && made[j]) gone = before;
      before += made[j];
    }
    const uint32_t oldTotal = before;
    auto shift = [&](uint32_t v) -> uint32_t {
      if (gone < 0) return v;
      return v > gone ? v - 1 : v == gone ? 0 : v;
    };
    uint32_t available = inputs;  // values before old node j
    for (size_t j = 0, k = 0; j < old.nodes.size(); ++j) {
      if (static_cast<int>(j) == removedNode) {
        available += made[j];
        continue;
      }
      Node& node = c.nodes[k++];
      const uint32_t newAvailable = std::max<uint32_t>(1, available - (gone >= 0 && gone < available ? 1 : 0));
      for (uint32_t* x : {&node.a, &node.b, &node.c}) {
        if (*x % 8 == 7) continue;
        *x = encode(shift(*x % std::max<uint32_t>(1, available)), newAvailable);
      }
      available += made[j];
    }
    for (uint32_t& o : c.outputs) o = shift(o % std::max<uint32_t>(1, oldTotal));
  }

  bool dropNodeRanges() {
    bool any = false;
    // The tail after a node first: one output (each in turn, keeping who it is) stores that node's value, and
    // nothing after the node is needed.
    bool cut = false;
    for (size_t keep = 0; keep < plan_.nodes.size() && !cut; ++keep) {
      KernelPlan c = plan_;
      c.nodes.resize(keep + 1);
      const std::vector<uint8_t> made = madeValues(c);
      if (!made[keep]) continue;
      uint32_t value = static_cast<uint32_t>(c.inputs.size());
      for (size_t j = 0; j < keep; ++j) value += made[j];
      for (size_t j = 0; j < plan_.outputs.size() && !cut; ++j) {
        KernelPlan d = c;
        d.outputs = {value};
        d.outputTrims = {j < plan_.outputTrims.size() ? plan_.outputTrims[j] : 0};
        d.outputPointers = {j < plan_.outputPointers.size() ? plan_.outputPointers[j] : PointerPlan{}};
        cut = attempt(d, {origin_[j]});
      }
    }
    any |= cut;
    for (size_t chunk = std::max<size_t>(1, plan_.nodes.size() / 2); chunk >= 1; chunk /= 2) {
      for (size_t i = 0; i + chunk <= plan_.nodes.size();) {
        KernelPlan c = plan_;
        for (size_t k = i + chunk; k > i; --k) {
          KernelPlan old = c;
          c.nodes.erase(c.nodes.begin() + static_cast<long>(k - 1));
          remap(old, c, static_cast<int>(k - 1), -1);
        }
        if (attempt(c)) any = true; else i += chunk;
      }
      if (chunk == 1) break;
    }
    return any;
  }

  bool dropInputs() {
    return dropEach([](const KernelPlan& plan) { return plan.inputs.size(); }, [&](size_t i) {
      KernelPlan c = plan_;
      c.inputs.erase(c.inputs.begin() + static_cast<long>(i));
      remap(plan_, c, -1, static_cast<int>(i));
      return attempt(c);
    });
  }

  // Each output may store an earlier value instead.
  bool retargetOutputs() {
    bool any = false;
    const uint32_t total = static_cast<uint32_t>(plan_.inputs.size() + plan_.nodes.size());
    for (size_t j = 0; j < plan_.outputs.size(); ++j)
      for (uint32_t v = 0; v < total && v < plan_.outputs[j] % std::max<uint32_t>(1, total); ++v) {
        KernelPlan c = plan_;
        c.outputs[j] = v;
        if (attempt(c)) {
          any = true;
          break;
        }
      }
    return any;
  }

  // Operands become the first input (value 0) or a literal; variants and flags go to 0; a node's op becomes a
  // plain elementwise one (a loop, branch or call whose body does the failing thing becomes that thing).
  bool simplifyNodes() {
    bool any = false;
    static const NodeOp kSimple[] = {NodeOp::Add, NodeOp::Sub, NodeOp::Mul, NodeOp::Xor, NodeOp::Maximum, NodeOp::Cast};
    for (size_t i = 0; i < plan_.nodes.size(); ++i) {
      const NodeOp op = plan_.nodes[i].op;
      if (std::find(std::begin(kSimple), std::end(kSimple), op) != std::end(kSimple)) continue;
      for (NodeOp simple : kSimple) {
        KernelPlan c = plan_;
        c.nodes[i].op = simple;
        if (attempt(c)) {
          any = true;
          break;
        }
      }
    }
    for (size_t i = 0; i < plan_.nodes.size(); ++i) {
      const Node n = plan_.nodes[i];
      auto tryNode = [&](auto change) {
        KernelPlan c = plan_;
        change(c.nodes[i]);
        if (std::memcmp(&c.nodes[i], &plan_.nodes[i], sizeof(Node)) == 0) return false;
        return attempt(c);
      };
      if (n.a != 0) any |= tryNode([](Node& x) { x.a = 0; });
      if (!n.literalB) any |= tryNode([](Node& x) { x.literalB = true; x.literalIndex = 1; });
      if (n.b != 0) any |= tryNode([](Node& x) { x.b = 0; });
      if (n.c != 0) any |= tryNode([](Node& x) { x.c = 0; });
      if (n.variant != 0) any |= tryNode([](Node& x) { x.variant = 0; });
      if (n.literalB && n.literalIndex > 1) any |= tryNode([](Node& x) { x.literalIndex = 1; });
      if (n.castTo != builder::DType::Int32) any |= tryNode([](Node& x) { x.castTo = builder::DType::Int32; });
    }
    return any;
  }

  // One addressing variant of a pointer at a time (groups, the backwards rebase, i64 offsets, stride and shift,
  // the mask's extra term), for a failure that needs one of them and not the others. `pointerOf` finds the
  // pointer in a plan.
  template <typename PointerOf>
  bool simplifyPointer(PointerOf pointerOf) {
    auto tryPointer = [&](auto change) {
      KernelPlan c = plan_;
      change(pointerOf(c));
      return attempt(c);
    };
    bool any = false;
    if (pointerOf(plan_).group != 1) any |= tryPointer([](PointerPlan& p) { p.group = 1; });
    if (pointerOf(plan_).rebase) any |= tryPointer([](PointerPlan& p) { p.rebase = false; });
    if (pointerOf(plan_).offsets64) any |= tryPointer([](PointerPlan& p) { p.offsets64 = false; });
    if (pointerOf(plan_).stride != 1 || pointerOf(plan_).shift != 0)
      any |= tryPointer([](PointerPlan& p) { p.stride = 1; p.shift = 0; });
    if (pointerOf(plan_).maskKind != 0) any |= tryPointer([](PointerPlan& p) { p.maskKind = 0; });
    return any;
  }

  bool shrinkLaunch() {
    bool any = false;
    auto tryPlan = [&](auto change) {
      KernelPlan c = plan_;
      change(c);
      return attempt(c);
    };
    if (plan_.grid > 1) any |= tryPlan([](KernelPlan& c) { c.grid = 1; }) || tryPlan([](KernelPlan& c) { c.grid /= 2; });
    if (plan_.block.size() == 2) any |= tryPlan([](KernelPlan& c) { c.block.pop_back(); });
    for (size_t d = 0; d < plan_.block.size(); ++d)
      while (plan_.block[d] > 1 && tryPlan([d](KernelPlan& c) { c.block[d] /= 2; })) any = true;
    if (plan_.numWarps != 1) any |= tryPlan([](KernelPlan& c) { c.numWarps = 1; });
    if (plan_.numWarps > 1) any |= tryPlan([](KernelPlan& c) { c.numWarps /= 2; });
    for (size_t i = 0; i < plan_.inputs.size(); ++i) {
      if (plan_.inputs[i].trim != 0) any |= tryPlan([i](KernelPlan& c) { c.inputs[i].trim = 0; });
      if (!plan_.inputs[i].withOther) any |= tryPlan([i](KernelPlan& c) { c.inputs[i].withOther = true; });
      if (!plan_.inputs[i].pointer.plain()) any |= tryPlan([i](KernelPlan& c) { c.inputs[i].pointer = PointerPlan{}; });
      if (!plan_.inputs[i].pointer.plain()) any |= simplifyPointer([i](KernelPlan& c) -> PointerPlan& { return c.inputs[i].pointer; });
      if (plan_.inputs[i].convert != 0) any |= tryPlan([i](KernelPlan& c) { c.inputs[i].convert = 0; });
    }
    for (size_t j = 0; j < plan_.outputTrims.size(); ++j)
      if (plan_.outputTrims[j] != 0) any |= tryPlan([j](KernelPlan& c) { c.outputTrims[j] = 0; });
    for (size_t j = 0; j < plan_.outputPointers.size(); ++j)
      if (!plan_.outputPointers[j].plain()) any |= tryPlan([j](KernelPlan& c) { c.outputPointers[j] = PointerPlan{}; });
    if (plan_.features != 0)
      for (uint32_t bit = 1; bit && bit <= plan_.features; bit <<= 1)
        if (plan_.features & bit) any |= tryPlan([bit](KernelPlan& c) { c.features &= ~bit; });
    return any;
  }

  bool simplifyDTypes() {
    bool any = false;
    for (size_t i = 0; i < plan_.inputs.size(); ++i)
      for (builder::DType simple : {builder::DType::Int32, builder::DType::Fp32})
        if (plan_.inputs[i].dtype != simple) {
          KernelPlan c = plan_;
          c.inputs[i].dtype = simple;
          if (attempt(c)) { any = true; break; }
        }
    return any;
  }

  KernelPlan plan_;
  std::vector<int> origin_;  // per output of plan_: its index in the original plan
  const ShrinkPredicate& stillFails_;
  int budget_;
  ShrinkStats stats_;
};

}  // namespace

KernelPlan shrinkPlan(const KernelPlan& plan, const ShrinkPredicate& stillFails, int budget, ShrinkStats* stats) {
  return Shrinker(plan, stillFails, budget).run(stats);
}

KernelPlan shrinkPlan(const KernelPlan& plan, const std::function<bool(const KernelPlan&)>& stillFails, int budget,
                      ShrinkStats* stats) {
  ShrinkPredicate ignoringOrigins = [&](const KernelPlan& candidate, const std::vector<int>&) { return stillFails(candidate); };
  return shrinkPlan(plan, ignoringOrigins, budget, stats);
}

namespace {
// A buffer argument's identity across shrinking: `out<original output index>`, `in`, `atom` (or the name).
std::string bufferIdentity(const std::string& name, const std::vector<int>* outputOrigin) {
  auto numbered = [&](const char* prefix, size_t& number) {
    const size_t length = std::strlen(prefix);
    if (name.size() <= length || name.compare(0, length, prefix) != 0) return false;
    number = 0;
    for (size_t i = length; i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9') return false;
      number = number * 10 + static_cast<size_t>(name[i] - '0');
    }
    return true;
  };
  size_t number = 0;
  if (numbered("out", number)) {
    if (!outputOrigin) return name;
    return number < outputOrigin->size() ? "out" + std::to_string((*outputOrigin)[number]) : "out?";
  }
  if (numbered("in", number)) return "in";
  if (numbered("atom", number)) return "atom";
  return name;
}
}  // namespace

bool sameFailure(const FailureClass& original, const FailureClass& candidate, const std::vector<int>& outputOrigin) {
  if (candidate.kind != original.kind) return false;
  if (original.buffers.empty()) return candidate.buffers.empty();
  if (candidate.buffers.empty()) return false;
  std::vector<std::string> wanted;
  for (const std::string& name : original.buffers) wanted.push_back(bufferIdentity(name, nullptr));
  for (const std::string& name : candidate.buffers) {
    std::string id = bufferIdentity(name, &outputOrigin);
    if (std::find(wanted.begin(), wanted.end(), id) == wanted.end()) return false;
  }
  return true;
}

}  // namespace tilesim::fuzz

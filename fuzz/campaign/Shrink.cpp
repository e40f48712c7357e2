// The plan shrinker (see Shrink.h).
#include "fuzz/campaign/Shrink.h"

#include <cstring>
#include <vector>

namespace tilesim::fuzz {
namespace {

class Shrinker {
 public:
  Shrinker(KernelPlan plan, const std::function<bool(const KernelPlan&)>& stillFails, int budget)
      : plan_(std::move(plan)), stillFails_(stillFails), budget_(budget) {}

  KernelPlan run(ShrinkStats* stats) {
    bool progress = true;
    while (progress && stats_.tried < budget_) {
      progress = false;
      progress |= dropOutputs();
      progress |= dropNodeRanges();
      progress |= dropInputs();
      progress |= simplifyNodes();
      progress |= shrinkLaunch();
      progress |= simplifyDTypes();
    }
    if (stats) *stats = stats_;
    return plan_;
  }

 private:
  // Tries `candidate`; keeps it when it still fails.
  bool attempt(const KernelPlan& candidate) {
    if (stats_.tried >= budget_) return false;
    ++stats_.tried;
    if (!stillFails_(candidate)) return false;
    plan_ = candidate;
    ++stats_.accepted;
    return true;
  }

  bool dropOutputs() {
    bool any = false;
    for (size_t j = 0; plan_.outputs.size() > 1 && j < plan_.outputs.size();) {
      KernelPlan c = plan_;
      c.outputs.erase(c.outputs.begin() + static_cast<long>(j));
      if (j < c.outputTrims.size()) c.outputTrims.erase(c.outputTrims.begin() + static_cast<long>(j));
      if (attempt(c)) any = true; else ++j;
    }
    return any;
  }

  // Output value indices count from the end of the DAG; keep them pointing at the same node when nodes go.
  static void eraseNodes(KernelPlan& c, size_t begin, size_t end) {
    c.nodes.erase(c.nodes.begin() + static_cast<long>(begin), c.nodes.begin() + static_cast<long>(end));
  }

  bool dropNodeRanges() {
    bool any = false;
    for (size_t chunk = std::max<size_t>(1, plan_.nodes.size() / 2); chunk >= 1; chunk /= 2) {
      for (size_t i = 0; i + chunk <= plan_.nodes.size();) {
        KernelPlan c = plan_;
        eraseNodes(c, i, i + chunk);
        if (attempt(c)) any = true; else i += chunk;
      }
      if (chunk == 1) break;
    }
    return any;
  }

  bool dropInputs() {
    bool any = false;
    for (size_t i = 0; plan_.inputs.size() > 1 && i < plan_.inputs.size();) {
      KernelPlan c = plan_;
      c.inputs.erase(c.inputs.begin() + static_cast<long>(i));
      if (attempt(c)) any = true; else ++i;
    }
    return any;
  }

  // Operands become the first input (value 0) or a literal; variants and flags go to 0.
  bool simplifyNodes() {
    bool any = false;
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
    }
    for (size_t j = 0; j < plan_.outputTrims.size(); ++j)
      if (plan_.outputTrims[j] != 0) any |= tryPlan([j](KernelPlan& c) { c.outputTrims[j] = 0; });
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
  const std::function<bool(const KernelPlan&)>& stillFails_;
  int budget_;
  ShrinkStats stats_;
};

}  // namespace

KernelPlan shrinkPlan(const KernelPlan& plan, const std::function<bool(const KernelPlan&)>& stillFails, int budget,
                      ShrinkStats* stats) {
  return Shrinker(plan, stillFails, budget).run(stats);
}

}  // namespace tilesim::fuzz

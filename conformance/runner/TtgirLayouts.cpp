// TTGIR reduce layouts (conformance/runner/TtgirLayouts.h).
#include "conformance/runner/TtgirLayouts.h"

#include <regex>
#include <sstream>

#include "ir/analysis/ReducePatterns.h"

namespace tilesim {
namespace {

struct Blocked {
  std::vector<int64_t> sizePerThread, threadsPerWarp, warpsPerCTA;
};

std::vector<int64_t> numberList(const std::string& text) {
  std::vector<int64_t> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(std::stoll(item));
  return values;
}

bool listAttribute(const std::string& text, const std::string& name, std::vector<int64_t>& out) {
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(name + R"( = \[([0-9, ]*)\])"))) return false;
  out = numberList(match[1].str());
  return true;
}

// The extent along `axis` limited so that a layout never holds one element in two lanes (broadcast).
ReduceAxisLayout axisLayout(const Blocked& blocked, size_t dim, int64_t extent) {
  ReduceAxisLayout layout;
  layout.sizePerThread = std::min(blocked.sizePerThread[dim], extent);
  layout.threadsPerWarp = std::min(blocked.threadsPerWarp[dim], std::max<int64_t>(1, extent / layout.sizePerThread));
  layout.warpsPerCTA = std::min(blocked.warpsPerCTA[dim],
                                std::max<int64_t>(1, extent / (layout.sizePerThread * layout.threadsPerWarp)));
  return layout;
}

}  // namespace

TtgirLayouts parseTtgirReduces(const std::string& text) {
  TtgirLayouts result;
  std::map<std::string, Blocked> blocked;
  const std::regex definition(R"(^#(\w+) = #ttg\.blocked<\{(.*)\}>)");
  const std::regex reduceStart(R"re("tt\.reduce"\(.*axis = (-?\d+) : i32)re");
  const std::regex operandType(R"(^\s*\}\) : \(tensor<([0-9x]+)x[a-z0-9]+, (#\w+|#ttg\.slice<\{dim = (\d+), parent = #(\w+)\}>)>)");
  std::stringstream stream(text);
  std::string line;
  bool inReduce = false;
  TtgirReduce pending;
  while (std::getline(stream, line)) {
    std::smatch match;
    if (std::regex_search(line, match, definition)) {
      Blocked layout;
      std::string body = match[2].str();
      if (listAttribute(body, "sizePerThread", layout.sizePerThread) &&
          listAttribute(body, "threadsPerWarp", layout.threadsPerWarp) &&
          listAttribute(body, "warpsPerCTA", layout.warpsPerCTA))
        blocked[match[1].str()] = layout;
      continue;
    }
    if (std::regex_search(line, match, reduceStart)) {
      inReduce = true;
      pending = TtgirReduce{};
      pending.axis = std::stoi(match[1].str());
      continue;
    }
    if (!inReduce || !std::regex_search(line, match, operandType)) continue;
    inReduce = false;
    std::string dims = match[1].str();
    for (size_t at = 0, next; at <= dims.size(); at = next + 1) {
      next = dims.find('x', at);
      if (next == std::string::npos) next = dims.size();
      pending.shape.push_back(std::stoll(dims.substr(at, next - at)));
    }
    const bool sliced = match[3].matched;
    auto found = blocked.find(sliced ? match[4].str() : match[2].str().substr(1));
    if (found != blocked.end() && pending.axis >= 0 && pending.axis < static_cast<int>(pending.shape.size())) {
      // A slice drops parent dim `dim`: operand dims below it are the parent's, the rest shift by one.
      size_t dim = static_cast<size_t>(pending.axis);
      if (sliced && dim >= std::stoul(match[3].str())) ++dim;
      if (dim < found->second.sizePerThread.size()) {
        pending.blocked = true;
        pending.layout = axisLayout(found->second, dim, pending.shape[static_cast<size_t>(pending.axis)]);
      }
    }
    result.reduces.push_back(pending);
  }
  return result;
}

ReduceLayoutMatch matchReduceLayouts(const TtgirLayouts& ttgir, const Function& kernel) {
  ReduceLayoutMatch match;
  std::vector<const Operation*> reduces;
  walk(*kernel.op(), [&](const Operation& op) {
    if (op.kind == OpKind::TTReduce) reduces.push_back(&op);
  });
  if (reduces.size() != ttgir.reduces.size()) {
    match.unmatched = static_cast<int>(reduces.size());
    return match;
  }
  for (size_t i = 0; i < reduces.size(); ++i) {
    const TtgirReduce& layout = ttgir.reduces[i];
    const Operation& op = *reduces[i];
    std::span<const int64_t> shape = op.operand(0)->type.shape();
    bool same = layout.blocked && op.intAttr("axis") == layout.axis &&
                std::equal(shape.begin(), shape.end(), layout.shape.begin(), layout.shape.end());
    if (same) {
      match.layouts[&op] = layout.layout;
      match.layouts[&op].fusedMultiply = analysis::reduceFusesMultiply(op, kernel);
    }
    else ++match.unmatched;
  }
  return match;
}

}  // namespace tilesim

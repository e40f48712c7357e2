// Probe replay: the key oracle for the elementwise numerics. Every record of conformance/probes/probes.json
// is a single-op Triton 3.6 kernel run on an H200 on 16 inputs. We replay its TTIR with evalElementwise:
// loads are fed with the probe's inputs (converted into the loaded dtype as the probe did), every op between
// the loads and the stores is evaluated in order (including the output casts to f64/i64), and what is stored
// is compared with the GPU's values. Bit-exact, except where the triton profile's error bound allows slack
// (fp32 `/` is div.full.f32 on the GPU). The TTIR is read by a small line reader for the probe kernels' few
// op forms; when ir/text/Parser lands it can replace ProbeReader below.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "interpreter/Elementwise.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

// Python's json writes NaN / Infinity / -Infinity, which JSON (and nlohmann) reject: quote them.
std::string quoteNonFinite(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 4096);
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      out += c;
      if (c == '\\') out += text[++i];
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      size_t len = std::strlen(word);
      if (text.compare(i, len, word) == 0) {
        out += '"';
        out += word;
        out += '"';
        i += len;
        break;
      }
    }
    if (i < text.size()) out += text[i];
  }
  return out;
}

double jsonDouble(const nlohmann::json& value) {
  if (value.is_string()) {
    std::string s = value.get<std::string>();
    if (s == "NaN") return std::nan("");
    return s[0] == '-' ? -INFINITY : INFINITY;
  }
  return value.get<double>();
}

Type parseElementType(const std::string& text) {
  static const std::map<std::string, ScalarKind> kinds = {
      {"i1", ScalarKind::I1},   {"i8", ScalarKind::I8},       {"i16", ScalarKind::I16},
      {"i32", ScalarKind::I32}, {"i64", ScalarKind::I64},     {"f16", ScalarKind::F16},
      {"bf16", ScalarKind::BF16}, {"f32", ScalarKind::F32},   {"f64", ScalarKind::F64},
      {"f8E4M3FN", ScalarKind::F8E4M3FN}, {"f8E5M2", ScalarKind::F8E5M2}};
  return Type::scalar(kinds.at(text));
}

// "tensor<16xf32>" or "f32" -> Type.
Type parseType(const std::string& text) {
  std::smatch m;
  static const std::regex tensor(R"(tensor<(\d+)x([\w]+)>)");
  if (std::regex_search(text, m, tensor)) return Type::tensor({std::stoll(m[1])}, parseElementType(m[2]));
  return parseElementType(text);
}

// Writes a probe input (a double from the JSON) into lane `lane` as the probe did: the host tensor of the
// job's dtype (saturating at the int64/uint64 limits, which the JSON's doubles round up to 2^63 / 2^64).
void storeInput(Tile& tile, int64_t lane, double value, const std::string& dtype) {
  ScalarKind kind = tile.elementType().scalarKind();
  if (isFloatKind(kind)) {
    tile.setBits(lane, floatBitsFromDouble(value, kind));
  } else if (kind == ScalarKind::I1) {
    tile.setBits(lane, value != 0);
  } else if (dtype.rfind("uint", 0) == 0) {
    tile.setBits(lane, value >= 0x1p64 ? ~uint64_t{0} : static_cast<uint64_t>(value));
  } else {
    tile.setBits(lane, value >= 0x1p63 ? static_cast<uint64_t>(INT64_MAX) : static_cast<uint64_t>(static_cast<int64_t>(value)));
  }
}

struct ReplayResult {
  std::map<std::string, TileRef> stored;  // by output pointer argument name
  std::string error;
};

// Replays one probe TTIR (the subset of syntax the probe kernels use) on its inputs.
ReplayResult replay(const std::string& ttir, const std::map<std::string, std::pair<std::vector<double>, std::string>>& inputs,
                    FloatProfile profile) {
  ReplayResult out;
  std::map<std::string, std::string> pointerArg;  // SSA name -> the argument it points into
  std::map<std::string, TileRef> values;
  std::vector<std::unique_ptr<Value>> ownedValues;
  static const std::regex assign(R"(^\s*%([\w.#]+) = ([\w.]+) (.*) loc\()");
  static const std::regex store(R"(^\s*tt\.store %([\w.]+), %([\w.]+))");
  std::istringstream lines(ttir);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, store)) {
      out.stored[pointerArg.at(m[1])] = values.at(m[2]);
      continue;
    }
    if (!std::regex_search(line, m, assign)) continue;
    std::string name = m[1], opName = m[2], rest = m[3];
    static const std::regex operandPattern(R"(%([\w.#]+))");
    std::vector<std::string> operandNames;
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), operandPattern); it != std::sregex_iterator(); ++it)
      operandNames.push_back((*it)[1]);
    if (opName == "tt.make_range") {  // the probes use start = 0, end = 16
      auto range = makeTile(Type::tensor({16}, Type::i32()));
      for (int32_t i = 0; i < 16; ++i) range->as<int32_t>()[i] = i;
      values[name] = range;
      continue;
    }
    if (opName == "tt.splat" || opName == "tt.addptr") {
      pointerArg[name] = pointerArg.count(operandNames[0]) ? pointerArg[operandNames[0]] : operandNames[0];
      continue;
    }
    std::string typeText = rest.substr(rest.rfind(':') + 1);
    if (opName == "tt.load") {
      std::smatch pm;
      std::regex_search(typeText, pm, std::regex(R"(ptr<(\w+)>)"));
      std::string arg = pointerArg.at(operandNames[0]);
      const auto& [data, dtype] = inputs.at(arg);
      auto tile = makeTile(Type::tensor({16}, parseElementType(pm[1])));
      for (int64_t i = 0; i < 16; ++i) storeInput(*tile, i, data[i], dtype);
      values[name] = tile;
      continue;
    }
    if (opName == "arith.constant") {
      std::smatch cm;
      std::regex_search(rest, cm, std::regex(R"(^(?:dense<)?([-+\w.]+)>? : (.*)$)"));
      Type type = parseType(cm[2]);
      auto tile = makeTile(type);
      std::string literal = cm[1];
      for (int64_t i = 0; i < tile->size(); ++i) {
        if (type.isFloat()) {
          if (literal.rfind("0x", 0) == 0) tile->setBits(i, std::stoull(literal, nullptr, 16));
          else tile->setBits(i, floatBitsFromDouble(std::stod(literal), type.scalarKind()));
        } else {
          tile->setBits(i, literal == "true" ? 1 : literal == "false" ? 0 : static_cast<uint64_t>(std::stoll(literal)));
        }
      }
      values[name] = tile;
      continue;
    }
    auto kind = lookupOp(opName);
    if (!kind) {
      out.error = "unknown op " + opName;
      return out;
    }
    Operation op(*kind);
    // Result type: the last type after ':' ("T", "T to U", "C, T"); compares give i1.
    std::string resultText = typeText;
    if (size_t to = resultText.find(" to "); to != std::string::npos) resultText = resultText.substr(to + 4);
    if (size_t comma = resultText.rfind(','); comma != std::string::npos) resultText = resultText.substr(comma + 1);
    Type resultType = parseType(resultText);
    if (*kind == OpKind::ArithCmpI || *kind == OpKind::ArithCmpF) {
      resultType = resultType.withElement(Type::i1());
      std::string predicate = rest.substr(0, rest.find(','));
      op.setAttr("predicate", Attribute::keyword(predicate));
    }
    op.addResult(resultType, name);
    std::vector<const Tile*> operands;
    for (const std::string& operand : operandNames) operands.push_back(values.at(operand).get());
    ElementwiseContext context;
    context.profile = profile;
    std::string error;
    MutableTileRef result = evalElementwise(op, operands, context, &error);
    if (!result) {
      out.error = error;
      return out;
    }
    values[name] = result;
  }
  return out;
}

bool sameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

TEST(ProbeReplay, EveryProbeMatchesTheGpu) {
  std::ifstream file(std::string(TILESIM_SOURCE_DIR) + "/conformance/probes/probes.json");
  ASSERT_TRUE(file) << "probes.json not found";
  std::stringstream buffer;
  buffer << file.rdbuf();
  nlohmann::json probes = nlohmann::json::parse(quoteNonFinite(buffer.str()));

  struct Count {
    int exact = 0, withinBound = 0, total = 0;
  };
  std::map<std::string, Count> counts;
  int mismatches = 0, replayErrors = 0;
  for (const auto& probe : probes) {
    if (!probe.contains("ttir")) continue;
    const auto& job = probe["job"];
    bool isCast = job[0] == "cast";
    std::string category = isCast ? "cast" : job[1].get<std::string>();
    std::map<std::string, std::pair<std::vector<double>, std::string>> inputs;
    auto doubles = [](const nlohmann::json& array) {
      std::vector<double> v;
      for (const auto& x : array) v.push_back(jsonDouble(x));
      return v;
    };
    inputs["a_ptr"] = {doubles(probe["a"]), job[isCast ? 1 : 2]};
    if (!isCast) inputs["b_ptr"] = inputs["s_ptr"] = {doubles(probe["b"]), job[3]};
    ReplayResult result;
    try {
      result = replay(probe["ttir"], inputs, FloatProfile::Triton);
    } catch (const std::exception& e) {
      result.error = std::string("replay failed: ") + e.what();
    }
    if (!result.error.empty()) {
      ++replayErrors;
      ADD_FAILURE() << job.dump() << ": " << result.error;
      continue;
    }
    std::vector<std::pair<std::string, std::string>> outputs;
    if (isCast) outputs = {{"o_ptr", "out"}};
    else outputs = {{"of_ptr", "f64"}, {"oi_ptr", "i64"}};
    for (const auto& [pointer, key] : outputs) {
      const Tile& stored = *result.stored.at(pointer);
      bool unsignedTarget = isCast && job[2].get<std::string>().rfind("uint", 0) == 0;
      for (int64_t i = 0; i < 16; ++i) {
        Count& count = counts[category];
        ++count.total;
        double ours;
        double gpu;
        bool exact;
        if (key == "i64") {
          gpu = 0;
          int64_t expected = probe[key][i].get<int64_t>();
          exact = stored.signedAt(i) == expected;
          ours = static_cast<double>(stored.signedAt(i));
          gpu = static_cast<double>(expected);
        } else {
          gpu = jsonDouble(probe[key][i]);
          ScalarKind kind = stored.elementType().scalarKind();
          if (isFloatKind(kind)) ours = doubleFromFloatBits(stored.bitsAt(i), kind);
          else if (unsignedTarget || kind == ScalarKind::I1) ours = static_cast<double>(stored.bitsAt(i) & (kind == ScalarKind::I1 ? 1 : ~uint64_t{0}));
          else ours = static_cast<double>(stored.signedAt(i));
          exact = sameDouble(ours, gpu);
        }
        if (exact) {
          ++count.exact;
          continue;
        }
        double bound = stored.errorBounds() ? stored.errorBounds()[i] : 0.0;
        if (std::fabs(ours - gpu) <= bound) {
          ++count.withinBound;
          continue;
        }
        ++mismatches;
        ADD_FAILURE() << job.dump() << " lane " << i << " a=" << probe["a"][i].dump()
                      << (isCast ? "" : " b=" + probe["b"][i].dump()) << " " << key << ": gpu " << gpu << ", ours "
                      << ours << " (bound " << bound << ")";
      }
    }
  }
  int exact = 0, within = 0, total = 0;
  for (const auto& [category, count] : counts) {
    std::printf("  %-18s exact %5d/%5d  within bound %d\n", category.c_str(), count.exact, count.total, count.withinBound);
    exact += count.exact;
    within += count.withinBound;
    total += count.total;
  }
  std::printf("probe replay: exact %d/%d, within bound %d, mismatches %d, replay errors %d\n", exact, total, within,
              mismatches, replayErrors);
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(replayErrors, 0);
}

}  // namespace
}  // namespace tilesim

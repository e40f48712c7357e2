// Campaign statistics (see Campaign.h): adding program records, merging shards, JSON in and out, the human
// summary, op-table coverage with its documented exclusions, and the feature names of a program.
#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

#include "fuzz/campaign/Campaign.h"
#include "ir/OpKind.h"

namespace tilesim::fuzz {
namespace {

// The count maps of a summary under their JSON keys, in the order toJson writes them. `optional`: a summary
// written before the map existed may lack it.
struct CountMap {
  const char* key;
  std::map<std::string, int64_t> CampaignSummary::*counts;
  bool optional = false;
};
constexpr CountMap kCountMaps[] = {
    {"ops", &CampaignSummary::ops},
    {"programs_with_op", &CampaignSummary::programsWithOp},
    {"dtypes", &CampaignSummary::dtypes},
    {"features", &CampaignSummary::features},
    {"feature_combinations", &CampaignSummary::combos},
    {"skips", &CampaignSummary::skips},
    {"checks", &CampaignSummary::checks},
    {"skip_reasons", &CampaignSummary::skipReasons, true},
};

}  // namespace

const std::vector<CoverageExclusion>& coverageExclusions() {
  static const std::vector<CoverageExclusion> kExclusions = [] {
    std::vector<CoverageExclusion> exclusions = {
      {"ub.poison", "its value is undefined: a well-defined program can only hold it where nothing reads it, and "
                    "Triton's frontend never emits it"},
      {"tt.elementwise_inline_asm", "inline PTX: its meaning is the PTX text, which only a GPU (and the "
                                    "interpreter's small recognised subset) defines; random asm is not portable"},
      {"tt.extern_elementwise", "libdevice calls: results are the GPU library's, bounded by the triton profile "
                                "only for the few functions the interpreter knows"},
      {"tt.print", "output on stdout, not in any buffer: no engine pair compares it"},
      {"cf.br", "unstructured branches: Triton's frontend emits structured scf ops; cf.* appears only after "
                "lowering, which the builder does not produce"},
      {"cf.cond_br", "as cf.br"},
      {"arith.ceildivsi", "Triton's TTGIR passes write it (from a cdiv); its frontend's TTIR never has it"},
    };
    // TTGIR (issue 23): the generator writes TTIR, which Triton's own passes turn into TTGIR; these ops run only
    // from recorded kernel.ttgir files (docs/ttgir.md).
    for (int k = 0; k < numOpKinds(); ++k) {
      const OpFamily family = opFamily(static_cast<OpKind>(k));
      if (family == OpFamily::SharedMemory || family == OpFamily::Hopper)
        exclusions.push_back({mnemonic(static_cast<OpKind>(k)).data(), "TTGIR: the generator writes TTIR; TTGIR runs from recorded files"});
    }
    return exclusions;
  }();
  return kExclusions;
}

std::vector<std::string> coverableOps() {
  std::set<std::string> excluded;
  for (const CoverageExclusion& exclusion : coverageExclusions()) excluded.insert(exclusion.mnemonic);
  std::vector<std::string> ops;
  for (int k = 0; k < numOpKinds(); ++k) {
    std::string name(mnemonic(static_cast<OpKind>(k)));
    if (!excluded.count(name)) ops.push_back(name);
  }
  return ops;
}

double coveragePercent(const std::map<std::string, int64_t>& ops, std::vector<std::string>* missing) {
  const std::vector<std::string> all = coverableOps();
  int64_t covered = 0;
  for (const std::string& op : all) {
    auto it = ops.find(op);
    if (it != ops.end() && it->second > 0) ++covered;
    else if (missing) missing->push_back(op);
  }
  return all.empty() ? 0.0 : 100.0 * static_cast<double>(covered) / static_cast<double>(all.size());
}

std::vector<std::string> programFeatures(const KernelPlan& plan, const std::map<std::string, int64_t>& opCounts,
                                         const std::vector<LaunchArgument>* arguments) {
  std::set<std::string> features;
  auto has = [&](const char* op) { return opCounts.count(op) > 0; };
  if (plan.block.size() == 2) features.insert("2d");
  if (plan.grid > 1) features.insert("grid");
  for (const InputPlan& input : plan.inputs)
    if (!input.withOther) features.insert("undefined-lanes");
  if (has("tt.reduce")) features.insert("reduce");
  if (has("tt.scan")) features.insert("scan");
  if (has("tt.dot")) features.insert("dot");
  if (has("scf.for")) features.insert("for");
  if (has("scf.while")) features.insert("while");
  if (has("scf.if")) features.insert("if");
  if (has("tt.call")) features.insert("call");
  if (has("tt.make_tensor_ptr")) features.insert("block-ptr");
  if (has("tt.atomic_rmw") || has("tt.atomic_cas")) features.insert("atomic");
  if (has("tt.cat") || has("tt.join") || has("tt.split") || has("tt.trans") || has("tt.reshape") || has("tt.gather") ||
      has("tt.histogram"))
    features.insert("shape");
  for (const Node& node : plan.nodes)
    if (node.op == NodeOp::Gather) features.insert("gather-load");
  if (has("tt.make_tensor_descriptor")) features.insert("descriptor");
  // Pointer and offset diversity (fuzz/programs/KernelPointers.cpp).
  std::vector<PointerPlan> pointers;
  for (const InputPlan& input : plan.inputs) {
    pointers.push_back(input.pointer);
    if (input.convert != 0 && input.dtype != builder::DType::Int1) features.insert("load-convert");
  }
  for (size_t j = 0; j < plan.outputs.size() && j < plan.outputPointers.size(); ++j) pointers.push_back(plan.outputPointers[j]);
  for (const PointerPlan& pointer : pointers) {
    if (pointer.offsets64) features.insert("i64-offsets");
    if (pointer.stride > 1 || pointer.shift > 0) features.insert("strided");
    if (pointer.group > 1) features.insert("grouped-index");
    if (pointer.rebase) features.insert(pointer.offsets64 ? "negative-i64-offsets" : "negative-i32-offsets");
    if (pointer.maskKind == 1) features.insert("mask-holes");
    if (pointer.maskKind == 2) features.insert("mask-window");
    if (!pointer.claimDivisibility) features.insert("no-divisibility");
  }
  if (arguments) {
    std::map<std::string, int> viewsPerStorage;
    for (const LaunchArgument& argument : *arguments) {
      if (!argument.isAlias()) continue;
      const uint64_t offset = argument.aliasOffset;
      features.insert(offset % 16 == 0 ? "view-16" : offset % 16 == 8 ? "view-8" : offset % 4 == 0 ? "view-4" : "view-unaligned");
      if (++viewsPerStorage[argument.aliasOf] == 2) features.insert("shared-storage");
    }
  }
  return {features.begin(), features.end()};
}

void CampaignSummary::add(const ProgramRecord& record) {
  ++programs;
  switch (record.status) {
    case ProgramStatus::Passed: ++passed; break;
    case ProgramStatus::Failed: ++failed; break;
    case ProgramStatus::Skipped: ++skipped; break;
  }
  if (record.status == ProgramStatus::Skipped) {
    ++skips[record.check];
    // The reason without its TTIR position ("fuzz.ttir:12:5: "), so that equal reasons add up.
    std::string reason = record.message;
    static const std::regex kPosition(R"([^ ]*\.ttir:\d+:\d+: (error: )?| ?\(\d+:\d+\))");
    reason = std::regex_replace(reason, kPosition, "");
    if (reason.rfind(record.check + ": ", 0) == 0) reason = reason.substr(record.check.size() + 2);
    ++skipReasons[record.check + ": " + reason.substr(0, 160)];
  }
  digest += record.digest;
  for (const auto& [op, n] : record.opCounts) {
    ops[op] += n;
    ++programsWithOp[op];
  }
  for (const std::string& dtype : record.dtypes) ++dtypes[dtype];
  std::string combo;
  for (const std::string& feature : record.features) {
    ++features[feature];
    combo += (combo.empty() ? "" : "+") + feature;
  }
  ++combos[combo.empty() ? "(none)" : combo];
  if (record.status == ProgramStatus::Failed) {
    ProgramRecord failure = record;
    failure.opCounts.clear();
    failures.push_back(std::move(failure));
  }
}

void CampaignSummary::merge(const CampaignSummary& other) {
  programs += other.programs;
  passed += other.passed;
  failed += other.failed;
  skipped += other.skipped;
  seconds += other.seconds;
  cpuSeconds += other.cpuSeconds;
  stages.add(other.stages);
  timed = timed || other.timed;
  digest += other.digest;
  for (const CountMap& map : kCountMaps)
    for (const auto& [key, n] : other.*map.counts) (this->*map.counts)[key] += n;
  failures.insert(failures.end(), other.failures.begin(), other.failures.end());
  std::sort(failures.begin(), failures.end(), [](const ProgramRecord& a, const ProgramRecord& b) { return a.index < b.index; });
  shards.insert(shards.end(), other.shards.begin(), other.shards.end());
}

nlohmann::ordered_json CampaignSummary::toJson() const {
  nlohmann::ordered_json json;
  json["format"] = "tilesim-fuzz-summary-1";
  json["seed"] = seed;
  json["target"] = target;
  json["shards"] = shards;
  json["programs"] = programs;
  json["passed"] = passed;
  json["failed"] = failed;
  json["skipped"] = skipped;
  json["seconds"] = seconds;
  json["programs_per_second"] = seconds > 0 ? static_cast<double>(programs) / seconds : 0.0;
  json["cpu_seconds"] = cpuSeconds;
  json["programs_per_cpu_second"] = cpuSeconds > 0 ? static_cast<double>(programs) / cpuSeconds : 0.0;
  if (timed)
    for (const StageField& stage : kStageFields) json["stage_seconds"][stage.name] = stages.*stage.seconds;
  char digestText[32];
  std::snprintf(digestText, sizeof digestText, "%016llx", static_cast<unsigned long long>(digest));
  json["digest"] = digestText;
  std::vector<std::string> missing;
  json["coverage_percent"] = coveragePercent(ops, &missing);
  json["coverable_ops"] = coverableOps().size();
  json["ops_not_covered"] = missing;
  for (const CountMap& map : kCountMaps) json[map.key] = this->*map.counts;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ProgramRecord& failure : failures)
    list.push_back({{"index", failure.index}, {"program_seed", failure.seed}, {"check", failure.check},
                    {"message", failure.message}, {"case", failure.casePath}, {"features", failure.features}});
  json["failures"] = list;
  return json;
}

std::optional<CampaignSummary> CampaignSummary::fromJson(const nlohmann::json& json, std::string& error) {
  try {
    if (json.value("format", "") != "tilesim-fuzz-summary-1") {
      error = "not a tilesim fuzz summary (format is not tilesim-fuzz-summary-1)";
      return std::nullopt;
    }
    CampaignSummary summary;
    summary.seed = json.at("seed").get<uint64_t>();
    summary.target = json.at("target").get<std::string>();
    summary.shards = json.at("shards").get<std::vector<std::string>>();
    summary.programs = json.at("programs").get<int64_t>();
    summary.passed = json.at("passed").get<int64_t>();
    summary.failed = json.at("failed").get<int64_t>();
    summary.skipped = json.at("skipped").get<int64_t>();
    summary.seconds = json.at("seconds").get<double>();
    summary.cpuSeconds = json.value("cpu_seconds", 0.0);
    if (json.contains("stage_seconds")) {
      summary.timed = true;
      for (const StageField& stage : kStageFields)
        summary.stages.*stage.seconds = json.at("stage_seconds").at(stage.name).get<double>();
    }
    summary.digest = std::stoull(json.at("digest").get<std::string>(), nullptr, 16);
    for (const CountMap& map : kCountMaps)
      if (!map.optional || json.contains(map.key))
        summary.*map.counts = json.at(map.key).get<std::map<std::string, int64_t>>();
    for (const auto& entry : json.at("failures")) {
      ProgramRecord failure;
      failure.status = ProgramStatus::Failed;
      failure.index = entry.at("index").get<int64_t>();
      failure.seed = entry.at("program_seed").get<uint64_t>();
      failure.check = entry.at("check").get<std::string>();
      failure.message = entry.at("message").get<std::string>();
      failure.casePath = entry.at("case").get<std::string>();
      failure.features = entry.at("features").get<std::vector<std::string>>();
      summary.failures.push_back(std::move(failure));
    }
    return summary;
  } catch (const std::exception& e) {
    error = std::string("malformed summary: ") + e.what();
    return std::nullopt;
  }
}

std::string CampaignSummary::human() const {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "tilesim fuzz: target %s, seed %llu, %zu shard(s): %lld programs in %.1f s (%.1f programs/s)\n",
                target.c_str(), static_cast<unsigned long long>(seed), shards.size(), static_cast<long long>(programs),
                seconds, seconds > 0 ? static_cast<double>(programs) / seconds : 0.0);
  out << line;
  if (cpuSeconds > 0) {
    std::snprintf(line, sizeof line, "  CPU time %.1f s user+sys (%.1f programs per CPU-second)\n", cpuSeconds,
                  static_cast<double>(programs) / cpuSeconds);
    out << line;
  }
  if (timed) {
    double total = 0;
    for (const StageField& stage : kStageFields) total += stages.*stage.seconds;
    auto share = [&](double s) { return total > 0 ? 100.0 * s / total : 0.0; };
    std::snprintf(line, sizeof line,
                  "  stage wall seconds (summed over jobs): generate %.2f (%.0f%%), build %.2f (%.0f%%), print %.2f "
                  "(%.0f%%), parse %.2f (%.0f%%), verify %.2f (%.0f%%),\n", stages.generate, share(stages.generate),
                  stages.build, share(stages.build), stages.print, share(stages.print), stages.parse, share(stages.parse),
                  stages.verify, share(stages.verify));
    out << line;
    std::snprintf(line, sizeof line, "    reference %.2f (%.0f%%), interpret %.2f (%.0f%%), compare %.2f (%.0f%%)\n",
                  stages.reference, share(stages.reference), stages.interpret, share(stages.interpret), stages.compare,
                  share(stages.compare));
    out << line;
  }
  out << "  passed " << passed << ", failed " << failed << ", skipped " << skipped;
  if (!skips.empty()) {
    out << " (";
    bool first = true;
    for (const auto& [check, n] : skips) out << (first ? "" : ", ") << check << " " << n, first = false;
    out << ")";
  }
  if (!skipReasons.empty()) {
    std::vector<std::pair<int64_t, std::string>> reasons;
    for (const auto& [reason, n] : skipReasons) reasons.push_back({-n, reason});
    std::sort(reasons.begin(), reasons.end());
    out << "\n  most frequent skip reasons:";
    for (size_t i = 0; i < reasons.size() && i < 10; ++i) out << "\n    " << -reasons[i].first << "  " << reasons[i].second;
  }
  out << "\n  checks run:";
  for (const auto& [check, n] : checks) out << " " << check << " " << n;
  std::vector<std::string> missing;
  std::snprintf(line, sizeof line, "\n  op-table coverage: %.1f%% of %zu coverable ops", coveragePercent(ops, &missing),
                coverableOps().size());
  out << line << " (" << coverageExclusions().size() << " excluded, docs/fuzzing.md)\n";
  if (!missing.empty()) {
    out << "  not exercised:";
    for (const std::string& op : missing) out << " " << op;
    out << "\n";
  }
  out << "  ops (occurrences / programs):\n";
  for (const auto& [op, n] : ops) {
    std::snprintf(line, sizeof line, "    %-28s %10lld %8lld\n", op.c_str(), static_cast<long long>(n),
                  static_cast<long long>(programsWithOp.count(op) ? programsWithOp.at(op) : 0));
    out << line;
  }
  out << "  dtypes (programs):";
  for (const auto& [dtype, n] : dtypes) out << " " << dtype << " " << n;
  out << "\n  features (programs):";
  for (const auto& [feature, n] : features) out << " " << feature << " " << n;
  std::vector<std::pair<int64_t, std::string>> sorted;
  for (const auto& [combo, n] : combos) sorted.push_back({-n, combo});
  std::sort(sorted.begin(), sorted.end());
  out << "\n  feature combinations: " << combos.size() << " distinct; most frequent:\n";
  for (size_t i = 0; i < sorted.size() && i < 12; ++i) {
    std::snprintf(line, sizeof line, "    %8lld  %s\n", static_cast<long long>(-sorted[i].first), sorted[i].second.c_str());
    out << line;
  }
  if (failures.empty()) {
    out << "  no failures\n";
  } else {
    out << "  failures:\n";
    for (const ProgramRecord& failure : failures)
      out << "    program " << failure.index << " (" << failure.check << "): " << failure.message << "\n      minimal case: "
          << (failure.casePath.empty() ? "(none)" : failure.casePath) << "\n";
  }
  return out.str();
}

}  // namespace tilesim::fuzz

// `tilesim ops [--markdown]`: the op table (ir/Ops.def through opInfo) for people, by family: mnemonic,
// textual syntax, operand and result counts, traits, the fact columns of ir/OpFacts.def and the one-line semantics
// both engines implement. `--markdown` writes the
// page committed as docs/ops.md (regenerate it with `tilesim ops --markdown > docs/ops.md`).
#include <array>
#include <cstdio>
#include <string>
#include <fmt/format.h>

#include "ir/OpFacts.h"
#include "ir/OpKind.h"
#include "tools/cli/Cli.h"

namespace tilesim::cli {
namespace {

std::string countText(int minimum, int maximum) {
  if (maximum < 0) return fmt::format("{}+", minimum);
  if (minimum == maximum) return std::to_string(minimum);
  return fmt::format("{}..{}", minimum, maximum);
}

std::string traitsText(uint32_t traits) {
  static constexpr std::pair<OpTrait, const char*> kNames[] = {
      {kElementwise, "elementwise"}, {kCommutative, "commutative"}, {kSameType, "same-type"},
      {kTerminator, "terminator"},   {kHasRegions, "regions"},      {kReadsMemory, "reads-memory"},
      {kWritesMemory, "writes-memory"}, {kSideEffect, "side-effect"},
  };
  std::string text;
  for (const auto& [trait, name] : kNames)
    if (traits & trait) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

std::string escapeMarkdown(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// The fact columns of ir/OpFacts.def, one text each: triton precision, bound flow, UB, AxisInfo rule.
std::array<std::string, 4> factsText(OpKind kind) {
  const OpFacts& facts = opFacts(kind);
  return {std::string(precisionName(facts.precision)), std::string(boundFlowName(facts.boundFlow)),
          std::string(undefinedBehaviourName(facts.undefinedBehaviour)), std::string(axisInfoRuleName(facts.axisInfo))};
}

void printText() {
  for (int i = 0; i < numOpKinds(); ++i) {
    const OpInfo& info = opInfo(static_cast<OpKind>(i));
    const std::array<std::string, 4> facts = factsText(info.kind);
    std::printf("%-22s %-11s %-8s operands %-4s results %-3s %s\n    triton %s; bound follows %s%s%s%s%s\n    %s\n",
                std::string(info.mnemonic).c_str(), std::string(familyName(info.family)).c_str(), syntaxName(info.syntax),
                countText(info.minOperands, info.maxOperands).c_str(),
                info.numResults < 0 ? "n" : std::to_string(info.numResults).c_str(), traitsText(info.traits).c_str(),
                facts[0].c_str(), facts[1].c_str(), facts[2].empty() ? "" : "; UB: ", facts[2].c_str(),
                facts[3].empty() ? "" : "; AxisInfo: ", facts[3].c_str(), std::string(info.semantics).c_str());
  }
  std::printf("%d ops\n", numOpKinds());
}

void printMarkdown() {
  std::printf(
      "# TTIR ops\n\n"
      "Generated from `ir/Ops.def` by `tilesim ops --markdown > docs/ops.md`; do not edit by hand.\n"
      "Every op tilesim parses, verifies and runs (%d in all, in %d families), with its family, textual syntax\n"
      "(see `ir/OpKind.h`), operand and result counts (`n+`: variadic), traits, the facts of `ir/OpFacts.def`\n"
      "(`ir/OpFacts.h` says what each value means: the `triton` profile's precision, which operands' error bounds\n"
      "the interpreter follows, which lanes can be undefined behaviour, the AxisInfo rule) and the one-line\n"
      "semantics both engines implement. A family is the unit every engine dispatches on (`OpFamily`, `opFamily(OpKind)`); the\n"
      "file named beside it runs it in the interpreter. The long form of the semantics is `docs/semantics.md`.\n",
      numOpKinds(), numOpFamilies());
  int family = -1;
  for (int i = 0; i < numOpKinds(); ++i) {
    const OpInfo& info = opInfo(static_cast<OpKind>(i));
    if (static_cast<int>(info.family) != family) {
      family = static_cast<int>(info.family);
      std::printf("\n## %s\n\n%s.\n\n| Op | Family | Syntax | Operands | Results | Traits | Triton | Bound follows | UB | AxisInfo "
                  "| Semantics |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
                  std::string(familyName(info.family)).c_str(), std::string(familyDescription(info.family)).c_str());
    }
    const std::array<std::string, 4> facts = factsText(info.kind);
    std::printf("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", std::string(info.mnemonic).c_str(),
                std::string(familyName(info.family)).c_str(), syntaxName(info.syntax),
                countText(info.minOperands, info.maxOperands).c_str(),
                info.numResults < 0 ? "n" : std::to_string(info.numResults).c_str(), traitsText(info.traits).c_str(),
                facts[0].c_str(), facts[1].c_str(), facts[2].c_str(), facts[3].c_str(), escapeMarkdown(info.semantics).c_str());
  }
}

}  // namespace

void addOpsCommand(CLI::App& app, int& exitCode) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* ops = app.add_subcommand("ops", "list every op: mnemonic, syntax, operands, traits, semantics");
  ops->add_flag("--markdown", *markdown, "write the table as markdown (docs/ops.md)");
  ops->callback([markdown, &exitCode] {
    if (*markdown) printMarkdown();
    else printText();
    exitCode = kExitOk;
  });
}

}  // namespace tilesim::cli

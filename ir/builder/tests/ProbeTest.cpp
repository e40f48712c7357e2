// Reproduces every outcome of conformance/probes/probes.json (1,560 kernels compiled by Triton 3.6.0) with the
// builder: for each probe the ops that compute `r` (mnemonic, predicate, types, operand casts and literal
// constants) must equal the probe's TTIR, or the builder must fail with the same error kind and message.
// The probe TTIR is read by the real parser (and verified), and both modules are described by describeModule.
// Every module the builder produces must also be well formed (tests/WellFormed.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/probes/ProbeRecords.h"
#include "ir/FloatBits.h"
#include "ir/builder/KernelBuilder.h"
#include "ir/builder/NameHint.h"
#include "ir/builder/tests/WellFormed.h"

namespace tilesim::builder {
namespace {

struct Outcome {
  std::vector<std::string> ops;        // "arith.extsi : tensor<16xi8> to tensor<16xi16>"
  std::vector<std::string> constants;  // "tensor<16xi8> = 2"
  std::string error;                   // "TypeError: ..." when the build failed
  std::string wellFormed;              // checkWellFormed's complaints about the built module
};

bool isResultName(const std::string& name) {
  if (name == "r") return true;
  if (name.rfind("r_", 0) != 0 || name.size() == 2) return false;
  return std::all_of(name.begin() + 2, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string numberText(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

std::string describeOp(const Operation& op) {
  std::string text(op.name());
  if (op.kind == OpKind::ArithCmpI || op.kind == OpKind::ArithCmpF) text += " " + op.keywordAttr("predicate");
  text += " : ";
  switch (opInfo(op.kind).syntax) {
    case Syntax::Cast: return text + op.operand(0)->type.str() + " to " + op.result()->type.str();
    case Syntax::Compare: return text + op.operand(0)->type.str();
    case Syntax::Select:
      return text + (op.operand(0)->type.isTensor() ? op.operand(0)->type.str() + ", " : "") + op.result()->type.str();
    case Syntax::Binary:
    case Syntax::Unary:
    case Syntax::Ternary:
    case Syntax::Arrow:
    case Syntax::Constant:
    case Syntax::Generic:
    case Syntax::Custom: return text + op.result()->type.str();
  }
  return text;
}

std::string describeConstant(const Operation& op) {
  const Attribute& value = *op.attr("value");
  Type type = op.result()->type;
  uint64_t bits = value.kind() == Attribute::Kind::Dense ? value.denseBitsAt(0)
                  : value.kind() == Attribute::Kind::Float ? value.bits()
                                                           : static_cast<uint64_t>(value.intValue());
  double number;
  if (type.isFloat()) {
    number = doubleFromFloatBits(bits, type.scalarKind());
  } else {
    int width = type.bitWidth();
    int64_t signExtended = width >= 64 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
    number = static_cast<double>(signExtended);
  }
  return type.str() + " = " + numberText(number);
}

// The ops computing `r` (binary probes: values named r, r_N) or everything after the load (cast probes), from a
// module built by the builder or parsed from Triton's TTIR alike.
Outcome describeModule(const Module& module, bool castProbe) {
  Outcome outcome;
  const Block& body = module.functions[0]->region(0).front();
  bool afterLoad = false;
  for (const auto& op : body.operations) {
    if (op->kind == OpKind::TTLoad) afterLoad = true;
    if (op->numResults() == 0) continue;
    bool selected = castProbe ? afterLoad && op->kind != OpKind::TTLoad && op->kind != OpKind::TTSplat &&
                                    op->kind != OpKind::TTAddPtr
                              : isResultName(op->result()->name);
    if (!selected) continue;
    if (op->kind == OpKind::ArithConstant) outcome.constants.push_back(describeConstant(*op));
    else outcome.ops.push_back(describeOp(*op));
  }
  std::sort(outcome.constants.begin(), outcome.constants.end());
  return outcome;
}

// Triton's TTIR through the real parser (and verifier, when built): a failure is reported in `error`.
Outcome describeProbe(const std::string& ttir, bool castProbe) {
  ParseResult parsed = parseModule(ttir, "probe.ttir");
  Outcome outcome;
  for (const Diagnostic& diagnostic : parsed.diagnostics) outcome.error += "parse: " + diagnostic.str() + "\n";
  if (!parsed.module) return outcome;
  for (const Diagnostic& diagnostic : verifyModule(*parsed.module)) outcome.error += "verify: " + diagnostic.str() + "\n";
  std::string error = outcome.error;
  outcome = describeModule(*parsed.module, castProbe);
  outcome.error = error;
  return outcome;
}

Tensor applyOp(KernelBuilder& kb, const std::string& op, const Tensor& offs, const Tensor& a, const Tensor& b) {
  if (op == "add") return kb.add(a, b);
  if (op == "sub") return kb.sub(a, b);
  if (op == "mul") return kb.mul(a, b);
  if (op == "truediv") return kb.truediv(a, b);
  if (op == "floordiv") return kb.floordiv(a, b);
  if (op == "mod") return kb.mod(a, b);
  if (op == "and") return kb.and_(a, b);
  if (op == "or") return kb.or_(a, b);
  if (op == "xor") return kb.xor_(a, b);
  if (op == "shl") return kb.shl(a, b);
  if (op == "shr") return kb.shr(a, b);
  if (op == "lt") return kb.lt(a, b);
  if (op == "eq") return kb.eq(a, b);
  if (op == "ne") return kb.ne(a, b);
  if (op == "maximum") return kb.maximum(a, b);
  if (op == "minimum") return kb.minimum(a, b);
  if (op == "where") return kb.where(kb.eq(kb.mod(offs, 2), 0), a, b);
  if (op == "add_lit_int") return kb.add(a, 2);
  if (op == "add_lit_float") return kb.add(a, 2.5);
  if (op == "mul_lit_big") return kb.mul(a, 1099511627776LL);
  if (op == "div_lit_int") return kb.truediv(a, 2);
  if (op == "floordiv_lit_int") return kb.floordiv(a, -3);
  if (op == "mod_lit_int") return kb.mod(a, -3);
  if (op == "add_lit_neg") return kb.add(a, -1);
  if (op == "sub_lit_rev") return kb.sub(3, a);
  ADD_FAILURE() << "unknown probe op " << op;
  return {};
}

Outcome buildProbe(const nlohmann::json& job) {
  bool castProbe = job[0] == "cast";
  DType typeA = *dtypeFromName(job[1 + !castProbe].get<std::string>());
  DType typeB = *dtypeFromName(job[2 + !castProbe].get<std::string>());
  KernelBuilder kb(castProbe ? "cast" : "binop");
  Tensor aPtr = kb.pointerArg("a_ptr", typeA);
  Tensor bPtr = kb.pointerArg(castProbe ? "o_ptr" : "b_ptr", typeB);
  Tensor offs = named(kb, "offs").arange(0, 16);
  Tensor a = named(kb, "a").load(kb.add(aPtr, offs));
  if (castProbe) {
    kb.setNameHint("");
    kb.store(kb.add(bPtr, offs), kb.cast(a, typeB));
  } else {
    Tensor ofPtr = kb.pointerArg("of_ptr", DType::Fp64);
    Tensor oiPtr = kb.pointerArg("oi_ptr", DType::Int64);
    Tensor b = named(kb, "b").load(kb.add(bPtr, offs));
    kb.setNameHint("r");
    Tensor r = applyOp(kb, job[1], offs, a, b);
    kb.setNameHint("");
    kb.store(kb.add(ofPtr, offs), kb.cast(r, DType::Fp64));
    kb.store(kb.add(oiPtr, offs), kb.cast(r, DType::Int64));
  }
  BuildResult result = kb.finish();
  if (result.error) return Outcome{{}, {}, result.error->str(), {}};
  Outcome outcome = describeModule(*result.module, castProbe);
  outcome.wellFormed = checkWellFormed(*result.module);
  return outcome;
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += "\n      " + item;
  return text;
}

TEST(BuilderProbes, ReproducesEveryTriton36Outcome) {
  nlohmann::json probes = probes::loadProbeRecords(TILESIM_SOURCE_DIR);
  ASSERT_EQ(probes.size(), 1560u);
  int matched = 0, illFormed = 0;
  std::string mismatches, illFormedReport;
  for (const nlohmann::json& probe : probes) {
    const nlohmann::json& job = probe["job"];
    bool castProbe = job[0] == "cast";
    Outcome built = buildProbe(job);
    bool ok;
    std::string expected;
    if (probe.contains("error")) {
      std::string error = probe["error"].get<std::string>();
      std::string last = error.substr(error.find_last_of('\n', error.size() - 2) + 1);
      std::size_t colon = built.error.find(": ");
      ok = !built.error.empty() && last.rfind(built.error.substr(0, colon) + "('", 0) == 0 &&
           last.find(built.error.substr(colon + 2)) != std::string::npos;
      expected = last;
    } else {
      Outcome want = describeProbe(probe["ttir"].get<std::string>(), castProbe);
      ok = want.error.empty() && built.error.empty() && built.ops == want.ops && built.constants == want.constants;
      expected = join(want.ops) + join(want.constants) + (want.error.empty() ? "" : "\n      probe TTIR: " + want.error);
    }
    if (!built.wellFormed.empty()) {
      ++illFormed;
      if (illFormedReport.size() < 20000) illFormedReport += "\n  " + job.dump() + built.wellFormed;
    }
    if (ok) {
      ++matched;
    } else {
      mismatches += "\n  " + job.dump() + "\n    expected:" + expected + "\n    built:" + join(built.ops) +
                    join(built.constants) + (built.error.empty() ? "" : "\n      " + built.error);
    }
  }
  std::printf("builder probes: %d/%zu match Triton 3.6\n", matched, probes.size());
  std::printf("builder probes: %d built modules not well formed (verifier, print/parse round trip)\n", illFormed);
  EXPECT_EQ(matched, static_cast<int>(probes.size())) << mismatches.substr(0, 20000);
  EXPECT_EQ(illFormed, 0) << illFormedReport;
}

}  // namespace
}  // namespace tilesim::builder

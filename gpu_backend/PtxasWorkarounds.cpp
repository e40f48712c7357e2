// PtxasWorkarounds.h: the rewrites, on the optimised module just before PTX code generation.
#include "gpu_backend/PtxasWorkarounds.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <algorithm>
#include <regex>
#include <string_view>
#include <vector>

namespace tilesim::gpu {
namespace {

bool isRewrittenWidth(llvm::Type* type) {
  llvm::Type* scalar = type->getScalarType();
  return scalar->isIntegerTy(16) || scalar->isIntegerTy(32) || scalar->isIntegerTy(64);
}

// One lane through the replacement PTX (PTX ISA 8.5 §9.7.1.2 sub: .u wraps; §9.7.9.21 cvt: .s32.s16
// sign-extends, .u16.u32 keeps the low 16 bits; §9.7.1.6 abs; §9.7.1.10 max). Not side-effecting: LLVM may
// still CSE or drop them.
llvm::Value* safeLane(llvm::IRBuilder<>& builder, llvm::Value* x, bool absolute) {
  llvm::Type* type = x->getType();
  const unsigned bits = type->getIntegerBitWidth();
  const char* text = nullptr;
  const char* constraints = nullptr;
  if (bits == 16) {
    text = absolute ? "{\n\t.reg .b32 %t;\n\tcvt.s32.s16 %t, $1;\n\tabs.s32 %t, %t;\n\tcvt.u16.u32 $0, %t;\n\t}"
                    : "sub.u16 $0, 0, $1;";
    constraints = "=h,h";
  } else if (bits == 32) {
    text = absolute ? "{\n\t.reg .b32 %an;\n\tsub.u32 %an, 0, $1;\n\tmax.s32 $0, $1, %an;\n\t}" : "sub.u32 $0, 0, $1;";
    constraints = "=r,r";
  } else {
    text = absolute ? "{\n\t.reg .b64 %an;\n\tsub.u64 %an, 0, $1;\n\tmax.s64 $0, $1, %an;\n\t}" : "sub.u64 $0, 0, $1;";
    constraints = "=l,l";
  }
  auto* function = llvm::FunctionType::get(type, {type}, false);
  return builder.CreateCall(llvm::InlineAsm::get(function, text, constraints, false), {x});
}

llvm::Value* safeValue(llvm::IRBuilder<>& builder, llvm::Value* x, bool absolute) {
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vector) return safeLane(builder, x, absolute);
  llvm::Value* result = llvm::PoisonValue::get(vector);
  for (unsigned i = 0; i < vector->getNumElements(); ++i)
    result = builder.CreateInsertElement(result, safeLane(builder, builder.CreateExtractElement(x, i), absolute), i);
  return result;
}

// Calls `replace(match)` for every match of `pattern` in `ptx` and returns the text with each match replaced by
// what it returned. Only the lines that contain `literal` are searched: std::regex over a whole module's PTX
// costs milliseconds, and the lines a pattern can match are few. A match starts at the whitespace before an
// instruction, so the search on a line starts at the newline that ends the line before.
template <class Replace>
std::string rewriteMatches(const std::string& ptx, std::string_view literal, const std::regex& pattern, int* count,
                           Replace replace) {
  std::string out;
  int replaced = 0;
  size_t copied = 0;  // ptx[0, copied) is in `out`
  for (size_t found = ptx.find(literal); found != std::string::npos;) {
    const size_t lineStart = ptx.rfind('\n', found);
    const size_t searchStart = lineStart == std::string::npos ? 0 : lineStart;
    const size_t lineEnd = std::min(ptx.find('\n', found), ptx.size());
    const auto begin = ptx.begin() + static_cast<std::ptrdiff_t>(searchStart);
    const auto end = ptx.begin() + static_cast<std::ptrdiff_t>(lineEnd);
    for (auto it = std::sregex_iterator(begin, end, pattern); it != std::sregex_iterator(); ++it) {
      const size_t matchStart = searchStart + static_cast<size_t>(it->position(0));
      if (matchStart < copied) continue;  // already rewritten as part of the line before
      out.append(ptx, copied, matchStart - copied);
      out += replace(*it);
      copied = matchStart + static_cast<size_t>(it->length(0));
      ++replaced;
    }
    found = lineEnd >= ptx.size() ? std::string::npos : ptx.find(literal, lineEnd);
  }
  out.append(ptx, copied, std::string::npos);
  if (count) *count = replaced;
  return out;
}

}  // namespace

int avoidPtxasSixteenBitNegation(llvm::Module& module) {
  std::vector<std::pair<llvm::Instruction*, bool>> found;  // (instruction, is abs)
  for (llvm::Function& function : module)
    for (llvm::BasicBlock& block : function)
      for (llvm::Instruction& instruction : block) {
        if (!isRewrittenWidth(instruction.getType())) continue;
        if (auto* binary = llvm::dyn_cast<llvm::BinaryOperator>(&instruction)) {
          auto* zero = llvm::dyn_cast<llvm::Constant>(binary->getOperand(0));
          if (binary->getOpcode() == llvm::Instruction::Sub && zero && zero->isNullValue()) found.push_back({binary, false});
        } else if (auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction)) {
          if (intrinsic->getIntrinsicID() == llvm::Intrinsic::abs) found.push_back({intrinsic, true});
        }
      }
  for (auto [instruction, absolute] : found) {
    llvm::IRBuilder<> builder(instruction);
    llvm::Value* operand = absolute ? instruction->getOperand(0) : instruction->getOperand(1);
    instruction->replaceAllUsesWith(safeValue(builder, operand, absolute));
    instruction->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

std::string avoidPtxasHighHalfMove(const std::string& ptx, int* count) {
  static constexpr std::string_view kOpen = "{ .reg .b16 tmp; mov.b32 {tmp, ";
  std::string out;
  out.reserve(ptx.size());
  int replaced = 0;
  size_t at = 0;
  while (true) {
    const size_t found = ptx.find(kOpen, at);
    if (found == std::string::npos) break;
    // The rest must read "%rsN}, %rM; }" exactly; anything else is copied unchanged.
    const size_t destinationEnd = ptx.find("}, ", found + kOpen.size());
    const size_t sourceEnd = destinationEnd == std::string::npos ? std::string::npos : ptx.find("; }", destinationEnd);
    const size_t line = ptx.find('\n', found);
    if (sourceEnd == std::string::npos || (line != std::string::npos && sourceEnd > line)) {
      out.append(ptx, at, found + kOpen.size() - at);
      at = found + kOpen.size();
      continue;
    }
    const std::string destination = ptx.substr(found + kOpen.size(), destinationEnd - found - kOpen.size());
    const std::string source = ptx.substr(destinationEnd + 3, sourceEnd - destinationEnd - 3);
    out.append(ptx, at, found - at);
    // PTX ISA 8.5 §9.7.8.2 shr (.u32: zero fill), §9.7.9.21 cvt (.u16.u32 keeps the low 16 bits).
    out += "{ .reg .b32 %hi16; shr.u32 %hi16, " + source + ", 16; cvt.u16.u32 " + destination + ", %hi16; }";
    at = sourceEnd + 3;
    ++replaced;
  }
  out.append(ptx, at, std::string::npos);
  if (count) *count = replaced;
  return out;
}

std::string avoidPtxasNegAbs(const std::string& ptx, int* count) {
  // `[@p ]neg.sN d, x;` and `[@p ]abs.sN d, x;` with register operands, one instruction a line as NVPTX prints.
  static const std::regex negation(R"((\s)(@!?%p\d+\s+)?neg\.s(16|32|64)\s+(%\w+),\s*(%\w+);)");
  static const std::regex absolute(R"((\s)(@!?%p\d+\s+)?abs\.s(16|32|64)\s+(%\w+),\s*(%\w+);)");
  int negations = 0, absolutes = 0;
  std::string result = rewriteMatches(ptx, "neg.s", negation, &negations, [](const std::smatch& m) {
    return m[1].str() + m[2].str() + "sub.u" + m[3].str() + " " + m[4].str() + ", 0, " + m[5].str() + ";";
  });
  result = rewriteMatches(result, "abs.s", absolute, &absolutes, [](const std::smatch& m) {
    // A block cannot carry a predicate: branch-free, the predicate goes on the final move.
    const std::string bits = m[3].str(), x = m[5].str();
    return m[1].str() + "{ .reg .b" + bits + " %an, %am; sub.u" + bits + " %an, 0, " + x + "; max.s" + bits +
           " %am, " + x + ", %an; " + m[2].str() + "mov.b" + bits + " " + m[4].str() + ", %am; }";
  });
  if (count) *count = negations + absolutes;
  return result;
}

std::string avoidPtxasS64ToF32(const std::string& ptx, int* count) {
  // `[@p ]cvt.rn.f32.s64 d, x;` / `.u64` with register operands, one instruction a line as NVPTX prints.
  static const std::regex conversion(R"((\s)(@!?%p\d+\s+)?cvt\.rn\.f32\.([su])64\s+(%\w+),\s*(%\w+);)");
  return rewriteMatches(ptx, "cvt.rn.f32.", conversion, count, [](const std::smatch& m) {
    const std::string x = m[5].str();
    const bool isSigned = m[3].str() == "s";
    // |x| normalised by clz so bit 63 is set; the top 24 bits are the significand, the 40 below round it to
    // nearest even; bits = ((189 - clz) << 23) + significand (a carry out of the significand bumps the exponent),
    // then the sign; 0 stays +0. A block cannot carry a predicate: it goes on the final move.
    std::string out = m[1].str() + "{ .reg .pred %cq<4>; .reg .b64 %ca, %cn, %cr; .reg .b32 %cz, %cm, %ce, %cb; ";
    if (isSigned)
      out += "setp.lt.s64 %cq0, " + x + ", 0; sub.s64 %cn, 0, " + x + "; selp.b64 %ca, %cn, " + x + ", %cq0; ";
    else
      out += "setp.ne.u64 %cq0, " + x + ", " + x + "; mov.b64 %ca, " + x + "; ";
    out += "setp.eq.u64 %cq1, %ca, 0; clz.b64 %cz, %ca; shl.b64 %ca, %ca, %cz; shr.u64 %cn, %ca, 40; "
           "cvt.u32.u64 %cm, %cn; and.b64 %cr, %ca, 1099511627775; setp.gt.u64 %cq2, %cr, 549755813888; "
           "setp.eq.u64 %cq3, %cr, 549755813888; and.b32 %cb, %cm, 1; setp.ne.and.b32 %cq3, %cb, 0, %cq3; "
           "or.pred %cq2, %cq2, %cq3; selp.u32 %cb, 1, 0, %cq2; add.u32 %cm, %cm, %cb; sub.u32 %ce, 189, %cz; "
           "shl.b32 %ce, %ce, 23; add.u32 %ce, %ce, %cm; selp.b32 %cb, 0x80000000, 0, %cq0; or.b32 %ce, %ce, %cb; "
           "selp.b32 %ce, 0, %ce, %cq1; " + m[2].str() + "mov.b32 " + m[4].str() + ", %ce; }";
    return out;
  });
}

}  // namespace tilesim::gpu

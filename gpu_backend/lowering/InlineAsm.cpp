// tt.elementwise_inline_asm (interpreter/InlineAsm.cpp) as LLVM inline asm, the way Triton's lowering builds it:
// the asm string as written ($0..$k-1 the outputs, the inputs after them), the op's `constraints` attribute as
// the constraint string, `pure = false` as a side effect, and one asm call per group of `packed_element`
// consecutive elements. A group's elements are packed into one register, lowest element in the lowest bits
// (four i8 or two f16 in a 32-bit register: the interpreter's packing); an `f`/`d` constraint takes a float of
// that width, every other letter an integer, widened to 32 bits for `r` (the interpreter keeps the low bits).
// The packed elements must be consecutive registers of the tile's layout (its vector width at least the pack;
// Triton's layouts make them so); a group wider than 64 bits, or a layout that splits a group, is refused.
// Outputs the asm never writes are whatever the register held (the interpreter marks them undefined).
#include <llvm/IR/InlineAsm.h>
#include <llvm/Support/Error.h>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"
#include "ir/SplitText.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

// The register type the constraint letter asks for, for a group of `bits` bits.
llvm::Type* registerType(Builder& b, char letter, int bits) {
  if (letter == 'f') return b.getFloatTy();
  if (letter == 'd') return b.getDoubleTy();
  if (letter == 'r') return b.getInt32Ty();
  if (letter == 'l') return b.getInt64Ty();
  if (letter == 'h') return b.getInt16Ty();
  if (letter == 'c') return b.getInt8Ty();
  if (letter == 'b') return b.getInt1Ty();
  return b.getIntNTy(static_cast<unsigned>(bits));
}

char letterOf(const std::string& constraint) {
  for (char c : constraint)
    if (c != '=' && c != '&' && c != '+') return c;
  return 'r';
}

llvm::Value* asBits(Builder& b, llvm::Value* v) {
  llvm::Type* type = v->getType();
  if (type->isIntegerTy()) return v;
  return b.CreateBitCast(v, b.getIntNTy(type->getPrimitiveSizeInBits()));
}

}  // namespace

void lowerInlineAsm(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const InlineAsmView view{op};
  const std::string* asmText = view.asmString();
  if (!asmText) lowering.unsupported(op, "without asm_string");
  const std::string* constraintText = view.constraints();
  if (!constraintText) lowering.unsupported(op, "without constraints");
  const int64_t packed = view.packedElement();
  if (packed < 1 || packed > 8) lowering.unsupported(op, "with packed_element " + std::to_string(packed));
  const int pack = static_cast<int>(packed);
  const bool pure = view.pure();
  const int outputs = static_cast<int>(op.numResults()), inputs = static_cast<int>(op.numOperands());
  std::vector<std::string> constraints = splitAt(*constraintText, ',');
  if (static_cast<int>(constraints.size()) < outputs + inputs)
    lowering.unsupported(op, "with fewer constraints than outputs and inputs");
  if (pack < 1 || pack > 8) lowering.unsupported(op, "with packed_element " + std::to_string(pack));

  // The layout every output and input is taken in: the first tensor result's (or operand's).
  const LinearLayout* layout = nullptr;
  for (const auto& result : op.results)
    if (!layout && result->type.isTensor()) layout = lowering.layoutOf(result.get());
  for (const Value* operand : op.operands)
    if (!layout && operand->type.isTensor()) layout = lowering.layoutOf(operand);
  const int registers = KernelLowering::registerCount(layout);
  if (pack > 1 && (!layout || vectorWidth(*layout) < pack || registers % pack != 0))
    lowering.unsupported(op, "with packed_element " + std::to_string(pack) + " on a layout that does not give each thread " +
                                 std::to_string(pack) + " consecutive elements");

  auto elementBits = [&](Type type) -> int {
    llvm::Type* scalar = lowering.scalarType(op, type);
    return static_cast<int>(scalar->getPrimitiveSizeInBits());
  };
  std::vector<llvm::Type*> outputTypes, inputTypes;
  std::vector<int> outputBits, inputBits;
  for (int r = 0; r < outputs; ++r) {
    const int bits = elementBits(op.result(static_cast<size_t>(r))->type);
    if (bits * pack > 64) lowering.unsupported(op, "with a packed group wider than 64 bits");
    outputBits.push_back(bits);
    outputTypes.push_back(registerType(b, letterOf(constraints[static_cast<size_t>(r)]), bits * pack));
  }
  for (int j = 0; j < inputs; ++j) {
    const int bits = elementBits(op.operand(static_cast<size_t>(j))->type);
    if (bits * pack > 64) lowering.unsupported(op, "with a packed group wider than 64 bits");
    inputBits.push_back(bits);
    inputTypes.push_back(registerType(b, letterOf(constraints[static_cast<size_t>(outputs + j)]), bits * pack));
  }
  llvm::Type* returnType = outputs == 0   ? b.getVoidTy()
                           : outputs == 1 ? outputTypes[0]
                                          : static_cast<llvm::Type*>(llvm::StructType::get(lowering.context, outputTypes));
  auto* type = llvm::FunctionType::get(returnType, inputTypes, false);
  if (llvm::Error error = llvm::InlineAsm::verify(type, *constraintText))
    lowering.unsupported(op, "with constraints \"" + *constraintText + "\": " + llvm::toString(std::move(error)));
  llvm::InlineAsm* code = llvm::InlineAsm::get(type, *asmText, *constraintText, /*hasSideEffects=*/!pure);

  std::vector<std::vector<llvm::Value*>> in;
  for (const Value* operand : op.operands) in.push_back(lowering.in(operand, layout));
  std::vector<std::vector<llvm::Value*>> out(static_cast<size_t>(outputs));
  for (int group = 0; group < registers / pack; ++group) {
    std::vector<llvm::Value*> arguments;
    for (int j = 0; j < inputs; ++j) {
      const int bits = inputBits[static_cast<size_t>(j)];
      llvm::Type* word = b.getIntNTy(static_cast<unsigned>(std::max(bits * pack, 1)));
      llvm::Value* packed = llvm::ConstantInt::get(word, 0);
      for (int k = 0; k < pack; ++k) {
        llvm::Value* element = b.CreateZExt(asBits(b, in[static_cast<size_t>(j)][static_cast<size_t>(group * pack + k)]), word);
        packed = b.CreateOr(packed, b.CreateShl(element, static_cast<uint64_t>(k * bits)));
      }
      llvm::Type* target = inputTypes[static_cast<size_t>(j)];
      arguments.push_back(target->isIntegerTy() ? b.CreateZExtOrTrunc(packed, target) : b.CreateBitCast(packed, target));
    }
    llvm::Value* call = b.CreateCall(code, arguments);
    for (int r = 0; r < outputs; ++r) {
      llvm::Value* value = outputs == 1 ? call : b.CreateExtractValue(call, {static_cast<unsigned>(r)});
      const int bits = outputBits[static_cast<size_t>(r)];
      llvm::Value* word = asBits(b, value);
      llvm::Type* element = lowering.scalarType(op, op.result(static_cast<size_t>(r))->type);
      for (int k = 0; k < pack; ++k) {
        llvm::Value* piece = b.CreateTrunc(b.CreateLShr(b.CreateZExtOrTrunc(word, b.getIntNTy(std::max(64u, word->getType()->getIntegerBitWidth()))),
                                                        static_cast<uint64_t>(k * bits)),
                                           b.getIntNTy(static_cast<unsigned>(bits)));
        out[static_cast<size_t>(r)].push_back(element->isIntegerTy() ? piece : b.CreateBitCast(piece, element));
      }
    }
  }
  for (int r = 0; r < outputs; ++r) {
    const Value* result = op.result(static_cast<size_t>(r));
    Lowered lowered{std::move(out[static_cast<size_t>(r)]), std::nullopt};
    if (result->type.isTensor()) {
      TILESIM_ASSERT(layout, "inline asm: a tensor result without a layout");
      const LinearLayout* own = lowering.layoutOf(result);
      if (own && !(*own == *layout)) lowering.unsupported(op, "with outputs in different layouts");
      lowered.layout = *layout;
    }
    lowering.set(result, std::move(lowered));
  }
}

}  // namespace tilesim::gpu

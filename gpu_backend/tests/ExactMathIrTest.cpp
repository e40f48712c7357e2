// The exact profile's math functions as the GPU lowering emits them (gpu_backend/lowering/ExactMath.cpp) are the
// interpreter's (ir/eval/ExactMath) operation for operation: the emitted LLVM IR, compiled for this CPU by LLVM's
// JIT, gives the bits exactmath::evalBits gives, on special values and on 260,000 inputs (200,000 random bit patterns)
// per function and type. (The NVPTX back end maps the same IR ops to fma.rn / cvt.rni / div.rn / sqrt.rn; the
// device check compares on the GPU itself.)
#include <gtest/gtest.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/TargetSelect.h>

#include <bit>
#include <random>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/eval/ExactMath.h"

namespace tilesim::gpu {
namespace {

using scalar::MathFunction;

struct Case {
  ExactFunction emitted;
  MathFunction reference;
  const char* name;
};
constexpr Case kCases[] = {
    {ExactFunction::Exp, MathFunction::Exp, "exp"},       {ExactFunction::Exp2, MathFunction::Exp2, "exp2"},
    {ExactFunction::Exp10, MathFunction::Exp10, "exp10"}, {ExactFunction::Log, MathFunction::Log, "log"},
    {ExactFunction::Log2, MathFunction::Log2, "log2"},    {ExactFunction::Log10, MathFunction::Log10, "log10"},
    {ExactFunction::Rsqrt, MathFunction::Rsqrt, "rsqrt"}, {ExactFunction::Tanh, MathFunction::Tanh, "tanh"},
    {ExactFunction::Erf, MathFunction::Erf, "erf"},       {ExactFunction::Sin, MathFunction::Sin, "sin"},
    {ExactFunction::Cos, MathFunction::Cos, "cos"},
};

// JIT-compiles `T name(T x) { return emitExactMath(function, x); }` for each case and type.
class ExactMathIr : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto jit = llvm::orc::LLJITBuilder().create();
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    jit_ = std::move(*jit);
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("exact_math", *context);
    module->setDataLayout(jit_->getDataLayout());
    llvm::IRBuilder<> b(*context);
    for (const Case& c : kCases)
      for (llvm::Type* type : {b.getFloatTy(), b.getDoubleTy()}) {
        auto* function = llvm::Function::Create(llvm::FunctionType::get(type, {type}, false),
                                                llvm::GlobalValue::ExternalLinkage,
                                                std::string(c.name) + (type->isFloatTy() ? "_f32" : "_f64"), *module);
        b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", function));
        b.CreateRet(emitExactMath(b, c.emitted, function->getArg(0)));
      }
    ASSERT_FALSE(static_cast<bool>(jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))));
  }
  template <typename T>
  static T (*lookup(const char* name))(T) {
    auto symbol = jit_->lookup(std::string(name) + (sizeof(T) == 4 ? "_f32" : "_f64"));
    EXPECT_TRUE(static_cast<bool>(symbol));
    return symbol->template toPtr<T (*)(T)>();
  }
  static std::unique_ptr<llvm::orc::LLJIT> jit_;
};
std::unique_ptr<llvm::orc::LLJIT> ExactMathIr::jit_;

template <typename T, typename Word>
int countMismatches(T (*emitted)(T), MathFunction reference, ScalarKind kind, const char* name) {
  std::mt19937_64 random(20261201);
  std::vector<Word> inputs = {0, Word(1) << (sizeof(T) * 8 - 1), std::bit_cast<Word>(T(1)), std::bit_cast<Word>(T(-1)),
                              std::bit_cast<Word>(T(0.5)), std::bit_cast<Word>(T(2)), std::bit_cast<Word>(T(100)),
                              std::bit_cast<Word>(T(-100)), std::bit_cast<Word>(T(1e-40)), 1,
                              std::bit_cast<Word>(std::numeric_limits<T>::infinity()),
                              std::bit_cast<Word>(-std::numeric_limits<T>::infinity()),
                              std::bit_cast<Word>(std::numeric_limits<T>::quiet_NaN())};
  for (int i = 0; i < 200000; ++i) inputs.push_back(static_cast<Word>(random()));
  // Inputs near 1 (log's cancellation) and in exp's normal range.
  for (int i = 0; i < 20000; ++i) inputs.push_back(std::bit_cast<Word>(T(1) + T(std::ldexp(double(random() % 2000) - 1000, -12))));
  for (int i = 0; i < 20000; ++i) inputs.push_back(std::bit_cast<Word>(T(double(random() % 200000) / 1000.0 - 100)));
  // erf's pieces and tail lie in [-7, 7].
  for (int i = 0; i < 20000; ++i) inputs.push_back(std::bit_cast<Word>(T(double(random() % 1400000) / 100000.0 - 7)));
  int mismatches = 0;
  for (Word input : inputs) {
    const uint64_t expected = exactmath::evalBits(reference, input, kind);
    const uint64_t got = std::bit_cast<Word>(emitted(std::bit_cast<T>(input)));
    if (got != expected && ++mismatches <= 3)
      ADD_FAILURE() << name << (sizeof(T) == 4 ? " f32" : " f64") << " of 0x" << std::hex << uint64_t(input)
                    << ": emitted 0x" << got << ", interpreter 0x" << expected;
  }
  return mismatches;
}

TEST_F(ExactMathIr, BitIdenticalWithTheInterpreter) {
  for (const Case& c : kCases) {
    const int f32 = countMismatches<float, uint32_t>(lookup<float>(c.name), c.reference, ScalarKind::F32, c.name);
    const int f64 = countMismatches<double, uint64_t>(lookup<double>(c.name), c.reference, ScalarKind::F64, c.name);
    EXPECT_EQ(f32, 0) << c.name << " f32";
    EXPECT_EQ(f64, 0) << c.name << " f64";
  }
}

}  // namespace
}  // namespace tilesim::gpu

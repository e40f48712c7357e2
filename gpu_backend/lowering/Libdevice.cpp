// tt.extern_elementwise (libdevice `__nv_*` calls; docs/semantics.md §Libdevice) and linking libdevice.10.bc.
//  - exact profile, in the interpreter's three classes (interpreter/ElementwiseFloat.cpp evalExtern):
//    1. the functions with an ExactMath algorithm (exp exp2 exp10 log log2 log10 sin cos rsqrt tanh erf, and
//       __nv_fast_expf/logf, which the interpreter evaluates the same way) are emitted op for op (ExactMath.cpp):
//       bit-identical.
//    2. the functions whose result is exactly defined (floor ceil trunc round rint nearbyint fabs copysign fmin
//       fmax fmod fdim fma sqrt, isinf isnan finite signbit) call libdevice, whose implementations of them are
//       exact, with subnormals kept (nvvm-reflect-ftz = 0): bit-identical.
//    3. the rest (cbrt tan asin acos atan sinh cosh asinh acosh atanh erfc expm1 log1p pow atan2 hypot lgamma
//       tgamma, __nv_fast_powf): the interpreter computes the double function of the exactly widened operands with
//       the host's libm and rounds once. For f32 and f16 results the GPU does the same with libdevice's double
//       function (`__nv_pow` for `__nv_powf`), then one cvt.rn. The two double values are both within a few ulp
//       of the exact one (glibc 1 ulp or less, libdevice 1-2 ulp), so after the rounding to f32 (29 bits
//       coarser) they differ only when the exact value lies within those few double ulps of a midpoint between
//       two floats: about 2^-27 of the inputs. The comparison rule stays bit for bit; a differing lane there is
//       this documented double-rounding case (docs/gpu-backend.md). f64 (and bf16) results of this class are
//       refused: libm's and libdevice's doubles differ in the last bit regularly.
//  - triton profile: every `__nv_*` symbol calls libdevice, with `nvvm-reflect-ftz` = 1 as Triton sets it.
// linkLibdevice links the bitcode (only the functions used, made internal so the optimiser inlines them and drops the rest)
// when the module declares any `__nv_*` function. It is looked up in $TILESIM_LIBDEVICE, the CUDA toolkit
// (/usr/local/cuda/nvvm/libdevice, $CUDA_HOME) and the libdevice that the Triton Python package ships.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

// The base name without `__nv_` and the f32 suffix / f64 form: "__nv_expf" -> "exp", "__nv_exp" -> "exp".
std::string baseName(const std::string& symbol, bool isFloat) {
  std::string name = symbol.substr(5);
  if (name.rfind("fast_", 0) == 0) name = name.substr(5);
  if (isFloat && !name.empty() && name.back() == 'f') name.pop_back();
  return name;
}

std::optional<ExactFunction> exactAlgorithm(const std::string& name) {
  if (name == "exp") return ExactFunction::Exp;
  if (name == "exp2") return ExactFunction::Exp2;
  if (name == "exp10") return ExactFunction::Exp10;
  if (name == "log") return ExactFunction::Log;
  if (name == "log2") return ExactFunction::Log2;
  if (name == "log10") return ExactFunction::Log10;
  if (name == "rsqrt") return ExactFunction::Rsqrt;
  if (name == "tanh") return ExactFunction::Tanh;
  if (name == "erf") return ExactFunction::Erf;
  if (name == "sin") return ExactFunction::Sin;
  if (name == "cos") return ExactFunction::Cos;
  return std::nullopt;
}

bool exactlyDefined(const std::string& name) {
  static const std::set<std::string> kNames = {"floor", "ceil",  "trunc", "round", "rint",  "nearbyint", "fabs",
                                               "copysign", "fmin", "fmax", "fmod", "fdim", "fma", "sqrt",
                                               "isinf", "isnan", "finite", "isfinited", "signbit", "signbitd",
                                               "isinfd", "isnand"};
  return kNames.count(name) > 0;
}

std::vector<std::filesystem::path> libdeviceCandidates() {
  std::vector<std::filesystem::path> paths;
  if (const char* explicitPath = std::getenv("TILESIM_LIBDEVICE")) paths.emplace_back(explicitPath);
  if (const char* cuda = std::getenv("CUDA_HOME")) paths.push_back(std::filesystem::path(cuda) / "nvvm/libdevice/libdevice.10.bc");
  paths.emplace_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  // Triton's wheel ships one: <site-packages>/triton/backends/nvidia/lib/libdevice.10.bc.
  const std::string tail = "triton/backends/nvidia/lib/libdevice.10.bc";
  std::vector<std::filesystem::path> roots = {".venv/lib", "/usr/local/lib", "/usr/lib"};
  if (const char* home = std::getenv("HOME")) roots.push_back(std::filesystem::path(home) / ".local/lib");
  if (const char* venv = std::getenv("VIRTUAL_ENV")) roots.push_back(std::filesystem::path(venv) / "lib");
  std::error_code error;
  for (const auto& root : roots) {
    if (!std::filesystem::is_directory(root, error)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
      if (entry.path().filename().string().rfind("python3", 0) != 0) continue;
      paths.push_back(entry.path() / "site-packages" / tail);
      paths.push_back(entry.path() / "dist-packages" / tail);
    }
  }
  return paths;
}

}  // namespace

llvm::Value* callLibdevice(KernelLowering& lowering, const Operation& op, const std::string& symbol,
                           const std::vector<llvm::Value*>& arguments, llvm::Type* result) {
  std::vector<llvm::Type*> parameters;
  for (llvm::Value* argument : arguments) parameters.push_back(argument->getType());
  auto* type = llvm::FunctionType::get(result, parameters, false);
  llvm::FunctionCallee callee = lowering.module.getOrInsertFunction(symbol, type);
  if (auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee()); !function || function->getFunctionType() != type)
    lowering.unsupported(op, "of " + symbol + " with two different signatures");
  return lowering.builder.CreateCall(callee, arguments);
}

void lowerExternElementwise(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const std::string symbol = ExternElementwiseView{op}.symbol();
  if (symbol.rfind("__nv_", 0) != 0) lowering.unsupported(op, "of '" + symbol + "' (only libdevice __nv_* functions)");
  const scalar::LibdeviceFunction* known = scalar::findLibdeviceFunction(symbol);
  const Type element = op.operand(0)->type.element();
  // The symbol's precision decides its base name (`__nv_cbrtf` is cbrt whatever the operand type).
  const bool isFloat = known ? !known->isDouble : element.isScalar() && element.scalarKind() == ScalarKind::F32;
  const std::string name = baseName(symbol, isFloat);
  const bool triton = lowering.options.profile == FloatProfile::Triton;
  llvm::Type* result = lowering.scalarType(op, op.result()->type);
  if (!triton) {
    if (!known) lowering.unsupported(op, "of " + symbol + " (the interpreter does not know it)");
    if (std::optional<ExactFunction> function = exactAlgorithm(name); function && op.numOperands() == 1)
      return lowerElementwise(lowering, op, [&](auto& v) { return emitExactMath(b, *function, v[0]); });
    if (!exactlyDefined(name)) {
      if (known->intResult || !(result->isFloatTy() || result->isHalfTy()))
        lowering.unsupported(op, "of " + symbol + " in the exact profile (the interpreter evaluates it with the host's "
                                 "libm in double, which libdevice's double does not reproduce bit for bit)");
      // Class 3: libdevice's double function of the exactly widened operands, rounded once (cvt.rn).
      const std::string wide = "__nv_" + name;
      return lowerElementwise(lowering, op, [&](auto& v) {
        std::vector<llvm::Value*> arguments;
        for (llvm::Value* argument : v) arguments.push_back(b.CreateFPExt(argument, b.getDoubleTy()));
        llvm::Value* value = b.CreateFPTrunc(callLibdevice(lowering, op, wide, arguments, b.getDoubleTy()), result);
        llvm::Type* word = b.getIntNTy(result->getPrimitiveSizeInBits());
        llvm::Value* canonical = b.CreateBitCast(llvm::ConstantInt::get(word, result->isFloatTy() ? 0x7FFFFFFFu : 0x7FFFu), result);
        return b.CreateSelect(b.CreateFCmpUNO(value, value), canonical, value);  // the interpreter's FloatCodec
      });
    }
  }
  // Float operands and results of another width than the symbol's (an f16 tensor given to `__nv_cbrtf`) are
  // converted to it and back, so the declaration always matches libdevice's definition.
  llvm::Type* symbolType = known ? (known->isDouble ? b.getDoubleTy() : b.getFloatTy()) : nullptr;
  auto convert = [&](llvm::Value* value, llvm::Type* target) -> llvm::Value* {
    if (!target || !value->getType()->isFloatingPointTy() || value->getType() == target) return value;
    return target->getPrimitiveSizeInBits() > value->getType()->getPrimitiveSizeInBits() ? b.CreateFPExt(value, target)
                                                                                         : b.CreateFPTrunc(value, target);
  };
  llvm::Type* callResult = result->isFloatingPointTy() && symbolType ? symbolType : result;
  lowerElementwise(lowering, op, [&](auto& v) {
    std::vector<llvm::Value*> arguments;
    for (llvm::Value* argument : v) arguments.push_back(convert(argument, symbolType));
    return convert(callLibdevice(lowering, op, symbol, arguments, callResult), result);
  });
}

std::string linkLibdevice(llvm::Module& module, const CompileOptions& options) {
  bool needed = false;
  for (const llvm::Function& function : module)
    if (function.isDeclaration() && function.getName().starts_with("__nv_")) needed = true;
  if (!needed) return "";
  std::filesystem::path found;
  std::error_code error;
  const char* explicitPath = std::getenv("TILESIM_LIBDEVICE");
  if (explicitPath && *explicitPath && !std::filesystem::is_regular_file(explicitPath, error))
    return std::string("TILESIM_LIBDEVICE=") + explicitPath + " is not a regular file (it must name libdevice.10.bc)";
  for (const auto& candidate : libdeviceCandidates())
    if (std::filesystem::is_regular_file(candidate, error)) {
      found = candidate;
      break;
    }
  const std::string named = explicitPath && *explicitPath ? std::string("TILESIM_LIBDEVICE=") + found.string() : found.string();
  if (found.empty())
    return "the kernel calls libdevice, and libdevice.10.bc was not found (set TILESIM_LIBDEVICE, or install the "
           "CUDA toolkit or the triton Python package)";
  std::vector<std::string> wanted;
  for (const llvm::Function& function : module)
    if (function.isDeclaration() && function.getName().starts_with("__nv_")) wanted.push_back(function.getName().str());
  auto buffer = llvm::MemoryBuffer::getFile(found.string());
  if (!buffer) return "cannot read " + named + ": " + buffer.getError().message();
  // Lazily: only the functions the linker needs are read from the bitcode (libdevice has some 500; reading
  // them all was most of the compile of a kernel that calls one, about 20 ms).
  auto parsed = llvm::getOwningLazyBitcodeModule(std::move(buffer.get()), module.getContext());
  if (!parsed) return "cannot parse " + named + " as LLVM bitcode: " + llvm::toString(parsed.takeError());
  std::unique_ptr<llvm::Module> libdevice = std::move(parsed.get());
  // Every function the kernel calls must be defined there, with the signature the kernel declares: anything
  // else is the bitcode's fault (a wrong file), said here rather than left to the NVPTX backend to abort on.
  for (const std::string& name : wanted) {
    const llvm::Function* definition = libdevice->getFunction(name);
    if (!definition || definition->isDeclaration())
      return named + " does not define " + name + ", which the kernel calls (is it libdevice.10.bc?)";
    if (definition->getFunctionType() != module.getFunction(name)->getFunctionType())
      return named + " defines " + name + " with another signature than the kernel's call";
  }
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  const bool ftz = options.profile == FloatProfile::Triton;
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", ftz ? 1 : 0);
  if (llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::Flags::LinkOnlyNeeded,
                                [](llvm::Module& linked, const llvm::StringSet<>&) {
                                  for (llvm::Function& function : linked)
                                    if (!function.isDeclaration() && function.getCallingConv() != llvm::CallingConv::PTX_Kernel)
                                      function.setLinkage(llvm::GlobalValue::InternalLinkage);
                                }))
    return "linking " + named + " failed";
  return "";
}

}  // namespace tilesim::gpu

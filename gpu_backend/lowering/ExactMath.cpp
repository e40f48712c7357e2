// The exact profile's math functions emitted operation for operation from ir/eval/ExactMath*.cpp (the algorithms
// are documented in ir/eval/ExactMath.h; the constants and coefficient tables are the same objects, from
// ir/eval/ExactMathSupport.h). Every C++ operation there is one LLVM instruction here on the same type: * + - /
// are mul.rn/add.rn/sub.rn/div.rn (no fast-math flags, no contraction in the exact profile), fma is fma.rn,
// nearbyint is cvt.rni, sqrt is sqrt.rn, exponent-bit tricks are integer ops on the bit pattern; an `if` that
// returns early or changes a value becomes a select of both computed paths, which gives the same result. So
// the GPU result is the interpreter's bit for bit: exp, exp2, exp10, log, log2, log10, rsqrt, tanh, erf, sin, cos
// on f32 and f64 (f16/bf16: in f32, rounded once); a NaN result is the canonical NaN, as the interpreter stores it.
// sin/cos's Payne-Hanek reduction is the same 64-bit and 128-bit integer arithmetic on the same 2/pi table.
#include <iterator>
#include <limits>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/eval/ExactMathSupport.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;
namespace em = tilesim::exactmath;

template <typename T>
struct Emitter {
  Builder& b;
  using C = em::Constants<T>;
  using Word = em::Word<T>;
  static constexpr int kMantissa = em::Bits<T>::kMantissaBits, kBias = em::Bits<T>::kBias;

  llvm::Type* type() const { return sizeof(T) == 4 ? b.getFloatTy() : b.getDoubleTy(); }
  llvm::IntegerType* word() const { return b.getIntNTy(sizeof(T) * 8); }
  llvm::Value* c(T value) const { return llvm::ConstantFP::get(type(), static_cast<double>(value)); }
  llvm::Value* mul(llvm::Value* x, llvm::Value* y) const { return b.CreateFMul(x, y); }
  llvm::Value* add(llvm::Value* x, llvm::Value* y) const { return b.CreateFAdd(x, y); }
  llvm::Value* sub(llvm::Value* x, llvm::Value* y) const { return b.CreateFSub(x, y); }
  llvm::Value* div(llvm::Value* x, llvm::Value* y) const { return b.CreateFDiv(x, y); }
  llvm::Value* neg(llvm::Value* x) const { return b.CreateFNeg(x); }
  llvm::Value* fma(llvm::Value* x, llvm::Value* y, llvm::Value* z) const {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {type()}, {x, y, z});
  }
  llvm::Value* rint(llvm::Value* x) const { return b.CreateUnaryIntrinsic(llvm::Intrinsic::nearbyint, x); }
  llvm::Value* isNaN(llvm::Value* x) const { return b.CreateFCmpUNO(x, x); }
  llvm::Value* select(llvm::Value* condition, llvm::Value* x, llvm::Value* y) const { return b.CreateSelect(condition, x, y); }
  llvm::Value* bits(llvm::Value* x) const { return b.CreateBitCast(x, word()); }
  llvm::Value* fromBits(llvm::Value* w) const { return b.CreateBitCast(w, type()); }

  // 2^e for an i32 e in the normal range (exponent bits).
  llvm::Value* powerOfTwo(llvm::Value* e) const {
    llvm::Value* biased = b.CreateZExtOrTrunc(b.CreateAdd(e, b.getInt32(kBias)), word());
    return fromBits(b.CreateShl(biased, kMantissa));
  }
  llvm::Value* powerOfTwo(int e) const { return c(em::powerOfTwo<T>(e)); }
  llvm::Value* scaleByPowerOfTwo(llvm::Value* x, llvm::Value* e) const {  // e: i32; e / 2 truncates as in C++
    llvm::Value* first = b.CreateSDiv(e, b.getInt32(2));
    return mul(mul(x, powerOfTwo(first)), powerOfTwo(b.CreateSub(e, first)));
  }
  std::pair<llvm::Value*, llvm::Value*> twoProduct(llvm::Value* x, llvm::Value* y) const {
    llvm::Value* hi = mul(x, y);
    return {hi, fma(x, y, neg(hi))};
  }
  std::pair<llvm::Value*, llvm::Value*> twoSum(llvm::Value* x, llvm::Value* y) const {
    llvm::Value* hi = add(x, y);
    llvm::Value* yVirtual = sub(hi, x);
    llvm::Value* xVirtual = sub(hi, yVirtual);
    return {hi, add(sub(x, xVirtual), sub(y, yVirtual))};
  }
  std::pair<llvm::Value*, llvm::Value*> fastTwoSum(llvm::Value* x, llvm::Value* y) const {
    llvm::Value* hi = add(x, y);
    return {hi, sub(y, sub(hi, x))};
  }
  template <size_t N>
  llvm::Value* horner(const T (&coefficients)[N], llvm::Value* x) const {
    llvm::Value* sum = c(coefficients[N - 1]);
    for (size_t i = N - 1; i-- > 0;) sum = fma(sum, x, c(coefficients[i]));
    return sum;
  }
  llvm::Value* clamp(llvm::Value* x, T low, T high) const {  // x < low ? low : (x > high ? high : x)
    return select(b.CreateFCmpOLT(x, c(low)), c(low), select(b.CreateFCmpOGT(x, c(high)), c(high), x));
  }
  llvm::Value* toInt(llvm::Value* k) const { return b.CreateFPToSI(k, b.getInt32Ty()); }  // k is integral, in range

  // ---- exp family (ir/eval/ExactMathExp.cpp)
  llvm::Value* expKernel(std::pair<llvm::Value*, llvm::Value*> y, llvm::Value* k) const {
    llvm::Value* p = horner(C::kExpTaylor, y.first);
    llvm::Value* tail = fma(mul(y.first, y.first), p, y.second);
    auto head = fastTwoSum(c(T(1)), y.first);
    return scaleByPowerOfTwo(add(head.first, add(head.second, tail)), toInt(k));
  }
  std::pair<llvm::Value*, llvm::Value*> reduceByConstant(llvm::Value* x, llvm::Value* k, T hi, T lo) const {
    return twoSum(fma(neg(k), c(hi), x), mul(neg(k), c(lo)));
  }
  llvm::Value* exp(llvm::Value* input, T low, T high) const {
    llvm::Value* x = clamp(input, low, high);
    llvm::Value* k = rint(mul(x, c(C::kLog2E)));
    return select(isNaN(input), input, expKernel(reduceByConstant(x, k, C::kLn2Hi, C::kLn2Lo), k));
  }
  llvm::Value* exp2(llvm::Value* input, T low, T high) const {
    llvm::Value* x = clamp(input, low, high);
    llvm::Value* k = rint(x);
    llvm::Value* r = sub(x, k);
    auto y = twoProduct(r, c(C::kLn2Hi));
    y.second = fma(r, c(C::kLn2Lo), y.second);
    return select(isNaN(input), input, expKernel(y, k));
  }
  llvm::Value* exp10(llvm::Value* input, T low, T high) const {
    llvm::Value* x = clamp(input, low, high);
    llvm::Value* k = rint(mul(x, c(C::kLog2Of10)));
    auto r = reduceByConstant(x, k, C::kLog10Of2Hi, C::kLog10Of2Lo);
    auto y = twoProduct(r.first, c(C::kLn10Hi));
    y.second = fma(r.first, c(C::kLn10Lo), fma(r.second, c(C::kLn10Hi), y.second));
    return select(isNaN(input), input, expKernel(y, k));
  }

  // ---- log family (ir/eval/ExactMathLog.cpp); base 0 = e, 1 = 2, 2 = 10
  llvm::Value* log(llvm::Value* input, int base) const {
    llvm::Value* subnormal = b.CreateFCmpOLT(input, powerOfTwo(1 - kBias));
    llvm::Value* x = select(subnormal, mul(input, powerOfTwo(kMantissa + 2)), input);
    llvm::Value* extra = b.CreateSelect(subnormal, b.getInt32(kMantissa + 2), b.getInt32(0));
    llvm::Value* w = bits(x);
    llvm::Value* exponent = b.CreateSub(b.CreateTrunc(b.CreateLShr(w, kMantissa), b.getInt32Ty()), b.getInt32(kBias));
    llvm::Value* m = fromBits(b.CreateOr(b.CreateAnd(w, llvm::ConstantInt::get(word(), (Word(1) << kMantissa) - 1)),
                                         llvm::ConstantInt::get(word(), Word(kBias) << kMantissa)));
    llvm::Value* large = b.CreateFCmpOGT(m, c(C::kSqrt2));
    m = select(large, mul(m, c(T(0.5))), m);
    exponent = b.CreateSelect(large, b.CreateAdd(exponent, b.getInt32(1)), exponent);
    llvm::Value* f = sub(m, c(T(1)));
    llvm::Value* s = div(f, add(c(T(2)), f));
    llvm::Value* z = mul(s, s);
    llvm::Value* r = mul(z, horner(C::kLogAtanh, z));
    llvm::Value* halfSquare = mul(mul(c(T(0.5)), f), f);
    llvm::Value* correction = mul(s, add(halfSquare, r));
    auto hi = twoSum(f, neg(halfSquare));
    llvm::Value* halfSquareError = fma(mul(c(T(0.5)), f), f, neg(halfSquare));
    llvm::Value* lo = add(hi.second, sub(correction, halfSquareError));
    auto y = fastTwoSum(hi.first, lo);
    llvm::Value* k = b.CreateSIToFP(b.CreateSub(exponent, extra), type());
    std::pair<llvm::Value*, llvm::Value*> kc, yd = y;
    if (base == 0) {
      kc = twoProduct(k, c(C::kLn2Hi));
      kc.second = fma(k, c(C::kLn2Lo), kc.second);
    } else if (base == 1) {
      kc = {k, c(T(0))};
    } else {
      kc = twoProduct(k, c(C::kLog10Of2Hi));
      kc.second = fma(k, c(C::kLog10Of2Lo), kc.second);
    }
    if (base != 0) {
      const T dHi = base == 1 ? C::kInvLn2Hi : C::kInvLn10Hi, dLo = base == 1 ? C::kInvLn2Lo : C::kInvLn10Lo;
      yd = twoProduct(y.first, c(dHi));
      yd.second = fma(y.first, c(dLo), fma(y.second, c(dHi), yd.second));
    }
    auto sum = twoSum(kc.first, yd.first);
    llvm::Value* value = add(sum.first, add(sum.second, add(kc.second, yd.second)));
    // Special cases, in the interpreter's order: NaN, x < 0, x == 0, +inf.
    llvm::Value* inf = c(std::numeric_limits<T>::infinity());
    value = select(b.CreateFCmpOEQ(input, inf), input, value);
    value = select(b.CreateFCmpOEQ(input, c(T(0))), neg(inf), value);
    value = select(b.CreateFCmpOLT(input, c(T(0))), c(std::numeric_limits<T>::quiet_NaN()), value);
    return select(isNaN(input), input, value);
  }

  // ---- rsqrt (ir/eval/ExactMathSpecial.cpp)
  llvm::Value* rsqrt(llvm::Value* input) const {
    constexpr int kScale = kBias + 1;
    llvm::Value* small = b.CreateFCmpOLT(input, powerOfTwo(-kScale / 2));
    llvm::Value* x = select(small, mul(mul(input, powerOfTwo(kScale / 2)), powerOfTwo(kScale / 2)), input);
    llvm::Value* resultScale = select(small, powerOfTwo(kScale / 2), c(T(1)));
    llvm::Value* root = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    llvm::Value* y = div(c(T(1)), root);
    llvm::Value* rootError = fma(neg(root), root, x);
    llvm::Value* quotientError = fma(neg(y), root, c(T(1)));
    llvm::Value* correction = fma(mul(mul(c(T(-0.5)), rootError), y), y, quotientError);
    llvm::Value* value = mul(fma(y, correction, y), resultScale);
    value = select(b.CreateFCmpOEQ(input, c(std::numeric_limits<T>::infinity())), c(T(0)), value);
    value = select(b.CreateFCmpOLT(input, c(T(0))), c(std::numeric_limits<T>::quiet_NaN()), value);
    value = select(b.CreateFCmpOEQ(input, c(T(0))), div(c(T(1)), input), value);
    return select(isNaN(input), input, value);
  }

  // ---- tanh (ir/eval/ExactMathSpecial.cpp): |x| < 1 a Chebyshev fit, else 1 - 2 / (exp(2|x|) + 1); odd.
  llvm::Value* tanh(llvm::Value* x, T expLow, T expHigh) const {
    llvm::Value* sign = llvm::ConstantInt::get(word(), Word(1) << (sizeof(T) * 8 - 1));
    llvm::Value* a = fromBits(b.CreateAnd(bits(x), b.CreateNot(sign)));
    auto z = twoProduct(a, a);
    auto cube = twoProduct(a, z.first);
    llvm::Value* p = horner(C::kTanhSmall, z.first);
    llvm::Value* small = add(a, fma(cube.first, p, fma(cube.second, p, mul(mul(a, z.second), p))));
    llvm::Value* e = exp(mul(c(T(2)), a), expLow, expHigh);
    llvm::Value* large = sub(c(T(1)), div(c(T(2)), add(e, c(T(1)))));
    llvm::Value* value = select(b.CreateFCmpOLT(a, c(T(1))), small, large);
    llvm::Value* signed_ = fromBits(b.CreateOr(b.CreateAnd(bits(value), b.CreateNot(sign)), b.CreateAnd(bits(x), sign)));
    return select(isNaN(x), x, signed_);
  }

  // ---- erf (ir/eval/ExactMathSpecial.cpp erfImpl): three pieces on |x| and the tail through
  // expOfDoubleWord(-x^2 as hi + lo) (ExactMathExp.cpp), ±1 beyond kErfOneAbove; odd. Every piece is computed and
  // the interval picks one (each path is NaN/inf-safe because the final selects replace those inputs).
  llvm::Value* expOfDoubleWord(llvm::Value* inputHi, llvm::Value* lo, T low, T high) const {
    llvm::Value* hi = clamp(inputHi, low, high);
    llvm::Value* k = rint(mul(hi, c(C::kLog2E)));
    auto y = reduceByConstant(hi, k, C::kLn2Hi, C::kLn2Lo);
    y.second = add(y.second, lo);
    return select(isNaN(inputHi), inputHi, expKernel(y, k));
  }
  template <size_t N>
  llvm::Value* erfcTail(llvm::Value* a, const T (&g)[N], T centre, T expLow, T expHigh) const {
    auto square = twoProduct(a, a);
    llvm::Value* e = expOfDoubleWord(neg(square.first), neg(square.second), expLow, expHigh);
    return mul(e, horner(g, sub(a, c(centre))));
  }
  llvm::Value* erfcAbove(llvm::Value* a, T expLow, T expHigh) const {
    if constexpr (sizeof(T) == 4) {
      return erfcTail(a, em::kErfTail0F32, em::kErfTailCenter0F32, expLow, expHigh);
    } else {
      llvm::Value* first = erfcTail(a, em::kErfTail0F64, em::kErfTailCenter0F64, expLow, expHigh);
      llvm::Value* second = erfcTail(a, em::kErfTail1F64, em::kErfTailCenter1F64, expLow, expHigh);
      return select(b.CreateFCmpOLT(a, c(em::kErfTailStart1F64)), first, second);
    }
  }
  llvm::Value* erf(llvm::Value* x, T expLow, T expHigh) const {
    llvm::Value* sign = llvm::ConstantInt::get(word(), Word(1) << (sizeof(T) * 8 - 1));
    llvm::Value* a = fromBits(b.CreateAnd(bits(x), b.CreateNot(sign)));
    llvm::Value* small = fma(a, horner(C::kErfSmall, mul(a, a)), a);
    llvm::Value* middle = add(c(C::kErfOne), horner(C::kErfMiddle, sub(a, c(T(1)))));
    llvm::Value* tail = sub(c(T(1)), erfcAbove(a, expLow, expHigh));
    llvm::Value* value = select(b.CreateFCmpOLT(a, c(C::kErfOneAbove)), tail, c(T(1)));
    value = select(b.CreateFCmpOLT(a, c(T(1.25))), middle, value);
    value = select(b.CreateFCmpOLT(a, c(T(0.84375))), small, value);
    llvm::Value* signed_ = fromBits(b.CreateOr(b.CreateAnd(bits(value), b.CreateNot(sign)), b.CreateAnd(bits(x), sign)));
    return select(isNaN(x), x, signed_);
  }

  // ---- sin, cos (ir/eval/ExactMathTrig.cpp): Payne-Hanek in 64/128-bit integers for every |x| > pi/4, then the
  // Taylor kernels; the small-argument path and the reduced one are both computed and selected.
  llvm::IntegerType* i64() const { return b.getInt64Ty(); }
  llvm::IntegerType* i128() const { return b.getInt128Ty(); }
  llvm::Value* twoOverPiWord(llvm::Value* index) const {  // kTwoOverPiWords[index] from a constant table
    llvm::Module* module = b.GetInsertBlock()->getModule();
    constexpr size_t kWords = std::size(em::kTwoOverPiWords);
    llvm::GlobalVariable* table = module->getNamedGlobal("tilesim_two_over_pi");
    if (!table) {
      std::vector<uint64_t> words(std::begin(em::kTwoOverPiWords), std::end(em::kTwoOverPiWords));
      llvm::Constant* data = llvm::ConstantDataArray::get(module->getContext(), words);
      table = new llvm::GlobalVariable(*module, data->getType(), true, llvm::GlobalValue::InternalLinkage, data,
                                       "tilesim_two_over_pi");
    }
    llvm::Type* arrayType = llvm::ArrayType::get(i64(), kWords);
    return b.CreateLoad(i64(), b.CreateInBoundsGEP(arrayType, table, {b.getInt32(0), index}));
  }
  llvm::Value* tableBits(llvm::Value* first) const {  // bits [first, first + 64) of the table
    llvm::Value* word = b.CreateLShr(first, 6);
    llvm::Value* shift = b.CreateZExt(b.CreateAnd(first, 63), i64());
    llvm::Value* high = twoOverPiWord(word);
    llvm::Value* next = twoOverPiWord(b.CreateAdd(word, b.getInt32(1)));
    llvm::Value* shifted = b.CreateOr(b.CreateShl(high, shift), b.CreateLShr(next, b.CreateAnd(b.CreateSub(b.getInt64(64), shift), 63)));
    return b.CreateSelect(b.CreateICmpEQ(shift, b.getInt64(0)), high, shifted);
  }
  // 2^e from exponent bits exactly as powerOfTwo<T>(int) computes them (static_cast<Word>(e + bias) << mantissa).
  llvm::Value* powerOfTwoWrapping(llvm::Value* e) const {
    llvm::Value* biased = b.CreateSExtOrTrunc(b.CreateAdd(e, b.getInt32(kBias)), word());
    return fromBits(b.CreateShl(biased, kMantissa));
  }
  struct Reduced {
    llvm::Value* quadrant;  // i32
    std::pair<llvm::Value*, llvm::Value*> r;
  };
  Reduced payneHanek(llvm::Value* significand, llvm::Value* exponent) const {
    constexpr int kWords = static_cast<int>(std::size(em::kTwoOverPiWords));
    // first = exponent - 1 + 63, kept inside the table (it always is for the finite |x| > pi/4 this is used for).
    llvm::Value* first = b.CreateAdd(exponent, b.getInt32(62));
    first = b.CreateSelect(b.CreateICmpSLT(first, b.getInt32(0)), b.getInt32(0), first);
    first = b.CreateSelect(b.CreateICmpSGT(first, b.getInt32(64 * (kWords - 3) - 1)), b.getInt32(64 * (kWords - 3) - 1), first);
    llvm::Value* w0 = tableBits(first);
    llvm::Value* w1 = tableBits(b.CreateAdd(first, b.getInt32(64)));
    llvm::Value* w2 = tableBits(b.CreateAdd(first, b.getInt32(128)));
    llvm::Value* sig128 = b.CreateZExt(significand, i128());
    llvm::Value* low = b.CreateMul(sig128, b.CreateZExt(w2, i128()));
    llvm::Value* middle = b.CreateMul(sig128, b.CreateZExt(w1, i128()));
    llvm::Value* top = b.CreateMul(significand, w0);
    llvm::Value* p0 = b.CreateTrunc(low, i64());
    llvm::Value* p1Sum = b.CreateAdd(b.CreateLShr(low, 64), b.CreateZExt(b.CreateTrunc(middle, i64()), i128()));
    llvm::Value* p1 = b.CreateTrunc(p1Sum, i64());
    llvm::Value* p2 = b.CreateAdd(b.CreateAdd(top, b.CreateTrunc(b.CreateLShr(middle, 64), i64())), b.CreateTrunc(b.CreateLShr(p1Sum, 64), i64()));
    llvm::Value* quadrant = b.CreateTrunc(b.CreateLShr(p2, 62), b.getInt32Ty());
    llvm::Value* fraction = b.CreateOr(
        b.CreateShl(b.CreateZExt(b.CreateOr(b.CreateShl(p2, 2), b.CreateLShr(p1, 62)), i128()), 64),
        b.CreateZExt(b.CreateOr(b.CreateShl(p1, 2), b.CreateLShr(p0, 62)), i128()));
    llvm::Value* negative = b.CreateICmpNE(b.CreateLShr(fraction, 127), llvm::ConstantInt::get(i128(), 0));
    quadrant = b.CreateAnd(b.CreateAdd(quadrant, b.CreateZExt(negative, b.getInt32Ty())), 3);
    llvm::Value* magnitude = b.CreateSelect(negative, b.CreateNeg(fraction), fraction);
    llvm::Value* magnitudeHigh = b.CreateTrunc(b.CreateLShr(magnitude, 64), i64());
    auto clz = [&](llvm::Value* v) {
      return b.CreateTrunc(b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, v, b.getFalse()), b.getInt32Ty());
    };
    llvm::Value* leading = b.CreateSelect(b.CreateICmpNE(magnitudeHigh, b.getInt64(0)), clz(magnitudeHigh),
                                          b.CreateAdd(b.getInt32(64), clz(b.CreateOr(b.CreateTrunc(magnitude, i64()), b.getInt64(1)))));
    llvm::Value* normal = b.CreateShl(magnitude, b.CreateZExt(leading, i128()));
    constexpr int p = kMantissa + 1;
    llvm::Value* highBits = b.CreateTrunc(b.CreateLShr(normal, 128 - p), i64());
    llvm::Value* lowBits = b.CreateAnd(b.CreateTrunc(b.CreateLShr(normal, 128 - 2 * p), i64()), b.getInt64((uint64_t{1} << p) - 1));
    llvm::Value* fHi = mul(b.CreateUIToFP(highBits, type()), powerOfTwoWrapping(b.CreateSub(b.getInt32(-p), leading)));
    llvm::Value* fLo = mul(b.CreateUIToFP(lowBits, type()), powerOfTwoWrapping(b.CreateSub(b.getInt32(-2 * p), leading)));
    auto product = twoProduct(fHi, c(C::kHalfPiHi));
    llvm::Value* error = fma(fHi, c(C::kHalfPiLo), product.second);
    error = fma(fLo, c(C::kHalfPiHi), error);
    auto r = fastTwoSum(product.first, error);
    r = {select(negative, neg(r.first), r.first), select(negative, neg(r.second), r.second)};
    return {quadrant, r};
  }
  Reduced reduce(llvm::Value* absX) const {
    llvm::Value* w = b.CreateZExt(bits(absX), i64());
    llvm::Value* significand = b.CreateOr(b.CreateAnd(w, b.getInt64((uint64_t{1} << kMantissa) - 1)), b.getInt64(uint64_t{1} << kMantissa));
    llvm::Value* exponent = b.CreateSub(b.CreateTrunc(b.CreateLShr(w, kMantissa), b.getInt32Ty()), b.getInt32(kBias + kMantissa));
    Reduced reduced = payneHanek(significand, exponent);
    llvm::Value* small = b.CreateFCmpOLE(absX, c(T(0.78539816339744830962)));
    return {b.CreateSelect(small, b.getInt32(0), reduced.quadrant),
            {select(small, absX, reduced.r.first), select(small, c(T(0)), reduced.r.second)}};
  }
  llvm::Value* sinKernel(std::pair<llvm::Value*, llvm::Value*> r) const {
    llvm::Value* z = mul(r.first, r.first);
    llvm::Value* s = horner(C::kSinTaylor, z);
    llvm::Value* loTerm = fma(mul(c(T(-0.5)), z), r.second, r.second);
    return add(r.first, fma(mul(r.first, z), s, loTerm));
  }
  llvm::Value* cosKernel(std::pair<llvm::Value*, llvm::Value*> r) const {
    llvm::Value* z = mul(r.first, r.first);
    llvm::Value* half = mul(c(T(0.5)), z);
    llvm::Value* halfError = fma(mul(c(T(0.5)), r.first), r.first, neg(half));
    llvm::Value* w = sub(c(T(1)), half);
    llvm::Value* correction = sub(sub(sub(c(T(1)), w), half), halfError);
    llvm::Value* tail = fma(mul(z, z), horner(C::kCosTaylor, z), neg(mul(r.first, r.second)));
    return add(w, add(correction, tail));
  }
  llvm::Value* sinOrCos(llvm::Value* x, bool isSin) const {
    llvm::Value* negativeX = b.CreateFCmpOLT(x, c(T(0)));
    llvm::Value* absX = select(negativeX, neg(x), x);
    Reduced reduced = reduce(absX);
    llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(reduced.quadrant, 1), b.getInt32(0));
    llvm::Value* sine = sinKernel(reduced.r), *cosine = cosKernel(reduced.r);
    llvm::Value* value;
    if (isSin) {
      value = select(odd, cosine, sine);
      value = select(b.CreateICmpNE(b.CreateAnd(reduced.quadrant, 2), b.getInt32(0)), neg(value), value);
      value = select(negativeX, neg(value), value);
      value = select(b.CreateFCmpOEQ(x, c(T(0))), x, value);
    } else {
      value = select(odd, sine, cosine);
      value = select(b.CreateICmpNE(b.CreateAnd(b.CreateAdd(reduced.quadrant, b.getInt32(1)), 2), b.getInt32(0)), neg(value), value);
    }
    llvm::Value* infinite = b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), c(std::numeric_limits<T>::infinity()));
    value = select(infinite, c(std::numeric_limits<T>::quiet_NaN()), value);
    return select(isNaN(x), x, value);
  }

  llvm::Value* evaluate(ExactFunction function, llvm::Value* x) const {
    const bool isFloat = sizeof(T) == 4;
    switch (function) {
      case ExactFunction::Exp: return isFloat ? exp(x, -104, 89) : exp(x, -746, 710);
      case ExactFunction::Exp2: return isFloat ? exp2(x, -152, 129) : exp2(x, -1076, 1025);
      case ExactFunction::Exp10: return isFloat ? exp10(x, -46, 39) : exp10(x, -330, 310);
      case ExactFunction::Log: return log(x, 0);
      case ExactFunction::Log2: return log(x, 1);
      case ExactFunction::Log10: return log(x, 2);
      case ExactFunction::Rsqrt: return rsqrt(x);
      case ExactFunction::Tanh: return isFloat ? tanh(x, -104, 89) : tanh(x, -746, 710);
      case ExactFunction::Erf: return isFloat ? erf(x, -104, 89) : erf(x, -746, 710);
      case ExactFunction::Sin: return sinOrCos(x, true);
      case ExactFunction::Cos: return sinOrCos(x, false);
    }
    TILESIM_UNREACHABLE("exact math function");
  }
};

}  // namespace

llvm::Value* emitExactMath(llvm::IRBuilder<>& b, ExactFunction function, llvm::Value* x) {
  llvm::Type* type = x->getType();
  const bool narrow = type->isHalfTy() || type->isBFloatTy();
  llvm::Value* wide = narrow ? b.CreateFPExt(x, b.getFloatTy()) : x;
  llvm::Value* result = wide->getType()->isDoubleTy() ? Emitter<double>{b}.evaluate(function, wide)
                                                      : Emitter<float>{b}.evaluate(function, wide);
  if (narrow) result = b.CreateFPTrunc(result, type);
  // NaN results are stored as the canonical NaN (the interpreter's FloatCodec).
  llvm::Type* word = b.getIntNTy(type->getPrimitiveSizeInBits());
  const uint64_t canonical = type->isDoubleTy() ? 0x7FFFFFFFFFFFFFFFull : type->isFloatTy() ? 0x7FFFFFFFull : 0x7FFFull;
  return b.CreateSelect(b.CreateFCmpUNO(result, result), b.CreateBitCast(llvm::ConstantInt::get(word, canonical), type), result);
}

}  // namespace tilesim::gpu

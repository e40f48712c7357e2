// Unit tests for the elementwise numerics at their edges. Expected values come from definitions (IEEE
// formats, PTX ISA) or from GPU observations made with real Triton 3.6 on an H200 (docs/semantics.md section cited per
// test), never from running our own code. Also checks the fast f16/bf16 codecs against ir/FloatBits.h.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "interpreter/Elementwise.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim {
namespace {

Type tensorOf(Type element, int64_t n) { return Type::tensor({n}, element); }

MutableTileRef tileOfBits(Type element, const std::vector<uint64_t>& bits) {
  auto tile = makeTile(tensorOf(element, static_cast<int64_t>(bits.size())));
  for (size_t i = 0; i < bits.size(); ++i) tile->setBits(static_cast<int64_t>(i), bits[i]);
  return tile;
}
MutableTileRef tileOfDoubles(Type element, const std::vector<double>& values) {
  std::vector<uint64_t> bits;
  for (double v : values) bits.push_back(floatBitsFromDouble(v, element.scalarKind()));
  return tileOfBits(element, bits);
}

struct Evaluation {
  MutableTileRef result;
  std::vector<UBEvent> events;
};

Evaluation evaluate(OpKind kind, Type resultElement, std::vector<MutableTileRef> operands,
                    std::vector<NamedAttribute> attributes = {}, FloatProfile profile = FloatProfile::Exact) {
  Operation op(kind);
  op.addResult(tensorOf(resultElement, operands[0]->size()));
  for (auto& attribute : attributes) op.setAttr(attribute.name, attribute.value);
  std::vector<const Tile*> raw;
  for (auto& operand : operands) raw.push_back(operand.get());
  Evaluation out;
  ElementwiseContext context{profile, &out.events};
  std::string error;
  out.result = evalElementwise(op, raw, context, &error);
  EXPECT_TRUE(out.result) << error;
  return out;
}

std::vector<int64_t> signedLanes(const Tile& tile) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < tile.size(); ++i) out.push_back(tile.signedAt(i));
  return out;
}

// docs/semantics.md "Casts": fp32 -> int8 goes through cvt.rzi.s16 then truncates.
TEST(Numerics, FloatToInt8SaturatesAt16BitsThenWraps) {
  auto source = tileOfDoubles(Type::f32(), {200, 255.5, 65504, INFINITY, -INFINITY, NAN, -1.9, 127.9});
  auto run = evaluate(OpKind::ArithFPToSI, Type::i8(), {source});
  EXPECT_EQ(signedLanes(*run.result), (std::vector<int64_t>{-56, -1, -1, -1, 0, 0, -1, 127}));
  EXPECT_EQ(run.events.size(), 6u);  // 200, 255.5, 65504, inf, -inf, NaN do not fit int8
}

TEST(Numerics, FloatToUnsignedAndWideSaturate) {
  auto source = tileOfDoubles(Type::f32(), {65504, 70000, -1, NAN});
  auto u8 = evaluate(OpKind::ArithFPToUI, Type::i8(), {source});
  std::vector<uint64_t> bits;
  for (int64_t i = 0; i < 4; ++i) bits.push_back(u8.result->bitsAt(i));
  EXPECT_EQ(bits, (std::vector<uint64_t>{224, 255, 0, 0}));  // §1.8 uint8 row
  auto i64 = evaluate(OpKind::ArithFPToSI, Type::i64(), {tileOfDoubles(Type::f32(), {NAN, INFINITY, -1e30})});
  EXPECT_EQ(signedLanes(*i64.result), (std::vector<int64_t>{INT64_MIN, INT64_MAX, INT64_MIN}));  // §1.8 int64 row
  auto i32 = evaluate(OpKind::ArithFPToSI, Type::i32(), {tileOfDoubles(Type::f32(), {NAN, 3e9, -3e9})});
  EXPECT_EQ(signedLanes(*i32.result), (std::vector<int64_t>{0, INT32_MAX, INT32_MIN}));  // §1.8 int32 row
}

// §1.8: cvt.rn.satfinite.e4m3x2 / e5m2x2: inf -> max finite, NaN -> 0x7F.
TEST(Numerics, Fp8Satfinite) {
  auto source = tileOfDoubles(Type::f32(), {INFINITY, -INFINITY, 464, 1e6, NAN});
  auto e4 = evaluate(OpKind::TTFpToFp, Type::scalar(ScalarKind::F8E4M3FN), {source});
  std::vector<uint64_t> bits;
  for (int64_t i = 0; i < 5; ++i) bits.push_back(e4.result->bitsAt(i));
  EXPECT_EQ(bits, (std::vector<uint64_t>{0x7E, 0xFE, 0x7E, 0x7E, 0x7F}));  // 448 = 0x7E
  auto e5 = evaluate(OpKind::TTFpToFp, Type::scalar(ScalarKind::F8E5M2), {source});
  bits.clear();
  for (int64_t i = 0; i < 5; ++i) bits.push_back(e5.result->bitsAt(i));
  EXPECT_EQ(bits, (std::vector<uint64_t>{0x7B, 0xFB, 0x5F, 0x7B, 0x7F}));  // 57344 = 0x7B; 464 -> 448 = 0x5F
}

// §1.6: shifts by >= width give 0 (shl, shrui) or the sign fill (shrsi); the amount is unsigned.
TEST(Numerics, ShiftsOfTheFullWidthOrMore) {
  auto a = tileOfBits(Type::i32(), {1, 1, 1, static_cast<uint32_t>(-8), static_cast<uint32_t>(-8), 0x80000000u});
  auto b = tileOfBits(Type::i32(), {32, 33, 0xFFFFFFFFu, 33, 1, 32});
  EXPECT_EQ(signedLanes(*evaluate(OpKind::ArithShLI, Type::i32(), {a, b}).result),
            (std::vector<int64_t>{0, 0, 0, 0, -16, 0}));
  EXPECT_EQ(signedLanes(*evaluate(OpKind::ArithShRSI, Type::i32(), {a, b}).result),
            (std::vector<int64_t>{0, 0, 0, -1, -4, -1}));
  auto shrui = evaluate(OpKind::ArithShRUI, Type::i32(), {a, b});
  EXPECT_EQ(signedLanes(*shrui.result), (std::vector<int64_t>{0, 0, 0, 0, 0x7FFFFFFC, 0}));
  EXPECT_EQ(shrui.events.size(), 5u);
}

// §1.6: x // 0 = -1, x % 0 = -1 (signed), all ones unsigned; MIN / -1 = MIN, MIN % -1 = 0. Every width.
TEST(Numerics, DivisionByZeroAndMinOverMinusOne) {
  for (Type type : {Type::i8(), Type::i16(), Type::i32(), Type::i64()}) {
    int width = type.bitWidth();
    uint64_t min = uint64_t{1} << (width - 1);
    auto a = tileOfBits(type, {5, static_cast<uint64_t>(-5), min, 7});
    auto b = tileOfBits(type, {0, 0, ~uint64_t{0}, static_cast<uint64_t>(-2)});
    auto div = evaluate(OpKind::ArithDivSI, type, {a, b});
    int64_t minValue = -(int64_t{1} << (width - 1));
    EXPECT_EQ(signedLanes(*div.result), (std::vector<int64_t>{-1, -1, minValue, -3})) << type.str();
    EXPECT_EQ(div.events.size(), 2u);
    EXPECT_EQ(signedLanes(*evaluate(OpKind::ArithRemSI, type, {a, b}).result), (std::vector<int64_t>{-1, -1, 0, 1}));
    EXPECT_EQ(signedLanes(*evaluate(OpKind::ArithDivUI, type, {a, b}).result)[0], -1);
    EXPECT_EQ(signedLanes(*evaluate(OpKind::ArithRemUI, type, {a, b}).result)[1], -1);
  }
}

// §1.6 / §3.9: tl.umulhi(-1, 2) = 1 (mul.hi.u32).
TEST(Numerics, MulhiIsUnsigned) {
  auto a = tileOfBits(Type::i32(), {0xFFFFFFFFu, 0x80000000u});
  auto b = tileOfBits(Type::i32(), {2, 4});
  EXPECT_EQ(signedLanes(*evaluate(OpKind::TTMulhiUI, Type::i32(), {a, b}).result), (std::vector<int64_t>{1, 2}));
  auto a64 = tileOfBits(Type::i64(), {~uint64_t{0}});
  auto b64 = tileOfBits(Type::i64(), {~uint64_t{0}});
  EXPECT_EQ(evaluate(OpKind::TTMulhiUI, Type::i64(), {a64, b64}).result->bitsAt(0), ~uint64_t{0} - 1);
}

// §1.7: max.f32 drops NaN and orders -0 < +0; maximumf/minimumf propagate NaN (PTX max.NaN).
TEST(Numerics, MaxMinNaNAndSignedZeros) {
  auto a = tileOfDoubles(Type::f32(), {NAN, -0.0, +0.0, 1, NAN});
  auto b = tileOfDoubles(Type::f32(), {1, +0.0, -0.0, NAN, NAN});
  auto bitsOf = [](const Tile& t) {
    std::vector<uint64_t> v;
    for (int64_t i = 0; i < t.size(); ++i) v.push_back(t.bitsAt(i));
    return v;
  };
  EXPECT_EQ(bitsOf(*evaluate(OpKind::ArithMaxNumF, Type::f32(), {a, b}).result),
            (std::vector<uint64_t>{0x3F800000, 0, 0, 0x3F800000, 0x7FFFFFFF}));
  EXPECT_EQ(bitsOf(*evaluate(OpKind::ArithMinNumF, Type::f32(), {a, b}).result),
            (std::vector<uint64_t>{0x3F800000, 0x80000000, 0x80000000, 0x3F800000, 0x7FFFFFFF}));
  EXPECT_EQ(bitsOf(*evaluate(OpKind::ArithMinimumF, Type::f32(), {a, b}).result),
            (std::vector<uint64_t>{0x7FFFFFFF, 0x80000000, 0x80000000, 0x7FFFFFFF, 0x7FFFFFFF}));
}

// §1.8: cvt.rn.bf16.f32 is RTNE with NaN -> 0x7FFF. Codecs checked against ir/FloatBits.h.
TEST(Numerics, FastHalfAndBFloatCodecsMatchFloatBits) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    double fromBits = doubleFromFloatBits(h, ScalarKind::F16);
    double fast = scalar::floatFromHalf(static_cast<uint16_t>(h));
    ASSERT_TRUE(std::isnan(fromBits) ? std::isnan(fast) : std::bit_cast<uint64_t>(fast) == std::bit_cast<uint64_t>(fromBits)) << h;
  }
  std::mt19937 random(7);
  for (int i = 0; i < 2000000; ++i) {
    float value = std::bit_cast<float>(static_cast<uint32_t>(random()));
    ASSERT_EQ(scalar::halfFromFloat(value), floatBitsFromDouble(value, ScalarKind::F16)) << value;
    ASSERT_EQ(scalar::bfloatFromFloat(value), floatBitsFromDouble(value, ScalarKind::BF16)) << value;
  }
  EXPECT_EQ(scalar::bfloatFromFloat(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // tie -> even
  EXPECT_EQ(scalar::bfloatFromFloat(std::bit_cast<float>(0x3F818000u)), 0x3F82);  // tie -> even (up)
  EXPECT_EQ(scalar::bfloatFromFloat(NAN), 0x7FFF);
}

// §1.8: int64 -> fp32 rounds once (2^24+1 -> 2^24, 2^24+3 -> 2^24+4); bf16 from int64 without double rounding.
TEST(Numerics, IntToFloatRoundsOnce) {
  auto source = tileOfBits(Type::i64(), {(1u << 24) + 1, (1u << 24) + 3});
  auto f32 = evaluate(OpKind::ArithSIToFP, Type::f32(), {source});
  EXPECT_EQ(f32.result->at<float>(0), 16777216.0f);
  EXPECT_EQ(f32.result->at<float>(1), 16777220.0f);
  // 0x1_0100_0000_0000_0001: exactly above the bf16 midpoint between 2^48 and 2^48 + 2^41 (rounds up).
  uint64_t justAboveTie = (uint64_t{1} << 48) + (uint64_t{1} << 40) + 1;
  auto bf = evaluate(OpKind::ArithSIToFP, Type::bf16(), {tileOfBits(Type::i64(), {justAboveTie})});
  EXPECT_EQ(doubleFromFloatBits(bf.result->bitsAt(0), ScalarKind::BF16), std::ldexp(1.0, 48) + std::ldexp(1.0, 41));
}

// §1.5: remf is isinf(b) ? a : a - trunc(a/b)*b: inf % inf = inf, 3e38 % 1e-38 = -inf on the GPU.
TEST(Numerics, RemfFollowsNvidiaLowering) {
  auto a = tileOfDoubles(Type::f32(), {INFINITY, 3e38, 7.5, -7.5});
  auto b = tileOfDoubles(Type::f32(), {INFINITY, 1e-38, -2, 2});
  auto run = evaluate(OpKind::ArithRemF, Type::f32(), {a, b});
  EXPECT_EQ(run.result->at<float>(0), INFINITY);
  EXPECT_EQ(run.result->at<float>(1), -INFINITY);
  EXPECT_EQ(run.result->at<float>(2), 1.5f);
  EXPECT_EQ(run.result->at<float>(3), -1.5f);
}

TEST(Numerics, CmpfUnorderedPredicates) {
  auto a = tileOfDoubles(Type::f32(), {NAN, 1, 2});
  auto b = tileOfDoubles(Type::f32(), {1, 1, 1});
  auto une = evaluate(OpKind::ArithCmpF, Type::i1(), {a, b}, {{"predicate", Attribute::keyword("une")}});
  EXPECT_EQ(signedLanes(*une.result), (std::vector<int64_t>{1, 0, 1}));
  auto oeq = evaluate(OpKind::ArithCmpF, Type::i1(), {a, b}, {{"predicate", Attribute::keyword("oeq")}});
  EXPECT_EQ(signedLanes(*oeq.result), (std::vector<int64_t>{0, 1, 0}));
  auto uge = evaluate(OpKind::ArithCmpF, Type::i1(), {a, b}, {{"predicate", Attribute::integer(10, Type::i64())}});
  EXPECT_EQ(signedLanes(*uge.result), (std::vector<int64_t>{1, 1, 1}));
}

// i1 is a 1-bit two's complement integer: true is -1 signed, 1 unsigned (definition of iN arithmetic).
TEST(Numerics, OneBitIntegers) {
  auto a = tileOfBits(Type::i1(), {1, 1, 0, 1});
  auto b = tileOfBits(Type::i1(), {1, 0, 1, 1});
  EXPECT_EQ(signedLanes(*evaluate(OpKind::ArithAddI, Type::i1(), {a, b}).result), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(signedLanes(*evaluate(OpKind::ArithMulI, Type::i1(), {a, b}).result), (std::vector<int64_t>{1, 0, 0, 1}));
  auto slt = evaluate(OpKind::ArithCmpI, Type::i1(), {a, b}, {{"predicate", Attribute::keyword("slt")}});
  EXPECT_EQ(signedLanes(*slt.result), (std::vector<int64_t>{0, 1, 0, 0}));  // -1 < 0
  auto ult = evaluate(OpKind::ArithCmpI, Type::i1(), {a, b}, {{"predicate", Attribute::keyword("ult")}});
  EXPECT_EQ(signedLanes(*ult.result), (std::vector<int64_t>{0, 0, 1, 0}));
  auto ext = evaluate(OpKind::ArithExtSI, Type::i32(), {a});
  EXPECT_EQ(signedLanes(*ext.result), (std::vector<int64_t>{-1, -1, 0, -1}));
}

// fma rounds once: bf16 a*b + c where a*b is a bf16 midpoint and c is far below it (round-to-odd needed).
TEST(Numerics, NarrowFmaRoundsOnce) {
  auto c = tileOfDoubles(Type::bf16(), {std::ldexp(1.0, -100)});
  auto a2 = tileOfDoubles(Type::bf16(), {1 + std::ldexp(1.0, -4)});  // 1.0625
  auto b2 = tileOfDoubles(Type::bf16(), {1 + std::ldexp(1.0, -4)});  // product 1 + 2^-3 + 2^-8: a midpoint
  auto run = evaluate(OpKind::MathFma, Type::bf16(), {a2, b2, c});
  EXPECT_EQ(doubleFromFloatBits(run.result->bitsAt(0), ScalarKind::BF16), 1 + std::ldexp(1.0, -3) + std::ldexp(1.0, -7));
}

// docs/semantics.md "Error bounds": exact ops on exact operands carry no bounds; divf gets div.full.f32's 2 ulp.
TEST(Numerics, ErrorBoundsUnderTheTritonProfile) {
  auto a = tileOfDoubles(Type::f32(), {1, 3});
  auto b = tileOfDoubles(Type::f32(), {3, 7});
  auto add = evaluate(OpKind::ArithAddF, Type::f32(), {a, b}, {}, FloatProfile::Triton);
  EXPECT_EQ(add.result->errorBounds(), nullptr);
  auto div = evaluate(OpKind::ArithDivF, Type::f32(), {a, b}, {}, FloatProfile::Triton);
  ASSERT_NE(div.result->errorBounds(), nullptr);
  // 1/3 in [2^-2, 2^-1): div.full.f32's bound, from the table measured on the H200 (conformance/triton/
  // measured_bounds.tsv: 2 to 2.4 ulp there), never below the documented 2 ulp.
  const double divBound = div.result->errorBounds()[0];
  EXPECT_GE(divBound, 2 * std::ldexp(1.0, -2 - 23));
  EXPECT_LE(divBound, 3 * std::ldexp(1.0, -2 - 23));
  auto exact = evaluate(OpKind::ArithDivF, Type::f32(), {a, b}, {}, FloatProfile::Exact);
  EXPECT_EQ(exact.result->errorBounds(), nullptr);
  // A bound flows on: (1/3) + 3 carries the quotient's bound plus one rounding ulp of the sum.
  auto sum = evaluate(OpKind::ArithAddF, Type::f32(), {div.result, a}, {}, FloatProfile::Triton);
  ASSERT_NE(sum.result->errorBounds(), nullptr);
  EXPECT_EQ(sum.result->errorBounds()[0], divBound + std::ldexp(1.0, -23));
}

TEST(Numerics, UnknownLibdeviceSymbolAndInlineAsmFail) {
  Operation op(OpKind::TTExternElementwise);
  op.addResult(tensorOf(Type::f32(), 1));
  op.setAttr("symbol", Attribute::string("__nv_nosuchf"));
  auto x = tileOfDoubles(Type::f32(), {1});
  std::vector<const Tile*> operands = {x.get()};
  std::string error;
  EXPECT_EQ(evalElementwise(op, operands, {}, &error), nullptr);
  EXPECT_NE(error.find("__nv_nosuchf"), std::string::npos);
  op.setAttr("symbol", Attribute::string("__nv_tanhf"));
  auto tanh = evalElementwise(op, operands, {}, &error);
  ASSERT_TRUE(tanh);
  EXPECT_EQ(tanh->at<float>(0), static_cast<float>(std::tanh(1.0)));
}

}  // namespace
}  // namespace tilesim

"""Engine cases, family `cast`: bitcast, fp_to_fp (fp8 satfinite, f16 rtz), clampf, precise_divf, libdevice,
mulhiui, poison."""
from fractions import Fraction

import numpy as np

from engine_case import CANONICAL_NAN_F32, Case, f32_bits, load_at, module, store_at


def vector_kernel(parameters, body):
    """Loads 8 f32 from x_ptr as %x (with %offs); `body` follows."""
    return module("""
module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>""" + parameters + """) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %xs_0 = tt.addptr %xs, %offs : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %x = tt.load %xs_0 : tensor<8x!tt.ptr<f32>>
""") + body + "    tt.return\n  }\n}\n"


def store_to(buffer, value, element):
    ptrs = "tensor<8x!tt.ptr<%s>>" % element
    return ("    %%%s_s = tt.splat %%%s : !tt.ptr<%s> -> %s\n" % (buffer, buffer, element, ptrs) +
            "    %%%s_a = tt.addptr %%%s_s, %%offs : %s, tensor<8xi32>\n" % (buffer, buffer, ptrs) +
            "    tt.store %%%s_a, %%%s : %s\n" % (buffer, value, ptrs))


def fp8_value(code, exponent_bits, mantissa_bits):
    """The value of an 8-bit float code (sign, exponent, mantissa; IEEE-style subnormals), or None for NaN/inf."""
    bias = (1 << (exponent_bits - 1)) - 1
    sign = -1 if code >> 7 else 1
    exponent = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = code & ((1 << mantissa_bits) - 1)
    if exponent_bits == 4 and (code & 0x7F) == 0x7F:
        return None  # e4m3fn: no infinities, S.1111.111 is NaN
    if exponent_bits == 5 and exponent == 31:
        return None  # e5m2: IEEE inf / NaN
    if exponent == 0:
        return sign * Fraction(mantissa, 1 << mantissa_bits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(mantissa, 1 << mantissa_bits)) * Fraction(2) ** (exponent - bias)


def to_fp8_rne_satfinite(x, exponent_bits, mantissa_bits):
    """f32 -> fp8 by round to nearest even with saturation to the largest finite value; NaN -> 0x7F."""
    x = float(x)
    if np.isnan(x):
        return 0x7F
    codes = [c for c in range(256) if fp8_value(c, exponent_bits, mantissa_bits) is not None]
    largest = max(fp8_value(c, exponent_bits, mantissa_bits) for c in codes)
    negative = np.signbit(x)
    if np.isinf(x) or abs(Fraction(x)) >= largest:
        magnitude = largest
    else:
        magnitude = abs(Fraction(x))
    positive = [c for c in codes if c < 0x80]
    best = min(positive, key=lambda c: (abs(fp8_value(c, exponent_bits, mantissa_bits) - magnitude), c & 1))
    return best | (0x80 if negative else 0)


def to_f16_toward_zero(x):
    """f32 -> f16 rounding toward zero: the f16 of largest magnitude not above |x|; inf stays inf, NaN -> 0x7FFF."""
    x = np.float32(x)
    if np.isnan(x):
        return 0x7FFF
    if np.isinf(x):
        return int(np.float16(x).view(np.uint16))
    with np.errstate(over="ignore"):
        nearest = np.float16(x)  # round to nearest; step back toward zero if that overshot
    if abs(float(nearest)) > abs(float(x)):
        nearest = np.nextafter(nearest, np.float16(0))
    return int(nearest.view(np.uint16))



# fp8e4b15 (tl.float8e4b15): Triton 3.6 spells it `i8` in TTIR and converts with inline PTX (triton/language/extra/
# cuda/utils.py, the sm80+ form); this is its semantics written from the format, not from the PTX.
def e4b15_decode(byte):
    """The value of an fp8e4b15 byte: bias 15, 3 mantissa bits, subnormals at exponent 0, no inf or NaN."""
    sign = -1.0 if byte & 0x80 else 1.0
    exponent, mantissa = (byte >> 3) & 15, byte & 7
    return sign * (mantissa * 2.0**-17 if exponent == 0 else (1 + mantissa / 8) * 2.0**(exponent - 15))


def e4b15_encode(f16_bits):
    """fp16 -> fp8e4b15 as the conversion does it: |x| clamped to 1.75 (inf and NaN too, whose sign is kept),
    rounded to the nearest fp8e4b15 value with ties away from zero, the sign bit copied."""
    sign = 0x80 if f16_bits & 0x8000 else 0
    value = float(np.array([f16_bits], np.uint16).view(np.float16)[0])
    magnitude = 1.75 if np.isnan(value) else min(abs(value), 1.75)
    if magnitude == 0:
        return sign
    exponent = max(int(np.floor(np.log2(magnitude))), -14)
    ulp = Fraction(2) ** (exponent - 3)
    steps = int(Fraction(magnitude) / ulp + Fraction(1, 2))  # floor(x + 1/2): ties away from zero
    code = next(b for b in range(128) if Fraction(e4b15_decode(b)) == steps * ulp)
    return sign | code


E4B15_ROUNDTRIP_TTIR = """module {
  tt.func public @e4b15_roundtrip(%x_ptr: !tt.ptr<f16>, %y_ptr: !tt.ptr<i8>, %z_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c1024_i32 = arith.constant 1024 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c1024_i32 : i32
    %offs_1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<1024xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<1024xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %x_4 = tt.addptr %x, %offs_3 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
    %x_5 = tt.load %x_4 : tensor<1024x!tt.ptr<f16>>
    %0 = tt.splat %y_ptr : !tt.ptr<i8> -> tensor<1024x!tt.ptr<i8>>
    %1 = tt.addptr %0, %offs_3 : tensor<1024x!tt.ptr<i8>>, tensor<1024xi32>
    %2 = tt.elementwise_inline_asm "{\\0A            .reg .pred p<4>;\\0A            .reg .b32 a<2>, b<2>;\\0A            .reg .b16 c<4>;\\0A            .reg .b16 max_val_f16;\\0A            .reg .b32 max_val_f16x2;\\0A            mov.b16 max_val_f16,   0x3F00;\\0A            mov.b32 max_val_f16x2, 0x3F003F00;\\0A            and.b32 a0, $1, 0x7fff7fff;\\0A            and.b32 a1, $2, 0x7fff7fff;min.f16x2 a0, a0, max_val_f16x2;\\0A                  min.f16x2 a1, a1, max_val_f16x2;mad.lo.u32 a0, a0, 2, 0x00800080;\\0A              mad.lo.u32 a1, a1, 2, 0x00800080;\\0A              lop3.b32 b0, $1, 0x80008000, a0, 0xea;\\0A              lop3.b32 b1, $2, 0x80008000, a1, 0xea;\\0A              prmt.b32 $0, b0, b1, 0x7531;\\0A              }" {constraints = "=r,r,r", packed_element = 4 : i32, pure = true} %x_5 : tensor<1024xf16> -> tensor<1024xi8>
    tt.store %1, %2 : tensor<1024x!tt.ptr<i8>>
    %3 = tt.splat %z_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %4 = tt.addptr %3, %offs_3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %5 = tt.load %1 : tensor<1024x!tt.ptr<i8>>
    %6 = tt.elementwise_inline_asm "{                                      \\0A.reg .b32 a<2>, b<2>;                  \\0Aprmt.b32 a0, 0, $2, 0x5746;            \\0Aand.b32 b0, a0, 0x7f007f00;            \\0Aand.b32 b1, a0, 0x00ff00ff;            \\0Aand.b32 a1, a0, 0x00800080;            \\0Ashr.b32  b0, b0, 1;                    \\0Aadd.u32 b1, b1, a1;                    \\0Alop3.b32 $0, b0, 0x80008000, a0, 0xf8; \\0Ashl.b32 $1, b1, 7;                     \\0A}                                      \\0A" {constraints = "=r,=r,r", packed_element = 4 : i32, pure = true} %5 : tensor<1024xi8> -> tensor<1024xf16>
    %7 = arith.extf %6 : tensor<1024xf16> to tensor<1024xf32>
    tt.store %4, %7 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
"""


def cast_cases():
    bits = np.array([0x3F800000, 0x80000000, 0x7FC00001, 0xFFFFFFFF, 0x00000001, 0x7F800000, 0xC0490FDB, 0x12345678],
                    np.uint32)
    Case("cast", "bitcast_roundtrip", "k", vector_kernel(", %i_ptr: !tt.ptr<i32>, %f_ptr: !tt.ptr<f32>",
                                                        "    %i = tt.bitcast %x : tensor<8xf32> -> tensor<8xi32>\n"
                                                        "    %f = tt.bitcast %i : tensor<8xi32> -> tensor<8xf32>\n" +
                                                        store_to("i_ptr", "i", "i32") + store_to("f_ptr", "f", "f32")),
         "tt.bitcast f32 -> i32 -> f32 keeps every bit: NaN payloads (0x7FC00001, 0xFFFFFFFF), -0.0, subnormals, "
         "inf. f_ptr is read back as int32 so the NaN payloads are compared as bits.") \
        .tensor("x_ptr", "float32", bits.view(np.float32)).tensor("i_ptr", "int32", np.zeros(8), bits.view(np.int32)) \
        .tensor("f_ptr", "int32", np.zeros(8), bits.view(np.int32))

    x = np.array([1e6, -1e6, np.nan, 1.0, -0.0, np.inf, 448.0, 1.000732421875], np.float32)
    e4 = [to_fp8_rne_satfinite(v, 4, 3) for v in x]
    e5 = [to_fp8_rne_satfinite(v, 5, 2) for v in x]
    h = [to_f16_toward_zero(v) for v in x]
    assert e4 == [0x7E, 0xFE, 0x7F, 0x38, 0x80, 0x7E, 0x7E, 0x38], [hex(v) for v in e4]
    assert e5 == [0x7B, 0xFB, 0x7F, 0x3C, 0x80, 0x7B, 0x5F, 0x3C], [hex(v) for v in e5]
    assert h == [0x7BFF, 0xFBFF, 0x7FFF, 0x3C00, 0x8000, 0x7C00, 0x5F00, 0x3C00], [hex(v) for v in h]
    Case("cast", "fp_to_fp_fp8_satfinite_f16_rtz", "k", vector_kernel(
        ", %e4_ptr: !tt.ptr<f8E4M3FN>, %e5_ptr: !tt.ptr<f8E5M2>, %h_ptr: !tt.ptr<f16>",
        "    %e4 = tt.fp_to_fp %x, rounding = rtne : tensor<8xf32> -> tensor<8xf8E4M3FN>\n"
        "    %e5 = tt.fp_to_fp %x, rounding = rtne : tensor<8xf32> -> tensor<8xf8E5M2>\n"
        "    %h = tt.fp_to_fp %x, rounding = rtz : tensor<8xf32> -> tensor<8xf16>\n" +
        store_to("e4_ptr", "e4", "f8E4M3FN") + store_to("e5_ptr", "e5", "f8E5M2") + store_to("h_ptr", "h", "f16")),
         "tt.fp_to_fp f32 -> f8E4M3FN and f8E5M2 round to nearest even and saturate to the largest finite value "
         "(448 = 0x7E, 57344 = 0x7B; also for inf), NaN -> 0x7F; f32 -> f16 with rounding = rtz truncates "
         "(1 + 0.75 * 2^-10 -> 1.0, 1e6 -> 65504 = 0x7BFF) while inf stays inf. The outputs are read back as "
         "uint8 / uint16 so every code, NaN included, is compared as bits.") \
        .tensor("x_ptr", "float32", x) \
        .tensor("e4_ptr", "uint8", np.full(8, 0xAA), e4).tensor("e5_ptr", "uint8", np.full(8, 0xAA), e5) \
        .tensor("h_ptr", "uint16", np.full(8, 0xAAAA), h)

    x = np.array([-5.0, -1.0, 0.5, 3.0, np.nan, 2.0, 4.0, 0.1], np.float32)
    y = np.array([3.0, 7.0, -0.5, 3.0, 2.0, 10.0, 0.5, 3.0], np.float32)
    nan_mask = np.isnan(x)
    lo, hi = np.float32(-1.5), np.float32(2.0)
    none = np.where(nan_mask, lo, np.minimum(np.maximum(x, lo), hi)).astype(np.float32)  # max(NaN, lo) = lo
    clamped_all = np.where(nan_mask, f32_bits([CANONICAL_NAN_F32])[0], np.minimum(np.maximum(x, lo), hi))
    with np.errstate(invalid="ignore"):
        div = np.where(nan_mask, f32_bits([CANONICAL_NAN_F32])[0], x / y).astype(np.float32)  # IEEE f32 division
        power = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
        tanh = np.tanh(x.astype(np.float64)).astype(np.float32)
    power[nan_mask] = f32_bits([CANONICAL_NAN_F32])[0]
    tanh[nan_mask] = f32_bits([CANONICAL_NAN_F32])[0]
    assert power[0] == -125.0 and power[6] == 2.0
    Case("cast", "clamp_precise_div_libdevice", "k", vector_kernel(
        ", %y_ptr: !tt.ptr<f32>, %none_ptr: !tt.ptr<f32>, %all_ptr: !tt.ptr<f32>, "
        "%div_ptr: !tt.ptr<f32>, %pow_ptr: !tt.ptr<f32>, %tanh_ptr: !tt.ptr<f32>", """
    %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %ys_0 = tt.addptr %ys, %offs : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %y = tt.load %ys_0 : tensor<8x!tt.ptr<f32>>
    %lo = arith.constant dense<-1.500000e+00> : tensor<8xf32>
    %hi = arith.constant dense<2.000000e+00> : tensor<8xf32>
    %none = tt.clampf %x, %lo, %hi, propagateNan = none : tensor<8xf32>
    %all = tt.clampf %x, %lo, %hi, propagateNan = all : tensor<8xf32>
    %div = tt.precise_divf %x, %y : tensor<8xf32>
    %pow = tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %tanh = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<8xf32>) -> tensor<8xf32>
""" + store_to("none_ptr", "none", "f32") + store_to("all_ptr", "all", "f32") + store_to("div_ptr", "div", "f32") +
        store_to("pow_ptr", "pow", "f32") + store_to("tanh_ptr", "tanh", "f32")),
         "tt.clampf to [-1.5, 2]: propagateNan = none maps NaN to -1.5 (NaN-ignoring max, then min), "
         "propagateNan = all gives NaN; tt.precise_divf is correctly rounded (IEEE f32 division); "
         "tt.extern_elementwise __nv_powf / __nv_tanhf are the double-precision results rounded once to f32 "
         "(docs/semantics.md \"Libdevice\"; pow(-5, 3) = -125, pow(4, 0.5) = 2). clampf and precise_divf are "
         "exact ops (bound 0, bit for bit); libdevice results carry the triton profile's ulp bound for the "
         "GPU's libdevice, so pow_ptr and tanh_ptr may pass within that bound. A NaN output matches any NaN.") \
        .tensor("x_ptr", "float32", x).tensor("y_ptr", "float32", y) \
        .tensor("none_ptr", "float32", np.zeros(8), none).tensor("all_ptr", "float32", np.zeros(8), clamped_all) \
        .tensor("div_ptr", "float32", np.zeros(8), div).tensor("pow_ptr", "float32", np.zeros(8), power) \
        .tensor("tanh_ptr", "float32", np.zeros(8), tanh)

    a = np.array([0xFFFFFFFF, 0x80000000, 123456789, 0xFFFFFFFF], np.uint64)
    b = np.array([2, 4, 987654321, 0xFFFFFFFF], np.uint64)
    high = ((a * b) >> np.uint64(32)).astype(np.uint32)  # the products fit in 64 bits
    assert high[0] == 1
    Case("cast", "mulhiui", "mulhi", module("""
module {
  tt.func public @mulhi(%a_ptr: !tt.ptr<i32>, %b_ptr: !tt.ptr<i32>, %h_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
""" + load_at("a", "%a_ptr", "i32", shape="4") + load_at("b", "%b_ptr", "i32", shape="4") + """\
    %h = tt.mulhiui %a_1, %b_1 : tensor<4xi32>
""" + store_at("o", "%h_ptr", "%h", "i32", shape="4") + """\
    tt.return
  }
}
"""), "tt.mulhiui is the high 32 bits of the unsigned 64-bit product: umulhi(0xFFFFFFFF, 2) = 1 "
          "(SEMANTICS.md §1.6), umulhi(-1, -1) = 0xFFFFFFFE.") \
        .tensor("a_ptr", "uint32", a).tensor("b_ptr", "uint32", b).tensor("h_ptr", "uint32", np.zeros(4), high)

    Case("cast", "poison_reaching_memory", "poison", module("""
module {
  tt.func public @poison(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %0 = ub.poison : i32
    %1 = arith.addi %0, %c1_i32 : i32
    tt.store %y_ptr, %1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "ub.poison is undefined and so is anything computed from it: storing poison + 1 is one undefined-value "
          "report at tt.store. y_ptr is not compared (what lands there is unspecified).") \
        .tensor("y_ptr", "int32", [5]).expect_report("undefined-value", op="tt.store").expect_counts({"undefined-value": 1})

    every_f16 = (np.arange(16384, dtype=np.uint32) * 4).astype(np.uint16)  # low 2 bits 0: ties, NaN, inf all in
    encoded = np.array([e4b15_encode(int(b)) for b in every_f16], np.uint8)
    decoded = np.array([e4b15_decode(int(b)) for b in encoded], np.float32)
    assert [e4b15_encode(b) for b in (0x3C00, 0x7C00, 0xFE00, 0x3F80, 0x0001, 0x8000)] == [0x78, 0x7E, 0xFE, 0x7E, 0x00, 0x80]
    Case("cast", "fp8e4b15_roundtrip", "e4b15_roundtrip", module(E4B15_ROUNDTRIP_TTIR),
         "x.to(tl.float8e4b15) then back .to(tl.float32), as Triton 3.6 compiles it for sm_90 (its TTIR, locations "
         "dropped): fp8e4b15 is `i8` in TTIR, and both conversions are tt.elementwise_inline_asm PTX. Over the "
         "16384 fp16 bit patterns with the low two bits 0 (both signs, every exponent, every tie, inf, NaN): |x| is clamped to 1.75 (inf and NaN too, keeping the sign bit), rounded to the "
         "nearest fp8e4b15 value with ties away from zero (bias 15, so fp16 subnormals below 2^-18 give 0); the "
         "decode is exact. y_ptr holds the fp8e4b15 bytes, z_ptr their values.", grid=(16,)) \
        .tensor("x_ptr", "uint16", every_f16) \
        .tensor("y_ptr", "uint8", np.full(16384, 0xAA, np.uint8), encoded) \
        .tensor("z_ptr", "float32", np.full(16384, -1.0, np.float32), decoded)

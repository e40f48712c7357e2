#!/usr/bin/env python3
"""Generates ir/eval/ExactMathCoefficients.h: the constants and polynomial coefficients of tilesim's own math
functions (ir/eval/ExactMath.h), for float and double, plus the bits of 2/pi used by the trigonometric argument
reduction. Every value is computed here with mpmath at 1,500 bits and rounded once (RTNE) to its format, so the
header can be regenerated and checked: `python3 ir/eval/tools/fit_exact_math.py > ir/eval/ExactMathCoefficients.h`.

Taylor coefficients are used where the series converges fast on the reduced range (exp, exp2, exp10, the atanh
series of log, sin, cos); Chebyshev fits (mpmath.chebyfit, near-minimax) where it does not (tanh, erf). The
comment beside each fit states its interval and the fit's own maximum error."""
import mpmath
from mpmath import mp, mpf

mp.prec = 1500
FORMATS = {"float": 24, "double": 53}


def rounded(x, bits):
    """x rounded to nearest-even with `bits` significant bits, as an mpf (exact) — a float or double value."""
    x = mpf(x)
    if x == 0:
        return mpf(0)
    m, e = mpmath.frexp(x)            # x = m * 2^e, 0.5 <= |m| < 1
    scaled = m * mpf(2) ** bits
    n = int(mpmath.nint(scaled))      # mpmath nint rounds half to even
    return mpf(n) * mpf(2) ** (e - bits)


def literal(x, ctype):
    bits = FORMATS[ctype]
    v = rounded(x, bits)
    if v == 0:
        return "0.0" + ("f" if ctype == "float" else "")
    m, e = mpmath.frexp(v)
    n = int(m * mpf(2) ** bits)
    sign = "-" if n < 0 else ""
    n = abs(n)
    hexdigits = (bits + 3) // 4
    # write as 0x1.xxxp+e: normalise n to 1.f
    frac = n - (1 << (bits - 1))
    frac <<= (hexdigits * 4 - (bits - 1))
    text = f"{sign}0x1.{frac:0{hexdigits}x}p{e - 1:+d}"
    return text + ("f" if ctype == "float" else "")


def split(x, ctype):
    """hi + lo with hi = round(x), lo = round(x - hi)."""
    bits = FORMATS[ctype]
    hi = rounded(x, bits)
    return hi, rounded(mpf(x) - hi, bits)


def emit_array(name, values, ctype, comment):
    print(f"// {comment}")
    print(f"inline constexpr {ctype} {name}[] = {{")
    for v in values:
        print(f"    {literal(v, ctype)},")
    print("};")


def taylor(ctype, suffix):
    ln2, ln10 = mpmath.log(2), mpmath.log(10)
    n_exp = 8 if ctype == "float" else 13
    emit_array(f"kExpTaylor{suffix}", [1 / mpmath.factorial(n) for n in range(2, n_exp + 1)], ctype,
               "exp(y) = 1 + y + y^2 (c[0] + c[1] y + ...): 1/n! for n = 2..%d, |y| <= ln2/2 (exp, exp2, exp10)" % n_exp)
    n_log = 4 if ctype == "float" else 10
    emit_array(f"kLogAtanh{suffix}", [mpf(2) / (2 * n + 1) for n in range(1, n_log + 1)], ctype,
               "log(1+f) = 2 atanh(s), s = f/(2+f): R(z) = c[0] z + c[1] z^2 + ... = 2/(2n+1), n = 1..%d, z = s^2 <= 0.0295" % n_log)
    n_sin = 5 if ctype == "float" else 9
    emit_array(f"kSinTaylor{suffix}", [(-1) ** n / mpmath.factorial(2 * n + 1) for n in range(1, n_sin + 1)], ctype,
               "sin(r) = r + r^3 (c[0] + c[1] r^2 + ...): (-1)^n/(2n+1)!, n = 1..%d, |r| <= pi/4" % n_sin)
    n_cos = 6 if ctype == "float" else 9
    emit_array(f"kCosTaylor{suffix}", [(-1) ** n / mpmath.factorial(2 * n) for n in range(2, n_cos + 1)], ctype,
               "cos(r) = 1 - r^2/2 + r^4 (c[0] + c[1] r^2 + ...): (-1)^n/(2n)!, n = 2..%d, |r| <= pi/4" % n_cos)


def fit(name, f, interval, degree, ctype, what):
    mp.prec = 300
    coeffs, err = mpmath.chebyfit(f, interval, degree + 1, error=True)
    mp.prec = 1500
    coeffs = list(reversed(coeffs))  # lowest degree first
    emit_array(name, coeffs, ctype, "%s: Chebyshev fit of degree %d on [%s, %s], fit error %.2e" %
               (what, degree, mpmath.nstr(interval[0], 8), mpmath.nstr(interval[1], 8), float(err)))


def fits(ctype, suffix):
    single = ctype == "float"
    # tanh(x) = x + x^3 P(x^2) for |x| < 1
    fit(f"kTanhSmall{suffix}", lambda u: (mpmath.tanh(mpmath.sqrt(u)) - mpmath.sqrt(u)) / (u * mpmath.sqrt(u)),
        [mpf(0), mpf(1)], 7 if single else 16, ctype, "tanh(x) = x + x^3 P(x^2), P on u = x^2")
    # erf(x) = x + x P(x^2) for |x| < 0.84375
    fit(f"kErfSmall{suffix}", lambda u: mpmath.erf(mpmath.sqrt(u)) / mpmath.sqrt(u) - 1,
        [mpf(0), mpf("0.84375") ** 2], 6 if single else 12, ctype, "erf(x) = x + x P(x^2), P on u = x^2")
    # erf(1 + s) = ERX + Q(s) for s in [-0.15625, 0.25)
    erx = rounded(mpmath.erf(1), FORMATS[ctype])
    print(f"inline constexpr {ctype} kErfOne{suffix} = {literal(erx, ctype)};  // erf(1) rounded")
    fit(f"kErfMiddle{suffix}", lambda s: mpmath.erf(1 + s) - erx, [mpf("-0.15625"), mpf("0.25")],
        7 if single else 16, ctype, "erf(1 + s) = kErfOne + Q(s)")
    # erfc(x) = exp(-x^2) G(x - c) for x in [1.25, end)
    if single:
        pieces = [(mpf("1.25"), mpf(4), mpf("2.5"), 12)]
    else:
        pieces = [(mpf("1.25"), mpf("2.75"), mpf(2), 20), (mpf("2.75"), mpf(6), mpf("4.5"), 24)]
    for i, (lo, hi, c, degree) in enumerate(pieces):
        print(f"inline constexpr {ctype} kErfTailStart{i}{suffix} = {literal(lo, ctype)};")
        print(f"inline constexpr {ctype} kErfTailCenter{i}{suffix} = {literal(c, ctype)};")
        fit(f"kErfTail{i}{suffix}", lambda v, c=c: mpmath.erfc(c + v) * mpmath.exp((c + v) ** 2), [lo - c, hi - c],
            degree, ctype, "erfc(x) = exp(-x^2) G(x - %s)" % mpmath.nstr(c, 4))
    print(f"inline constexpr {ctype} kErfOneAbove{suffix} = {literal(pieces[-1][1], ctype)};  // erf(x) = 1 from here")


def constants(ctype, suffix):
    ln2, ln10, pi = mpmath.log(2), mpmath.log(10), mpmath.pi
    for name, value in [("Ln2", ln2), ("Ln10", ln10), ("Log10Of2", mpmath.log10(2)), ("HalfPi", pi / 2),
                        ("InvLn2", 1 / ln2), ("InvLn10", 1 / ln10)]:
        hi, lo = split(value, ctype)
        print(f"inline constexpr {ctype} k{name}Hi{suffix} = {literal(hi, ctype)};")
        print(f"inline constexpr {ctype} k{name}Lo{suffix} = {literal(lo, ctype)};")
    for name, value in [("Log2E", 1 / ln2), ("Log2Of10", mpmath.log(10, 2)), ("Sqrt2", mpmath.sqrt(2))]:
        print(f"inline constexpr {ctype} k{name}{suffix} = {literal(value, ctype)};")


def two_over_pi_words(count):
    """2/pi as a binary fraction, 64 bits per word, preceded by one zero word (bit i of 2/pi, i >= 1, is bit
    i + 63 of the table counted from the top of word 0)."""
    scaled = int(mpmath.floor(2 / mpmath.pi * mpf(2) ** (64 * (count - 1))))
    words = [0]
    for k in range(count - 1):
        words.append((scaled >> (64 * (count - 2 - k))) & ((1 << 64) - 1))
    return words


def main():
    print("// Generated by ir/eval/tools/fit_exact_math.py (mpmath, 1,500 bits; each value rounded once to its")
    print("// format). Do not edit: regenerate with `python3 ir/eval/tools/fit_exact_math.py > ir/eval/ExactMathCoefficients.h`.")
    print("// Used only by ir/eval/ExactMath*.cpp; the algorithms that use each table are documented in ExactMath.h.")
    print("#pragma once\n\n#include <cstdint>\n\nnamespace tilesim::exactmath {\n")
    for ctype, suffix in [("float", "F32"), ("double", "F64")]:
        print(f"// ---------------------------------------------------------------- {ctype}")
        constants(ctype, suffix)
        taylor(ctype, suffix)
        fits(ctype, suffix)
        print()
    words = two_over_pi_words(22)
    print("// 2/pi in 64-bit words after one zero word: bits 1..%d of 2/pi (Payne-Hanek reduction)." % (64 * 21))
    print("inline constexpr uint64_t kTwoOverPiWords[] = {")
    for i in range(0, len(words), 3):
        print("    " + " ".join(f"0x{w:016x}ull," for w in words[i:i + 3]))
    print("};\n\n}  // namespace tilesim::exactmath")


if __name__ == "__main__":
    main()

"""The error arithmetic of measure_bounds.py, numpy only: the input buckets (sign and exponent range) rows are
kept by, an ulp error against the spacing of the result format at the exact value, and the self-test of both."""
import numpy as np


# ------------------------------------------------------------------------------------------------- buckets
# Exponent ranges (ilogb), the same for both signs; subnormals are one range below the normal minimum.
F32_RANGES = ([(-149, -126), (-126, -64), (-64, -32), (-32, -16), (-16, -12), (-12, -8)] +
              [(e, e + 1) for e in range(-8, 8)] + [(8, 12), (12, 16), (16, 32), (32, 64), (64, 128)])
F64_RANGES = ([(-1074, -1022), (-1022, -512), (-512, -128), (-128, -64), (-64, -32), (-32, -16), (-16, -8)] +
              [(e, e + 1) for e in range(-8, 8)] + [(8, 16), (16, 32), (32, 64), (64, 128), (128, 512), (512, 1024)])
ZERO_RANGE, SPECIAL_RANGE = (-2000, -1999), (2000, 2001)


def bucket_table(ranges, exponent_bits, mantissa_bits):
    """Maps (sign << exponent_bits | exponent field) to a bucket id; zero and subnormal share field 0 and are told
    apart by the mantissa (bucket_of). Buckets: for sign s in (+, -): ranges..., zero, special."""
    bias = (1 << (exponent_bits - 1)) - 1
    per_sign = len(ranges) + 2
    table = np.zeros(2 << exponent_bits, dtype=np.int64)
    for sign in (0, 1):
        for field in range(1 << exponent_bits):
            if field == (1 << exponent_bits) - 1:
                index = len(ranges) + 1
            elif field == 0:
                index = 0  # subnormal (zero is fixed up by bucket_of)
            else:
                e = field - bias
                index = next(i for i, (lo, hi) in enumerate(ranges) if lo <= e < hi)
            table[(sign << exponent_bits) | field] = sign * per_sign + index
    return table, per_sign


def bucket_rows(ranges):
    """(sign, exp_lo, exp_hi) per bucket id, in bucket_table's order."""
    rows = []
    for sign in ("+", "-"):
        rows += [(sign, lo, hi) for lo, hi in ranges] + [(sign,) + ZERO_RANGE, (sign,) + SPECIAL_RANGE]
    return rows


def spacing_f32(exact):
    """Spacing of f32 at |exact| (an f64 array): 2^(max(floor(log2|x|), -126) - 23)."""
    magnitude = np.abs(exact)
    _, exponent = np.frexp(np.where(magnitude > 0, magnitude, 1.0))
    exponent = np.maximum(exponent - 1, -126)
    return np.ldexp(1.0, exponent - 23)


def ulp_error_np(got, exact, tiny=2.0**-126, max_value=float(np.finfo(np.float32).max), spacing=spacing_f32):
    """Per-lane error in spacings (float64), plus a mask of result flushes (exact subnormal, got zero)."""
    got = got.astype(np.float64)
    exact = exact.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(got - exact) / spacing(exact)
        both_nan = np.isnan(got) & np.isnan(exact)
        error = np.where(both_nan, 0.0, error)
        error = np.where(np.isnan(error), np.inf, error)
        # inf against an exact value that rounds to inf (beyond the largest finite value's half spacing)
        rounds_to_inf = np.isinf(got) & np.isfinite(exact) & (np.sign(got) == np.sign(exact)) & \
            (np.abs(exact) >= max_value + 0.5 * spacing(np.array(max_value)))
        error = np.where(rounds_to_inf | (got == exact), 0.0, error)
        flushed = (got == 0) & (exact != 0) & (np.abs(exact) < tiny)
    return np.where(flushed, 0.0, error), flushed


def self_test():
    table, per_sign = bucket_table(F32_RANGES, 8, 23)
    rows = bucket_rows(F32_RANGES)
    assert len(rows) == 2 * per_sign
    one = np.array([1.0], dtype=np.float32).view(np.uint32)[0]
    assert rows[table[one >> 23]] == ("+", 0, 1), rows[table[one >> 23]]
    minus_three = np.array([-3.0], dtype=np.float32).view(np.uint32)[0]
    assert rows[table[minus_three >> 23]] == ("-", 1, 2)
    assert rows[table[0x7F800000 >> 23]][1:] == SPECIAL_RANGE
    # a correctly rounded f32 exp measures <= 0.5; a value one spacing off measures ~1.5 or less
    x = np.linspace(-80, 80, 100001)
    exact = np.exp(x.astype(np.float32).astype(np.longdouble)).astype(np.float64)
    rounded = exact.astype(np.float32)
    error, flushed = ulp_error_np(rounded, exact)
    assert error.max() <= 0.5 + 1e-9, error.max()
    off = np.nextafter(rounded, np.float32(np.inf))
    error, _ = ulp_error_np(off, exact)
    assert 0.5 <= error.max() <= 1.5 + 1e-9, error.max()
    error, flushed = ulp_error_np(np.array([0.0, np.nan, np.inf]), np.array([1e-40, np.nan, 1e39]))
    assert flushed.tolist() == [True, False, False] and error.tolist() == [0.0, 0.0, 0.0], (error, flushed)
    error, _ = ulp_error_np(np.array([np.nan, np.inf]), np.array([1.0, 1.0]))
    assert np.isinf(error).all()
    print("measure_bounds self-test: ok")

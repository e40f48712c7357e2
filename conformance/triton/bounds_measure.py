"""The measurement of measure_bounds.py on the GPU: exhaustive (or strided) f32 sweeps and f64 samples of one
function's kernel against its exact reference, the worst error kept per input sign and exponent field."""
import math

import numpy as np

from bounds_error import F64_RANGES, SPECIAL_RANGE, ZERO_RANGE, bucket_rows
from bounds_functions import NP_UNARY


# --------------------------------------------------------------------------------------------- measurement
def to_f32(torch, bits):
    """int64 bit patterns in [0, 2^32) as f32 values."""
    return (bits - (bits >= (1 << 31)).to(torch.int64) * (1 << 32)).to(torch.int32).view(torch.float32)


class FieldTable:
    """Max error and worst input bits per (sign, exponent field) of the input, zero kept apart from the
    subnormals of field 0; turned into bucket rows at the end (rows())."""

    def __init__(self):
        self.max = np.zeros(512)
        self.worst = np.zeros(512, dtype=np.int64)
        self.count = np.zeros(512, dtype=np.int64)
        self.zero = {0: None, 1: None}  # sign -> (error, bits)

    def add(self, field_index, error, worst_bits, count):
        if count == 0:
            return
        if self.count[field_index] == 0 or error > self.max[field_index]:
            self.max[field_index], self.worst[field_index] = error, worst_bits
        self.count[field_index] += count

    def rows(self, name, table, bucket_meta, flushes_input, flushes_result):
        per_bucket = {}
        for field_index in range(512):
            if self.count[field_index] == 0:
                continue
            bucket = int(table[field_index])
            entry = per_bucket.setdefault(bucket, [0.0, 0, 0])
            if entry[2] == 0 or self.max[field_index] > entry[0]:
                entry[0], entry[1] = float(self.max[field_index]), int(self.worst[field_index])
            entry[2] += int(self.count[field_index])
        per_sign = len(bucket_meta) // 2
        for sign, value in self.zero.items():
            if value is not None:
                per_bucket[sign * per_sign + per_sign - 2] = [value[0], value[1], 1]
        rows = []
        for bucket in sorted(per_bucket):
            sign, lo, hi = bucket_meta[bucket]
            error, bits, count = per_bucket[bucket]
            rows.append((name, "f32", sign, lo, hi, error, f"0x{bits & 0xFFFFFFFF:08x}", int(flushes_input),
                         int(flushes_result), count))
        return rows


def run_f32(torch, kernel, function, table, bucket_meta, budget_left, block=1024):
    """f32 unary: every bit pattern (strided by 64 when the time budget is spent); binary: a dense sample.
    Returns (rows, inputs, sampled, flushes_input, flushes_result)."""
    name, _, _, reference, arity, _ = function
    device = "cuda"

    def reference_of(X, Y=None):
        return eval(reference, {"torch": torch, "X": X, "Y": Y, "math": math})

    def launch(x, y=None):
        out = torch.empty_like(x)
        grid = (triton_cdiv(x.numel(), block),)
        if arity == 2:
            kernel[grid](x, y, out, x.numel(), BLOCK=block)
        else:
            kernel[grid](x, out, x.numel(), BLOCK=block)
        return out

    fields = FieldTable()
    flushed_results = 0
    inputs = 0
    if arity == 1:
        # FTZ of inputs: every subnormal input gives the result of +-0
        at_zero = launch(torch.tensor([0.0, -0.0], dtype=torch.float32, device=device))
        sub_bits = torch.arange(1, 1 << 23, 997, dtype=torch.int64, device=device)
        sub_bits = torch.cat([sub_bits, sub_bits | (1 << 31)])
        got_sub = launch(to_f32(torch, sub_bits))
        expect = torch.where(sub_bits >= (1 << 31), at_zero[1], at_zero[0])
        same = (got_sub == expect) | (torch.isnan(got_sub) & torch.isnan(expect))
        flushes_input = bool(same.all().item())
        stride = 1 if budget_left > 0 else 64
        field_size = (1 << 23) // stride
        chunk_fields = 16
        for first_field in range(0, 512, chunk_fields):
            offsets = torch.arange(0, 1 << 23, stride, dtype=torch.int64, device=device)
            field_ids = torch.arange(first_field, first_field + chunk_fields, dtype=torch.int64, device=device)
            bits = ((field_ids[:, None] << 23) + offsets[None, :]).reshape(-1)
            x = to_f32(torch, bits)
            got = launch(x)
            X = x.to(torch.float64)
            if flushes_input:
                subnormal = (X != 0) & (X.abs() < 2.0**-126)
                X = torch.where(subnormal, torch.copysign(torch.zeros_like(X), X), X)
            error, flushed = torch_ulp_error(torch, got, reference_of(X))
            flushed_results += int(flushed.sum().item())
            error = error.view(chunk_fields, field_size)
            for zero_field in (0, 256):  # +0 and -0 are their own bucket
                if first_field <= zero_field < first_field + chunk_fields:
                    row = zero_field - first_field
                    fields.zero[zero_field // 256] = (float(error[row, 0].item()), zero_field << 23)
                    error[row, 0] = 0
            values, where = error.max(dim=1)
            values, where = values.cpu().numpy(), where.cpu().numpy()
            for row in range(chunk_fields):
                field = first_field + row
                count = field_size - (1 if field in (0, 256) else 0)
                fields.add(field, float(values[row]), (field << 23) + int(where[row]) * stride, count)
            inputs += bits.numel()
        flushes_result = flushed_results > 0
        return (fields.rows(name, table, bucket_meta, flushes_input, flushes_result), inputs, stride > 1,
                flushes_input, flushes_result)
    # binary: every (x exponent field, y exponent field) pair with 4 mantissas each, plus 2^24 random pairs
    mantissas = torch.tensor([0, 1, 0x2AAAAA, 0x7FFFFF], dtype=torch.int64, device=device)
    field_values = torch.arange(0, 256, dtype=torch.int64, device=device)
    grid_bits = ((field_values[:, None] << 23) | mantissas[None, :]).reshape(-1)
    grid_bits = torch.cat([grid_bits, grid_bits | (1 << 31)])
    xb = grid_bits[:, None].expand(-1, grid_bits.numel()).reshape(-1)
    yb = grid_bits[None, :].expand(grid_bits.numel(), -1).reshape(-1)
    generator = torch.Generator(device=device).manual_seed(1234)
    rx = torch.randint(0, 1 << 32, (1 << 24,), dtype=torch.int64, device=device, generator=generator)
    ry = torch.randint(0, 1 << 32, (1 << 24,), dtype=torch.int64, device=device, generator=generator)
    for xbits, ybits in ((xb, yb), (rx, ry)):
        x, y = to_f32(torch, xbits), to_f32(torch, ybits)
        got = launch(x, y)
        error, flushed = torch_ulp_error(torch, got, reference_of(x.to(torch.float64), y.to(torch.float64)))
        flushed_results += int(flushed.sum().item())
        field = (xbits >> 23).cpu().numpy()
        is_zero = ((xbits & 0x7FFFFFFF) == 0).cpu().numpy()
        error_np, bits_np = error.cpu().numpy(), xbits.cpu().numpy()
        order = np.argsort(field, kind="stable")
        sorted_field = field[order]
        for value in np.unique(field):
            lanes = order[np.searchsorted(sorted_field, value):np.searchsorted(sorted_field, value, side="right")]
            zero_lanes = lanes[is_zero[lanes]]
            if zero_lanes.size:
                sign = int(value) >> 8
                worst_error = float(error_np[zero_lanes].max())
                previous = fields.zero[sign]
                if previous is None or worst_error > previous[0]:
                    fields.zero[sign] = (worst_error, int(bits_np[zero_lanes[0]]))
            lanes = lanes[~is_zero[lanes]]
            if lanes.size:
                worst = lanes[np.argmax(error_np[lanes])]
                fields.add(int(value), float(error_np[worst]), int(bits_np[worst]), lanes.size)
        inputs += xbits.numel()
    flushes_result = flushed_results > 0
    return fields.rows(name, table, bucket_meta, False, flushes_result), inputs, False, False, flushes_result


def torch_ulp_error(torch, got, exact):
    """ulp_error_np on the GPU (f32 results)."""
    got = got.to(torch.float64)
    magnitude = exact.abs()
    exponent = torch.frexp(torch.where(magnitude > 0, magnitude, torch.ones_like(magnitude)))[1] - 1
    spacing = torch.exp2((torch.clamp(exponent, min=-126) - 23).to(torch.float64))
    error = (got - exact).abs() / spacing
    error = torch.where(torch.isnan(got) & torch.isnan(exact), torch.zeros_like(error), error)
    error = torch.where(torch.isnan(error), torch.full_like(error, math.inf), error)
    max_value = float(np.finfo(np.float32).max)
    rounds_to_inf = torch.isinf(got) & torch.isfinite(exact) & (torch.sign(got) == torch.sign(exact)) & \
        (magnitude >= max_value + 2.0**103)
    error = torch.where(rounds_to_inf | (got == exact), torch.zeros_like(error), error)
    flushed = (got == 0) & (exact != 0) & (magnitude < 2.0**-126)
    return torch.where(flushed, torch.zeros_like(error), error), flushed


def run_f64(torch, kernel, function, rows, count=1 << 20, block=1024):
    """`count` f64 inputs (all exponents with random mantissas, both signs) against numpy long double."""
    name, _, _, reference, _, _ = function
    rng = np.random.default_rng(99)
    fields = rng.integers(0, 2047, count, dtype=np.uint64)
    mantissa = rng.integers(0, 1 << 52, count, dtype=np.uint64)
    sign = rng.integers(0, 2, count, dtype=np.uint64)
    bits = (sign << np.uint64(63)) | (fields << np.uint64(52)) | mantissa
    x = bits.view(np.float64)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5]
    bits = x.view(np.uint64)
    xt = torch.as_tensor(x, device="cuda")
    out = torch.empty_like(xt)
    kernel[(triton_cdiv(count, block),)](xt, out, count, BLOCK=block)
    got = out.cpu().numpy()
    with np.errstate(all="ignore"):
        exact = NP_UNARY[reference](x.astype(np.longdouble))

    def spacing_f64(v):
        magnitude = np.abs(v)
        _, e = np.frexp(np.where(magnitude > 0, magnitude, 1.0))
        return np.ldexp(np.longdouble(1.0), np.maximum(e.astype(np.int64) - 1, -1022) - 52)

    with np.errstate(all="ignore"):
        error = (np.abs(got.astype(np.longdouble) - exact) / spacing_f64(exact)).astype(np.float64)
        error = np.where(np.isnan(got) & np.isnan(exact.astype(np.float64)), 0.0, error)
        error = np.where(got.astype(np.longdouble) == exact, 0.0, error)
        error = np.where(np.isinf(got) & (got == exact.astype(np.float64)), 0.0, error)
        error = np.where(np.isnan(error), np.inf, error)
    with np.errstate(all="ignore"):
        _, e = np.frexp(np.where(np.isfinite(x) & (x != 0), np.abs(x), 1.0))
    exponent = np.where(x == 0, ZERO_RANGE[0], np.where(np.isfinite(x), e - 1, SPECIAL_RANGE[0]))
    exponent = np.where((x != 0) & np.isfinite(x) & (np.abs(x) < 2.0**-1022), -1074, exponent)
    negative = np.signbit(x)
    for sign_text, lo, hi in bucket_rows(F64_RANGES):
        mask = ((negative if sign_text == "-" else ~negative) & (exponent >= lo) & (exponent < hi))
        if not mask.any():
            continue
        worst_index = np.flatnonzero(mask)[np.argmax(error[mask])]
        rows.append((name, "f64", sign_text, lo, hi, float(error[mask].max()), f"0x{int(bits[worst_index]):016x}",
                     0, 0, int(mask.sum())))
    return count


def triton_cdiv(a, b):
    return (a + b - 1) // b

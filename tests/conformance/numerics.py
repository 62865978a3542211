"""Independent references for the number formats numpy lacks (bf16 and FP8 rounding, written
from their definitions), C integer division, Philox and the interpreter's FP8 dot, and how a buffer of
each tk element type is stored and read: arithmetic only, no cases, so that every family and the
runner check against the same definitions."""
import fractions
import math

import numpy as np


def bf16_round(x):
    """float32 -> bf16 value (as float32), round to nearest even, written from the definition."""
    x = np.asarray(x, dtype=np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    lower = u & 0xFFFF
    upper = u >> 16
    round_up = (lower > 0x8000) | ((lower == 0x8000) & ((upper & 1) == 1))
    upper = (upper + round_up.astype(np.uint64)) & 0xFFFF
    out = (upper << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out)


def bf16_bits(x):
    return (bf16_round(x).view(np.uint32) >> 16).astype(np.uint16)


def bf16_from_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def round_to_bits(x, bits):
    """x (an int or a float, taken exactly) rounded once to `bits` significant bits, ties to
    even, as a float (normal values only: no overflow or subnormals), from exact fractions."""
    f = fractions.Fraction(x)
    if f == 0:
        return 0.0
    e = abs(f.numerator).bit_length() - f.denominator.bit_length()  # 2^e <= |f| < 2^(e+2)
    if fractions.Fraction(2) ** e > abs(f):
        e -= 1
    while fractions.Fraction(2) ** (e + 1) <= abs(f):
        e += 1
    unit = fractions.Fraction(2) ** (e - bits + 1)
    return float(round(f / unit) * unit)  # Fraction's round: half to even


def f8_table(exp_bits, mant_bits, ieee):
    """Every finite value of an 8-bit float format, indexed by code (NaN where none)."""
    bias = (1 << (exp_bits - 1)) - 1
    values = []
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> mant_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << mant_bits) - 1)
        if ieee and e == (1 << exp_bits) - 1:
            values.append(math.nan if m else sign * math.inf)
        elif not ieee and e == (1 << exp_bits) - 1 and m == (1 << mant_bits) - 1:
            values.append(math.nan)
        elif e == 0:
            values.append(sign * m * 2.0 ** (1 - bias - mant_bits))
        else:
            values.append(sign * (1 + m / (1 << mant_bits)) * 2.0 ** (e - bias))
    return np.array(values)


def f8_round(x, exp_bits, mant_bits, ieee):
    """Round to the nearest representable value, ties to the even code; overflow past the
    largest finite value by half an ulp gives inf (e5m2, the tie too: it rounds to the odd
    code's next, inf) or NaN (e4m3fn, whose tie at 464 goes to 448's even code, as torch's
    conversion has it). Vectorized: the stdlib cases round millions of elements."""
    table = f8_table(exp_bits, mant_bits, ieee)
    finite = [(v, c) for c, v in enumerate(table) if math.isfinite(v) and not (v == 0 and c & 0x80)]
    finite.sort()
    vals = np.array([v for v, _ in finite])
    parity = np.array([c & 1 for _, c in finite])
    top = vals[-1]
    ulp_top = top - vals[-2]
    v = np.asarray(x, dtype=np.float64).ravel()
    i = np.searchsorted(vals, v)
    lo, hi = np.clip(i - 1, 0, len(vals) - 1), np.clip(i, 0, len(vals) - 1)
    d_lo, d_hi = np.abs(vals[lo] - v), np.abs(vals[hi] - v)
    # The nearer neighbour, on a tie the even code's, and on a tie of both the lower one.
    take_hi = (i == 0) | ((i < len(vals)) & ((d_hi < d_lo) | ((d_hi == d_lo) & (parity[hi] < parity[lo]))))
    out = np.where(take_hi, vals[hi], vals[lo])
    out = np.where(out == 0, np.copysign(0.0, v), out)
    over = (np.abs(v) > top + ulp_top / 2) | (ieee & (np.abs(v) == top + ulp_top / 2))
    out = np.where(over, np.copysign(np.inf, v) if ieee else np.nan, out)
    out = np.where(np.isnan(v), np.nan, out)
    return out.astype(np.float32).reshape(np.shape(x))


def f8_bits(x, exp_bits, mant_bits, ieee):
    table = f8_table(exp_bits, mant_bits, ieee)
    code_of = {}  # (value, sign bit) -> its first code
    for c in range(256):
        if not math.isnan(table[c]):
            code_of.setdefault((float(table[c]), math.copysign(1, table[c]) < 0), c)
    nan_code = 0x7F if not ieee else 0x7E  # NaN keeps the sign of what overflowed
    out = [nan_code | (0x80 if math.copysign(1, original) < 0 else 0) if math.isnan(v)
           else code_of[(float(v), math.copysign(1, v) < 0)]
           for v, original in zip(f8_round(x, exp_bits, mant_bits, ieee).ravel().tolist(),
                                  np.asarray(x, np.float64).ravel().tolist())]
    return np.array(out, dtype=np.uint8)


def c_div(x, y):
    """C integer division (truncation toward zero) in int64."""
    x = x.astype(np.int64)
    y = y.astype(np.int64)
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) ^ (y < 0), -q, q)


def c_rem(x, y):
    return x.astype(np.int64) - c_div(x, y) * y.astype(np.int64)


def philox(seed, offsets):
    """Philox-4x32-10 with counter (offset, 0, 0, 0) and key (seed lo, seed hi)."""
    mask = 0xFFFFFFFF
    out = np.zeros((len(offsets), 4), dtype=np.uint64)
    for n, off in enumerate(offsets):
        c = [int(off) & mask, 0, 0, 0]
        k0, k1 = seed & mask, (seed >> 32) & mask
        for _ in range(10):
            p0 = 0xD2511F53 * c[0]
            p2 = 0xCD9E8D57 * c[2]
            c = [((p2 >> 32) ^ c[1] ^ k0) & mask, p2 & mask, ((p0 >> 32) ^ c[3] ^ k1) & mask, p0 & mask]
            k0 = (k0 + 0x9E3779B9) & mask
            k1 = (k1 + 0xBB67AE85) & mask
        out[n] = c
    return out


def uniform(bits):
    x = bits.astype(np.uint32).view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return np.minimum(x.astype(np.float32) * np.float32(4.6566127342e-10), np.float32(np.nextafter(np.float32(1), np.float32(0))))


def storage(dtype):
    """numpy dtype of a buffer of a tk element type (raw bits for bf16 and f8)."""
    return {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.uint16, "f8e4m3": np.uint8,
            "f8e5m2": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
            "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "i1": np.bool_}[dtype]


def values_of(dtype, raw):
    """The values a buffer of `dtype` holds, as float64 or int64."""
    if dtype == "bf16":
        return bf16_from_bits(raw).astype(np.float64)
    if dtype == "f8e4m3":
        return f8_table(4, 3, False)[raw]
    if dtype == "f8e5m2":
        return f8_table(5, 2, True)[raw]
    return raw.astype(np.float64 if dtype.startswith("f") else np.int64)


def f8_dot_f32(a, b, c, step=None):
    """The interpreter's FP8 dot of values a [M, K] and b [N, K] into f32 from c (the README's
    order): each product (exact in f32) added in f32 in increasing k after the accumulator's
    value; with step (max_num_imprecise_acc) each step's products summed from zero, then added."""
    acc, K = np.asarray(c, np.float32), a.shape[1]
    for k0 in range(0, K, step or K):
        s = np.zeros_like(acc) if step else acc
        for k in range(k0, k0 + (step or K)):
            s = s + (a[:, k, None] * b[None, :, k]).astype(np.float32)
        acc = acc + s if step else s
    return acc


def nans_of(got, want, dtype):
    """want with got's NaN (code or payload) wherever both are NaN; every other bit compared."""
    nan = lambda x: np.isnan(values_of(dtype, x))  # noqa: E731
    return np.where(nan(got) & nan(want), got, want)

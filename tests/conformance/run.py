#!/usr/bin/env python3
"""tk conformance suite: every builtin, statement and conversion of the language, run through
`tkc run` and compared with references computed independently here with numpy.

    run.py --tkc build/bin/tkc [--backend interp|cuda] [-k TEXT,...] [--examples-only]

(-k: the cases whose names contain one of the comma-separated texts.)

Each case writes its inputs as .npy files, runs one kernel, and checks every saved output
(exactly where the arithmetic is exact, with a tolerance elsewhere), or checks that the run
fails with the expected exit status and message and leaves no output file behind.
"""
import argparse
import fractions
import concurrent.futures
import math
import os
import subprocess
import sys
import tempfile
import re

import warnings

import numpy as np

# References deliberately overflow (f16 inf, integer wraparound); numpy need not warn about it.
warnings.filterwarnings("ignore", category=RuntimeWarning)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNELS = os.path.join(HERE, "kernels")
EXAMPLES = os.path.join(ROOT, "examples")
RNG = np.random.default_rng(1234)


# ----------------------------------------------------------------------------------------
# Independent references for the number formats numpy lacks.

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


# ----------------------------------------------------------------------------------------
# Cases

CASES = []


class NpyV2:
    """An input written as a .npy format 2.0 file."""
    def __init__(self, array):
        self.array = array


class Case:
    def __init__(self, name, file, kernel, grid, args, check, defines=None, tol=None, expect_status=0,
                 expect_message=None, stdout=None, example=False, interp_only=False, debug=False, gpu_message=None,
                 gpu_tol=None, racy=()):
        self.name, self.file, self.kernel, self.grid = name, file, kernel, grid
        self.args, self.check, self.defines = args, check, defines or {}
        self.tol, self.expect_status, self.expect_message = tol, expect_status, expect_message
        self.stdout, self.example, self.debug, self.gpu_message = stdout, example, debug, gpu_message
        self.gpu_tol = gpu_tol  # the GPU's tolerance where its order of operations differs
        self.racy = racy  # outputs that depend on which program wins a race (not compared across backends)
        # Bounds and division faults are the interpreter's checks (undefined on the GPU);
        # asserts run on both with --debug, the GPU reporting them as CUDA does.
        self.interp_only = interp_only or (expect_status == 2 and gpu_message is None)

    def holds_bf16(self, array):
        """Whether an output holds raw bf16 bits, to compare as values: every uint16 output of the
        stdlib's cases (the graph's bf16 templates) and of a case whose name says bf16. (As
        integers, bits are too loose a test where signs agree, 2% of the bits being a factor of
        4 in value, and too strict across zero.)"""
        return array.dtype == np.uint16 and ("bf16" in self.name or self.name.startswith("stdlib."))


def case(*a, **k):
    CASES.append(Case(*a, **k))


def generated(name, source):
    path = os.path.join(tempfile.gettempdir(), "tk-conformance-%d" % os.getpid(), name + ".tk")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(source)
    return path


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


# The tensor cores sum FP8 products with ~14 bits (as cuBLASLt's fast accumulation, DeepSeek-V3
# measured the same): on the H200 an output of the stdlib's fp8_matmul.tma inputs' partial sums
# (|c| 13.5 on average, up to 167) came out 0.022 from float64's, the same in every tiling and split.
FP8_FAST_ACCUM_TOL = (2e-2, 0.15)
# The interpreter's f32 sum against float64's, both rounded to bf16: f32's error, far below a
# bf16 ulp, can tip a rounding by one ulp (2^-7 of the value at most), and a little more near zero.
BF16_ULP_TOL = (2.0 ** -7, 1e-4)

N = 1000  # not a multiple of the block: every elementwise case has a masked tail


def elementwise_source(in_type, out_type, expr, arity):
    params = ", ".join("%s: ptr<%s>" % (p, in_type) for p in "ab"[:arity])
    loads = "\n".join("    let %s = load(%s + offs, mask = m, other = 1);" % (v, p) for v, p in zip("xy", "ab"[:arity]))
    return ("kernel op(%s, out: ptr<%s>, n: i32) {\n"
            "    let offs = program_id(0) * 128 + arange(0, 128);\n"
            "    let m = offs < n;\n%s\n"
            "    store(out + offs, %s, mask = m);\n}\n") % (params, out_type, loads, expr)


def int_inputs(dtype, nonzero=False, small_shift=False):
    info = np.iinfo(storage(dtype))
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    a = RNG.integers(lo, hi + 1, N).astype(storage(dtype))
    b = RNG.integers(lo, hi + 1, N).astype(storage(dtype))
    # Edge values: the extremes, zero, negatives.
    a[:6] = [info.min, info.max, 0, 1, -7 if info.min < 0 else 7, 7]
    b[:6] = [-1 if info.min < 0 else 1, 2, 3, -3 if info.min < 0 else 3, 2, -2 if info.min < 0 else 2]
    if nonzero:
        b[b == 0] = 1
    if small_shift:
        b = (b.astype(np.int64) & 7).astype(storage(dtype))
    return a, b


def add_int_cases():
    ops = {
        "add": ("x + y", lambda a, b: a + b), "sub": ("x - y", lambda a, b: a - b), "mul": ("x * y", lambda a, b: a * b),
        "div": ("x / y", c_div), "rem": ("x % y", c_rem), "and": ("x & y", lambda a, b: a & b),
        "or": ("x | y", lambda a, b: a | b), "xor": ("x ^ y", lambda a, b: a ^ b),
        "shl": ("x << y", lambda a, b: a << b), "shr": ("x >> y", lambda a, b: a >> b),
        "maximum": ("maximum(x, y)", np.maximum), "minimum": ("minimum(x, y)", np.minimum),
        # The quotient rounded up, exactly (Python's integers), over negatives and the extremes
        # too (MIN / -1 left out: it overflows).
        "cdiv": ("cdiv(x, y)", lambda a, b: np.array([-((-int(x)) // int(y)) for x, y in zip(a, b)], np.int64)),
        "neg": ("-x", lambda a, b: -a), "not": ("~x", lambda a, b: ~a), "abs": ("abs(x)", lambda a, b: np.abs(a)),
        "lt": ("x < y", lambda a, b: a < b), "ge": ("x >= y", lambda a, b: a >= b), "eq": ("x == y", lambda a, b: a == b),
    }
    for dtype in ["i32", "i8", "i64", "u32", "u8", "i16"]:
        for name, (expr, ref) in ops.items():
            if dtype.startswith("u") and name in ("neg", "abs"):
                continue
            out_type = "i1" if name in ("lt", "ge", "eq") else dtype
            a, b = int_inputs(dtype, nonzero=name in ("div", "rem", "cdiv"), small_shift=name in ("shl", "shr"))
            if name == "cdiv":
                b = np.where((a == np.iinfo(a.dtype).min) & (b == -1), 2, b).astype(b.dtype)
            def check(out, a=a, b=b, ref=ref, out_type=out_type):
                # numpy arithmetic in the element type wraps exactly as two's complement does.
                with np.errstate(over="ignore"):
                    expected = np.asarray(ref(a, b))
                return {"out": expected.astype(storage(out_type))}
            src = generated("int_%s_%s" % (name, dtype), elementwise_source(dtype, out_type, expr, 2))
            case("int.%s.%s" % (name, dtype), src, "op", "cdiv(n, 128)",
                 {"a": a, "b": b, "out": np.zeros(N, storage(out_type)), "n": N}, check)


def add_float_cases():
    ops = {
        "add": ("x + y", lambda a, b: a + b), "sub": ("x - y", lambda a, b: a - b), "mul": ("x * y", lambda a, b: a * b),
        "div": ("x / y", lambda a, b: a / b), "rem": ("x % y", np.fmod),
        "maximum": ("maximum(x, y)", np.maximum), "minimum": ("minimum(x, y)", np.minimum),
        "neg": ("-x", lambda a, b: -a), "lt": ("x < y", lambda a, b: a < b), "ne": ("x != y", lambda a, b: a != b),
        "where": ("where(x > y, x, y * 2)", lambda a, b: np.where(a > b, a, b * 2)),
        "clamp": ("clamp(x, -0.25, 0.5)", lambda a, b: np.minimum(np.maximum(a, -0.25), 0.5)),
        "fma": ("fma(x, y, x)", None),  # fused: one rounding, checked with a tolerance
    }
    for dtype in ["f32", "f16", "bf16", "f64"]:
        for name, (expr, ref) in ops.items():
            out_type = "i1" if name in ("lt", "ne") else dtype
            a = (RNG.standard_normal(N) * 4).astype(np.float32)
            b = (RNG.standard_normal(N) * 4).astype(np.float32)
            b[:4] = [0.0, 1.0, -1.0, 3.0]
            a[:4] = [1.0, np.inf, 5.0, 3.0]
            if name in ("div", "rem"):
                b[np.abs(b) < 1e-3] = 1.0
                b[0] = 0.5
            if dtype == "f16":
                ia, ib = a.astype(np.float16), b.astype(np.float16)
            elif dtype == "bf16":
                ia, ib = bf16_bits(a), bf16_bits(b)
            elif dtype == "f64":
                ia, ib = a.astype(np.float64) / 3, b.astype(np.float64) / 3
            else:
                ia, ib = a, b

            def check(out, ia=ia, ib=ib, ref=ref, dtype=dtype, out_type=out_type, name=name):
                x, y = values_of(dtype, ia), values_of(dtype, ib)
                if dtype == "f32":
                    x, y = x.astype(np.float32), y.astype(np.float32)
                if dtype == "f16":
                    x, y = x.astype(np.float16), y.astype(np.float16)
                if name == "fma":
                    r = np.float64(x) * np.float64(y) + np.float64(x)
                else:
                    with np.errstate(all="ignore"):
                        r = ref(x if dtype != "bf16" else x.astype(np.float32), y if dtype != "bf16" else y.astype(np.float32))
                if out_type == "i1":
                    return {"out": np.asarray(r).astype(np.bool_)}
                if dtype == "bf16":
                    return {"out": bf16_bits(np.asarray(r, dtype=np.float32))}
                return {"out": np.asarray(r).astype(storage(dtype))}
            src = generated("float_%s_%s" % (name, dtype), elementwise_source(dtype, out_type, expr, 2))
            case("float.%s.%s" % (name, dtype), src, "op", "cdiv(n, 128)",
                 {"a": ia, "b": ib, "out": np.zeros(N, storage(out_type)), "n": N}, check,
                 tol=(1e-6, 1e-6) if name == "fma" else None)


def add_math_cases():
    f32 = np.float32
    ops = {
        "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
        "rsqrt": lambda x: f32(1) / np.sqrt(x), "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
        "sigmoid": lambda x: f32(1) / (f32(1) + np.exp(-x)), "erf": np.vectorize(math.erf),
        "abs": np.abs, "floor": np.floor, "ceil": np.ceil,
    }
    for dtype in ["f32", "f16"]:
        for name, ref in ops.items():
            x = (RNG.standard_normal(N) * 2).astype(np.float32)
            if name in ("log", "log2", "sqrt", "rsqrt"):
                x = np.abs(x) + f32(0.01)
            ix = x.astype(np.float16) if dtype == "f16" else x
            exact = name in ("abs", "floor", "ceil")

            def check(out, ix=ix, ref=ref, dtype=dtype):
                r = np.asarray(ref(ix.astype(np.float32)), dtype=np.float64)
                return {"out": r.astype(storage(dtype))}
            src = generated("math_%s_%s" % (name, dtype), elementwise_source(dtype, dtype, "%s(x)" % name, 1))
            tol = None if exact else ((2e-6, 1e-7) if dtype == "f32" else (1e-3, 1e-4))
            case("math.%s.%s" % (name, dtype), src, "op", "cdiv(n, 128)",
                 {"a": ix, "out": np.zeros(N, storage(dtype)), "n": N}, check, tol=tol)
    # Results below 2^-126: subnormal by default, zero with ftz = true (PTX's ex2.approx.ftz).
    # (Their own generator, so that the cases after these keep their inputs.)
    tiny = np.random.default_rng(126)
    flush = lambda r: np.where(np.abs(r) < np.finfo(np.float32).tiny, 0, r)
    for name, expr, lo, hi, ref in [("exp2_subnormal", "exp2(x)", -140, -110, np.exp2),
                                    ("exp2_ftz", "exp2(x, ftz = true)", -140, -110, lambda x: flush(np.exp2(x))),
                                    ("exp_ftz", "exp(x, ftz = true)", -95, -80, lambda x: flush(np.exp(x)))]:
        x = tiny.uniform(lo, hi, N).astype(np.float32)
        src = generated("math_%s" % name, elementwise_source("f32", "f32", expr, 1))
        case("math.%s.f32" % name, src, "op", "cdiv(n, 128)", {"a": x, "out": np.zeros(N, np.float32), "n": N},
             lambda out, x=x, ref=ref: {"out": ref(x.astype(np.float64)).astype(np.float32)}, tol=(2e-3, 1e-45))


def add_conversion_cases():
    """`as` between types: rounding to nearest even, overflow, truncation, wrapping, extension."""
    specials = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, 65520.0, 70000.0, -1e6, 1.0009765625, 1.00048828125,
                         1.000732421875, 2049.0, 2051.0, 0.1, 3.999, -2.5, 2.5, np.inf, -np.inf, 1e-8, 6e-8, 448.0, 464.0,
                         57344.0, 61440.0, 1.00390625, 1.01171875, 1.0078125], dtype=np.float32)
    floats = np.concatenate([specials, (RNG.standard_normal(N - len(specials)) * 100).astype(np.float32)])
    ints = np.concatenate([np.array([0, 1, -1, 127, 128, -129, 255, 256, 2**31 - 1, -2**31, 65535, 70000], dtype=np.int64),
                           RNG.integers(-100000, 100000, N - 12)]).astype(np.int32)

    def conv(name, in_type, out_type, inputs, ref, expr=None, any_nan=False):  # any_nan: any NaN matches
        src = generated("conv_" + name, elementwise_source(in_type, out_type, expr or "x as %s" % out_type, 1))
        case("convert." + name, src, "op", "cdiv(n, 128)",
             {"a": inputs, "out": np.zeros(len(inputs), storage(out_type)), "n": len(inputs)},
             lambda out: {"out": nans_of(out["out"], ref(), out_type) if any_nan else ref()})

    conv("f32_f16", "f32", "f16", floats, lambda: floats.astype(np.float16))
    conv("f32_bf16", "f32", "bf16", floats, lambda: bf16_bits(floats))
    conv("f32_f8e4m3", "f32", "f8e4m3", floats / 8, lambda: f8_bits(floats / 8, 4, 3, False))
    conv("f32_f8e5m2", "f32", "f8e5m2", floats, lambda: f8_bits(floats, 5, 2, True))
    # e4m3fn's top: 448 and the tie at 464 give 448, beyond is NaN (inf too), as torch has it.
    conv("f32_f8e4m3_overflow", "f32", "f8e4m3", floats, lambda: f8_bits(floats, 4, 3, False))
    conv("f16_f32", "f16", "f32", floats.astype(np.float16), lambda: floats.astype(np.float16).astype(np.float32))
    conv("bf16_f32", "bf16", "f32", bf16_bits(floats), lambda: bf16_round(floats))
    conv("f32_f64", "f32", "f64", floats, lambda: floats.astype(np.float64))
    conv("f64_f32", "f64", "f32", floats.astype(np.float64) / 3, lambda: (floats.astype(np.float64) / 3).astype(np.float32))
    finite = np.where(np.isfinite(floats), floats, 0).clip(-1e9, 1e9).astype(np.float32)
    conv("f32_i32", "f32", "i32", finite, lambda: np.trunc(finite).astype(np.int32))
    conv("i32_f32", "i32", "f32", ints, lambda: ints.astype(np.float32))
    conv("i32_f16", "i32", "f16", ints, lambda: ints.astype(np.float32).astype(np.float16))
    conv("i32_i8", "i32", "i8", ints, lambda: ints.astype(np.int8))
    conv("i32_u8", "i32", "u8", ints, lambda: ints.astype(np.uint8))
    conv("i8_i32", "i8", "i32", ints.astype(np.int8), lambda: ints.astype(np.int8).astype(np.int32))
    conv("u8_i32", "u8", "i32", ints.astype(np.uint8), lambda: ints.astype(np.uint8).astype(np.int32))
    conv("i32_u32", "i32", "u32", ints, lambda: ints.astype(np.uint32))
    conv("u32_f32", "u32", "f32", ints.astype(np.uint32), lambda: ints.astype(np.uint32).astype(np.float32))
    # One rounding from a wider type (PTX's cvt.rn): values just off a narrow type's midpoint,
    # which rounding to f32 (or f64) first would put on it, the tie then going to even.
    near = np.array([1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-11 - 2.0**-40, 1 + 2.0**-11, 65519.99999999, -3 - 2.0**-9 - 2.0**-41,
                     1 + 2.0**-8 + 2.0**-40, 1 + 2.0**-8, 2.0**100 * (1 + 2.0**-8 + 2.0**-50)], np.float64)
    conv("f64_f16_once", "f64", "f16", near[:5], lambda: np.array([round_to_bits(v, 11) for v in near[:5]], np.float16))
    conv("f64_bf16_once", "f64", "bf16", near, lambda: bf16_bits(np.array([round_to_bits(v, 8) for v in near], np.float32)))
    near8 = np.array([1 + 2.0**-3 + 2.0**-40, 1 + 2.0**-4 + 2.0**-40, -(1 + 2.0**-4 + 2.0**-40), 3 + 2.0**-2 - 2.0**-44,
                      1 + 2.0**-3, 1 + 2.0**-4], np.float64)
    conv("f64_f8e5m2_once", "f64", "f8e5m2", near8,
         lambda: f8_bits(np.array([round_to_bits(v, 3) for v in near8], np.float32), 5, 2, True))
    conv("f64_f8e4m3_once", "f64", "f8e4m3", near8,
         lambda: f8_bits(np.array([round_to_bits(v, 4) for v in near8], np.float32), 4, 3, False))
    # Constants round as run-time values do (before: 0.1 as f16 kept its f32 value, 70000.0 as
    # f16 stayed finite).
    src = generated("constants_round", "kernel op(out: ptr<f32>, one: f32) {\n"
                    "    store(out + 0, (0.1 as f16) as f32);\n    store(out + 1, ((0.1 * one) as f16) as f32);\n"
                    "    store(out + 2, (70000.0 as f16) as f32);\n    store(out + 3, (0.1 as bf16) as f32);\n"
                    "    store(out + 4, (0.3 as f8e4m3) as f32);\n    let y: f16 = 0.1;\n    store(out + 5, y);\n"
                    "    store(out + 6, (1.5 as f16) + (0.1 as f16));\n    store(out + 7, (16842753 as bf16) as f32);\n}\n")
    case("convert.constants_round", src, "op", "1", {"out": np.zeros(8, np.float32), "one": 1.0},
         lambda out: {"out": np.array([np.float16(0.1), np.float16(0.1), np.inf, bf16_round(np.array([0.1], np.float32))[0],
                                       0.3125, np.float16(0.1), np.float16(np.float16(1.5) + np.float16(0.1)),
                                       round_to_bits(16842753, 8)], np.float32)})
    # f16 and bf16 scalar arguments round once too (before: through f32 rounded to nearest,
    # so a value just above a midpoint fell on it and the tie went to even).
    src = generated("scalar_args_once", "kernel op(out: ptr<f16>, outb: ptr<bf16>, n: f16, m: bf16) {\n"
                                        "    store(out, n);\n    store(outb, m);\n}\n")
    case("convert.scalar_args_once", src, "op", "1",
         {"out": np.zeros(1, np.float16), "outb": np.zeros(1, np.uint16), "n": 1 + 2.0**-11 + 2.0**-45,
          "m": 1 + 2.0**-8 + 2.0**-45},
         lambda out: {"out": np.array([round_to_bits(1 + 2.0**-11 + 2.0**-45, 11)], np.float16),
                      "outb": bf16_bits(np.array([round_to_bits(1 + 2.0**-8 + 2.0**-45, 8)], np.float32))})
    # -9223372036854775808 is INT64_MIN (before: the literal 2^63, a weak u64, negated in u64:
    # +2^63), in a default too.
    src = generated("int64_min_literal", "kernel op(o: ptr<f64>, oi: ptr<i64>, const C: f64 = -9223372036854775808) {\n"
                                         "    store(o, -9223372036854775808 as f64);\n    store(o + 1, C);\n"
                                         "    store(o + 2, (-9223372036854775808 < 0) as f64);\n"
                                         "    store(oi, -9223372036854775808);\n}\n")
    case("int.int64_min_literal", src, "op", "1", {"o": np.zeros(3, np.float64), "oi": np.zeros(1, np.int64)},
         lambda out: {"o": np.array([-2.0**63, -2.0**63, 1.0]), "oi": np.array([-2**63], np.int64)})
    wide = np.array([16842753, -16842753, 2**24 + 1, 2**31 - 1, 2**24 + 2**16], np.int64)
    conv("i32_bf16_once", "i32", "bf16", wide.astype(np.int32),
         lambda: bf16_bits(np.array([round_to_bits(int(v), 8) for v in wide], np.float32)))
    huge = np.array([2**53 + 2**29 + 1, -(2**53 + 2**29 + 1), 2**62 + 2**38 + 1, 2**63 - 1], np.int64)
    conv("i64_f32_once", "i64", "f32", huge, lambda: np.array([round_to_bits(int(v), 24) for v in huge], np.float32))
    conv("i64_bf16_once", "i64", "bf16", huge, lambda: bf16_bits(np.array([round_to_bits(int(v), 8) for v in huge], np.float32)))
    # Just past a bf16 midpoint beyond 2^53 (before sm_90 the GPU rounded 64-bit integers to
    # nearest into f64 first, landing on the midpoint, then to even: down), INT64_MIN, u64's top.
    past_mid = np.array([2**62 + 2**54 + 1, -(2**62 + 2**54 + 1), 2**53 + 2**45 + 1, 2**62 + 2**54, -2**63,
                         2**63 - 2**55 + 1], np.int64)
    conv("i64_bf16_past_midpoint", "i64", "bf16", past_mid,
         lambda: bf16_bits(np.array([round_to_bits(int(v), 8) for v in past_mid], np.float32)))
    past_mid_u = np.array([2**63 + 2**55 + 1, 2**64 - 1, 2**62 + 2**54 + 1, 2**63 + 2**55], np.uint64)
    conv("u64_bf16_past_midpoint", "u64", "bf16", past_mid_u,
         lambda: bf16_bits(np.array([round_to_bits(int(v), 8) for v in past_mid_u], np.float32)))
    conv("i32_i64", "i32", "i64", ints, lambda: ints.astype(np.int64))
    conv("i64_i32", "i64", "i32", ints.astype(np.int64) * 100000, lambda: (ints.astype(np.int64) * 100000).astype(np.int32))
    conv("i32_i1", "i32", "i1", ints, lambda: ints != 0)
    conv("f32_i1", "f32", "i1", floats, lambda: floats != 0)
    conv("i1_f32", "i32", "f32", ints, lambda: (ints > 5).astype(np.float32), expr="(x > 5) as f32")
    conv("bitcast_f32_i32", "f32", "i32", floats, lambda: floats.view(np.int32), expr="bitcast(x, i32)")
    conv("bitcast_f16_i16", "f16", "i16", floats.astype(np.float16), lambda: floats.astype(np.float16).view(np.int16), expr="bitcast(x, i16)")
    # cast(x, T, saturate = true): clamped into T's finite range first (infinities too); NaN stays NaN.
    sat = "cast(x, %s, saturate = true)"
    with_nan = floats.copy()
    with_nan[3] = np.nan
    conv("sat_f32_f8e4m3", "f32", "f8e4m3", with_nan, lambda: f8_bits(np.clip(with_nan, -448, 448), 4, 3, False),
         expr=sat % "f8e4m3")
    conv("sat_f32_f8e5m2", "f32", "f8e5m2", floats * 1000, lambda: f8_bits(np.clip(floats * 1000, -57344, 57344), 5, 2, True),
         expr=sat % "f8e5m2")
    conv("sat_f16_f8e4m3", "f16", "f8e4m3", floats.astype(np.float16),
         lambda: f8_bits(np.clip(floats.astype(np.float16).astype(np.float32), -448, 448), 4, 3, False), expr=sat % "f8e4m3")
    conv("sat_f32_f16", "f32", "f16", floats * 1000, lambda: np.clip(floats * 1000, -65504, 65504).astype(np.float16),
         expr=sat % "f16")
    conv("sat_bf16_f16", "bf16", "f16", bf16_bits(floats * 1000),
         lambda: np.clip(bf16_round(floats * 1000), -65504, 65504).astype(np.float16), expr=sat % "f16")
    conv("sat_f64_f32", "f64", "f32", floats.astype(np.float64) * 1e37,
         lambda: np.clip(floats.astype(np.float64) * 1e37, -np.finfo(np.float32).max, np.finfo(np.float32).max).astype(np.float32),
         expr=sat % "f32")
    conv("sat_i32_i8", "i32", "i8", ints, lambda: np.clip(ints, -128, 127).astype(np.int8), expr=sat % "i8")
    conv("sat_i32_u8", "i32", "u8", ints, lambda: np.clip(ints, 0, 255).astype(np.uint8), expr=sat % "u8")
    conv("sat_u32_i32", "u32", "i32", ints.astype(np.uint32),
         lambda: np.clip(ints.astype(np.uint32).astype(np.int64), 0, 2**31 - 1).astype(np.int32), expr=sat % "i32")
    conv("sat_i32_f8e4m3", "i32", "f8e4m3", ints, lambda: f8_bits(np.clip(ints, -448, 448).astype(np.float32), 4, 3, False),
         expr=sat % "f8e4m3")
    conv("sat_i32_f16", "i32", "f16", ints, lambda: np.clip(ints, -65504, 65504).astype(np.float16), expr=sat % "f16")
    conv("cast_f32_f16", "f32", "f16", floats, lambda: floats.astype(np.float16), expr="cast(x, f16)")
    # Integers and f8 convert through f32 (exact for every integer an f8 type holds).
    small = (ints % 1000 - 500).astype(np.int32)
    conv("i32_f8e4m3", "i32", "f8e4m3", small, lambda: f8_bits(small.astype(np.float32), 4, 3, False))
    e5 = f8_bits(np.clip(floats, -57344, 57344), 5, 2, True)
    conv("f8e5m2_i32", "f8e5m2", "i32", e5, lambda: np.trunc(np.array(f8_table(5, 2, True))[e5]).astype(np.int32))
    # Float to 8- and 16-bit integers saturates too (the GPU wrapped: 300.0 as i8 was 44).
    big = np.where(np.isfinite(floats), floats * 10, floats).astype(np.float32)
    sat_int = lambda x, lo, hi, t: np.clip(np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0), lo, hi).astype(t)  # noqa: E731
    conv("f32_i8", "f32", "i8", big, lambda: sat_int(big, -128, 127, np.int8))
    conv("f32_u8", "f32", "u8", big, lambda: sat_int(big, 0, 255, np.uint8))
    conv("f32_i16", "f32", "i16", big * 100, lambda: sat_int(big * 100, -32768, 32767, np.int16))
    conv("f16_u16", "f16", "u16", big.astype(np.float16), lambda: sat_int(big.astype(np.float16), 0, 65535, np.uint16))
    e4 = np.arange(256, dtype=np.uint8)[np.isfinite(np.array(f8_table(4, 3, False)))]
    e4 = np.resize(e4, N)
    # f64 <-> f8 through f32, as the interpreter rounds (exact back).
    conv("f64_f8e4m3", "f64", "f8e4m3", floats.astype(np.float64) / 7, lambda: f8_bits(floats.astype(np.float64) / 7, 4, 3, False))
    conv("f8e5m2_f64", "f8e5m2", "f64", e5, lambda: np.array(f8_table(5, 2, True))[e5].astype(np.float64))
    # Constants and literals saturate alike (the front end folded 300.0 as i8 to 44).
    conv("const_f32_i8", "f32", "i8", floats, lambda: np.full(N, 127, np.int8), expr="300.0 as i8")
    conv("const_f32_i16", "f32", "i16", floats, lambda: np.full(N, -32768, np.int16), expr="-1e30 as i16")
    conv("literal_f32_u8", "f32", "u8", floats, lambda: np.full(N, 255, np.uint8), expr="300.0")
    conv("f8e4m3_i8", "f8e4m3", "i8", e4, lambda: sat_int(np.array(f8_table(4, 3, False))[e4], -128, 127, np.int8))
    # Every code of both f8 formats (NaN codes, infinities, -0, subnormals) to f32, f16 and bf16,
    # exact; and every bf16 from 2^-20 to 2^18 (ties, subnormals, overflow, rounding to zero),
    # infinities and NaNs to both, by `as` and saturating (the README's rules: f8_bits).
    bf16_sweep = np.arange(65536, dtype=np.uint16)
    magnitude = np.abs(bf16_from_bits(bf16_sweep))
    bf16_sweep = bf16_sweep[((magnitude >= 2.0 ** -20) & (magnitude < 2.0 ** 18)) | ~np.isfinite(magnitude) |
                            np.isin(bf16_sweep, [0x0000, 0x8000, 0x0001, 0x8001, 0x7F7F, 0xFF7F])]
    for f8, e, m, ieee, top in (("f8e4m3", 4, 3, False, 448), ("f8e5m2", 5, 2, True, 57344)):
        codes = np.arange(256, dtype=np.uint8)
        for to, of in (("f32", np.float32), ("f16", np.float16), ("bf16", bf16_bits)):
            conv("%s_all_codes_%s" % (f8, to), f8, to, codes,
                 lambda of=of, f8=f8, codes=codes: of(values_of(f8, codes).astype(np.float32)), any_nan=True)
        conv("bf16_sweep_%s" % f8, "bf16", f8, bf16_sweep,
             lambda e=e, m=m, ieee=ieee: f8_bits(bf16_from_bits(bf16_sweep), e, m, ieee), any_nan=True)
        conv("sat_bf16_sweep_%s" % f8, "bf16", f8, bf16_sweep,
             lambda e=e, m=m, ieee=ieee, top=top: f8_bits(np.clip(bf16_from_bits(bf16_sweep), -top, top), e, m, ieee),
             expr=sat % f8, any_nan=True)
    # f16 arithmetic overflows to inf; bf16 rounding ties go to even.
    conv("f16_overflow", "f16", "f16", np.full(N, 60000, np.float16), lambda: np.full(N, np.inf, np.float16), expr="x * 2")
    # Exactly halfway between two bf16 values: ties go to the even mantissa.
    conv("bf16_ties", "f32", "bf16", (bf16_from_bits(np.arange(N, dtype=np.uint16) + 0x3F80).view(np.uint32) + 0x8000).view(np.float32),
         lambda: bf16_bits((bf16_from_bits(np.arange(N, dtype=np.uint16) + 0x3F80).view(np.uint32) + 0x8000).view(np.float32)))


add_int_cases()
add_float_cases()
add_math_cases()
add_conversion_cases()


def add_structure_cases():
    control = os.path.join(KERNELS, "control.tk")
    grid = (4, 3, 2)

    def grid_ref(out):
        expected = np.zeros(96, np.int32)
        for z in range(2):
            for y in range(3):
                for x in range(4):
                    slot = (z * 3 + y) * 4 + x
                    expected[slot * 4:slot * 4 + 4] = [x, y, z, 24]
        return {"out": expected}
    case("statements.grid3d", control, "grid3d", "4,3,2", {"out": np.zeros(96, np.int32)}, grid_ref)

    def loops_ref(out):
        expected = np.full(48, -1, np.int32)
        for pid in range(10):
            kind = [1, 2, 3][pid % 3]
            expected[pid * 4:pid * 4 + 4] = [pid * (pid + 1) // 2, 243, 1234, kind]
        return {"out": expected}
    case("statements.loops_and_early_return", control, "loops", "12", {"out": np.full(48, -1, np.int32), "n": 10}, loops_ref)

    xf = RNG.standard_normal(64).astype(np.float32)
    xi = RNG.integers(-50, 50, 64).astype(np.int32)

    def generic_ref(out):
        silu = xf / (np.float32(1) + np.exp(-xf))
        return {"of": (xf * 2 + np.float32(0.5)) + silu + np.float32(0.25), "oi": (xi * 2 + 3) + (xi + xi * 2)}
    case("statements.generic_fns_and_imports", control, "generic_fns", "1",
         {"xf": xf, "xi": xi, "of": np.zeros(64, np.float32), "oi": np.zeros(64, np.int32)}, generic_ref, tol=(1e-6, 1e-6))

    tiles = os.path.join(KERNELS, "tiles.tk")
    x = RNG.standard_normal(128).astype(np.float32)
    t = x.reshape(8, 16)

    def shapes_ref(out):
        return {"o_trans": t.T.ravel(), "o_perm": t.reshape(2, 4, 16).transpose(2, 0, 1).ravel(), "o_reshape": x,
                "o_bcast": np.broadcast_to(x[:16], (8, 16)).ravel(), "o_expand": x[:16]}
    case("builtins.shapes", tiles, "shapes", "1",
         {"x": x, "o_trans": np.zeros(128, np.float32), "o_perm": np.zeros(128, np.float32),
          "o_reshape": np.zeros(128, np.float32), "o_bcast": np.zeros(128, np.float32), "o_expand": np.zeros(16, np.float32)}, shapes_ref)

    r = RNG.standard_normal((16, 32)).astype(np.float32)
    r[3, 5] = r[3, 9] = 10.0  # a tie: argmax takes the first index
    ri = RNG.integers(-1000, 1000, (16, 32)).astype(np.int32)

    def sequential(a, axis, op):
        a = np.moveaxis(a, axis, 0)
        acc = a[0].copy()
        for j in range(1, a.shape[0]):
            acc = op(acc, a[j])
        return acc

    def reductions_ref(out):
        f = np.float32
        return {"o_sum": sequential(r, 1, lambda p, q: (p + q).astype(f)), "o_max": r.max(0), "o_min": r.min(1),
                "o_argmax": r.argmax(1).astype(np.int32), "o_argmin": r.argmin(0).astype(np.int32),
                "o_all": np.array([sequential(r.ravel(), 0, lambda p, q: np.float32(p + q))], f),
                "o_prod": sequential(r, 1, lambda p, q: (p * q).astype(f)),
                "o_absmax": sequential(r, 0, lambda p, q: np.maximum(np.abs(p), np.abs(q))), "o_isum": ri.sum(1).astype(np.int32)}
    case("builtins.reductions", tiles, "reductions", "1",
         {"x": r.ravel(), "xi": ri.ravel(), "o_sum": np.zeros(16, np.float32), "o_max": np.zeros(32, np.float32),
          "o_min": np.zeros(16, np.float32), "o_argmax": np.zeros(16, np.int32), "o_argmin": np.zeros(32, np.int32),
          "o_all": np.zeros(1, np.float32), "o_prod": np.zeros(16, np.float32), "o_absmax": np.zeros(32, np.float32),
          "o_isum": np.zeros(16, np.int32)}, reductions_ref, gpu_tol=(1e-5, 1e-6))  # the GPU sums in a tree

    # Shifts promote both operands, as Triton's: i32 << i64 is an i64 shift, i32 >> u32 a
    # logical u32 one (before: the left operand's type).
    src = generated("shift_promotion", "kernel op(a: ptr<i32>, s64: ptr<i64>, su: ptr<u32>, o64: ptr<i64>, ou: ptr<u32>) {\n"
                                       "    let r = arange(0, 4);\n"
                                       "    store(o64 + r, load(a + r) << load(s64 + r));\n"
                                       "    store(ou + r, load(a + r) >> load(su + r));\n}\n")
    sa = np.array([1, -8, 3, -1], np.int32)
    case("int.shift_promotion", src, "op", "1",
         {"a": sa, "s64": np.array([40, 1, 33, 63], np.int64), "su": np.array([1, 1, 31, 4], np.uint32),
          "o64": np.zeros(4, np.int64), "ou": np.zeros(4, np.uint32)},
         lambda out: {"o64": (sa.astype(np.int64) << np.array([40, 1, 33, 63], np.int64)),
                      "ou": sa.astype(np.uint32) >> np.array([1, 1, 31, 4], np.uint32)})

    # A shift by the width or more gives 0 (the sign for >> of a signed value), whatever the
    # amount's form: a constant (before: LLVM took arith's poison there and dropped the store
    # on the GPU), a weak literal past the left type's range (before: converted, 257 became
    # 1 for an i8), a value at run time (negative amounts count as unsigned).
    src = generated("shift_width", "kernel op(a: ptr<i8>, n: ptr<i8>, w: ptr<i32>, m: ptr<i32>, o: ptr<i8>, o32: ptr<i32>) {\n"
                                   "    let r = arange(0, 4);\n"
                                   "    let x = load(a + r);\n"
                                   "    store(o + r, x << 8);\n"
                                   "    store(o + 4 + r, x << 257);\n"
                                   "    store(o + 8 + r, x >> 300);\n"
                                   "    store(o + 12 + r, x << load(n + r));\n"
                                   "    store(o + 16 + r, x >> load(n + r));\n"
                                   "    store(o32 + r, load(w + r) << 32);\n"
                                   "    store(o32 + 4 + r, load(w + r) >> load(m + r));\n"
                                   "    store(o32 + 8 + r, (load(w + r) as u32 >> (load(m + r) as u32)) as i32);\n}\n")
    sw_x, sw_n = np.array([3, -5, 127, -128], np.int8), np.array([8, 9, -1, 7], np.int8)
    sw_w, sw_m = np.array([7, -7, 1 << 30, -1], np.int32), np.array([32, 40, -3, 31], np.int32)

    def shift_width_ref(out, xa=sw_x, na=sw_n, wa=sw_w, ma=sw_m):
        def sh(x, s, bits, left, signed):
            x, s = int(x), int(s) & ((1 << bits) - 1)  # the amount as unsigned
            if s >= bits:
                return -1 if (not left and signed and x < 0) else 0
            return (x << s) if left else (x >> s if signed else (x & ((1 << bits) - 1)) >> s)
        wrap = lambda v, bits: ((int(v) + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))  # noqa: E731
        o = [wrap(sh(x, 8, 8, True, True), 8) for x in xa] + [0] * 4 + [sh(x, 300, 8, False, True) for x in xa]
        o += [wrap(sh(x, s, 8, True, True), 8) for x, s in zip(xa, na)] + [sh(x, s, 8, False, True) for x, s in zip(xa, na)]
        o32 = [0] * 4 + [sh(x, s, 32, False, True) for x, s in zip(wa, ma)]
        o32 += [wrap(sh(int(x) & 0xFFFFFFFF, s, 32, False, False), 32) for x, s in zip(wa, ma)]
        return {"o": np.array(o, np.int8), "o32": np.array(o32, np.int32)}
    case("int.shift_width", src, "op", "1",
         {"a": sw_x, "n": sw_n, "w": sw_w, "m": sw_m, "o": np.zeros(20, np.int8), "o32": np.zeros(12, np.int32)},
         shift_width_ref)

    # A comparison with a literal the other operand's type cannot hold compares the values
    # (before: the literal wrapped into the type: x8 < 300 compared with 44, b == 2 with true).
    src = generated("compare_wide_literal", "kernel op(o: ptr<i32>, x: ptr<i8>, u: ptr<u8>, w: ptr<u32>) {\n"
                    "    let x8 = load(x);\n    let u8 = load(u);\n    let b = x8 > 0;\n"
                    "    store(o, (x8 < 300) as i32);\n    store(o + 1, (x8 > -200) as i32);\n"
                    "    store(o + 2, (u8 == 256) as i32);\n    store(o + 3, (b == 2) as i32);\n"
                    "    store(o + 4, (u8 >= -1) as i32);\n    store(o + 5, (300 > x8) as i32);\n"
                    "    store(o + 6, (x8 == 100) as i32);\n    store(o + 7, (load(w) > -1) as i32);\n}\n")
    case("int.compare_wide_literal", src, "op", "1",
         {"o": np.zeros(8, np.int32), "x": np.array([100], np.int8), "u": np.array([0], np.uint8),
          "w": np.array([5], np.uint32)},
         lambda out: {"o": np.array([1, 1, 0, 0, 1, 1, 1, 1], np.int32)})

    # Two weak integer constants compare as integers (before: both promoted to u64, so that
    # -1 < 18446744073709551615 was false), also as a const's value.
    src = generated("compare_weak_literals", "const BIG: i1 = 18446744073709551615 > -1;\n"
                    "kernel op(o: ptr<i32>) {\n"
                    "    store(o, (-1 < 18446744073709551615) as i32);\n"
                    "    store(o + 1, (18446744073709551615 == -1) as i32);\n"
                    "    store(o + 2, (-9223372036854775808 < 9223372036854775808) as i32);\n"
                    "    store(o + 3, BIG as i32);\n}\n")
    case("int.compare_weak_literals", src, "op", "1", {"o": np.zeros(4, np.int32)},
         lambda out: {"o": np.array([1, 0, 1, 1], np.int32)})

    # An else-if chain of 8 arms or more is emitted flat (MLIRGen): arm i still runs only when
    # no arm before it was taken, and its condition is evaluated only then (each condition
    # counts its evaluations in cnt[i] by an atomic), with a var carried through, a store in an
    # arm and the final else. The atomic's old value is multiplied by 0: it depends on the order
    # in which the programs reach it (on the H200 a program took another arm than in the
    # interpreter, in a legal order: session 25).
    arms = "".join("    %sif atomic_add(cnt + %d, 1) * 0 + x == %d { r = %d; }\n" % ("else " if i else "", i, i, 100 + i)
                   for i in range(9))
    src = generated("else_if_chain", "kernel op(o: ptr<i32>, cnt: ptr<i32>, xs: ptr<i32>) {\n"
                    "    let x = load(xs + program_id(0));\n    var r = -1;\n" + arms +
                    "    else if x == 20 { store(o + 8, 7); }\n    else { r = r * 2; }\n"
                    "    store(o + program_id(0), r);\n}\n")
    chain_xs = np.array([0, 3, 8, 20], np.int32)
    case("control.else_if_chain_flat", src, "op", "4",
         {"o": np.zeros(9, np.int32), "cnt": np.zeros(9, np.int32), "xs": chain_xs},
         lambda out, xs=chain_xs: {"o": np.array([100, 103, 108, -1, 0, 0, 0, 0, 7], np.int32),
                                   "cnt": np.array([sum(1 for x in xs if min(x, 8) >= i) for i in range(9)],
                                                   np.int32)})

    # arange from a negative start (before: an internal compiler error past checking).
    src = generated("arange_negative", "kernel op(out: ptr<i32>) {\n"
                                       "    store(out + arange(0, 8), arange(-5, 3) * 10 + arange(-8, 0));\n}\n")
    case("builtins.arange_negative", src, "op", "1", {"out": np.zeros(8, np.int32)},
         lambda out: {"out": (np.arange(-5, 3) * 10 + np.arange(-8, 0)).astype(np.int32)})

    # NaN is every reduction's extremum: argmax and argmin give the first NaN's index, as
    # numpy's do (a NaN counted only at index 0 before), whatever the row's other values.
    rn = r.copy()
    rn[0, 0] = rn[1, 7] = rn[1, 20] = rn[2, 31] = rn[5, 3] = rn[9, 16] = rn[15, 9] = np.nan

    def reductions_nan_ref(out):
        with np.errstate(invalid="ignore"):
            return {"o_max": rn.max(0), "o_min": rn.min(1), "o_argmax": rn.argmax(1).astype(np.int32),
                    "o_argmin": rn.argmin(0).astype(np.int32)}
    case("builtins.reductions_nan", tiles, "reductions", "1",
         {"x": rn.ravel(), "xi": ri.ravel(), "o_sum": np.zeros(16, np.float32), "o_max": np.zeros(32, np.float32),
          "o_min": np.zeros(16, np.float32), "o_argmax": np.zeros(16, np.int32), "o_argmin": np.zeros(32, np.int32),
          "o_all": np.zeros(1, np.float32), "o_prod": np.zeros(16, np.float32), "o_absmax": np.zeros(32, np.float32),
          "o_isum": np.zeros(16, np.int32)}, reductions_nan_ref, gpu_tol=(1e-5, 1e-6))  # the GPU sums in a tree

    s = (RNG.standard_normal((8, 16)) * 0.9).astype(np.float32)
    si = RNG.integers(-100, 100, (8, 16)).astype(np.int32)

    def scans_ref(out):
        f = np.float32
        cs = np.zeros_like(s); cp = np.zeros_like(s); rv = np.zeros_like(s)
        for i in range(8):
            acc = f(0)
            for j in range(16):
                acc = f(acc + s[i, j]) if j else s[i, 0]
                cs[i, j] = acc
            acc = f(0)
            for j in reversed(range(16)):
                acc = f(acc + s[i, j]) if j < 15 else s[i, 15]
                rv[i, j] = acc
        for j in range(16):
            acc = s[0, j]
            cp[0, j] = acc
            for i in range(1, 8):
                acc = f(acc * s[i, j])
                cp[i, j] = acc
        return {"o_cumsum": cs.ravel(), "o_cumprod": cp.ravel(), "o_rev": rv.ravel(),
                "o_scan": np.maximum.accumulate(si, axis=1).ravel()}
    case("builtins.scans", tiles, "scans", "1",
         {"x": s.ravel(), "xi": si.ravel(), "o_cumsum": np.zeros(128, np.float32), "o_cumprod": np.zeros(128, np.float32),
          "o_rev": np.zeros(128, np.float32), "o_scan": np.zeros(128, np.int32)}, scans_ref)

    v1 = RNG.standard_normal(2048).astype(np.float32)
    i1 = RNG.integers(-1000, 1000, 2048).astype(np.int32)

    def seq_scan(values, op, reverse=False):
        values = values[::-1] if reverse else values
        out = np.empty_like(values)
        acc = values[0]
        out[0] = acc
        for k in range(1, len(values)):
            acc = op(acc, values[k])
            out[k] = acc
        return out[::-1] if reverse else out

    def scans1d_ref(out):
        f = np.float32
        return {"o_sum": seq_scan(v1, lambda a, b: f(a + b)), "o_rev": seq_scan(v1, lambda a, b: f(a + b), reverse=True),
                "o_max": np.maximum.accumulate(i1), "o_small": np.cumsum(i1[:64]).astype(np.int32),
                "o_tiny": np.cumprod(np.fmod(i1[:16], 3) + 1).astype(np.int32),  # % truncates, as in C
                "o_tiny_rev": seq_scan(v1[:16], lambda a, b: f(a + b), reverse=True)}
    case("builtins.scans_1d", tiles, "scans1d", "1",
         {"x": v1, "xi": i1, "o_sum": np.zeros(2048, np.float32), "o_rev": np.zeros(2048, np.float32),
          "o_max": np.zeros(2048, np.int32), "o_small": np.zeros(64, np.int32), "o_tiny": np.zeros(16, np.int32),
          "o_tiny_rev": np.zeros(16, np.float32)}, scans1d_ref, tol=(1e-4, 1e-4))

    a16 = (RNG.standard_normal((32, 64))).astype(np.float16)
    b16 = (RNG.standard_normal((64, 16))).astype(np.float16)
    acc = RNG.standard_normal((32, 16)).astype(np.float32)

    case("builtins.dot.f16", tiles, "dot_f16", "1",
         {"a": a16, "b": b16, "acc": acc, "out": np.zeros(512, np.float32)},
         lambda out: {"out": (a16.astype(np.float64) @ b16.astype(np.float64) + acc).astype(np.float32)}, tol=(1e-5, 1e-4))
    # The GPU's f16 accumulator rounds after every k-step of 16 (four times here).
    case("builtins.dot.f16_accumulator", tiles, "dot_f16_into_f16", "1",
         {"a": a16, "b": b16, "out16": np.zeros(512, np.float16)},
         lambda out: {"out16": (a16.astype(np.float64) @ b16.astype(np.float64)).astype(np.float16)}, tol=(1e-5, 1e-4),
         gpu_tol=(4e-3, 2e-2))
    abf = bf16_bits(RNG.standard_normal(16 * 32).astype(np.float32))
    bbf = bf16_bits(RNG.standard_normal(32 * 8).astype(np.float32))
    case("builtins.dot.bf16", tiles, "dot_bf16", "1", {"a": abf, "b": bbf, "out": np.zeros(128, np.float32)},
         lambda out: {"out": (bf16_from_bits(abf).reshape(16, 32).astype(np.float64) @ bf16_from_bits(bbf).reshape(32, 8)).astype(np.float32).ravel()},
         tol=(1e-5, 1e-5))
    a32 = RNG.standard_normal((16, 16)).astype(np.float32)
    b32 = RNG.standard_normal((16, 16)).astype(np.float32)

    def tf32(v):
        u = v.view(np.uint32).astype(np.uint64)
        u = (u + 0xFFF + ((u >> 13) & 1)) & ~np.uint64(0x1FFF)
        return u.astype(np.uint32).view(np.float32)
    case("builtins.dot.f32_tf32_and_ieee", tiles, "dot_f32", "1",
         {"a": a32, "b": b32, "out_tf32": np.zeros(256, np.float32), "out_ieee": np.zeros(256, np.float32)},
         lambda out: {"out_tf32": (tf32(a32).astype(np.float64) @ tf32(b32)).astype(np.float32).ravel(),
                      "out_ieee": (a32.astype(np.float64) @ b32).astype(np.float32).ravel()}, tol=(1e-5, 1e-5))
    a8 = RNG.integers(-128, 128, (16, 32)).astype(np.int8)
    b8 = RNG.integers(-128, 128, (32, 16)).astype(np.int8)
    case("builtins.dot.i8", tiles, "dot_i8", "1", {"a": a8, "b": b8, "out": np.zeros(256, np.int32)},
         lambda out: {"out": (a8.astype(np.int64) @ b8.astype(np.int64)).astype(np.int32).ravel()})

    # Tensor-core shapes (mma.sync on the GPU): epilogues, loops, one-sided warp splits, chains.
    tc = os.path.join(KERNELS, "tensor_cores.tk")
    f64 = np.float64
    ta16 = (RNG.standard_normal((64, 64)) * 0.5).astype(np.float16)
    tb16 = (RNG.standard_normal((64, 64)) * 0.5).astype(np.float16)
    case("tensor_cores.epilogue_in_accumulator_layout", tc, "mma_epilogue", "1",
         {"a": ta16, "b": tb16, "out": np.zeros(64 * 64, np.float32)},
         lambda out: {"out": (np.maximum(ta16.astype(f64) @ tb16.astype(f64), 0) * 2 - 1).astype(np.float32).ravel()},
         tol=(1e-5, 1e-4))
    scaled_a = (RNG.standard_normal((64, 48)) * 0.5).astype(np.float16)
    scaled_b = (RNG.standard_normal((48, 64)) * 0.5).astype(np.float16)
    scaled_s = bf16_bits(RNG.standard_normal((3, 64)).astype(np.float32))
    scaled_rows = np.where(np.arange(64)[None, :] < 40, bf16_from_bits(scaled_s).reshape(3, 64), 3.0)
    case("tensor_cores.row_scaled_loop", tc, "mma_row_scaled_loop", "1",
         {"a": scaled_a, "b": scaled_b, "scales": scaled_s, "out": np.zeros(64 * 64, np.float32), "K": 48, "M": 40},
         lambda out: {"out": sum((scaled_a[:, 16 * j:16 * j + 16].astype(f64) @ scaled_b[16 * j:16 * j + 16].astype(f64)) * scaled_rows[j][:, None]
                                 for j in range(3)).astype(np.float32).ravel()},
         tol=(1e-4, 1e-4))
    # 4 x 3 tiles of 64x64 on 5 programs, ragged at M = 200, N = 136 and K = 96.
    counted_a = (RNG.standard_normal((200, 96)) * 0.5).astype(np.float16)
    counted_b = (RNG.standard_normal((96, 136)) * 0.5).astype(np.float16)
    case("tensor_cores.tma_store_counted", tc, "tma_store_counted", "5",
         {"a": counted_a, "b": counted_b, "c": np.zeros(200 * 136, np.float16), "done": np.zeros(1, np.int32),
          "M": 200, "N": 136, "K": 96},
         lambda out: {"c": (counted_a.astype(f64) @ counted_b.astype(f64)).astype(np.float32).astype(np.float16).ravel(),
                      "done": np.array([12], np.int32)},
         tol=(2e-3, 2e-3))
    # The same product in two loops over tiles: 10 whole tiles on 5 programs, then 2 cut into 4 halves.
    # With a producer warpgroup filling both loops' stages in turn (warp_specialize), 4 stages.
    for ws in (0, 1):
        case("tensor_cores.tma_store_waves" + ("_ws" if ws else ""), tc, "tma_store_waves", "5",
             {"a": counted_a, "b": counted_b, "c": np.zeros(200 * 136, np.float16), "M": 200, "N": 136, "K": 96},
             lambda out: {"c": (counted_a.astype(f64) @ counted_b.astype(f64)).astype(np.float32).astype(np.float16).ravel()},
             tol=(2e-3, 2e-3), defines={"num_warps": "4", "num_stages": "4", "warp_specialize": str(ws)})
    # C += A @ B on 2 x 3 programs of 64x64, ragged at M = 100, N = 136, K = 80.
    start_a = (RNG.standard_normal((100, 80)) * 0.5).astype(np.float16)
    start_b = (RNG.standard_normal((80, 136)) * 0.5).astype(np.float16)
    start_c = RNG.standard_normal((100, 136)).astype(np.float32)
    case("tensor_cores.accumulate_loaded_start", tc, "accumulate_loaded_start", "2, 3",
         {"a": start_a, "b": start_b, "c": start_c.ravel().copy(), "M": 100, "N": 136, "K": 80},
         lambda out: {"c": (start_c.astype(f64) + start_a.astype(f64) @ start_b.astype(f64)).astype(np.float32).ravel()},
         tol=(1e-4, 1e-3))
    gemv_w = (RNG.standard_normal((32, 64)) * 0.5).astype(np.float16)
    gemv_x = (RNG.standard_normal((8, 64)) * 0.5).astype(np.float16)
    gemv_c = RNG.standard_normal((32, 8)).astype(np.float32)
    case("tensor_cores.gemv_loaded_start", tc, "gemv_loaded_start", "1",
         {"w": gemv_w, "x": gemv_x, "c": gemv_c.ravel().copy(), "o": np.zeros(32 * 8, np.float32)},
         lambda out: {"o": (gemv_c.astype(f64) + gemv_w.astype(f64) @ gemv_x.astype(f64).T).astype(np.float32).ravel()},
         defines={"num_warps": 2, "num_stages": 1}, tol=(1e-4, 1e-3))
    between_a = (RNG.standard_normal((128, 128)) * 0.5).astype(np.float16)
    between_b = (RNG.standard_normal((128, 128)) * 0.5).astype(np.float16)
    between_c = RNG.standard_normal((64, 64)).astype(np.float32)
    def between_ref(out):
        a64, b64 = between_a.astype(f64), between_b.astype(f64)
        acc = np.zeros((64, 64))
        for k in range(0, 128, 64):
            s_ = a64[:64, k:k + 64] @ b64[k:k + 64, :64]
            t_ = between_c + a64[64:, k:k + 64] @ b64[k:k + 64, 64:]
            acc += np.maximum(s_, t_)
        return {"o": acc.astype(np.float32).ravel()}
    case("tensor_cores.dot_loaded_between", tc, "dot_loaded_between", "1",
         {"a": between_a, "b": between_b, "c": between_c.ravel().copy(), "o": np.zeros(64 * 64, np.float32), "K": 128},
         between_ref, defines={"num_stages": 2}, tol=(1e-4, 1e-3))
    cond_a = (RNG.standard_normal((64, 128)) * 0.5).astype(np.float16)
    cond_b = (RNG.standard_normal((128, 64)) * 0.5).astype(np.float16)
    cond_c = RNG.standard_normal((64, 64)).astype(np.float32)
    case("tensor_cores.conditional_accumulate", tc, "conditional_accumulate", "1",
         {"a": cond_a, "b": cond_b, "c": cond_c.ravel().copy(), "K": 128},
         lambda out: {"c": (cond_c.astype(f64) + sum(cond_a[:, k:k + 32].astype(f64) @ cond_b[k:k + 32].astype(f64)
                                                     for k in (0, 64))).astype(np.float32).ravel()},
         tol=(1e-4, 1e-3))
    la = bf16_bits(RNG.standard_normal(32 * 64).astype(np.float32))
    lb = bf16_bits(RNG.standard_normal(64 * 64).astype(np.float32))
    case("tensor_cores.loop_carried_bf16", tc, "mma_loop_bf16", "1",
         {"a": la, "b": lb, "out": np.zeros(32 * 64, np.float32), "K": 64},
         lambda out: {"out": (bf16_from_bits(la).reshape(32, 64).astype(f64) @ bf16_from_bits(lb).reshape(64, 64)).astype(np.float32).ravel()},
         tol=(1e-5, 1e-4))
    ba = bf16_bits(RNG.standard_normal(64 * 192).astype(np.float32))
    bb = bf16_bits(RNG.standard_normal(128 * 192).astype(np.float32))
    case("tensor_cores.loop_b_transposed_bf16", tc, "mma_loop_bt", "1",
         {"a": ba, "b": bb, "out": np.zeros(64 * 128, np.float32), "K": 192},
         lambda out: {"out": (bf16_from_bits(ba).reshape(64, 192).astype(f64) @
                              bf16_from_bits(bb).reshape(128, 192).astype(f64).T).astype(np.float32).ravel()},
         defines={"num_warps": 8}, tol=(1e-5, 1e-4))
    ca = (RNG.standard_normal((64, 96)) * 0.5).astype(np.float16)
    cb = (RNG.standard_normal((96, 64)) * 0.5).astype(np.float16)
    case("tensor_cores.loop_computed_a", tc, "mma_loop_computed_a", "1",
         {"a": ca, "b": cb, "out": np.zeros(64 * 64, np.float32), "K": 96},
         lambda out: {"out": (2 * ca.astype(f64) @ cb.astype(f64)).astype(np.float32).ravel()}, tol=(1e-5, 1e-4))
    wa = (RNG.standard_normal((16, 32)) * 0.5).astype(np.float16)
    wb = (RNG.standard_normal((32, 256)) * 0.5).astype(np.float16)
    case("tensor_cores.eight_warps_split_columns", tc, "mma_wide", "1",
         {"a": wa, "b": wb, "out": np.zeros(16 * 256, np.float16)},
         lambda out: {"out": (wa.astype(f64) @ wb.astype(f64)).astype(np.float32).astype(np.float16).ravel()},
         defines={"num_warps": 8}, tol=(2e-3, 2e-3))
    ia8, ib8 = (RNG.integers(-128, 128, (64, 64)).astype(np.int8) for _ in range(2))
    i8_product = (ia8.astype(np.int64) @ ib8.astype(np.int64)).astype(np.int32).ravel()
    case("tensor_cores.i8_into_i32_both_b_orders", tc, "mma_i8", "1",
         {"a": ia8, "b": ib8, "bt": np.ascontiguousarray(ib8.T), "out": np.zeros(64 * 64, np.int32),
          "out_t": np.zeros(64 * 64, np.int32)},
         lambda out: {"out": i8_product, "out_t": i8_product})
    fa16 = (RNG.standard_normal((64, 128)) * 0.25).astype(np.float16)
    fb16 = (RNG.standard_normal((128, 64)) * 0.25).astype(np.float16)
    case("tensor_cores.f16_accumulator_in_a_loop", tc, "mma_f16_accumulate", "1",
         {"a": fa16, "b": fb16, "out": np.zeros(64 * 64, np.float16), "K": 128},
         lambda out: {"out": (fa16.astype(f64) @ fb16.astype(f64)).astype(np.float16).ravel()}, tol=(2e-3, 2e-3),
         gpu_tol=(8e-3, 1e-2))
    # FP8 on mma.sync (m16n8k32): products exact in f32, the sums as the tensor cores add them
    # (FP8_FAST_ACCUM_TOL: about 14 bits); the interpreter adds in f32.
    qa = f8_bits(RNG.uniform(-2, 2, (32, 192)), 5, 2, True)
    qb = f8_bits(RNG.uniform(-1, 1, (64, 192)), 4, 3, False)
    case("tensor_cores.f8_e5m2_e4m3_loop_b_transposed", tc, "mma_f8_loop", "1",
         {"a": qa, "b": qb, "out": np.zeros(32 * 64, np.float32), "K": 192},
         lambda out: {"out": (values_of("f8e5m2", qa).reshape(32, 192) @ values_of("f8e4m3", qb).reshape(64, 192).T)
                      .astype(np.float32).ravel()},
         defines={"num_stages": 3}, tol=(1e-5, 1e-5), gpu_tol=(2e-2, 5e-2))
    ra = f8_bits(RNG.uniform(-2, 2, (16, 64)), 4, 3, False)
    rb = f8_bits(RNG.uniform(-1, 1, (64, 32)), 4, 3, False)
    case("tensor_cores.f8_e4m3_b_as_k_rows", tc, "mma_f8_k_rows", "1",
         {"a": ra, "b": rb, "out": np.zeros(16 * 32, np.float32)},
         lambda out: {"out": (values_of("f8e4m3", ra).reshape(16, 64) @ values_of("f8e4m3", rb).reshape(64, 32))
                      .astype(np.float32).ravel()},
         defines={"num_warps": 2}, tol=(1e-5, 1e-5), gpu_tol=(2e-2, 5e-2))
    # FP8 on wgmma (64 x 64, K = 192 in k-steps of 64), from a loaded accumulator, on a generator
    # of their own (the cases after keep their inputs): the interpreter bit for bit as the README
    # adds (f8_dot_f32), the GPU as its tensor cores do.
    g8 = np.random.default_rng(8)
    e5 = lambda lo: f8_bits(g8.uniform(-lo, lo, (64, 192)), 5, 2, True).reshape(64, 192)  # noqa: E731
    e4 = lambda lo: f8_bits(g8.uniform(-lo, lo, (64, 192)), 4, 3, False).reshape(64, 192)  # noqa: E731
    wc = g8.standard_normal((64, 64)).astype(np.float32)

    def f8_wgmma(name, A, a, B, b, c, limit=0):
        want = f8_dot_f32(values_of(A, a), values_of(B, b), c, limit or None)
        case("tensor_cores.f8_" + name, tc, "mma_f8_wgmma", "1",
             {"a": a, "b": b, "c": c.ravel(), "out": np.zeros(64 * 64, np.float32), "K": 192},
             lambda out: {"out": want.ravel()}, defines={"A": A, "B": B, "LIMIT": limit}, gpu_tol=FP8_FAST_ACCUM_TOL)
        return want
    f8_wgmma("e5m2_e5m2_wgmma", "f8e5m2", e5(2), "f8e5m2", e5(1), wc)
    # NaN and infinities in the operands (e5m2 has both, e4m3 NaN only): the rows and columns they
    # touch are NaN or +-inf as IEEE has it (inf - inf and inf * 0 NaN), every other output finite.
    sa_, sb_ = e5(2), e4(1)
    sa_[3, 10], sa_[17, 100], sa_[40, 5], sa_[40, 150], sa_[50, 60], sa_[51, 0] = 0x7C, 0xFC, 0x7C, 0xFC, 0x7D, 0xFF
    sb_[9, 77], sb_[33, 191], sb_[20, 10], sb_[21, 10] = 0x7F, 0xFF, 0x00, 0x80
    special = f8_wgmma("e5m2_e4m3_wgmma_nan_inf", "f8e5m2", sa_, "f8e4m3", sb_, wc)
    touched = np.zeros((64, 64), bool)
    touched[[3, 17, 40, 50, 51]], touched[:, [9, 33]] = True, True
    assert (np.isfinite(special) == ~touched).all() and np.isnan(special[3, 20]) and np.isnan(special[40]).any()
    assert np.isposinf(special).any() and np.isneginf(special).any() and np.isposinf(special[40]).any()
    # max_num_imprecise_acc = 64 (each k-step's products summed from zero, then added to the
    # accumulator) against the default (each product added to it), on rows that start at +-2^24:
    # there the two differ.
    big = np.where(np.arange(64)[:, None] % 2 == 0, np.sign(wc) * 2.0 ** 24, wc).astype(np.float32)
    pa_, pb_ = e4(2), e4(1)
    assert (f8_wgmma("e4m3_e4m3_wgmma_large_acc", "f8e4m3", pa_, "f8e4m3", pb_, big) !=
            f8_wgmma("e4m3_e4m3_wgmma_promoted", "f8e4m3", pa_, "f8e4m3", pb_, big, limit=64)).sum() > 1000
    aq, ak, av = [(RNG.standard_normal((64, 32)) * 0.3).astype(np.float16) for _ in range(3)]

    def attention_like_ref(out):
        s = aq.astype(np.float32) @ ak.astype(np.float32).T
        p = np.exp(s - s.max(1, keepdims=True)).astype(np.float16)
        return {"out": (p.astype(f64) @ av.astype(f64)).astype(np.float32).ravel()}
    case("tensor_cores.two_dots_with_a_row_reduction", tc, "mma_attention_like", "1",
         {"q": aq, "k": ak, "v": av, "out": np.zeros(64 * 32, np.float32)}, attention_like_ref, tol=(3e-3, 3e-3))
    at32 = RNG.standard_normal((64, 96)).astype(np.float32)
    bt32 = RNG.standard_normal((96, 64)).astype(np.float32)
    case("tensor_cores.tf32_loop", tc, "mma_tf32", "1",
         {"a": at32, "b": bt32, "out": np.zeros(64 * 64, np.float32), "K": 96},
         lambda out: {"out": (tf32(at32).astype(f64) @ tf32(bt32)).astype(np.float32).ravel()}, tol=(1e-4, 1e-4))

    memory = os.path.join(KERNELS, "memory.tk")
    xm = RNG.standard_normal(1000).astype(np.float32)
    canary = np.full(1024, 7.0, np.float32)

    def masked_ref(out):
        expected = canary.copy()
        expected[:1000] = xm * 2
        return {"out": expected}
    case("memory.masked_tail_untouched", memory, "masked_copy", "cdiv(n, BLOCK)", {"x": xm, "out": canary, "n": 1000}, masked_ref)

    programs = 37

    def atomics_ref(out):
        # Whichever program's compare-and-swap came first (program 0 in the interpreter) saw
        # 0 and stored its pid + 1; every other program saw that value.
        winner = int(out["cas"][0]) - 1 if 1 <= int(out["cas"][0]) <= programs else 0
        olds = np.full(programs, winner + 1, np.int32)
        olds[winner] = 0
        swap = np.full(programs, -5, np.int32)
        swap[::2] = np.arange(0, programs, 2) + 100
        return {"counts": np.full(16, programs, np.int32), "fsum": np.array([sum(range(programs))], np.float32),
                "mx": np.array([max(p * 7 % 13 for p in range(programs))], np.int32),
                "mn": np.array([100 - (programs - 1)], np.int32),
                "umx": np.array([max((p * 1000000000) % 2**32 for p in range(programs))], np.uint32),
                "swap": swap, "cas": np.array([winner + 1], np.int32), "olds": olds}
    case("memory.atomics_from_many_programs", memory, "atomics", str(programs),
         {"counts": np.zeros(16, np.int32), "fsum": np.zeros(1, np.float32), "mx": np.zeros(1, np.int32),
          "mn": np.full(1, 1000, np.int32), "umx": np.zeros(1, np.uint32), "swap": np.full(programs, -5, np.int32),
          "cas": np.zeros(1, np.int32), "olds": np.zeros(programs, np.int32)}, atomics_ref, racy=("cas", "olds"))

    case("memory.atomics_16bit_bf16", memory, "atomics_16bit", str(programs),
         {"h": np.zeros(4, np.float16), "b": bf16_bits(np.zeros(4, np.float32)), "hm": np.full(1, -1, np.float16),
          "bm": bf16_bits(np.full(1, 1000, np.float32))},
         lambda out: {"h": np.full(4, programs, np.float16), "b": bf16_bits(np.full(4, programs, np.float32)),
                      "hm": np.array([12], np.float16), "bm": bf16_bits(np.array([100 - (programs - 1)], np.float32))})

    def random_ref(out, seed=12345):
        bits = philox(seed, np.arange(512))
        u1 = np.maximum(np.float32(1e-7), uniform(bits[:, 0]))
        u2 = uniform(bits[:, 1])
        normal = np.sqrt(np.float32(-2) * np.log(u1)) * np.cos(np.float32(6.283185307179586) * u2)
        return {"out_u": uniform(bits[:, 0]), "out_n": normal.astype(np.float32)}
    case("builtins.rand_randn_philox", memory, "random", "2",
         {"seed": 12345, "out_u": np.zeros(512, np.float32), "out_n": np.zeros(512, np.float32)}, random_ref, tol=(2e-6, 2e-6))
    case("builtins.print_assert_static_assert", memory, "debug_print", "1", {"x": np.array([3, 0, 8, 1], np.int32)},
         lambda out: {}, debug=True, stdout="pid (0, 0, 0) idx (0) v = 3\npid (0, 0, 0) idx (1) v = 0\npid (0, 0, 0) idx (2) v = 8\n"
         "pid (0, 0, 0) idx (3) v = 1\npid (0, 0, 0) pid only\n")

    # Faults: exit status 2, the kernel, program and source location named, nothing saved.
    case("faults.out_of_bounds_load", memory, "oob_load", "3", {"x": np.zeros(150, np.float32), "out": np.zeros(192, np.float32)},
         None, expect_status=2,
         expect_message="memory.tk:41:23: error: out-of-bounds load: element 22 of the tile is at byte offset 600 (index 150) of buffer 'x', which has 150 elements (kernel 'oob_load', program (2, 0, 0))")
    # A u32 offset counts as in C (zero-extended): 16 + 4294967295 is past the buffer, not 15.
    src = generated("u32_offset", "kernel op(x: ptr<f32>, out: ptr<f32>, u: u32) {\n"
                                  "    store(out, load(x + 16 + u));\n}\n")
    case("faults.u32_offset_out_of_bounds", src, "op", "1",
         {"x": np.arange(32, dtype=np.float32), "out": np.zeros(1, np.float32), "u": np.uint32(4294967295)}, None,
         expect_status=2,
         expect_message="u32_offset.tk:2:16: error: out-of-bounds load: element 0 of the tile is at byte offset "
                        "17179869244 (index 4294967311) of buffer 'x', which has 32 elements (kernel 'op', program (0, 0, 0))")
    case("faults.out_of_bounds_load_in_fn", memory, "oob_load_in_fn", "3",
         {"x": np.zeros(150, np.float32), "out": np.zeros(192, np.float32)}, None, expect_status=2,
         expect_message="memory.tk:61:12: error: out-of-bounds load: element 22 of the tile is at byte offset 600 (index 150) "
                        "of buffer 'x', which has 150 elements (kernel 'oob_load_in_fn', program (2, 0, 0))\n" +
                        memory + ":66:23: note: in the call to the fn from here")
    case("faults.endless_wait", memory, "wait_for_later", "2", {"flag": np.zeros(1, np.int32), "out": np.zeros(1, np.int32)},
         None, expect_status=2,
         expect_message="memory.tk:76:9: error: this while loop cannot end: an iteration changed neither memory nor its "
                        "values (the interpreter runs programs one after another, so a program that waits for a later one "
                        "waits forever) (kernel 'wait_for_later', program (0, 0, 0))")
    case("faults.out_of_bounds_store", memory, "oob_store", "1", {"out": np.zeros(64, np.float32), "n": -1}, None, expect_status=2,
         expect_message="error: out-of-bounds store: element 0 of the tile is at byte offset -4 (index -1) of buffer 'out'")
    case("faults.assert", memory, "failing_assert", "1", {"x": np.arange(8, dtype=np.int32)}, None, expect_status=2,
         debug=True, gpu_message="kernel 'failing_assert' failed: device-side assert triggered",
         expect_message="memory.tk:51:5: error: assertion failed: v must stay below 5 (element 5) (kernel 'failing_assert', program (0, 0, 0))")
    case("faults.division_by_zero", memory, "divide", "1",
         {"a": np.arange(8, dtype=np.int32), "b": np.array([1, 2, 3, 0, 1, 1, 1, 1], np.int32), "out": np.zeros(8, np.int32)},
         None, expect_status=2, expect_message="error: integer division by zero (kernel 'divide'")
    # A remainder by zero says so (before: "division").
    src = generated("remainder_by_zero", "kernel op(a: ptr<i32>, b: ptr<i32>, out: ptr<i32>) {\n"
                                         "    let r = arange(0, 4);\n    store(out + r, load(a + r) % load(b + r));\n}\n")
    case("faults.remainder_by_zero", src, "op", "1",
         {"a": np.arange(4, dtype=np.int32), "b": np.array([1, 0, 3, 1], np.int32), "out": np.zeros(4, np.int32)},
         None, expect_status=2, expect_message="error: integer remainder by zero (kernel 'op'")


def add_descriptor_cases():
    """Tensor descriptors: zeros outside the described tensor (ragged edges, negative and wholly
    outside offsets), clipped stores (padding beyond the shape keeps its canary), ranks 1-3."""
    desc = os.path.join(KERNELS, "descriptors.tk")

    def block_of(t, offsets, block):
        """The block of t at offsets, zeros outside t (numpy's independent reading)."""
        out = np.zeros(block, t.dtype)
        src = tuple(slice(max(o, 0), min(o + b, n)) for o, b, n in zip(offsets, block, t.shape))
        dst = tuple(slice(s.start - o, s.stop - o) for s, o in zip(src, offsets))
        if all(s.stop > s.start for s in src):
            out[dst] = t[src]
        return out

    M, N, ldx, ldy, dr, dc, BM, BN = 37, 70, 75, 72, 5, 7, 16, 32
    gm, gn = -(-(M + dr) // BM) + 1, -(-(N + dc) // BN)  # one more row of blocks, wholly outside x
    x = RNG.standard_normal((M, ldx)).astype(np.float32)  # columns past N are padding, never read
    y = np.full((M + 2, ldy), 7.0, np.float32)

    def copy2d_ref(out):
        tiles = np.zeros((gm * BM, gn * BN), np.float32)
        for i in range(gm):
            for j in range(gn):
                tiles[i * BM:(i + 1) * BM, j * BN:(j + 1) * BN] = block_of(x[:, :N], (i * BM - dr, j * BN - dc), (BM, BN))
        expected = y.copy()
        expected[:M, :N] = x[:, :N] + 1
        return {"tiles": tiles, "y": expected}
    case("descriptors.rank2_ragged_negative_clipped", desc, "copy2d", "cdiv(M + dr, BM) + 1, cdiv(N + dc, BN)",
         {"x": x, "y": y, "tiles": np.full(gm * BM * gn * BN, 3.0, np.float32), "M": M, "N": N, "ldx": ldx, "ldy": ldy,
          "dr": dr, "dc": dc}, copy2d_ref)
    case("descriptors.rank2_in_bounds", desc, "copy2d", "cdiv(M, BM), cdiv(N, BN)",
         {"x": x[:32, :64].copy(), "y": np.zeros((32, 64), np.float32), "tiles": np.zeros(32 * 64, np.float32),
          "M": 32, "N": 64, "ldx": 64, "ldy": 64, "dr": 0, "dc": 0},
         lambda out: {"tiles": x[:32, :64], "y": x[:32, :64] + 1})

    Mt, Nt, ld = 45, 29, 50
    xt = RNG.standard_normal((Mt, ld)).astype(np.float16)
    canary = np.full(Nt * Mt + 16, -3.0, np.float32)

    def transpose_ref(out):
        expected = canary.copy()
        expected[:Nt * Mt] = xt[:, :Nt].T.astype(np.float32).ravel()
        return {"out": expected}
    case("descriptors.rank2_strided_transpose_f16_to_f32", desc, "transpose", "cdiv(N, BM), cdiv(M, BN)",
         {"x": xt, "out": canary, "M": Mt, "N": Nt, "ld": ld}, transpose_ref)

    n, m, start, block = 50, 40, -10, 16
    xg = RNG.integers(-1000, 1000, 3 * n).astype(np.int32)
    programs = -(-(n - start) // block)
    yg = np.full(m + 8, -1, np.int32)

    def gather_ref(out):
        view = xg[::3][:n]
        expected = yg.copy()
        expected[:m] = view[:m]
        return {"gathered": block_of(view, (start,), (programs * block,)), "y": expected}
    case("descriptors.rank1_strided_negative_clipped", desc, "gather1d", "cdiv(n - start, BLOCK)",
         {"x": xg, "gathered": np.full(programs * block, 5, np.int32), "y": yg, "n": n, "m": m, "start": start},
         gather_ref, defines={"BLOCK": str(block)})

    D0, D1, D2 = 5, 6, 13
    s1, s0 = D2 + 3, 6 * (D2 + 3) + 5
    o0, o1, o2 = -1, -1, -2
    flat = RNG.standard_normal(D0 * s0).astype(np.float32)
    x3 = np.lib.stride_tricks.as_strided(flat, (D0, D1, D2), (s0 * 4, s1 * 4, 4)).copy()
    p3 = -(-(D0 - o0) // 2)
    y3 = np.full(D0 * D1 * D2 + 10, 9.0, np.float32)

    def block3d_ref(out):
        tiles = np.concatenate([block_of(x3, (o0 + p * 2, o1, o2), (2, 8, 16)) for p in range(p3)])
        expected = y3.copy()
        expected[:D0 * D1 * D2] = (x3 * 2).ravel()
        return {"tiles": tiles, "y": expected}
    case("descriptors.rank3_padded_strides_negative_clipped", desc, "block3d", "cdiv(D0 - o0, 2)",
         {"x": flat, "y": y3, "tiles": np.full(p3 * 256, 4.0, np.float32), "D0": D0, "D1": D1, "D2": D2,
          "s0": s0, "s1": s1, "o0": o0, "o1": o1, "o2": o2}, block3d_ref)


def add_example_cases():
    ex = lambda name: os.path.join(EXAMPLES, name + ".tk")
    n = 5000
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    case("example.vector_add", ex("vector_add"), "vector_add", "cdiv(n, BLOCK)",
         {"x": x, "y": y, "out": np.zeros(n, np.float32), "n": n}, lambda out: {"out": x + y}, example=True)
    g, u = RNG.standard_normal(n).astype(np.float16), RNG.standard_normal(n).astype(np.float16)
    case("example.swiglu", ex("vector_add"), "swiglu", "cdiv(n, BLOCK)",
         {"gate": g, "up": u, "out": np.zeros(n, np.float16), "n": n},
         lambda out: {"out": (g.astype(np.float32) / (1 + np.exp(-g.astype(np.float32))) * u.astype(np.float32)).astype(np.float16)},
         tol=(2e-3, 1e-3), example=True)
    rows, cols = 64, 1000
    xs = (RNG.standard_normal((rows, cols)) * 3).astype(np.float32)

    def softmax_ref(out):
        e = np.exp(xs - xs.max(1, keepdims=True))
        return {"y": (e / e.sum(1, keepdims=True)).ravel()}
    case("example.softmax", ex("softmax"), "softmax", str(rows),
         {"x": xs, "y": np.zeros(rows * cols, np.float32), "n_cols": cols, "stride": cols}, softmax_ref, tol=(1e-5, 1e-7),
         defines={"BLOCK": "1024"}, example=True)
    xl = RNG.standard_normal((32, 1000)).astype(np.float16)
    w = RNG.standard_normal(1000).astype(np.float16)
    b = RNG.standard_normal(1000).astype(np.float16)

    def layernorm_ref(out):
        v = xl.astype(np.float32)
        mean = v.mean(1, keepdims=True)
        var = ((v - mean) ** 2).mean(1, keepdims=True)
        return {"y": ((v - mean) / np.sqrt(var + 1e-5) * w.astype(np.float32) + b.astype(np.float32)).astype(np.float16).ravel()}
    case("example.layernorm", ex("layernorm"), "layernorm", "32",
         {"x": xl, "y": np.zeros(32000, np.float16), "w": w, "b": b, "n_cols": 1000, "stride": 1000, "eps": 1e-5},
         layernorm_ref, tol=(4e-3, 4e-3), defines={"BLOCK": "1024"}, example=True)

    def rmsnorm_ref(out):
        v = xl.astype(np.float32)
        return {"y": (v / np.sqrt((v * v).mean(1, keepdims=True) + 1e-6) * w.astype(np.float32)).astype(np.float16).ravel()}
    case("example.rmsnorm", ex("rmsnorm"), "rmsnorm", "32",
         {"x": xl, "y": np.zeros(32000, np.float16), "w": w, "n_cols": 1000, "stride": 1000, "eps": 1e-6},
         rmsnorm_ref, tol=(4e-3, 4e-3), defines={"BLOCK": "1024"}, example=True)
    for (M, N_, K) in [(256, 192, 128), (200, 136, 72)]:  # the second is ragged on every edge
        a = RNG.standard_normal((M, K)).astype(np.float16)
        bm = RNG.standard_normal((K, N_)).astype(np.float16)
        case("example.matmul.%dx%dx%d" % (M, N_, K), ex("matmul"), "matmul", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.zeros(M * N_, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines={"BM": "64", "BN": "64", "BK": "32"}, example=True)
    # The same with tensor descriptors (examples/matmul_desc.tk): ragged, benchmark tiles, no k-steps.
    for (M, N_, K, defines) in [(200, 136, 72, {"BM": "64", "BN": "64", "BK": "32"}),
                                (200, 264, 264, {"BM": "128", "BN": "256", "BK": "64", "num_warps": "8", "num_stages": "3"}),
                                (64, 64, 0, {"BM": "64", "BN": "64", "BK": "32"})]:
        a = RNG.standard_normal((M, max(K, 1))).astype(np.float16)[:, :K].copy()
        bm = RNG.standard_normal((max(K, 1), N_)).astype(np.float16)[:K].copy()
        case("example.matmul_desc.%dx%dx%d_bm%s" % (M, N_, K, defines["BM"]), ex("matmul_desc"), "matmul_desc",
             "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines=defines, example=True)
    # The benchmark's tiles (on Hopper: wgmma with two 64-row tiles per warpgroup, two
    # warpgroups over rows, two over columns), ragged on every edge.
    # (8 warps, 3 stages: the epilogue's exchange reuses the stage ring, so both warpgroups'
    # last MMAs must be done before it.)
    # With warp_specialize (ws): on sm_90a a producer warpgroup issues the TMA copies.
    for (bm_, bn_, bk_, warps, stages, ws) in [(128, 128, 64, 4, 3, 0), (128, 256, 64, 8, 3, 0), (128, 128, 64, 8, 3, 0),
                                               (64, 256, 32, 8, 4, 0), (128, 256, 64, 8, 3, 1), (64, 128, 128, 4, 3, 1),
                                               (64, 32, 128, 4, 6, 1)]:
        M, N_, K = 200, 264, 264
        a = RNG.standard_normal((M, K)).astype(np.float16)
        bm = RNG.standard_normal((K, N_)).astype(np.float16)
        case("example.matmul.tiles_%dx%dx%d_w%d_s%d%s" % (bm_, bn_, bk_, warps, stages, "_ws" if ws else ""), ex("matmul"),
             "matmul", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.zeros(M * N_, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), example=True, defines={"BM": str(bm_), "BN": str(bn_), "BK": str(bk_),
                                                      "num_warps": str(warps), "num_stages": str(stages),
                                                      "warp_specialize": str(ws)})
    # A row stride of 0 (every row of A the same): no divisibility is claimed for it, so the
    # loads stay cp.async (on sm_90a TMA would need a positive stride; this failed at launch).
    arow = RNG.standard_normal(96).astype(np.float16)
    bz = RNG.standard_normal((96, 64)).astype(np.float16)
    case("example.matmul.zero_row_stride", ex("matmul"), "matmul", "cdiv(M, BM) * cdiv(N, BN)",
         {"a": arow, "b": bz, "c": np.zeros(64 * 64, np.float16), "M": 64, "N": 64, "K": 96, "lda": 0, "ldb": 64, "ldc": 64},
         lambda out, arow=arow, bz=bz: {"c": np.tile(arow.astype(np.float32) @ bz.astype(np.float32), (64, 1)).astype(np.float16).ravel()},
         tol=(2e-3, 2e-2), defines={"BM": "64", "BN": "64", "BK": "32", "num_warps": "4", "num_stages": "3"}, example=True)
    # Split-K: ragged, uneven splits (16 k-steps in 3), splits with no k-step at all, the
    # benchmark's tiles; the counters are left zero for the next launch.
    for (M, N_, K, split, defines) in [(200, 136, 1000, 3, {"BM": "64", "BN": "64", "BK": "64"}),
                                       (40, 72, 96, 4, {"BM": "64", "BN": "32", "BK": "64", "num_stages": "3"}),
                                       (1, 264, 520, 2, {"BM": "64", "BN": "128", "BK": "128", "num_stages": "3"}),
                                       (200, 264, 264, 2, {"BM": "128", "BN": "128", "BK": "64", "num_warps": "8",
                                                           "num_stages": "4"})]:
        a = RNG.standard_normal((M, K)).astype(np.float16)
        bm = RNG.standard_normal((K, N_)).astype(np.float16)
        tiles = -(-M // int(defines["BM"])) * -(-N_ // int(defines["BN"]))
        case("example.matmul_split_k.%dx%dx%d_split%d_bm%s" % (M, N_, K, split, defines["BM"]), ex("matmul"),
             "matmul_split_k", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "workspace": np.zeros(split * M * N_, np.float32),
              "counters": np.zeros(tiles, np.int32), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm, tiles=tiles: {
                 "c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel(),
                 "counters": np.zeros(tiles, np.int32)},
             tol=(2e-3, 2e-2), defines=dict(defines, SPLIT_K=str(split)), example=True)
    # Persistent: fewer programs than tiles (each walks several; on sm_90a the rings' position
    # and barrier phases carry from tile to tile, and a producer warpgroup runs ahead across
    # tiles), ragged, short and empty K.
    for (M, N_, K, programs, defines) in [(200, 264, 264, 3, {"BM": "64", "BN": "64", "BK": "32"}),
                                          (200, 264, 264, 2, {"BM": "128", "BN": "128", "BK": "64", "num_warps": "8",
                                                              "num_stages": "3", "warp_specialize": "1"}),
                                          (200, 264, 264, 2, {"BM": "128", "BN": "256", "BK": "64", "num_warps": "8",
                                                              "num_stages": "2"}),
                                          (136, 72, 40, 5, {"BM": "64", "BN": "32", "BK": "32", "num_stages": "4",
                                                            "warp_specialize": "1"}),
                                          (72, 72, 0, 2, {"BM": "64", "BN": "64", "BK": "32", "num_stages": "3",
                                                          "warp_specialize": "1"})] + [
            # Two programs a CTA on their own tiles (warp_specialize 3, sm_90a: each program
            # reads the shared ring from its own positions, the two take turns): odd and even
            # grids (an odd one gets a program more, which shares the tiles), one program (its CTA's
            # second program takes every other tile), more tiles than the ring has stages
            # between turns, a short K (fewer k-steps than stages) and none.
            (M_, N2, K_, p_, {"BM": bm_, "BN": bn_, "BK": "64", "num_warps": "4", "num_stages": "4",
                              "warp_specialize": "3"})
            for (M_, N2, K_, p_, bm_, bn_) in [(200, 264, 264, 1, "128", "128"), (200, 264, 264, 3, "128", "128"),
                                               (520, 264, 136, 4, "128", "128"), (200, 520, 264, 5, "64", "256"),
                                               (136, 72, 40, 2, "128", "128"), (72, 72, 0, 3, "64", "128"),
                                               # KT = 8 = 2S (a program skips a whole lap of
                                               # the ring) and 9 (one more), on odd grids.
                                               (520, 264, 512, 3, "128", "128"),
                                               (520, 264, 576, 5, "128", "128")]] + [
            # On clusters of 2 CTAs (cluster_size 2, sm_90a: B's k-slice copied once for two
            # tiles of one column, each CTA multicasting half its rows): an odd grid (rounded up
            # to whole clusters), 15 tiles on 4 CTAs (the last alone, 9 k-steps on 4 stages), a
            # short K and none.
            (M_, N2, K_, p_, {"BM": bm_, "BN": bn_, "BK": bk_, "num_warps": "4", "num_stages": "4",
                              "warp_specialize": "1", "cluster_size": "2"})
            for (M_, N2, K_, p_, bm_, bn_, bk_) in [(200, 264, 264, 3, "128", "128", "64"),
                                                    (520, 264, 576, 4, "128", "128", "64"),
                                                    (136, 72, 40, 2, "64", "64", "32"), (72, 72, 0, 3, "64", "128", "32")]] + [
            # Two programs a CTA on clusters: 3 programs (2 CTAs), 5 (3 CTAs rounded up to 4,
            # 15 tiles among 8 programs).
            (M_, N2, K_, p_, {"BM": "128", "BN": "128", "BK": "64", "num_warps": "4", "num_stages": "4",
                              "warp_specialize": "3", "cluster_size": "2"})
            for (M_, N2, K_, p_) in [(200, 264, 264, 3), (520, 264, 576, 5)]]:
        a = RNG.standard_normal((M, max(K, 1))).astype(np.float16)[:, :K].copy()
        bm = RNG.standard_normal((max(K, 1), N_)).astype(np.float16)[:K].copy()
        case("example.matmul_persistent.%dx%dx%d_p%d_bm%s%s%s" % (M, N_, K, programs, defines["BM"],
                                                                   {"1": "_ws", "3": "_tiles_ping_pong"}.get(
                                                                       defines.get("warp_specialize"), ""),
                                                                   "_cluster2" if "cluster_size" in defines else ""),
             ex("matmul"), "matmul_persistent", "minimum(%d, cdiv(M, BM) * cdiv(N, BN))" % programs,
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines=defines, example=True)
    # Fewer k-steps than the pipeline prefetches (copies past the end are masked off), a single
    # partial k-step, and none at all (the accumulator's zeros).
    for (M, N_, K, stages, ws) in [(64, 64, 40, 4, 0), (96, 64, 8, 3, 0), (64, 64, 0, 2, 0), (64, 64, 40, 4, 1),
                                   (64, 64, 0, 2, 1)]:
        a = RNG.standard_normal((M, max(K, 1))).astype(np.float16)[:, :K].copy()
        bm = RNG.standard_normal((max(K, 1), N_)).astype(np.float16)[:K].copy()
        case("example.matmul.short_k_%d_stages_%d%s" % (K, stages, "_ws" if ws else ""), ex("matmul"), "matmul",
             "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines={"BM": "64", "BN": "64", "BK": "32", "num_stages": str(stages),
                                        "warp_specialize": str(ws)}, example=True)
    B, S, D = 2, 200, 64
    for causal in (False, True):
        q, k, v = (RNG.standard_normal((B, S, D)).astype(np.float16) for _ in range(3))

        case("example.flash_attention.%s" % ("causal" if causal else "full"), ex("flash_attention"), "flash_attention",
             "cdiv(seq_len, BLOCK_M), %d" % B,
             {"q": q, "k": k, "v": v, "o": np.zeros(B * S * D, np.float16), "seq_len": S, "scale": 1 / np.sqrt(D)},
             lambda out, q=q, k=k, v=v, causal=causal: {"o": attention_reference(q, k, v, causal)},
             tol=(1e-2, 1e-2), defines={"CAUSAL": "true" if causal else "false", "BLOCK_M": "64", "BLOCK_N": "32"},
             example=True)
    # The overlapped kernel (first block's scores peeled off the loop, the last block's PV after
    # it) at ragged sequence lengths: one key, less than one block, one block, several.
    for S_, causal, Dh, tiles in [(1, False, 64, ("64", "32", "4")), (37, True, 64, ("64", "32", "4")),
                                  (64, True, 64, ("64", "64", "4")), (200, False, 64, ("64", "32", "4")),
                                  (200, True, 128, ("128", "64", "8", "1")), (300, False, 128, ("64", "64", "4")),
                                  (37, True, 64, ("128", "64", "8", "2")), (300, False, 128, ("128", "64", "8", "2"))]:
        q, k, v = (RNG.standard_normal((2, S_, Dh)).astype(np.float16) for _ in range(3))

        case("example.flash_attention_overlap.s%d_d%d%s%s" % (S_, Dh, "_causal" if causal else "",
                                                               {"1": "_ws", "2": "_pingpong"}.get(tiles[3], "") if tiles[3:] else ""),
             ex("flash_attention"),
             "flash_attention_overlap", "cdiv(seq_len, BLOCK_M), 2",
             {"q": q, "k": k, "v": v, "o": np.zeros(2 * S_ * Dh, np.float16), "seq_len": S_, "scale": 1 / np.sqrt(Dh)},
             lambda out, q=q, k=k, v=v, causal=causal: {"o": attention_reference(q, k, v, causal)},
             tol=(1e-2, 1e-2), example=True,
             defines={"CAUSAL": "true" if causal else "false", "HEAD_DIM": str(Dh), "BLOCK_M": tiles[0],
                      "BLOCK_N": tiles[1], "num_warps": tiles[2], "num_stages": "2",
                      "warp_specialize": tiles[3] if tiles[3:] else "0"})
    # Head dim 128 with the benchmark's tiles (8 warps, 3 stages of K and V), and 256 (tiles
    # whose stages fit sm_80's shared memory too): ragged sequence, causal.
    for (Dh, tiles) in [(128, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "3"}),
                        (128, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "3", "warp_specialize": "1"}),
                        (128, {"BLOCK_M": "128", "BLOCK_N": "128", "num_warps": "8", "num_stages": "2", "warp_specialize": "2"}),
                        (64, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "3", "warp_specialize": "2"}),
                        (256, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "2", "warp_specialize": "2"}),
                        (256, {"BLOCK_M": "64", "BLOCK_N": "32", "num_warps": "4", "num_stages": "2"})]:
        Sh = 200
        q, k, v = (RNG.standard_normal((1, Sh, Dh)).astype(np.float16) for _ in range(3))

        case("example.flash_attention.d%d_causal%s" % (Dh, {"1": "_ws", "2": "_pingpong"}.get(tiles.get("warp_specialize"), "")),
             ex("flash_attention"), "flash_attention", "cdiv(seq_len, BLOCK_M), 1",
             {"q": q, "k": k, "v": v, "o": np.zeros(Sh * Dh, np.float16), "seq_len": Sh, "scale": 1 / np.sqrt(Dh)},
             lambda out, q=q, k=k, v=v: {"o": attention_reference(q, k, v, causal=True)},
             tol=(1e-2, 1e-2), example=True, defines=dict(tiles, CAUSAL="true", HEAD_DIM=str(Dh)))

    # The persistent kernel: fewer programs than (query block, head) tiles, so each walks several
    # (heads of different lengths of work when causal), at ragged sequence lengths.
    for (S_, causal, Dh, programs, tiles) in [(200, False, 64, 3, ("64", "32", "4", "0")),
                                              (200, True, 64, 2, ("64", "32", "4", "0")),
                                              (37, True, 64, 5, ("128", "64", "8", "1")),
                                              (300, True, 128, 3, ("128", "64", "8", "2")),
                                              (300, False, 128, 2, ("128", "128", "8", "2"))]:
        q, k, v = (RNG.standard_normal((3, S_, Dh)).astype(np.float16) for _ in range(3))

        case("example.flash_attention_persistent.s%d_d%d_p%d%s%s" % (S_, Dh, programs, "_causal" if causal else "",
                                                                       {"1": "_ws", "2": "_pingpong"}.get(tiles[3], "")),
             ex("flash_attention"), "flash_attention_persistent", "minimum(%d, cdiv(seq_len, BLOCK_M) * heads)" % programs,
             {"q": q, "k": k, "v": v, "o": np.full(3 * S_ * Dh, 7.0, np.float16), "seq_len": S_, "heads": 3,
              "scale": 1 / np.sqrt(Dh)},
             lambda out, q=q, k=k, v=v, causal=causal: {"o": attention_reference(q, k, v, causal)},
             tol=(1e-2, 1e-2), example=True,
             defines={"CAUSAL": "true" if causal else "false", "HEAD_DIM": str(Dh), "BLOCK_M": tiles[0],
                      "BLOCK_N": tiles[1], "num_warps": tiles[2], "num_stages": "2", "warp_specialize": tiles[3]})


def attention_reference(q, k, v, causal):
    """Softmax attention of [batch, seq, dim] f16 tensors in f32, as f16, flattened."""
    s = np.einsum("bqd,bkd->bqk", q.astype(np.float32), k.astype(np.float32)) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones((q.shape[1], k.shape[1]), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bqk,bkd->bqd", p, v.astype(np.float32)).astype(np.float16).ravel()


def add_stdlib_cases():
    """The graph layer's templates (stdlib/std/*.tk) on bf16 data, against numpy in float64."""
    std = lambda name: os.path.join(ROOT, "stdlib", "std", name + ".tk")
    b16 = lambda x: bf16_bits(np.asarray(x, np.float32))
    val = lambda bits: bf16_from_bits(bits).astype(np.float64)
    rnd = lambda *shape, scale=1.0: b16(RNG.uniform(-1, 1, shape) * scale)
    silu = lambda v: v / (1 + np.exp(-v))
    gelu = lambda v: 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
    # Every epilogue hook at once, ragged on every edge: c = res + gate * act(rstd * (a @ b) * 0.5 + bias).
    M, N_, K = 40, 72, 56
    a, bm, bias, res, gate = rnd(M, K), rnd(K, N_, scale=0.3), rnd(N_), rnd(M, N_), rnd(M, N_)
    rstd = RNG.uniform(0.5, 2, M).astype(np.float32)
    unused = np.zeros(16, np.float32)
    for act, f in ((1, silu), (2, gelu)):
        def ref(out, act=act, f=f):
            acc = (val(a) @ val(bm)) * 0.5 * rstd.astype(np.float64)[:, None] + val(bias)[None, :]
            return {"c": b16(val(res) + val(gate) * f(acc))}
        case("stdlib.bf16.matmul_epilogue.act%d" % act, std("matmul"), "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.zeros(M * N_, np.uint16), "bias": bias, "residual": res, "mul": gate,
              "row_scale": rstd, "row_shift": unused, "col_shift": unused, "col_bias": unused,
              "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_, "ldr": N_, "ldm": N_},
             ref, tol=(2e-2, 2e-2), defines={"BM": "32", "BN": "32", "BK": "32", "HAS_BIAS": "true", "ACT": str(act),
                                             "HAS_MUL": "true", "HAS_RESIDUAL": "true", "HAS_ROW_SCALE": "true",
                                             "SCALE": "0.5"})
    # Decode: M = 3 rows on the smallest tiles.
    a3 = rnd(3, K)
    case("stdlib.bf16.matmul_epilogue.skinny", std("matmul"), "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
         {"a": a3, "b": bm, "c": np.zeros(3 * N_, np.uint16), "bias": bias, "residual": res, "mul": gate,
          "row_scale": rstd, "row_shift": unused, "col_shift": unused, "col_bias": unused,
          "M": 3, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_, "ldr": N_, "ldm": N_},
         lambda out: {"c": b16(val(a3) @ val(bm))}, tol=(2e-2, 2e-2),
         defines={"BM": "16", "BN": "64", "BK": "128", "num_stages": "3"})
    # Every autotune config of the stdlib matmul (read from its @autotune list) on decode's
    # shape: three rows, K long enough that every pipeline stage turns over several times (the
    # graph layer's tuner may pick any of them; the interpreter ignores configs, the GPU not),
    # with an RMSNorm's rstd computed in the K loop (RSTD_EPS), as decode steps fold it.
    with open(std("matmul")) as f:
        configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *num_warps: *(\d+), *num_stages: *(\d+) *\}",
                             f.read())
    # K = 2000 leaves a partial last tile for every BK; a's rows are 2016 apart (a view).
    Kd, Nd, Md, ldad = 2000, 96, 3, 2016
    a1, bd = rnd(Md, ldad, scale=0.02), rnd(Kd, Nd, scale=0.05)  # rows of small values: the rstd is large
    def decode_ref(out):
        av = val(a1).reshape(Md, ldad)[:, :Kd]
        return {"c": b16(av @ val(bd).reshape(Kd, Nd) / np.sqrt((av * av).mean(1, keepdims=True) + 1e-5))}
    for bm_, bn_, bk_, warps, stages in configs:
        case("stdlib.bf16.matmul_epilogue.decode.bm%s_bn%s_bk%s_w%s_s%s" % (bm_, bn_, bk_, warps, stages), std("matmul"),
             "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a1, "b": bd, "c": np.zeros(Md * Nd, np.uint16), "bias": bias, "residual": res, "mul": gate,
              "row_scale": unused, "row_shift": unused, "col_shift": unused, "col_bias": unused,
              "M": Md, "N": Nd, "K": Kd, "lda": ldad, "ldb": Nd, "ldc": Nd, "ldr": Nd, "ldm": Nd},
             decode_ref, tol=(2e-2, 2e-2),
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "num_warps": warps, "num_stages": stages,
                      "HAS_ROW_SCALE": "true", "RSTD_EPS": "1e-5"})
    # Scaled FP8 GEMM (stdlib/std/fp8_matmul.tk): a [M, K] and b [N, K] (both K-major), ragged
    # on every edge, K not a multiple of 128 (block-wise scales' last block is partial); every
    # scale mode, e4m3 x e4m3 and e4m3 x e5m2, outputs in bf16, f16 and f32, and the epilogue.
    Mf, Nf, Kf = 40, 72, 300
    fa = f8_bits(RNG.uniform(-2, 2, (Mf, Kf)), 4, 3, False)
    fb = {"f8e4m3": f8_bits(RNG.uniform(-1, 1, (Nf, Kf)), 4, 3, False),
          "f8e5m2": f8_bits(RNG.uniform(-1, 1, (Nf, Kf)), 5, 2, True)}
    kblocks = (Kf + 127) // 128
    scales = {0: (np.array([0.5], np.float32), np.array([0.25], np.float32)),
              1: (RNG.uniform(0.1, 2, Mf).astype(np.float32), RNG.uniform(0.1, 2, Nf).astype(np.float32)),
              2: (RNG.uniform(0.1, 2, (Mf, kblocks)).astype(np.float32),
                  RNG.uniform(0.1, 2, ((Nf + 127) // 128, kblocks)).astype(np.float32))}
    out_of = {"bf16": (np.uint16, b16), "f16": (np.float16, lambda x: np.asarray(x, np.float16)),
              "f32": (np.float32, lambda x: np.asarray(x, np.float32))}
    fbias, fres, fgate = val(rnd(Nf)), val(rnd(Mf, Nf)), val(rnd(Mf, Nf))  # values every output type holds exactly
    def fp8_args(mode, bdtype, tdtype, epilogue, splits=1):
        sa, sb = scales[mode]
        tiles = -(-Mf // 32) * -(-Nf // 32)  # enough counters for every tiling here
        return {"a": fa, "b": fb[bdtype], "c": np.zeros(Mf * Nf, out_of[tdtype][0]), "scale_a": sa.ravel(),
                "scale_b": sb.ravel(), "bias": out_of[tdtype][1](fbias), "residual": out_of[tdtype][1](fres).ravel(),
                "mul": out_of[tdtype][1](fgate).ravel() if epilogue else out_of[tdtype][1](np.zeros(1)),
                "workspace": np.zeros(splits * Mf * Nf, np.float32), "counters": np.zeros(tiles, np.int32), "M": Mf,
                "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf}
    fp8_refs = {}
    for mode, bdtype, tdtype, epilogue in [(0, "f8e4m3", "bf16", False), (1, "f8e4m3", "f16", False),
                                           (2, "f8e4m3", "f32", False), (1, "f8e5m2", "bf16", True),
                                           (2, "f8e5m2", "bf16", True)]:
        sa, sb = scales[mode]
        def fp8_ref(out, mode=mode, bdtype=bdtype, tdtype=tdtype, epilogue=epilogue, sa=sa, sb=sb):
            av = values_of("f8e4m3", fa).reshape(Mf, Kf)
            bv = values_of(bdtype, fb[bdtype]).reshape(Nf, Kf)
            if mode == 2:
                acc = np.zeros((Mf, Nf))
                for kb in range(kblocks):
                    part = av[:, kb * 128:(kb + 1) * 128] @ bv[:, kb * 128:(kb + 1) * 128].T
                    acc += part * sa[:, kb][:, None] * sb[np.arange(Nf) // 128, kb][None, :]
            else:
                acc = av @ bv.T * (sa[0] * sb[0] if mode == 0 else sa[:, None] * sb[None, :])
            if epilogue:
                acc = silu(acc + fbias[None, :]) * fgate.reshape(Mf, Nf) + fres.reshape(Mf, Nf)
            return {"c": out_of[tdtype][1](acc).ravel()}
        fp8_refs[mode, bdtype, tdtype, epilogue] = fp8_ref
        # (BM 64: wgmma's rows; lda 300 is no multiple of 16 bytes, so cp.async fills the stages.)
        defines = {"BM": "64", "BN": "32", "BK": "128", "num_warps": "4", "num_stages": "3", "SCALE_MODE": str(mode),
                   "B": bdtype, "T": tdtype}
        if epilogue:
            defines.update(HAS_BIAS="true", ACT="1", HAS_MUL="true", HAS_RESIDUAL="true")
        case("stdlib.fp8_matmul.mode%d.%s.%s%s" % (mode, bdtype, tdtype, ".epilogue" if epilogue else ""),
             std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN)", fp8_args(mode, bdtype, tdtype, epilogue),
             fp8_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2), defines=defines)
        if mode == 1 and not epilogue:  # the same with each k-step's product promoted to f32
            case("stdlib.fp8_matmul.mode1.f8e4m3.f16.promote", std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN)",
                 fp8_args(mode, bdtype, tdtype, epilogue), fp8_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2), defines=dict(defines, PROMOTE="true"))
    # SWAP_AB (each tile as (b a^T)^T, a's 32 rows the MMA's N): per tensor; per row/column with
    # the epilogue hooks, PROMOTE and split-K (each split's transposed partial through the
    # workspace).
    for mode, bdtype, tdtype, epilogue, promote, splits in [(0, "f8e4m3", "bf16", False, False, 1),
                                                            (1, "f8e5m2", "bf16", True, True, 2)]:
        case("stdlib.fp8_matmul.swap_ab.mode%d.%s.%s%s" % (mode, bdtype, tdtype,
                                                           ".epilogue.promote.split2" if epilogue else ""),
             std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             fp8_args(mode, bdtype, tdtype, epilogue, splits), fp8_refs[mode, bdtype, tdtype, epilogue], tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
             defines={"BM": "32", "BN": "64", "BK": "128", "SPLIT_K": str(splits), "num_warps": "4", "num_stages": "3",
                      "SCALE_MODE": str(mode), "B": bdtype, "T": tdtype, "SWAP_AB": "true", "PROMOTE": str(promote).lower(),
                      "HAS_BIAS": str(epilogue).lower(), "ACT": "1" if epilogue else "0",
                      "HAS_MUL": str(epilogue).lower(), "HAS_RESIDUAL": str(epilogue).lower()})
    # Every autotune config of fp8_matmul (warp-specialized ones too) with rows 16-byte aligned,
    # so that TMA fills the stages: M and N ragged, K = 544 (a partial last tile for BK 128 and
    # 256), per-row/column scales, e5m2 x e4m3 (mixed formats) into bf16.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        kernel_at = text.index("kernel fp8_matmul(")
        fp8_configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *SPLIT_K: *(\d+), *num_warps: *(\d+), "
                                 r"*num_stages: *(\d+)(?:, *warp_specialize: *(\d))?(?:, *SWAP_AB: *(true))? *\}",
                                 text[text.rindex("@autotune", 0, kernel_at):kernel_at])
        assert fp8_configs, "fp8_matmul's configs not found"
    Mt, Nt, Kt = 200, 136, 544
    ta = f8_bits(RNG.uniform(-2, 2, (Mt, Kt)), 5, 2, True)
    tb = f8_bits(RNG.uniform(-1, 1, (Nt, Kt)), 4, 3, False)
    tsa, tsb = RNG.uniform(0.1, 2, Mt).astype(np.float32), RNG.uniform(0.1, 2, Nt).astype(np.float32)
    def fp8_tma_scaled(row_scales, col_scales):  # the reference, scaled by row and by column
        acc = values_of("f8e5m2", ta).reshape(Mt, Kt) @ values_of("f8e4m3", tb).reshape(Nt, Kt).T
        return lambda out: {"c": b16(acc * row_scales[:, None] * col_scales[None, :]).ravel()}
    fp8_tma_ref = fp8_tma_scaled(tsa, tsb)
    for bm_, bn_, bk_, splits, warps, stages, ws, swap in fp8_configs:
        tiles = -(-Mt // int(bm_)) * -(-Nt // int(bn_))
        case("stdlib.fp8_matmul.tma.bm%s_bn%s_bk%s_k%s_w%s_s%s%s%s" % (bm_, bn_, bk_, splits, warps, stages,
                                                                       "_ws" if ws == "1" else "", "_swap" if swap else ""),
             std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             {"a": ta, "b": tb, "c": np.zeros(Mt * Nt, np.uint16), "scale_a": tsa, "scale_b": tsb,
              "bias": np.zeros(Nt, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "workspace": np.zeros(int(splits) * Mt * Nt, np.float32), "counters": np.zeros(tiles, np.int32),
              "M": Mt, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt},
             fp8_tma_ref, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "SPLIT_K": splits, "num_warps": warps, "num_stages": stages,
                      "warp_specialize": ws or "0", "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3",
                      "SWAP_AB": swap or "false"})
    # The 64- and 32-byte swizzles (BK 64 and 32: rows of 64 and 32 FP8 bytes), by TMA; and rows
    # 546 bytes apart (2 mod 4: the stages filled two bytes at a time).
    ta_wide = np.zeros((Mt, 546), np.uint8)
    ta_wide[:, :Kt] = ta.reshape(Mt, Kt)
    tb_wide = np.zeros((Nt, 546), np.uint8)
    tb_wide[:, :Kt] = tb.reshape(Nt, Kt)
    for bk_, lda_ in (("64", Kt), ("32", Kt), ("128", 546)):
        wa, wb = (ta, tb) if lda_ == Kt else (ta_wide, tb_wide)
        case("stdlib.fp8_matmul.bk%s_lda%d" % (bk_, lda_), std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             {"a": wa, "b": wb, "c": np.zeros(Mt * Nt, np.uint16), "scale_a": tsa, "scale_b": tsb,
              "bias": np.zeros(Nt, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "workspace": np.zeros(1, np.float32), "counters": np.zeros(1, np.int32),
              "M": Mt, "N": Nt, "K": Kt, "lda": lda_, "ldb": lda_, "ldc": Nt, "ldr": Nt, "ldm": Nt},
             fp8_tma_ref, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": "64", "BN": "64", "BK": bk_, "num_warps": "4", "num_stages": "4", "SCALE_MODE": "1",
                      "A": "f8e5m2", "B": "f8e4m3"})
    # Split-K with block-wise scales (each split's K blocks scaled as they complete), a split
    # left without K (cdiv(3 tiles, 4 splits): the last one adds zeros), and the epilogue.
    def fp8_split_ref(out):
        av, bv = values_of("f8e4m3", fa).reshape(Mf, Kf), values_of("f8e5m2", fb["f8e5m2"]).reshape(Nf, Kf)
        sa, sb = scales[2]
        acc = np.zeros((Mf, Nf))
        for kb in range(kblocks):
            part = av[:, kb * 128:(kb + 1) * 128] @ bv[:, kb * 128:(kb + 1) * 128].T
            acc += part * sa[:, kb][:, None] * sb[np.arange(Nf) // 128, kb][None, :]
        return {"c": b16(silu(acc + fbias[None, :]) * fgate.reshape(Mf, Nf) + fres.reshape(Mf, Nf)).ravel()}
    ftiles = -(-Mf // 64) * -(-Nf // 32)
    case("stdlib.fp8_matmul.split_k.mode2.epilogue", std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
         {"a": fa, "b": fb["f8e5m2"], "c": np.zeros(Mf * Nf, np.uint16), "scale_a": scales[2][0].ravel(),
          "scale_b": scales[2][1].ravel(), "bias": b16(fbias), "residual": b16(fres).ravel(), "mul": b16(fgate).ravel(),
          "workspace": np.zeros(4 * Mf * Nf, np.float32), "counters": np.zeros(ftiles, np.int32),
          "M": Mf, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf},
         fp8_split_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "64", "BN": "32", "BK": "128", "SPLIT_K": "4", "num_warps": "4", "num_stages": "3",
                  "SCALE_MODE": "2", "B": "f8e5m2", "HAS_BIAS": "true", "ACT": "1", "HAS_MUL": "true",
                  "HAS_RESIDUAL": "true"})
    # The persistent FP8 GEMM: every autotune config by TMA on 3 programs (each walks several
    # tiles, the producer across them), and block-wise scales with the epilogue on rows no TMA
    # can read (lda 300: cp.async) on 2 programs.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        persistent_configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *num_warps: *(\d+), "
                                        r"*num_stages: *(\d+)(?:, *warp_specialize: *(\d))?(?:, *GROUP_M: *(\d+))?(?:, *TAIL_SPLIT: *(\d+))?"
                                        r"(?:, *STREAM_K: *(true))? *\}",
                                        text[text.rindex("@autotune", 0, text.index("kernel fp8_matmul_persistent")):
                                             text.index("kernel fp8_matmul_persistent")])
        space = text[text.rindex("@autotune", 0, text.index("kernel fp8_matmul_persistent")):
                     text.index("kernel fp8_matmul_persistent")]
        assert len(persistent_configs) == space.count("{ BM:"), "a config of fp8_matmul_persistent the pattern missed"
    # STREAM_K's slots (a tile of up to 128x256 for each of up to 8 programs) and its per-tile
    # counts, which every launch leaves zero (the stream-K cases check that); the persistent
    # kernel takes them in every mode.
    stream_k_scratch = {"workspace": np.zeros(8 * 128 * 256, np.float32), "counters": np.zeros(64, np.int32)}
    def persistent_args(scale_a, scale_b):
        return {"a": ta, "b": tb, "c": np.zeros(Mt * Nt, np.uint16), "scale_a": scale_a, "scale_b": scale_b,
                "bias": np.zeros(Nt, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
                "M": Mt, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt, **stream_k_scratch}
    # (With TAIL_SPLIT: 128x128 tiles leave 3 whole and one in parts, the second part's columns
    # all past N; 128x256 tiles are all in the tail, no whole wave.)
    for bm_, bn_, bk_, warps, stages, ws, group_m, tail, stream_k in persistent_configs:
        case("stdlib.fp8_matmul_persistent.tma.bm%s_bn%s_bk%s_w%s_s%s%s%s%s%s" % (bm_, bn_, bk_, warps, stages,
                                                                              {"1": "_ws", "3": "_ws3"}.get(ws, ""),
                                                                              "_g%s" % group_m if group_m else "",
                                                                              "_tail%s" % tail if tail else "",
                                                                              "_stream_k" if stream_k else ""),
             std("fp8_matmul"), "fp8_matmul_persistent", "3", persistent_args(tsa, tsb), fp8_tma_ref,
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "num_warps": warps, "num_stages": stages,
                      "warp_specialize": ws or "0", "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3",
                      "GROUP_M": group_m or "8", "TAIL_SPLIT": tail or "1", "STREAM_K": stream_k or "false"})
    # Per tensor (SCALE_MODE 0: one factor, loaded before each tile's K loop) with a producer.
    sa0, sb0 = np.array([0.5], np.float32), np.array([0.25], np.float32)
    case("stdlib.fp8_matmul_persistent.tma.mode0_ws", std("fp8_matmul"), "fp8_matmul_persistent", "3",
         persistent_args(sa0, sb0), fp8_tma_scaled(np.full(Mt, 0.5 * 0.25), np.ones(Nt)), tol=BF16_ULP_TOL,
         gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "5", "warp_specialize": "1",
                  "SCALE_MODE": "0", "A": "f8e5m2", "B": "f8e4m3"})
    # Two programs a CTA on their own tiles (warp_specialize 3): 128x128 and 64x256 tiles per
    # program, per row and column on 3 programs (two CTAs: four programs share the tiles
    # a tile) and per tensor on 2.
    for bm_, bn_, programs_, mode_ in [("128", "128", "3", "1"), ("64", "256", "2", "1"), ("128", "128", "2", "0")]:
        sa_, sb_ = (tsa, tsb) if mode_ == "1" else (sa0, sb0)
        case("stdlib.fp8_matmul_persistent.tma.bm%s_bn%s_p%s_mode%s_tiles_ping_pong" % (bm_, bn_, programs_, mode_),
             std("fp8_matmul"), "fp8_matmul_persistent", programs_, persistent_args(sa_, sb_),
             fp8_tma_ref if mode_ == "1" else fp8_tma_scaled(np.full(Mt, 0.5 * 0.25), np.ones(Nt)),
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": bm_, "BN": bn_, "BK": "128", "num_warps": "4", "num_stages": "4", "warp_specialize": "3",
                      "SCALE_MODE": mode_, "A": "f8e5m2", "B": "f8e4m3"})
    # GROUP_M 4's tile order over more than one group of rows: 6 rows of 64-row tiles (the last
    # 8 rows deep), groups of 4 and 2, 3 columns, on 3 programs of two a CTA.
    Mg, Ng, Kg = 5 * 64 + 8, 136, 256
    ga, gb = f8_bits(RNG.uniform(-2, 2, (Mg, Kg)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Ng, Kg)), 4, 3, False)
    gsa, gsb = RNG.uniform(0.1, 2, Mg).astype(np.float32), RNG.uniform(0.1, 2, Ng).astype(np.float32)
    gacc = values_of("f8e4m3", ga).reshape(Mg, Kg) @ values_of("f8e4m3", gb).reshape(Ng, Kg).T
    case("stdlib.fp8_matmul_persistent.tma.group_m4_two_groups", std("fp8_matmul"), "fp8_matmul_persistent", "3",
         {"a": ga, "b": gb, "c": np.zeros(Mg * Ng, np.uint16), "scale_a": gsa, "scale_b": gsb,
          "bias": np.zeros(Ng, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": Mg, "N": Ng, "K": Kg, "lda": Kg, "ldb": Kg, "ldc": Ng, "ldr": Ng, "ldm": Ng, **stream_k_scratch},
         lambda out: {"c": b16(gacc * gsa[:, None] * gsb[None, :]).ravel()}, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "64", "BN": "64", "BK": "128", "num_warps": "4", "num_stages": "4", "warp_specialize": "3",
                  "GROUP_M": "4", "SCALE_MODE": "1"})
    # The tuned 128x128 ws 3 s6 config with a bias, its tiles stored by TMA (N and ldc multiples
    # of 16; 3 columns of tiles, the last 16 wide): the bias's broadcast takes turns with the
    # scales' (tk-allocate-shared's exchange window; before, the config did not fit on sm_90a).
    Mw, Nw, Kw = 200, 272, 544
    wa, wb = f8_bits(RNG.uniform(-2, 2, (Mw, Kw)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Nw, Kw)), 4, 3, False)
    wsa, wsb = RNG.uniform(0.1, 2, Mw).astype(np.float32), RNG.uniform(0.1, 2, Nw).astype(np.float32)
    wbias = values_of("bf16", b16(RNG.uniform(-4, 4, Nw)))
    wacc = values_of("f8e4m3", wa).reshape(Mw, Kw) @ values_of("f8e4m3", wb).reshape(Nw, Kw).T
    # (And with TAIL_SPLIT 2 on 4 programs: one whole wave of 4 tiles, 2 tiles in halves.)
    for tail, programs_ in (("1", "3"), ("2", "4")):
        case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_w4_s6_ws3%s_bias" % ("_tail2" if tail == "2" else ""),
             std("fp8_matmul"), "fp8_matmul_persistent", programs_,
             {"a": wa, "b": wb, "c": np.zeros(Mw * Nw, np.uint16), "scale_a": wsa, "scale_b": wsb, "bias": b16(wbias),
              "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "M": Mw, "N": Nw, "K": Kw, "lda": Kw, "ldb": Kw, "ldc": Nw, "ldr": Nw, "ldm": Nw, **stream_k_scratch},
             lambda out: {"c": b16(wacc * wsa[:, None] * wsb[None, :] + wbias[None, :]).ravel()},
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "6", "warp_specialize": "3",
                      "SCALE_MODE": "1", "HAS_BIAS": "true", "TAIL_SPLIT": tail})
    # On clusters of 2 CTAs (cluster_size 2, sm_90a: a copy both tiles of a step need is made
    # once, each CTA multicasting half of its rows). 3 rows of 128x128 tiles in a group: tiles
    # 2c and 2c + 1 share b's columns or (the group's odd row beside the next column's first)
    # share nothing; 9 tiles on one cluster leave CTA 0 a last tile alone, with more k-steps (7)
    # than stages (4), so that its own consumers stand in for the other CTA's releases; 3
    # programs are rounded up to 4 CTAs (the tiles shared among them all); 128x256 on 8 warps;
    # per tensor.
    Mc, Nc, Kc = 330, 264, 800
    ca, cb = f8_bits(RNG.uniform(-2, 2, (Mc, Kc)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Nc, Kc)), 4, 3, False)
    csa, csb = RNG.uniform(0.1, 2, Mc).astype(np.float32), RNG.uniform(0.1, 2, Nc).astype(np.float32)
    cacc = values_of("f8e4m3", ca).reshape(Mc, Kc) @ values_of("f8e4m3", cb).reshape(Nc, Kc).T
    # GROUP_M 1 (tiles along rows): tiles 2c and 2c + 1 share a's rows instead, and the lone last
    # tile's other (past the end) is where the group arithmetic would divide by zero.
    # Two programs a CTA on clusters (warp_specialize 3, program w of CTA c w * C + c: programs
    # 2k, 2k + 1, 2k + C, 2k + 1 + C on cluster k, the other CTA's tile 1 on or back): 2
    # programs (one CTA, rounded up to 2), 5 (3 CTAs, rounded up to 4), 64x256.
    def shape_c_case(name, programs_, mode_, defines):
        """fp8_matmul_persistent on the Mc x Nc x Kc operands, per row/column (mode 1) or per tensor."""
        row_, col_ = (csa, csb) if mode_ == "1" else (np.array([0.5], np.float32), np.array([0.25], np.float32))
        case("stdlib.fp8_matmul_persistent.tma." + name, std("fp8_matmul"), "fp8_matmul_persistent", programs_,
             {"a": ca, "b": cb, "c": np.zeros(Mc * Nc, np.uint16), "scale_a": row_, "scale_b": col_,
              "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "M": Mc, "N": Nc, "K": Kc, "lda": Kc, "ldb": Kc, "ldc": Nc, "ldr": Nc, "ldm": Nc, **stream_k_scratch},
             (lambda r, c: lambda out: {"c": b16(cacc * r * c).ravel(), "counters": np.zeros(64, np.int32)})(
                 csa[:, None] if mode_ == "1" else 0.5, csb[None, :] if mode_ == "1" else 0.25),
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL, defines=dict(defines, SCALE_MODE=mode_))
    for bm_, bn_, warps, stages, programs_, mode_, group_, ws_ in [
            ("128", "128", "4", "4", "2", "1", "8", "1"), ("128", "128", "4", "4", "3", "1", "8", "1"),
            ("128", "256", "8", "3", "2", "1", "8", "1"), ("128", "128", "4", "5", "2", "0", "8", "1"),
            ("128", "128", "4", "4", "2", "1", "1", "1"), ("128", "128", "4", "4", "2", "1", "8", "3"),
            ("128", "128", "4", "4", "5", "1", "8", "3"), ("64", "256", "4", "4", "3", "1", "8", "3")]:
        shape_c_case("bm%s_bn%s_p%s_mode%s%s%s_cluster2" % (bm_, bn_, programs_, mode_, "_group1" if group_ == "1" else "",
                                                           "_tiles_ping_pong" if ws_ == "3" else ""),
                     programs_, mode_,
                     {"BM": bm_, "BN": bn_, "BK": "128", "num_warps": warps, "num_stages": stages, "warp_specialize": ws_,
                      "cluster_size": "2", "GROUP_M": group_})
    # Two programs a CTA with the tiles after the last whole wave in parts (TAIL_SPLIT): 9 tiles
    # of 128x128 with 7 k-steps. On 2 programs (one CTA) in 6 stages (both loops' staging in
    # halves): 4 whole tiles each, then one part each; on 3 (rounded up to 4, two CTAs) in 5: 2
    # each, then program 0 of each CTA a part (program w of CTA c is w * C + c) and program 1
    # none; on 5 (6) per tensor in quarters: 1 each, then 2 parts each; on 7 (8, four CTAs): 1
    # each, then CTAs 0 and 1 a part in program 0 and CTAs 2 and 3 none.
    for programs_, mode_, tail_, stages in [("2", "1", "2", "6"), ("3", "1", "2", "5"), ("5", "0", "4", "5"),
                                            ("7", "1", "2", "5")]:
        shape_c_case("bm128_bn128_p%s_mode%s_s%s_tail%s_tiles_ping_pong" % (programs_, mode_, stages, tail_), programs_,
                     mode_, {"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": stages,
                             "warp_specialize": "3", "TAIL_SPLIT": tail_})
    # STREAM_K: the tiles of the last, part-filled wave as one run of k-steps in equal shares.
    # 9 tiles of 128x128 with 7 k-steps: on 2 programs tile 8 in halves (4 and 3 k-steps); on 4
    # tile 8 in shares of 2 (the last 1); on 5 four tiles in shares of 6, most spanning two
    # tiles; on 7 two tiles in shares of 2; 6 tiles of 128x256 on 4 programs (two shared in
    # shares of 4); without a producer; per tensor; warp_specialize 3 (one program a CTA: its
    # programs differ in their k-steps, not only in their tiles). Then Mt x Nt x Kt's 4 tiles of
    # 5 k-steps on 7 programs, all shared, 3 k-steps each: program 2's share inside tile 1,
    # which three programs share.
    for bm_, bn_, warps, stages, programs_, mode_, ws_ in [
            ("128", "128", "4", "5", "2", "1", "1"), ("128", "128", "4", "5", "4", "1", "1"),
            ("128", "128", "4", "5", "5", "1", "1"), ("128", "128", "4", "5", "7", "0", "1"),
            ("128", "256", "8", "3", "4", "1", "1"), ("128", "256", "8", "3", "4", "1", "0"),
            ("128", "128", "4", "5", "4", "1", "3")]:
        shape_c_case("bm%s_bn%s_p%s_mode%s_s%s_ws%s_stream_k" % (bm_, bn_, programs_, mode_, stages, ws_), programs_, mode_,
                     {"BM": bm_, "BN": bn_, "BK": "128", "num_warps": warps, "num_stages": stages, "warp_specialize": ws_,
                      "STREAM_K": "true"})
    # K = 0 (one empty k-step a tile: the shares' arithmetic divided by zero before): 4 tiles of
    # zeros on 3 programs, the fourth shared.
    case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_p3_stream_k_empty_k", std("fp8_matmul"), "fp8_matmul_persistent",
         "3", {"a": np.zeros(16, np.uint8), "b": np.zeros(16, np.uint8), "c": np.full(130 * 136, 0x3f80, np.uint16),
               "scale_a": tsa[:130], "scale_b": tsb[:136], "bias": np.zeros(1, np.uint16),
               "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16), "M": 130, "N": 136, "K": 0, "lda": 16,
               "ldb": 16, "ldc": 136, "ldr": 136, "ldm": 136, **stream_k_scratch},
         lambda out: {"c": np.zeros(130 * 136, np.uint16), "counters": np.zeros(64, np.int32)}, tol=BF16_ULP_TOL,
         gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "5", "warp_specialize": "1",
                  "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3", "STREAM_K": "true"})
    case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_p7_stream_k_short_shares", std("fp8_matmul"),
         "fp8_matmul_persistent", "7", persistent_args(tsa, tsb),
         lambda out: dict(fp8_tma_ref(out), counters=np.zeros(64, np.int32)), tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "5", "warp_specialize": "1",
                  "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3", "STREAM_K": "true"})
    # Two programs a CTA on one cluster (4 programs) over 7 tiles of one column: at the second
    # step CTA 0 has both its tiles and CTA 1 only its program 0's (n - t0 = 3), whose copy of
    # b it still shares with CTA 0's program 0 tile.
    M7, N7 = 840, 120
    a7 = f8_bits(RNG.uniform(-2, 2, (M7, Kc)), 4, 3, False)
    acc7 = values_of("f8e4m3", a7).reshape(M7, Kc) @ values_of("f8e4m3", cb[:N7 * Kc]).reshape(N7, Kc).T
    sa7 = RNG.uniform(0.1, 2, M7).astype(np.float32)
    case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_p2_seven_tiles_tiles_ping_pong_cluster2", std("fp8_matmul"),
         "fp8_matmul_persistent", "2",
         {"a": a7, "b": cb[:N7 * Kc], "c": np.zeros(M7 * N7, np.uint16), "scale_a": sa7, "scale_b": csb[:N7],
          "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": M7, "N": N7, "K": Kc, "lda": Kc, "ldb": Kc, "ldc": N7, "ldr": N7, "ldm": N7, **stream_k_scratch},
         lambda out: {"c": b16(acc7 * sa7[:, None] * csb[None, :N7]).ravel()}, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "4", "warp_specialize": "3",
                  "cluster_size": "2", "SCALE_MODE": "1"})
    # Block-wise scales with the tiles in parts (TAIL_SPLIT 4 of 128x256 on 3 programs: no whole
    # wave; N = 264, so that the last parts start past the last 128-column block of b, whose one
    # factor a part loads must still be inside scale_b: an out-of-bounds read before).
    Mb, Nb, Kb = 200, 264, 256
    ba, bb = f8_bits(RNG.uniform(-2, 2, (Mb, Kb)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Nb, Kb)), 4, 3, False)
    bsa, bsb = RNG.uniform(0.1, 2, (Mb, 2)).astype(np.float32), RNG.uniform(0.1, 2, (3, 2)).astype(np.float32)
    def fp8_block_tail_ref(out):
        av, bv = values_of("f8e4m3", ba).reshape(Mb, Kb), values_of("f8e4m3", bb).reshape(Nb, Kb)
        acc = sum((av[:, kb * 128:(kb + 1) * 128] @ bv[:, kb * 128:(kb + 1) * 128].T) * bsa[:, kb][:, None] *
                  bsb[np.arange(Nb) // 128, kb][None, :] for kb in range(2))
        return {"c": b16(acc).ravel()}
    case("stdlib.fp8_matmul_persistent.mode2_tail4", std("fp8_matmul"), "fp8_matmul_persistent", "3",
         {"a": ba, "b": bb, "c": np.zeros(Mb * Nb, np.uint16), "scale_a": bsa.ravel(), "scale_b": bsb.ravel(),
          "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": Mb, "N": Nb, "K": Kb, "lda": Kb, "ldb": Kb, "ldc": Nb, "ldr": Nb, "ldm": Nb, **stream_k_scratch},
         fp8_block_tail_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "128", "BN": "256", "BK": "128", "num_warps": "8", "num_stages": "3", "warp_specialize": "1",
                  "TAIL_SPLIT": "4", "SCALE_MODE": "2"})
    case("stdlib.fp8_matmul_persistent.mode2.epilogue", std("fp8_matmul"), "fp8_matmul_persistent", "2",
         {"a": fa, "b": fb["f8e5m2"], "c": np.zeros(Mf * Nf, np.uint16), "scale_a": scales[2][0].ravel(),
          "scale_b": scales[2][1].ravel(), "bias": b16(fbias), "residual": b16(fres).ravel(), "mul": b16(fgate).ravel(),
          "M": Mf, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf, **stream_k_scratch},
         fp8_split_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "64", "BN": "32", "BK": "128", "num_warps": "4", "num_stages": "3", "SCALE_MODE": "2",
                  "B": "f8e5m2", "HAS_BIAS": "true", "ACT": "1", "HAS_MUL": "true", "HAS_RESIDUAL": "true"})
    # Weight-only FP8 GEMV (fp8_gemv, decode's; loaded fragments on mma.sync): every autotune
    # config on 3 rows of bf16 a, N = 136 (ragged for BN 16 and up), K = 544 (16-byte rows, a
    # partial last k-step) with per-column scales; K = 300 (rows of no 16 bytes: element loads),
    # per-tensor scales, e5m2 weights, f16 in and out (A_SCALE 1), split K, and the epilogue hooks.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        gemv_text = text[text.index("fp8_gemv's configs ->"):text.index("kernel fp8_gemv(")]
        gemv_configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *SPLIT_K: *(\d+), *num_warps: *(\d+), *num_stages: *1 *\}",
                                  gemv_text)
        assert 0 < len(gemv_configs) == gemv_text.count("{ BM:"), "an fp8_gemv config the pattern does not read"
    Mg = 3
    ga = {Kt: rnd(Mg, Kt, scale=2.0), Kf: rnd(Mg, Kf, scale=2.0)}
    def gemv_ref(K, bdtype, braw, sb, epilogue, to_out):
        def ref(out):
            acc = val(ga[K]).reshape(Mg, K) @ values_of(bdtype, braw).reshape(-1, K).T * (sb[None, :] if sb.size > 1 else sb[0])
            if epilogue:
                acc = silu(acc + fbias[None, :]) * fgate.reshape(Mf, Nf)[:Mg] + fres.reshape(Mf, Nf)[:Mg]
            return {"c": to_out(acc).ravel()}
        return ref
    gemv_split = lambda M, N: {"workspace": np.zeros(16 * M * N, np.float32),
                               "counters": np.zeros(-(-N // 16) * -(-M // 8), np.int32)}
    for bm_, bn_, bk_, split_, warps in gemv_configs:
        case("stdlib.fp8_gemv.bm%s_bn%s_bk%s_s%s_w%s" % (bm_, bn_, bk_, split_, warps), std("fp8_matmul"), "fp8_gemv",
             "cdiv(N, BN), cdiv(M, BM), SPLIT_K",
             {"a": ga[Kt], "b": tb, "c": np.zeros(Mg * Nt, np.uint16), "scale_b": tsb,
              "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              **gemv_split(Mg, Nt), "M": Mg, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt},
             gemv_ref(Kt, "f8e4m3", tb, tsb, False, b16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "SPLIT_K": split_, "num_warps": warps, "num_stages": "1",
                      "SCALE_MODE": "1"})
    # fp8_gemv_row (one row a program on the CUDA cores): every config on the same 3 rows, and
    # the f16 / e5m2 / per-tensor / epilogue case on rows of no 16 bytes.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        row_text = text[text.index("fp8_gemv_row's configs ->"):text.index("kernel fp8_gemv_row(")]
        row_configs = re.findall(r"\{ *BN: *(\d+), *BK: *(\d+), *num_warps: *(\d+) *\}", row_text)
        assert 0 < len(row_configs) == row_text.count("{ BN:"), "an fp8_gemv_row config the pattern does not read"
    no_norm = {"norm_x": np.zeros(1, np.uint16), "norm_w": np.zeros(1, np.uint16), "norm_out": np.zeros(1, np.uint16)}
    for bn_, bk_, warps in row_configs:
        case("stdlib.fp8_gemv_row.bn%s_bk%s_w%s" % (bn_, bk_, warps), std("fp8_matmul"), "fp8_gemv_row", "cdiv(N, BN), M",
             {"a": ga[Kt], "b": tb, "c": np.zeros(Mg * Nt, np.uint16), "scale_b": tsb,
              "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "M": Mg, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt, **no_norm},
             gemv_ref(Kt, "f8e4m3", tb, tsb, False, b16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
             defines={"BN": bn_, "BK": bk_, "num_warps": warps, "SCALE_MODE": "1"})
    # An RMSNorm between two of them: this one's rows are x * w (the norm's weight), its sums
    # scaled by the rstd it computes from x (RSTD_EPS), and its output times the next norm's
    # weight written beside it (NORM_OUT).
    nx, nwt, nw2 = rnd(Mg, Kt, scale=2.0), rnd(Kt), rnd(Nt)
    xw = b16(val(nx).reshape(Mg, Kt) * val(nwt)[None, :])
    def gemv_norm_ref(out):
        x_ = val(nx).reshape(Mg, Kt)
        rstd = 1 / np.sqrt((x_ * x_).mean(1) + 1e-5)
        c_ = b16(val(xw).reshape(Mg, Kt) @ values_of("f8e4m3", tb).reshape(-1, Kt).T * tsb[None, :] * rstd[:, None])
        return {"c": c_.ravel(), "norm_out": b16(val(c_).reshape(Mg, Nt) * val(nw2)[None, :]).ravel()}
    case("stdlib.fp8_gemv_row.rstd.norm_out", std("fp8_matmul"), "fp8_gemv_row", "cdiv(N, BN), M",
         {"a": xw, "b": tb, "c": np.zeros(Mg * Nt, np.uint16), "scale_b": tsb,
          "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": Mg, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt,
          "norm_x": nx, "norm_w": nw2, "norm_out": np.zeros(Mg * Nt, np.uint16)},
         gemv_norm_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BN": "8", "BK": "256", "num_warps": "4", "SCALE_MODE": "1", "RSTD_EPS": "1e-5", "NORM_OUT": "true"})
    # A GEMV chain (kernels/work_queue.tk, the form graph/lib/GemvChain.cpp generates): three
    # dependent FP8 GEMVs in one persistent launch; grids of fewer programs than blocks of rows
    # and of more (most of them taking none), the work queue zero again afterwards.
    Nc0, Kc0, Nc1, Nc2 = 200, 96, 136, 200
    cw = [f8_bits(RNG.uniform(-1, 1, shape), 4, 3, False) for shape in ((Nc0, Kc0), (Nc1, Nc0), (Nc2, Nc1))]
    cs = [RNG.uniform(0.1, 2, n).astype(np.float32) for n in (Nc0, Nc1, Nc2)]
    ca, cr, cnw = rnd(Kc0, scale=2.0), rnd(Nc0), rnd(Nc0)
    def chain_ref(out):
        weights = [values_of("f8e4m3", w).reshape(n, -1) for w, n in zip(cw, (Nc0, Nc1, Nc2))]
        c0 = b16(weights[0] @ val(ca) * cs[0] + val(cr))
        n0 = b16(val(c0) * val(cnw))
        rstd = 1 / np.sqrt((val(c0) ** 2).mean() + 1e-5)
        c1 = b16(silu(weights[1] @ val(n0) * rstd * cs[1]))
        c2 = b16(weights[2] @ val(c1) * cs[2] + val(c0))
        return {"c0": c0, "norm_out0": n0, "c1": c1, "c2": c2, "queue": np.zeros(32 * 4, np.int32)}
    for grid, bn_, bk_, warps in (("5", "8", "64", "4"), ("264", "8", "64", "4"), ("40", "16", "128", "8")):
        case("stdlib.gemv_chain.grid%s_bn%s_bk%s_w%s" % (grid, bn_, bk_, warps), os.path.join(KERNELS, "work_queue.tk"),
             "gemv_chain", grid,
             {"queue": np.zeros(32 * 4, np.int32), "a0": ca, "b0": cw[0], "c0": np.zeros(Nc0, np.uint16), "scale_b0": cs[0],
              "residual0": cr, "norm_w0": cnw, "norm_out0": np.zeros(Nc0, np.uint16), "b1": cw[1],
              "c1": np.zeros(Nc1, np.uint16), "scale_b1": cs[1], "b2": cw[2], "c2": np.zeros(Nc2, np.uint16),
              "scale_b2": cs[2], "N0": Nc0, "K0": Kc0, "N1": Nc1, "N2": Nc2},
             chain_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2), defines={"BN": bn_, "BK": bk_, "num_warps": warps, "PREFETCH_STEPS": "1"})
    ga16 = np.asarray(val(ga[Kf]), np.float16)
    f16 = lambda x: np.asarray(x, np.float16)
    case("stdlib.fp8_gemv.mode0.f8e5m2.f16.split.epilogue", std("fp8_matmul"), "fp8_gemv",
         "cdiv(N, BN), cdiv(M, BM), SPLIT_K",
         {"a": ga16, "b": fb["f8e5m2"], "c": np.zeros(Mg * Nf, np.float16), "scale_b": np.array([0.25], np.float32),
          "bias": f16(fbias), "residual": f16(fres).ravel(), "mul": f16(fgate).ravel(), **gemv_split(Mg, Nf),
          "M": Mg, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf},
         gemv_ref(Kf, "f8e5m2", fb["f8e5m2"], np.array([0.25]), True, f16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "8", "BN": "16", "BK": "64", "SPLIT_K": "2", "num_warps": "1", "num_stages": "1",
                  "SCALE_MODE": "0", "A_SCALE": "1.0", "B": "f8e5m2", "T": "f16", "HAS_BIAS": "true", "ACT": "1",
                  "HAS_MUL": "true", "HAS_RESIDUAL": "true"})
    case("stdlib.fp8_gemv_row.mode0.f8e5m2.f16.epilogue", std("fp8_matmul"), "fp8_gemv_row", "cdiv(N, BN), M",
         {"a": ga16, "b": fb["f8e5m2"], "c": np.zeros(Mg * Nf, np.float16), "scale_b": np.array([0.25], np.float32),
          "bias": f16(fbias), "residual": f16(fres).ravel(), "mul": f16(fgate).ravel(),
          "M": Mg, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf,
          **{k: v.astype(np.float16) for k, v in no_norm.items()}},
         gemv_ref(Kf, "f8e5m2", fb["f8e5m2"], np.array([0.25]), True, f16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BN": "8", "BK": "256", "num_warps": "4", "SCALE_MODE": "0", "B": "f8e5m2", "T": "f16",
                  "HAS_BIAS": "true", "ACT": "1", "HAS_MUL": "true", "HAS_RESIDUAL": "true"})
    # Row-wise dynamic FP8 quantization (std/quantize.tk): scales exactly max|x| / 448 and codes
    # of x / s rounded to nearest even, exact in f32 on both backends; with an RMSNorm folded in
    # the rstd's reduction order may move a code by one step (compared with atol 1 on the codes).
    Mq, Kq = 5, 300
    qx = rnd(Mq, Kq, scale=3.0)
    qx[2] = 0  # an all-zero row
    qw = rnd(Kq)
    def quant_ref(norm):
        def ref(out):
            x = val(qx).reshape(Mq, Kq).astype(np.float32)
            if norm:
                x = x / np.sqrt((x.astype(np.float64) ** 2).mean(1, keepdims=True) + 1e-5) * val(qw)[None, :]
                x = x.astype(np.float32)
            s = (np.maximum(np.abs(x).max(1), np.float32(1e-30)) / np.float32(448)).astype(np.float32)
            codes = f8_bits(np.clip(x / s[:, None], -448, 448), 4, 3, False)
            return {"q": codes.ravel()} if norm else {"q": codes.ravel(), "scale": s}
        return ref
    for norm in (False, True):
        case("stdlib.quantize_rows%s" % (".rmsnorm" if norm else ""), std("quantize"), "quantize_rows", str(Mq),
             {"x": qx, "w": qw, "q": np.zeros(Mq * Kq, np.uint8), "scale": np.zeros(Mq, np.float32),
              "n_cols": Kq, "stride": Kq, "eps": 1e-5},
             quant_ref(norm), tol=(0, 1.01) if norm else None, defines={"NORM": "true" if norm else "false", "BLOCK": "512"})
    # A LayerNorm's centering: rstd * (a @ b - mean * col_shift) + col_bias.
    mean = RNG.uniform(-1, 1, M).astype(np.float32)
    col_shift, col_bias = RNG.uniform(-2, 2, N_).astype(np.float32), RNG.uniform(-1, 1, N_).astype(np.float32)
    case("stdlib.bf16.matmul_epilogue.center", std("matmul"), "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
         {"a": a, "b": bm, "c": np.zeros(M * N_, np.uint16), "bias": bias, "residual": res, "mul": gate,
          "row_scale": rstd, "row_shift": mean, "col_shift": col_shift, "col_bias": col_bias,
          "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_, "ldr": N_, "ldm": N_},
         lambda out: {"c": b16(rstd.astype(np.float64)[:, None] * (val(a) @ val(bm) - mean.astype(np.float64)[:, None]
                                                                    * col_shift[None, :]) + col_bias[None, :])},
         tol=(2e-2, 2e-2), defines={"BM": "32", "BN": "32", "BK": "32", "HAS_ROW_SCALE": "true", "HAS_CENTER": "true"})
    rows, cols = 12, 300
    x, w, bvec = rnd(rows, cols, scale=3), b16(RNG.uniform(0.5, 1.5, cols)), rnd(cols)
    xv = val(x).reshape(rows, cols)
    rms = 1 / np.sqrt((xv * xv).mean(1, keepdims=True) + 1e-5)
    case("stdlib.bf16.rmsnorm", std("norm"), "rmsnorm", str(rows),
         {"x": x, "y": np.zeros(rows * cols, np.uint16), "w": w, "n_cols": cols, "stride": cols, "eps": 1e-5},
         lambda out: {"y": b16(xv * rms * val(w))}, tol=(1e-2, 1e-2), defines={"BLOCK": "512"})
    mean_ = xv.mean(1, keepdims=True)
    inv = 1 / np.sqrt(((xv - mean_) ** 2).mean(1, keepdims=True) + 1e-5)
    case("stdlib.bf16.layernorm", std("norm"), "layernorm", str(rows),
         {"x": x, "y": np.zeros(rows * cols, np.uint16), "w": w, "b": bvec, "n_cols": cols, "stride": cols, "eps": 1e-5},
         lambda out: {"y": b16((xv - mean_) * inv * val(w) + val(bvec))}, tol=(1e-2, 1e-2), defines={"BLOCK": "512"})
    case("stdlib.bf16.row_rstd", std("norm"), "row_rstd", str(rows),
         {"x": x, "rstd": np.zeros(rows, np.float32), "n_cols": cols, "stride": cols, "eps": 1e-5},
         lambda out: {"rstd": rms.ravel().astype(np.float32)}, tol=(1e-5, 1e-6), defines={"BLOCK": "512"})
    case("stdlib.bf16.row_moments", std("norm"), "row_moments", str(rows),
         {"x": x, "mean": np.zeros(rows, np.float32), "rstd": np.zeros(rows, np.float32), "n_cols": cols,
          "stride": cols, "eps": 1e-5},
         lambda out: {"mean": mean_.ravel().astype(np.float32), "rstd": inv.ravel().astype(np.float32)},
         tol=(1e-5, 1e-6), defines={"BLOCK": "512"})
    wsum = rnd(rows)
    case("stdlib.bf16.weighted_col_sums", std("norm"), "weighted_col_sums", "cdiv(cols, BC)",
         {"src": x, "weights": wsum, "out": np.zeros(cols, np.float32), "rows": rows, "cols": cols},
         lambda out: {"out": (val(wsum)[:, None] * xv).sum(0).astype(np.float32)}, tol=(1e-5, 1e-5),
         defines={"BR": "8", "BC": "128"})
    case("stdlib.bf16.scale_rows", std("norm"), "scale_rows", "%d, 1" % rows,
         {"src": x, "dst": np.zeros(rows * cols, np.uint16), "w": w[:rows].copy(), "n_cols": cols},
         lambda out: {"dst": b16(xv * val(w[:rows])[:, None])}, tol=(8e-3, 1e-3), defines={"BLOCK": "512"})
    e = np.exp(xv - xv.max(1, keepdims=True))
    case("stdlib.bf16.softmax", std("norm"), "softmax", str(rows),
         {"x": x, "y": np.zeros(rows * cols, np.uint16), "n_cols": cols, "stride": cols},
         lambda out: {"y": b16(e / e.sum(1, keepdims=True))}, tol=(1e-2, 1e-3), defines={"BLOCK": "512"})
    # Token embedding: ids in range, the last and first rows, and two outside (-1 and vocab)
    # that give zero rows; a width that is no multiple of the block; rows 320 apart (a gather of
    # the first 300 columns of a wider matrix).
    vocab, dim, stride = 37, 300, 320
    table = rnd(vocab, stride)
    ids = np.array([3, 0, 36, -1, 37, 12], np.int32)
    def embedding_ref(out):
        rows = table.reshape(vocab, stride)[np.clip(ids, 0, vocab - 1), :dim]
        rows = np.where(((ids >= 0) & (ids < vocab))[:, None], rows, 0)
        return {"out": rows.astype(np.uint16).ravel()}
    case("stdlib.bf16.embedding", std("embedding"), "embedding", "%d, cdiv(dim, BLOCK)" % len(ids),
         {"ids": ids, "table": table, "out": np.full(len(ids) * dim, 0x3f80, np.uint16), "vocab": vocab, "dim": dim,
          "stride": stride, "first": 0},
         embedding_ref, tol=(0, 0), defines={"BLOCK": "256"})
    # The same table as rows 1000.. of a vocabulary-parallel embedding's larger one: the same ids
    # shifted by its first row read the same rows, and -1 + 1000 (before it) a row of zeros.
    case("stdlib.bf16.embedding_shard", std("embedding"), "embedding", "%d, cdiv(dim, BLOCK)" % len(ids),
         {"ids": ids + 1000, "table": table, "out": np.full(len(ids) * dim, 0x3f80, np.uint16), "vocab": vocab,
          "dim": dim, "stride": stride, "first": 1000},
         embedding_ref, tol=(0, 0), defines={"BLOCK": "256"})
    # Flash-decoding: one query per sequence over its cache's first lengths[b] positions, in 4
    # splits of whole blocks of 16 (the later splits empty), grouped-query heads; then the
    # combine, from the split kernel's numpy partials. In one split too (up to 3 blocks a
    # program: the loop over a split's blocks).
    Bd, Hd, KVd, Dd, ctx, block_d = 3, 4, 2, 32, 48, 16
    lengths = np.array([1, 37, 48], np.int32)
    qd, kc, vc = rnd(Bd, Hd * Dd), rnd(Bd, ctx, KVd * Dd), rnd(Bd, ctx, KVd * Dd)
    scale_d = 1 / math.sqrt(Dd)
    def decode_partials(splits):
        q_ = val(qd).reshape(Bd, Hd, Dd) * scale_d * math.log2(math.e)
        k_, v_ = val(kc).reshape(Bd, ctx, KVd, Dd), val(vc).reshape(Bd, ctx, KVd, Dd)
        po, pml = np.zeros((Bd, Hd, splits, Dd)), np.zeros((Bd, Hd, splits, 2))
        for b in range(Bd):
            per = -(-(-(-lengths[b] // splits)) // block_d) * block_d
            for h in range(Hd):
                for sp in range(splits):
                    lo, hi = sp * per, min(sp * per + per, lengths[b])
                    if lo >= hi:
                        pml[b, h, sp] = (-np.inf, 0)
                        continue
                    sc = k_[b, lo:hi, h // (Hd // KVd)] @ q_[b, h]
                    m = sc.max()
                    pr = np.exp2(sc - m)
                    po[b, h, sp] = pr @ v_[b, lo:hi, h // (Hd // KVd)]
                    pml[b, h, sp] = (m, pr.sum())
        return po, pml
    for splits in (1, 4):  # (4 last: the combine's case below merges those partials)
        po_ref, pml_ref = decode_partials(splits)
        case("stdlib.bf16.decode_attention_split" + ("_one_split" if splits == 1 else ""), std("decode_attention"),
             "decode_attention_split", "%d, %d" % (Bd * Hd, splits),
             {"q": qd, "k_cache": kc, "v_cache": vc, "lengths": lengths,
              "partial_o": np.zeros(Bd * Hd * splits * Dd, np.float32), "partial_ml": np.zeros(Bd * Hd * splits * 2, np.float32),
              "n_heads": Hd, "n_kv_heads": KVd, "max_context": ctx, "n_splits": splits, "scale": scale_d,
              "q_stride": Hd * Dd, "q_col": 0},
             lambda out, po_ref=po_ref, pml_ref=pml_ref: {"partial_o": po_ref.astype(np.float32).ravel(),
                                                          "partial_ml": pml_ref.astype(np.float32).ravel()},
             tol=(2e-3, 2e-3), defines={"HEAD_DIM": str(Dd), "BLOCK_N": str(block_d)})
    def decode_combine_ref(out):
        w = np.where(np.isfinite(pml_ref[..., 0]), np.exp2(pml_ref[..., 0] - pml_ref[..., 0].max(-1, keepdims=True)), 0)
        o = (w[..., None] * po_ref).sum(2) / (w * pml_ref[..., 1]).sum(-1)[..., None]
        # Against softmax attention itself, too: the partials are what they claim to be.
        q_, k_, v_ = val(qd).reshape(Bd, Hd, Dd), val(kc).reshape(Bd, ctx, KVd, Dd), val(vc).reshape(Bd, ctx, KVd, Dd)
        for b in range(Bd):
            for h in range(Hd):
                sc = k_[b, :lengths[b], h // (Hd // KVd)] @ q_[b, h] * scale_d
                pr = np.exp(sc - sc.max())
                assert np.allclose(o[b, h], pr @ v_[b, :lengths[b], h // (Hd // KVd)] / pr.sum(), atol=1e-6)
        return {"o": b16(o.reshape(Bd, Hd * Dd))}
    case("stdlib.bf16.decode_attention_combine", std("decode_attention"), "decode_attention_combine", "%d" % (Bd * Hd),
         {"partial_o": po_ref.astype(np.float32).ravel(), "partial_ml": pml_ref.astype(np.float32).ravel(),
          "o": np.zeros(Bd * Hd * Dd, np.uint16), "n_splits": splits},
         decode_combine_ref, tol=(1e-2, 1e-2), defines={"HEAD_DIM": str(Dd), "SPLITS": "4"})
    # Rope of a column view: tokens 0..T-1 at positions t % S, from column 16 of rows of 80.
    # With POSITIONS: each sequence's tokens start at positions[b] (a KV cache's length).
    T, S, heads, half = 6, 4, 2, 16
    src = rnd(T, 80)
    starts = np.array([5, 1000], np.int32)
    for with_positions in (False, True):
        def rope_ref(out, with_positions=with_positions):
            v = val(src).reshape(T, 80)[:, 16:16 + heads * 2 * half].reshape(T, heads, 2 * half)
            pos = (np.arange(T) % S + (starts[np.arange(T) // S] if with_positions else 0))[:, None]
            theta = pos * 10000.0 ** (-np.arange(half) / half)
            c, s_ = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
            x1, x2 = v[..., :half], v[..., half:]
            return {"y": b16(np.concatenate([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).reshape(T, -1))}
        # BT tokens a program: 1 (the first config) and, with positions, 4 (the last block
        # partly past the tokens).
        case("stdlib.bf16.rope" + (".positions" if with_positions else ""), std("rope"), "rope", "cdiv(tokens, BT), %d" % heads,
             {"x": src, "y": np.zeros(T * heads * 2 * half, np.uint16), "tokens": T, "seq_len": S, "in_stride": 80, "in_col": 16,
              "out_stride": heads * 2 * half, "log2_base": math.log2(10000.0), "positions": starts, "rope_heads": heads,
              "k_cache": np.zeros(1, np.uint16), "v_cache": np.zeros(1, np.uint16), "max_context": 0, "first_key_head": heads},
             rope_ref, tol=(1e-2, 1e-2), defines={"HALF": str(half), "POSITIONS": "true" if with_positions else "false",
                                                  "BT": "4" if with_positions else "1"})
    # APPEND: a fused QKV's rows (2 query heads, 1 key/value head of 32), two sequences of 2
    # tokens at 3 and 7 of caches of 8 (the last token past the end: nothing written there);
    # the queries and keys rotated into y, the rotated keys and the values into the caches.
    TA, SA, HQ, halfA = 4, 2, 2, 16
    hdA = 2 * halfA
    srcA = rnd(TA, (HQ + 2) * hdA)
    atA = np.array([3, 7], np.int32)
    kc0, vc0 = rnd(2, 8, hdA), rnd(2, 8, hdA)
    def rope_append_ref(out):
        v = val(srcA).reshape(TA, HQ + 2, hdA)[:, :HQ + 1]
        pos = (np.arange(TA) % SA + atA[np.arange(TA) // SA])[:, None]
        theta = pos * 10000.0 ** (-np.arange(halfA) / halfA)
        c, s_ = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
        x1, x2 = v[..., :halfA], v[..., halfA:]
        y = b16(np.concatenate([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).reshape(TA, -1))
        kc, vc = kc0.reshape(2, 8, hdA).copy(), vc0.reshape(2, 8, hdA).copy()
        for t in range(TA):
            p_ = pos[t, 0]
            if p_ < 8:
                kc[t // SA, p_] = y.reshape(TA, HQ + 1, hdA)[t, HQ]
                vc[t // SA, p_] = srcA.reshape(TA, HQ + 2, hdA)[t, HQ + 1]
        return {"y": y, "k_cache": kc.ravel(), "v_cache": vc.ravel()}
    case("stdlib.bf16.rope.append", std("rope"), "rope", "cdiv(tokens, BT), %d" % (HQ + 2),
         {"x": srcA, "y": np.zeros(TA * (HQ + 1) * hdA, np.uint16), "tokens": TA, "seq_len": SA, "in_stride": (HQ + 2) * hdA,
          "in_col": 0, "out_stride": (HQ + 1) * hdA, "log2_base": math.log2(10000.0), "positions": atA,
          "rope_heads": HQ + 1, "k_cache": kc0, "v_cache": vc0, "max_context": 8, "first_key_head": HQ},
         rope_append_ref, tol=(1e-2, 1e-2), defines={"HALF": str(halfA), "POSITIONS": "true", "APPEND": "true", "BT": "8"})
    # A prefill's rope at length: one sequence of 2048 tokens from position 0, head dim 128, from
    # the columns of a wider matrix (the q block of a fused QKV's output).
    TL, HL, halfL, widthL = 2048, 2, 64, 3 * 2 * 128
    srcL = rnd(TL, widthL)
    def rope_long_ref(out):
        v = val(srcL).reshape(TL, widthL)[:, :HL * 2 * halfL].reshape(TL, HL, 2 * halfL)
        theta = np.arange(TL)[:, None] * 10000.0 ** (-np.arange(halfL) / halfL)
        c, s_ = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
        x1, x2 = v[..., :halfL], v[..., halfL:]
        return {"y": b16(np.concatenate([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).reshape(TL, -1))}
    case("stdlib.bf16.rope.positions_long", std("rope"), "rope", "cdiv(tokens, BT), %d" % HL,
         {"x": srcL, "y": np.zeros(TL * HL * 2 * halfL, np.uint16), "tokens": TL, "seq_len": TL, "in_stride": widthL, "in_col": 0,
          "out_stride": HL * 2 * halfL, "log2_base": math.log2(10000.0), "positions": np.zeros(1, np.int32),
          "rope_heads": HL, "k_cache": np.zeros(1, np.uint16), "v_cache": np.zeros(1, np.uint16), "max_context": 0,
          "first_key_head": HL},
         rope_long_ref, tol=(1e-2, 1e-2), defines={"HALF": str(halfL), "POSITIONS": "true", "BT": "32"})
    # A KV cache's append: 2 sequences of 3 new tokens from a column view, at 4 and at 6 of a
    # cache of 8 (the last token past its end: not written; what was there stays).
    xs, width, ctx_kv = rnd(6, 50), 20, 8
    cache0 = rnd(2, ctx_kv, width)
    at = np.array([4, 6], np.int32)
    def kv_append_ref(out):
        c = cache0.reshape(2, ctx_kv, width).copy()
        for t in range(6):
            b, p_ = t // 3, at[t // 3] + t % 3
            if p_ < ctx_kv:
                c[b, p_] = xs.reshape(6, 50)[t, 10:10 + width]
        return {"cache": c.ravel()}
    case("stdlib.bf16.kv_append", std("kv_cache"), "kv_append", "6, cdiv(width, BLOCK)",
         {"x": xs, "cache": cache0, "positions": at, "seq_len": 3, "max_context": ctx_kv, "width": width,
          "in_stride": 50, "in_col": 10, "x2": np.zeros(1, np.uint16), "cache2": np.zeros(1, np.uint16),
          "in_stride2": 0, "in_col2": 0}, kv_append_ref, tol=(0, 0), defines={"BLOCK": "128"})
    # PAIR: the values (columns 30.. of the same rows) into a second cache in the same launch.
    cache1 = rnd(2, ctx_kv, width)
    def kv_append_pair_ref(out):
        k_ = kv_append_ref(out)["cache"].reshape(2, ctx_kv, width)
        v_ = cache1.reshape(2, ctx_kv, width).copy()
        for t in range(6):
            b, p_ = t // 3, at[t // 3] + t % 3
            if p_ < ctx_kv:
                v_[b, p_] = xs.reshape(6, 50)[t, 30:30 + width]
        return {"cache": k_.ravel(), "cache2": v_.ravel()}
    case("stdlib.bf16.kv_append.pair", std("kv_cache"), "kv_append", "6, cdiv(width, BLOCK)",
         {"x": xs, "cache": cache0, "positions": at, "seq_len": 3, "max_context": ctx_kv, "width": width,
          "in_stride": 50, "in_col": 10, "x2": xs, "cache2": cache1, "in_stride2": 50, "in_col2": 30},
         kv_append_pair_ref, tol=(0, 0), defines={"BLOCK": "128", "PAIR": "true"})
    # Causal attention over column views of one [B*S, 3 * H * D] tensor (as the graph reads QKV).
    B, S2, H, D_ = 2, 40, 2, 32
    qkv = rnd(B * S2, 3 * H * D_)
    def attention_ref(out):
        v = val(qkv).reshape(B, S2, 3, H, D_)
        q, k, vv = v[:, :, 0], v[:, :, 1], v[:, :, 2]
        sc = np.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(D_)
        sc = np.where(np.tril(np.ones((S2, S2), bool)), sc, -np.inf)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return {"o": b16(np.einsum("bhqk,bkhd->bqhd", p, vv).reshape(B * S2, H * D_))}
    case("stdlib.bf16.attention", std("attention"), "attention", "cdiv(seq_len, BLOCK_M), %d" % (B * H),
         {"q": qkv, "k": qkv, "v": qkv, "o": np.zeros(B * S2 * H * D_, np.uint16), "seq_len": S2, "n_heads": H,
          "n_kv_heads": H, "q_stride": 3 * H * D_, "k_stride": 3 * H * D_, "v_stride": 3 * H * D_, "o_stride": H * D_,
          "q_col": 0, "k_col": H * D_, "v_col": 2 * H * D_, "scale": 1 / math.sqrt(D_)},
         attention_ref, tol=(2e-2, 2e-2), defines={"HEAD_DIM": str(D_), "BLOCK_M": "32", "BLOCK_N": "16"})
    # Grouped-query attention: 4 query heads over 2 key/value heads (heads 0-1 read K/V head 0,
    # heads 2-3 head 1), q, k and v in tensors of their own, full (not causal).
    KV = 2
    qg, kg, vg = rnd(B * S2, 2 * KV * D_), rnd(B * S2, KV * D_), rnd(B * S2, KV * D_)
    def gqa_ref(out):
        q = val(qg).reshape(B, S2, 2 * KV, D_)
        k = np.repeat(val(kg).reshape(B, S2, KV, D_), 2, axis=2)
        vv = np.repeat(val(vg).reshape(B, S2, KV, D_), 2, axis=2)
        sc = np.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(D_)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return {"o": b16(np.einsum("bhqk,bkhd->bqhd", p, vv).reshape(B * S2, 2 * KV * D_))}
    case("stdlib.bf16.attention_gqa", std("attention"), "attention", "cdiv(seq_len, BLOCK_M), %d" % (B * 2 * KV),
         {"q": qg, "k": kg, "v": vg, "o": np.zeros(B * S2 * 2 * KV * D_, np.uint16), "seq_len": S2, "n_heads": 2 * KV,
          "n_kv_heads": KV, "q_stride": 2 * KV * D_, "k_stride": KV * D_, "v_stride": KV * D_, "o_stride": 2 * KV * D_,
          "q_col": 0, "k_col": 0, "v_col": 0, "scale": 1 / math.sqrt(D_)},
         gqa_ref, tol=(2e-2, 2e-2), defines={"HEAD_DIM": str(D_), "BLOCK_M": "32", "BLOCK_N": "16", "CAUSAL": "false"})
    # The tuned path at a ragged length: 128-row tiles on two consumer warpgroups that take
    # turns at the tensor cores beside a producer (warp_specialize 2), K and V by TMA over the
    # column views, grouped-query and causal.
    S3, D3 = 200, 64
    q3, k3, v3 = rnd(S3, 2 * KV * D3), rnd(S3, KV * D3), rnd(S3, KV * D3)
    def gqa_causal_ref(out):
        q = val(q3).reshape(S3, 2 * KV, D3)
        k = np.repeat(val(k3).reshape(S3, KV, D3), 2, axis=1)
        vv = np.repeat(val(v3).reshape(S3, KV, D3), 2, axis=1)
        sc = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(D3)
        sc = np.where(np.tril(np.ones((S3, S3), bool)), sc, -np.inf)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return {"o": b16(np.einsum("hqk,khd->qhd", p, vv).reshape(S3, 2 * KV * D3))}
    case("stdlib.bf16.attention_gqa_causal_pingpong", std("attention"), "attention", "cdiv(seq_len, BLOCK_M), %d" % (2 * KV),
         {"q": q3, "k": k3, "v": v3, "o": np.zeros(S3 * 2 * KV * D3, np.uint16), "seq_len": S3, "n_heads": 2 * KV,
          "n_kv_heads": KV, "q_stride": 2 * KV * D3, "k_stride": KV * D3, "v_stride": KV * D3, "o_stride": 2 * KV * D3,
          "q_col": 0, "k_col": 0, "v_col": 0, "scale": 1 / math.sqrt(D3)},
         gqa_causal_ref, tol=(2e-2, 2e-2), defines={"HEAD_DIM": str(D3), "BLOCK_M": "128", "BLOCK_N": "64", "CAUSAL": "true",
                                                    "num_warps": "8", "num_stages": "2", "warp_specialize": "2"})
    n = 5000
    g, u = rnd(n, scale=4), rnd(n, scale=4)
    for kernel, f in (("silu_kernel", silu), ("gelu_kernel", gelu)):
        case("stdlib.bf16." + kernel, std("activation"), kernel, "cdiv(n, BLOCK)",
             {"x": g, "y": np.zeros(n, np.uint16), "n": n}, lambda out, f=f: {"y": b16(f(val(g)))}, tol=(1e-2, 1e-3))
    case("stdlib.bf16.swiglu", std("activation"), "swiglu", "cdiv(n, BLOCK)",
         {"gate": g, "up": u, "out": np.zeros(n, np.uint16), "n": n},
         lambda out: {"out": b16(silu(val(g)) * val(u))}, tol=(1e-2, 1e-3))
    case("stdlib.bf16.row_sum", std("reduce"), "row_sum", str(rows),
         {"x": x, "out": np.zeros(rows, np.float32), "n_cols": cols, "stride": cols},
         lambda out: {"out": xv.sum(1).astype(np.float32)}, tol=(1e-5, 1e-4), defines={"BLOCK": "512"})
    case("stdlib.bf16.row_max", std("reduce"), "row_max", str(rows),
         {"x": x, "out": np.zeros(rows, np.float32), "n_cols": cols, "stride": cols},
         lambda out: {"out": xv.max(1).astype(np.float32)}, defines={"BLOCK": "512"})
    tr = rnd(37, 50)
    case("stdlib.bf16.transpose", std("shape"), "transpose", "cdiv(rows, 32), cdiv(cols, 32)",
         {"x": tr, "y": np.zeros(37 * 40, np.uint16), "rows": 37, "cols": 40, "sx": 50, "cx": 10},
         lambda out: {"y": tr.reshape(37, 50)[:, 10:].T.copy()})
    # Greedy decoding's step on the GPU (sampling.tk): each row's first maximum (a tie across
    # blocks and one inside a block), NaNs kept out of the choice and reported (the first, in a
    # later block; none past V), the masked tail of rows ldl apart, positions and lengths
    # advanced. Kept: the row in the chunk's rows [kept_first, kept_first + kept_rows).
    Bg, Vg, ldg, steps_g = 3, 2500, 2600, 4
    lg = RNG.uniform(-4, 4, (Bg, ldg)).astype(np.float32)
    lg[:, Vg:] = 100.0  # past V: never chosen
    lg[0, 1500] = lg[0, 2100] = 8.0
    lg[0, Vg + 5] = np.nan  # past V: not reported
    lg[1, 50], lg[1, 1700], lg[1, 2200] = 9.0, np.nan, np.nan
    lg[2, :] = -np.inf
    lgb = b16(lg)
    pos_g, len_g = np.array([7, 3, 100], np.int32), np.array([8, 4, 101], np.int32)
    rows_g = val(lgb).reshape(Bg, ldg)[:, :Vg]
    chosen_g = np.array([1500, 50, 0], np.int32)  # (all -inf: the first, as std::max_element)
    assert [int(np.nanargmax(r)) for r in rows_g[:2]] == list(chosen_g[:2])
    for step_g, keep_g, first_g in ((2, True, 1), (7, False, 0)):
        def greedy_ref(out, step_g=step_g, keep_g=keep_g, first_g=first_g):
            recorded = 0 <= step_g < steps_g
            tokens = np.full((Bg, steps_g), -5, np.int32)
            kept = np.zeros((Bg, 2, Vg), np.uint16)
            if recorded:
                tokens[:, step_g] = chosen_g
            if keep_g:
                kept[:, step_g - first_g] = lgb.reshape(Bg, ldg)[:, :Vg]
            nan_at = np.array([-1, -1, step_g, 1700, -1, -1] if recorded else [-1] * 6, np.int32)
            return {"ids": chosen_g, "positions": pos_g + 1, "lengths": len_g + 1, "tokens": tokens.ravel(),
                    "kept": kept.ravel(), "nan_at": nan_at}
        case("stdlib.bf16.greedy_advance.step%d%s" % (step_g, ".kept" if keep_g else ""), std("sampling"), "greedy_advance",
             str(Bg),
             {"logits": lgb.ravel(), "ids": np.zeros(Bg, np.int32), "positions": pos_g, "lengths": len_g,
              "tokens": np.full(Bg * steps_g, -5, np.int32), "kept": np.zeros(Bg * 2 * Vg, np.uint16),
              "nan_at": np.full(2 * Bg, -1, np.int32), "V": Vg, "ldl": ldg, "step": step_g, "steps": steps_g,
              "kept_first": first_g, "kept_rows": 2},
             greedy_ref, defines={"BLOCK": "1024", "KEEP": "true" if keep_g else "false"})


def add_run_error_cases():
    ex = os.path.join(EXAMPLES, "vector_add.tk")
    x = np.zeros(16, np.float32)
    base = {"x": x, "y": x, "out": np.zeros(16, np.float32), "n": 16}
    case("run_errors.wrong_dtype", ex, "vector_add", "1", dict(base, x=np.zeros(16, np.float64)), None, expect_status=1,
         expect_message="argument 'x': ")
    case("run_errors.fortran_order", ex, "vector_add", "1", dict(base, x=np.asfortranarray(np.zeros((4, 4), np.float32))), None,
         expect_status=1, expect_message="Fortran-order arrays are not supported")
    case("run_errors.big_endian", ex, "vector_add", "1", dict(base, x=np.zeros(16, ">f4")), None, expect_status=1,
         expect_message="big-endian data (dtype '>f4') is not supported")
    case("run_errors.unknown_argument", ex, "vector_add", "1", dict(base, bogus=3), None, expect_status=1,
         expect_message="unknown argument 'bogus' (kernel 'vector_add' takes x, y, out, n)")
    missing = dict(base)
    del missing["n"]
    case("run_errors.missing_argument", ex, "vector_add", "1", missing, None, expect_status=1,
         expect_message="missing argument n: i32")
    case("run_errors.buffer_too_small", ex, "vector_add", "1", dict(base, n=17, x=np.zeros(32, np.float32), y=np.zeros(8, np.float32)), None,
         expect_status=2, expect_message="out-of-bounds load: element 8 of the tile is at byte offset 32 (index 8) of buffer 'y', which has 8 elements")
    # A format 2.0 file (numpy writes 2.0 when a header outgrows 1.0) reads like any other.
    xv2 = RNG.standard_normal(16).astype(np.float32)
    case("npy.format_2_0", ex, "vector_add", "1", dict(base, x=NpyV2(xv2)), lambda out: {"out": xv2})
    case("run_errors.bad_grid", ex, "vector_add", "cdiv(n, 0)", base, None, expect_status=1,
         expect_message="--grid 'cdiv(n, 0)': division by zero in a constant expression")


def add_dtype_cases():
    """One kernel written over a `const T: dtype` parameter, instantiated at several dtypes (-D T=...)."""
    src = generated("dtype_axpby", (
        "kernel axpby(x: ptr<T>, y: ptr<T>, out: ptr<T>, n: i32, const BLOCK: i32 = 128, const T: dtype = bf16) {\n"
        "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
        "    let m = offs < n;\n"
        "    let acc: f32[BLOCK] = (load(x + offs, mask = m, other = 0) as f32) * 2.0 + (load(y + offs, mask = m) as f32);\n"
        "    let t: T[BLOCK] = acc as T;\n"
        "    store(out + offs, t + zeros([BLOCK], T) - full([BLOCK], 1, T) + 1 as T, mask = m);\n"
        "}\n"))
    a = (RNG.standard_normal(N) * 4).astype(np.float32)
    b = (RNG.standard_normal(N) * 4).astype(np.float32)
    for dtype in ["f16", "f32", "bf16"]:
        if dtype == "bf16":
            ia, ib = bf16_bits(a), bf16_bits(b)
        else:
            ia, ib = a.astype(storage(dtype)), b.astype(storage(dtype))

        def check(out, ia=ia, ib=ib, dtype=dtype):
            x = values_of(dtype, ia).astype(np.float32)
            y = values_of(dtype, ib).astype(np.float32)
            r = x * np.float32(2) + y
            # t - 1 + 1 in T: one rounding to T, then T arithmetic (f16/bf16 arithmetic is computed in f32).
            if dtype == "bf16":
                t = bf16_round(r)
                return {"out": bf16_bits(bf16_round(bf16_round(t - 1) + 1))}
            t = r.astype(storage(dtype))
            return {"out": ((t - t.dtype.type(1)) + t.dtype.type(1)).astype(storage(dtype))}
        case("dtype.axpby.%s" % dtype, src, "axpby", "cdiv(n, BLOCK)",
             {"x": ia, "y": ib, "out": np.zeros(N, storage(dtype)), "n": N}, check,
             defines={} if dtype == "bf16" else {"T": dtype})
    # A stdlib template at f16 (its T, bf16 by default), as the graph layer instantiates it.
    rows, cols = 6, 200
    x = (RNG.uniform(-3, 3, (rows, cols))).astype(np.float16)
    w = RNG.uniform(0.5, 1.5, cols).astype(np.float16)
    xv = x.astype(np.float64)
    rms = 1 / np.sqrt((xv * xv).mean(1, keepdims=True) + 1e-5)
    case("dtype.stdlib.rmsnorm.f16", os.path.join(ROOT, "stdlib", "std", "norm.tk"), "rmsnorm", str(rows),
         {"x": x.ravel(), "y": np.zeros(rows * cols, np.float16), "w": w, "n_cols": cols, "stride": cols, "eps": 1e-5},
         lambda out: {"y": (xv * rms * w.astype(np.float64)).astype(np.float16).ravel()}, tol=(2e-3, 2e-3),
         defines={"BLOCK": "256", "T": "f16"})


add_structure_cases()
add_descriptor_cases()
add_example_cases()
add_stdlib_cases()
add_dtype_cases()
add_run_error_cases()


# ----------------------------------------------------------------------------------------
# Runner

SANITIZER = []  # --sanitize: compute-sanitizer's memcheck around every GPU run
ARCH = []  # --arch: tkc run --arch on the GPU

GPU_UNSUPPORTED = ("not supported by the GPU backend yet", "does not support tiles of rank")
# What the compiler says when --arch names a target below what the kernel needs (FP8 dots before
# sm_89): the case is for later targets, not a failure of this one.
ARCH_TOO_OLD = ("needs tensor cores that take FP8",)


def arch_number(arch):
    """sm_80 -> 80, sm_90a -> 90: only a target below sm_89 may refuse an FP8 dot (a refusal at a
    later one is a failure)."""
    return int(re.match(r"sm_(\d+)", arch).group(1))


def run_case(c, tkc, backend, workdir, compare_interp=False):
    error = run_backend(c, tkc, backend, workdir)
    if error or not compare_interp or c.expect_status != 0:
        return error
    # The GPU's outputs must also agree with the interpreter's (within the case's tolerance).
    interp_dir = workdir + ".interp"
    error = run_backend(c, tkc, "interp", interp_dir, check=False)
    if error:
        return "interpreter: " + error
    for name in c.args:
        if name in c.racy:
            continue
        gpu_out, interp_out = os.path.join(workdir, name + ".out.npy"), os.path.join(interp_dir, name + ".out.npy")
        if os.path.exists(gpu_out):
            g, i = np.load(gpu_out).ravel(), np.load(interp_out).ravel()
            if c.holds_bf16(g):  # raw bf16 bits: compare the values
                g, i = bf16_from_bits(g), bf16_from_bits(i)
            g, i = g.astype(np.float64), i.astype(np.float64)
            rtol, atol = c.tol or (0, 0)
            if not np.isclose(g, i, rtol=rtol, atol=atol, equal_nan=True).all():
                bad = np.nonzero(~np.isclose(g, i, rtol=rtol, atol=atol, equal_nan=True))[0][:5]
                return "%s: GPU and interpreter differ at %s: %s vs %s" % (name, bad, g[bad], i[bad])
    return None


def run_backend(c, tkc, backend, workdir, check=True):
    os.makedirs(workdir, exist_ok=True)
    cmd = SANITIZER + [tkc, "run", c.file, "--kernel", c.kernel, "--grid", c.grid] + ARCH if backend == "cuda" else \
        [tkc, "run", c.file, "--kernel", c.kernel, "--grid", c.grid]
    if c.debug:
        cmd.append("--debug")
    if backend != "auto":  # auto: tkc picks the GPU when there is one, else the interpreter
        cmd.append("--backend=" + backend)
    for k, v in c.defines.items():
        cmd += ["-D", "%s=%s" % (k, v)]
    saved = {}
    for name, value in c.args.items():
        if isinstance(value, NpyV2):
            path = os.path.join(workdir, name + ".v2.npy")
            with open(path, "wb") as f:
                np.lib.format.write_array(f, value.array, version=(2, 0))
            cmd.append("%s=@%s" % (name, path))
        elif isinstance(value, np.ndarray):
            path = os.path.join(workdir, name + ".npy")
            np.save(path, value)
            cmd.append("%s=@%s" % (name, path))
            out_path = os.path.join(workdir, name + ".out.npy")
            if os.path.exists(out_path):
                os.remove(out_path)
            cmd += ["--save", "%s=%s" % (name, out_path)]
            saved[name] = out_path
        else:
            value = value.item() if isinstance(value, np.generic) else value
            cmd.append("%s=%r" % (name, value) if not isinstance(value, bool) else "%s=%s" % (name, str(value).lower()))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if backend == "cuda" and proc.returncode == 1 and any(m in proc.stderr for m in GPU_UNSUPPORTED):
        return "UNSUPPORTED"
    if backend == "cuda" and ARCH and arch_number(ARCH[1]) < 89 and proc.returncode == 1 and \
            any(m in proc.stderr for m in ARCH_TOO_OLD):
        return "ARCH_TOO_OLD"
    if not check:
        return None if proc.returncode == 0 else "exit status %d\n%s" % (proc.returncode, proc.stderr[-2000:])
    if proc.returncode != c.expect_status:
        return "exit status %d, expected %d\n%s%s" % (proc.returncode, c.expect_status, proc.stdout[-2000:], proc.stderr[-2000:])
    if c.expect_status != 0:
        message = c.gpu_message if backend == "cuda" and c.gpu_message else c.expect_message
        if message not in proc.stderr:
            return "expected message not found:\n  %s\ngot:\n  %s" % (message, proc.stderr.strip())
        leftovers = [p for p in saved.values() if os.path.exists(p)]
        return "a failed run wrote %s" % leftovers if leftovers else None
    if c.stdout is not None and c.stdout not in proc.stdout:
        return "expected output %r, got %r" % (c.stdout, proc.stdout)
    expected = c.check({name: np.load(path) for name, path in saved.items()})
    for name, want in expected.items():
        got = np.load(saved[name]).ravel()
        want = np.asarray(want).ravel()
        if got.dtype != want.dtype:
            return "%s: dtype %s, expected %s" % (name, got.dtype, want.dtype)
        if got.size != want.size:
            return "%s: %d elements, expected %d" % (name, got.size, want.size)
        if c.tol is None:
            same = (got.view(np.uint8) == want.view(np.uint8)).all() if got.dtype.kind == "f" else (got == want).all()
            if not same and c.holds_bf16(got):  # bf16 bits: any NaN matches any NaN
                nan = lambda b: ((b & 0x7F80) == 0x7F80) & ((b & 0x7F) != 0)
                same = ((got == want) | (nan(got) & nan(want))).all()
            if not same:
                if got.dtype.kind == "f":  # NaN payloads may differ; compare values (and zeros' signs)
                    g64, w64 = got.astype(np.float64), want.astype(np.float64)
                    same = (((g64 == w64) & (np.signbit(g64) == np.signbit(w64))) | (np.isnan(g64) & np.isnan(w64))).all()
            if not same:
                differ = got != want
                if got.dtype.kind == "f":  # -0 is not 0, NaN is NaN
                    differ = (differ | (np.signbit(got) != np.signbit(want))) & ~(np.isnan(got) & np.isnan(want))
                bad = np.nonzero(differ)[0][:5]
                return "%s differs at %s: got %s, expected %s" % (name, bad, got[bad], want[bad])
        else:
            rtol, atol = c.tol
            if c.holds_bf16(got):  # raw bf16 bits: compare the values
                got, want = bf16_from_bits(got), bf16_from_bits(want)
            g, w = got.astype(np.float64), want.astype(np.float64)
            ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all():
                bad = np.nonzero(~ok)[0][:5]
                return "%s differs at %s: got %s, expected %s (rtol %g, atol %g)" % (name, bad, got[bad], want[bad], rtol, atol)
    return None


def ptxas_builds(c, args, ptxas, tmp):
    """One case's kernel through tkc and ptxas for each target it is built for: (assembled, unsupported,
    FP8 refused on sm_80, too much shared memory, failure messages)."""
    with open(c.file) as f:
        text = f.read()
    dots = "dot(" in text
    assembled, unsupported, fp8_off_hopper, too_big, failures = 0, None, [], [], []
    # sm_90a: Hopper's wgmma, where a dot's operands are pipelined stages; sm_89: Ada's FP8
    # mma.sync (sm_90's too, without wgmma).
    for arch in ("sm_80", "sm_90") + (("sm_90a",) if dots else ()) + (("sm_89",) if dots and "f8" in text else ()):
        ptx = os.path.join(tmp, "k.ptx")
        if args.keep_ptx:  # one file per build, named by what was built, for before/after diffs
            defines = "".join("-%s=%s" % kv for kv in sorted(c.defines.items()))
            name = "%s-%s%s-%s.ptx" % (os.path.basename(c.file)[:-3], c.kernel, defines, arch)
            ptx = os.path.join(args.keep_ptx, "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in name))
        cmd = [args.tkc, c.file, "--kernel", c.kernel, "--emit=ptx", "--arch=" + arch, "-o", ptx]
        for k, v in c.defines.items():
            cmd += ["-D", "%s=%s" % (k, v)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            if "not supported by the GPU backend yet" in proc.stderr or "does not support tiles of rank" in proc.stderr:
                unsupported = "%s (%s)" % (c.kernel, os.path.basename(c.file))
                break
            if arch == "sm_80" and "needs tensor cores that take FP8" in proc.stderr:
                fp8_off_hopper.append("%s %s" % (c.name, arch))  # FP8 dots: sm_89 and later
                continue
            if arch in ("sm_80", "sm_89") and "shared memory, more than the" in proc.stderr and \
                    "of " + arch in proc.stderr:
                # A Hopper-sized tuning config: the tuner skips it on sm_80 and sm_89 for this reason.
                too_big.append("%s %s" % (c.name, arch))
                continue
            failures.append("FAIL %s %s: tkc\n  %s" % (c.name, arch, proc.stderr.strip()))
            continue
        result = subprocess.run([ptxas, "-arch=" + arch, ptx, "-o", os.path.join(tmp, "k.cubin")],
                                capture_output=True, text=True)
        if result.returncode != 0:
            failures.append("FAIL %s %s: ptxas\n  %s" % (c.name, arch, result.stderr.strip()))
        else:
            assembled += 1
    return assembled, unsupported, fp8_off_hopper, too_big, failures


def chosen(args, name):
    """Whether -k selects the case `name`: it contains one of the filter's comma-separated texts."""
    texts = [text.strip() for text in args.filter.split(",") if text.strip()] or [""]
    return any(text in name for text in texts)


def check_ptxas(args):
    """ptxas must accept the PTX of every kernel the GPU backend compiles; kernels it cannot
    compile yet must fail with the backend's own "not supported yet" diagnostic. Cases run
    `--jobs` at a time, each in its own folder; the report keeps the cases' order."""
    ptxas = os.environ.get("TK_PTXAS", "/usr/local/cuda/bin/ptxas")
    if not os.path.exists(ptxas):
        print("SKIPPED: no ptxas at %s (install the CUDA toolkit or set TK_PTXAS)" % ptxas)
        return 77  # ctest's SKIP_RETURN_CODE: reported as skipped, never as passed
    if args.keep_ptx:
        os.makedirs(args.keep_ptx, exist_ok=True)
    seen, selected = set(), []
    for c in CASES:
        key = (c.file, c.kernel, tuple(sorted(c.defines.items())))
        if key not in seen and chosen(args, c.name):
            seen.add(key)
            selected.append(c)
    assembled, unsupported, too_big_for_sm80, fp8_off_hopper, failures = 0, [], [], [], 0
    with tempfile.TemporaryDirectory(prefix="tk-ptxas-") as tmp:
        def one(indexed):
            i, c = indexed
            folder = os.path.join(tmp, str(i))
            os.makedirs(folder)
            return ptxas_builds(c, args, ptxas, folder)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for built, off, fp8, big, failed in pool.map(one, enumerate(selected)):
                assembled += built
                unsupported += [off] if off else []
                fp8_off_hopper += fp8
                too_big_for_sm80 += big
                failures += len(failed)
                for message in failed:
                    print(message)
    print("ptxas accepted %d kernel builds (sm_80 and sm_90; sm_90a for dots, sm_89 for FP8 ones); %d kernels are not on the GPU backend yet: %s"
          % (assembled, len(unsupported), ", ".join(sorted(set(unsupported)))))
    if too_big_for_sm80:
        print("shared memory beyond sm_80's or sm_89's, refused there with a located error (Hopper tuning configs): %s"
              % ", ".join(too_big_for_sm80))
    if fp8_off_hopper:
        print("FP8 dots refused on sm_80 with a located error (%d builds)" % len(fp8_off_hopper))
    spill_failures, spill_builds = check_matmul_spills(args, ptxas)
    failures += spill_failures
    return 1 if failures or assembled + spill_builds == 0 else 0


# ptxas's reports that it gave up overlapping a kernel's wgmmas: C7515 and C7518 ("Potential
# Performance Loss: wgmma.mma_async instructions are serialized ...") and C7517 (a
# warpgroup.wait it injected). Each has cost a TMA pipeline a large part of its speed (session
# 31: ws 3 on clusters 1.8x slower, bench/results/2026-12-06-session31).
WGMMA_PTXAS_WARNINGS = re.compile(r"\((?:C7515|C7517|C7518)\)[^\n]*")


def tuned_configs(path, kernel_name=None):
    """The @autotune configs of `kernel_name` (of every kernel without it) in `path`: [(kernel, {name: value})]."""
    with open(path) as f:
        source = f.read()
    builds = []
    for configs, kernel in re.findall(r"@autotune\(key = \[[^\]]*\], configs = \[(.*?)\]\)\s*kernel (\w+)\(", source, re.S):
        if kernel_name in (None, kernel):
            builds += [(kernel, dict(re.findall(r"(\w+):\s*(\w+)", config))) for config in re.findall(r"\{([^}]*)\}", configs)]
    return builds


def check_matmul_spills(args, ptxas):
    """Every @autotune config of examples/matmul.tk's kernels and of the stdlib's persistent FP8
    GEMM (with its configs on clusters of 2), built for sm_90a as the JIT specializes the
    benchmarks' shapes (TMA pipelines), must not spill registers, and ptxas must keep its
    wgmmas overlapped (none of WGMMA_PTXAS_WARNINGS). Returns the failures and the builds."""
    builds = []  # (name, path, kernel, {name: value})
    if chosen(args, "example.matmul.spills"):
        path = os.path.join(EXAMPLES, "matmul.tk")
        builds += [("example.matmul.spills", path, kernel, config) for kernel, config in tuned_configs(path)]
    if chosen(args, "stdlib.fp8_matmul_persistent.wgmma"):
        path = os.path.join(ROOT, "stdlib", "std", "fp8_matmul.tk")
        configs = [config for _, config in tuned_configs(path, "fp8_matmul_persistent")]
        configs += [{"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": stages,
                     "warp_specialize": ws, "cluster_size": "2"} for stages, ws in (("5", "1"), ("6", "3"))]
        # With a bias, whose broadcast takes turns with the scales' beside the TMA store's staging
        # (it did not fit before).
        configs += [{"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "6", "warp_specialize": "3",
                     "HAS_BIAS": "true", "TAIL_SPLIT": tail} for tail in ("1", "2")]
        builds += [("stdlib.fp8_matmul_persistent.wgmma", path, "fp8_matmul_persistent", dict(config, SCALE_MODE="1"))
                   for config in configs]

    def one(indexed):
        i, (name, path, kernel, config) = indexed
        ptx = os.path.join(tmp, "%d.ptx" % i)
        cmd = [args.tkc, path, "--kernel", kernel, "--emit=ptx", "--arch=sm_90a", "-o", ptx]
        for define, value in config.items():
            cmd += ["-D", "%s=%s" % (define, value)]
        for arg in ("M", "N", "K", "lda", "ldb", "ldc"):
            cmd += ["--divisibility", arg + "=16"]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TK_STDLIB_DIR=os.path.join(ROOT, "stdlib")))
        result = subprocess.run([ptxas, "-arch=sm_90a", "-v", ptx, "-o", os.path.join(tmp, "%d.cubin" % i)],
                                capture_output=True, text=True) if proc.returncode == 0 else proc
        spills = re.findall(r"(\d+) bytes spill stores", result.stderr)
        overlap_lost = WGMMA_PTXAS_WARNINGS.findall(result.stderr)
        tma = False
        if os.path.exists(ptx):
            with open(ptx) as f:
                tma = "cp.async.bulk.tensor" in f.read()
        if result.returncode != 0 or not spills or any(int(n) for n in spills) or overlap_lost or not tma:
            return "FAIL %s %s %s: fails, spills, no TMA, or ptxas no longer overlaps its wgmmas\n  %s" % (
                name, kernel, " ".join("%s=%s" % kv for kv in config.items()),
                "; ".join(WGMMA_PTXAS_WARNINGS.findall(result.stderr)) or result.stderr.strip()[-500:])
        return None

    with tempfile.TemporaryDirectory(prefix="tk-spills-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            failed = [message for message in pool.map(one, enumerate(builds)) if message]
    for message in failed:
        print(message)
    print("matmul configs on sm_90a (TMA) without spills, their wgmmas overlapped: %d of %d" % (len(builds) - len(failed),
                                                                                             len(builds)))
    return len(failed), len(builds)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tkc", default=os.path.join(ROOT, "build", "bin", "tkc"))
    parser.add_argument("--backend", default="interp", choices=["interp", "cuda", "auto"])
    parser.add_argument("-k", "--filter", default="", help="run the cases whose names contain one of these comma-separated texts")
    parser.add_argument("--examples-only", action="store_true")
    parser.add_argument("--compare-interp", action="store_true", help="also check each output against the interpreter's")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--ptxas", action="store_true",
                        help="instead of running: compile every case's kernel to PTX for sm_80 and sm_90 (and sm_90a where "
                             "it has a dot) and assemble it with ptxas")
    parser.add_argument("--keep-ptx", metavar="DIR", help="with --ptxas: keep each build's PTX in DIR (before/after diffs)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="cases run at once")
    parser.add_argument("--arch", help="with --backend cuda: compile for this target, not the GPU's own (tkc run --arch; "
                                       "sm_90 on an H200 runs FP8 dots on mma.sync)")
    parser.add_argument("--sanitize", action="store_true",
                        help="run every GPU case under compute-sanitizer's memcheck (a report fails the case)")
    args = parser.parse_args()
    if args.arch:
        ARCH[:] = ["--arch", args.arch]
    if args.sanitize:
        SANITIZER[:] = ["compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "9", "--print-limit", "5"]
    if args.ptxas:
        return check_ptxas(args)
    selected = [c for c in CASES if chosen(args, c.name) and (c.example or not args.examples_only)]
    if args.backend == "cuda":
        interp_only = [c.name for c in selected if c.interp_only]
        selected = [c for c in selected if not c.interp_only]
        # GPU math uses the hardware approximations Triton uses (ex2/lg2/rsqrt/sin/cos.approx).
        for c in selected:
            if c.gpu_tol:
                c.tol = c.gpu_tol
            if c.name.startswith("math.") and c.tol:
                c.tol = (max(c.tol[0], 1e-5), max(c.tol[1], 1e-5))
    if args.sanitize:  # faults are expected to stop the kernel; memcheck would report those too
        selected = [c for c in selected if c.expect_status == 0]
    failures, unsupported, later_arch = 0, [], []
    with tempfile.TemporaryDirectory(prefix="tk-conformance-") as tmp:
        def one(c):
            return run_case(c, args.tkc, args.backend, os.path.join(tmp, c.name), args.compare_interp)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            errors = list(pool.map(one, selected))
        for c, error in zip(selected, errors):
            if error == "UNSUPPORTED":
                unsupported.append(c.name)
            elif error == "ARCH_TOO_OLD":
                later_arch.append(c.name)
            elif error:
                failures += 1
                print("FAIL %s\n  %s" % (c.name, error.replace("\n", "\n  ")))
            elif args.verbose or c.example:
                print("ok   %s" % c.name)
    ran = len(selected) - len(unsupported) - len(later_arch)
    print("%d of %d conformance cases passed (backend %s)" % (ran - failures, ran, args.backend))
    if args.backend == "cuda":
        print("not on the GPU backend yet (%d): %s" % (len(unsupported), ", ".join(unsupported)))
        print("interpreter-only checks, not run on the GPU (%d): %s" % (len(interp_only), ", ".join(interp_only)))
        if ARCH:
            print("for targets after %s, not run (%d): %s" % (ARCH[1], len(later_arch), ", ".join(later_arch)))
    return 1 if failures or ran + len(later_arch) == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

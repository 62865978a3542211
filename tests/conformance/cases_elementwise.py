"""Elementwise cases: every integer and float operator, the math builtins and every `as`/cast
conversion, each a generated one-line kernel over N elements (a masked tail) against numpy."""
import math

import numpy as np

from numerics import (bf16_bits, bf16_from_bits, bf16_round, c_div, c_rem, f8_bits, f8_table, nans_of,
                      round_to_bits, storage, values_of)
from registry import N, RNG, case, generated


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

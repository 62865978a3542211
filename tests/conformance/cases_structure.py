"""Cases of the language's structure: statements and control flow, shapes, reductions, scans, dots
and tensor cores, memory, atomics, randomness, faults; then kernels over a `const T: dtype`
(add_dtype_cases) and the errors `tkc run` reports for bad arguments (add_run_error_cases)."""
import os

import numpy as np

from numerics import (bf16_bits, bf16_from_bits, bf16_round, f8_bits, f8_dot_f32, philox, storage, uniform,
                      values_of)
from registry import EXAMPLES, FP8_FAST_ACCUM_TOL, KERNELS, N, ROOT, RNG, NpyV2, case, generated


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

#!/usr/bin/env python3
"""The Python package `tkc` (runtime/python: ctypes over tk's C API) against the interpreter with
numpy arrays: every argument kind, grids from configs, constants, errors that name what was
wrong; the C header as C; `pip install` of the staged package.
Usage: test_tkc.py BUILD_DIR SOURCE_DIR"""
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np

build, source = sys.argv[1], sys.argv[2]
examples = os.path.join(source, "examples")


def check(what, got, want):
    if got != want:
        sys.exit("FAIL %s:\n  got  %r\n  want %r" % (what, got, want))
    print("ok  %s" % what)


def raises(what, exception, text, call):
    try:
        call()
    except exception as e:
        if text not in str(e):
            sys.exit("FAIL %s: %s says %r, not %r" % (what, type(e).__name__, str(e), text))
        print("ok  %s" % what)
        return
    sys.exit("FAIL %s: no %s" % (what, exception.__name__))


# The package as pip installs it from the build tree (pure Python: nothing to build, no network).
site = tempfile.mkdtemp(prefix="tkc-site-")
subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
                "--no-index", "--target", site, os.path.join(build, "python")], check=True)
sys.path.insert(0, site)
os.environ["TK_CACHE_DIR"] = ""
import tkc  # noqa: E402

check("installed by pip, from the build tree", os.path.dirname(tkc.__file__), os.path.join(site, "tkc"))
ctx = tkc.Context("interp")
check("an interpreter context", (ctx.backend, ctx.device_name), ("interp", "interpreter"))

va = tkc.load(os.path.join(examples, "vector_add.tk"), context=ctx)
add = va.vector_add
check("parameters as declared", add.params, [("x", "ptr<f32>"), ("y", "ptr<f32>"), ("out", "ptr<f32>"), ("n", "i32")])
n = 3000
x, y, out = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32), np.zeros(n, np.float32)
add[lambda meta: (tkc.cdiv(n, meta["BLOCK"]),)](x, y, out, n)  # BLOCK: the default, 1024
check("a grid function sees the constants' defaults", np.array_equal(out, x + 0.5), True)
seen = {}
add[lambda meta: (seen.update(multiprocessors=meta["multiprocessors"],
                               resident_programs_per_multiprocessor=meta["resident_programs_per_multiprocessor"]),
                   tkc.cdiv(n, meta["BLOCK"]))[1:]](x, y, out, n)
check("and the GPU's multiprocessors (the interpreter's one) and resident programs",
      (seen["multiprocessors"], seen["resident_programs_per_multiprocessor"]), (1, 2**30))
out[:] = 0
add[(tkc.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
check("a fixed grid and a constant", np.array_equal(out, x + 0.5), True)

softmax = tkc.load(os.path.join(examples, "softmax.tk"), context=ctx).softmax
a = np.random.default_rng(0).standard_normal((8, 300)).astype(np.float32)
b = np.zeros_like(a)
softmax[(8,)](a, b, 300, 300)  # @autotune: the interpreter runs the first config (BLOCK=1024)
e = np.exp(a - a.max(1, keepdims=True))
check("an autotuned kernel", bool(np.abs(b - e / e.sum(1, keepdims=True)).max() < 1e-6), True)
report = softmax.tune((8,), a, b, 300, 300)
check("tuning a key tuned by a launch: the known winner", (report.best, report.from_database, report.best_ms,
                                                           report.configs[0]["status"]),
      ({"BLOCK": 1024, "num_warps": 4}, True, None, "known (tuned earlier in this process)"))
b[:] = 0
report = softmax.tune(lambda meta: (8,), a, b, 200, 300)  # a new key: n_cols = 200
check("tune: the interpreter's report", (report.best, len(report.configs), report.configs[0]["status"]),
      ({"BLOCK": 1024, "num_warps": 4}, 9, "chosen untimed (the interpreter cannot time kernels)"))
check("tune: the table as tkc tune prints it", report.table().splitlines()[1].split()[:3], ["BLOCK=1024,", "num_warps=4", "-"])
b[:] = 0
softmax[(8,)](a, b, 200, 300, **report.best)
e = np.exp(a[:, :200] - a[:, :200].max(1, keepdims=True))
check("the winner's constants launch it", bool(np.abs(b[:, :200] - e / e.sum(1, keepdims=True)).max() < 1e-6), True)
raises("tuning a kernel with no @autotune", tkc.Error, "has no tuning space", lambda: add.tune((1,), x, y, out, n))

src = ctx.load_string('''
kernel scale(x: ptr<f16>, out: ptr<f16>, s: f32, flip: i1, n: i64, const BLOCK: i32 = 64) {
    let offs = program_id(0) * BLOCK + arange(0, BLOCK);
    var v = load(x + offs, mask = offs < n) as f32 * s;
    if flip { v = -v; }
    store(out + offs, v as f16, mask = offs < n);
}
kernel bad(x: ptr<f32>) { store(x, nope); }
''', "inline.tk")
h = np.linspace(-2, 2, 100).astype(np.float16)
ho = np.zeros_like(h)
src.scale[(2,)](h, ho, 1.5, True, 100)
check("f16 buffers, a float, a bool and an i64 scalar", np.array_equal(ho, (-(h.astype(np.float32) * 1.5)).astype(np.float16)), True)
src.scale[(4,)](h, ho, 2, False, 100, BLOCK=32)
check("an int for a float parameter", np.array_equal(ho, h * np.float16(2)), True)

# Regressions from a review: each failed before.
rev = ctx.load_string('''
kernel typed(x: ptr<T>, n: i32, const T: dtype = f32) {
    let o = arange(0, 16);
    store(x + o, load(x + o, mask = o < n) * 2, mask = o < n);
}
kernel inc(out: ptr<f32>, x: ptr<f32>, n: i32, const BLOCK: i32 = 16) {
    let o = program_id(0) * BLOCK + arange(0, BLOCK);
    store(out + o, load(x + o, mask = o < n) + 1.0, mask = o < n);
}
kernel wide(out: ptr<u64>, a: u64, const F: f32 = 2, const B: i1 = true, const EPS: f32 = 1e-6, const NEG: i32 = -3) {
    store(out, a);
}
''', "review.tk")
h16 = np.ones(4, np.float16)
rev.typed[(1,)](h16, 4, T="f16")
check("ptr<T> takes the launch's T", h16.tolist(), [2.0] * 4)
raises("and refuses an array of T's default then", TypeError, "the array is float32, not float16",
       lambda: rev.typed[(1,)](np.ones(4, np.float32), 4, T="f16"))
raises("a type numpy lacks takes its raw bits, and says so", TypeError,
       "the array is float32, not uint8 (f8e4m3's raw bits: numpy has no f8e4m3; or ml_dtypes' float8_e4m3fn)",
       lambda: rev.typed[(1,)](np.ones(4, np.float32), 4, T="f8e4m3"))
e4m3_ones = np.full(4, 0x38, np.uint8)  # 1.0 in e4m3
rev.typed[(1,)](e4m3_ones, 4, T="f8e4m3")
check("an f8e4m3 array as raw bits", e4m3_ones.tolist(), [0x40] * 4)  # 2.0
raises("a type constant that is no type", ValueError, "is a type", lambda: rev.typed[(1,)](h16, 4, T=-5))
inplace = np.arange(8, dtype=np.float32)
rev.inc[(1,)](inplace, inplace, 8)
check("the same array twice is one buffer (in place)", inplace.tolist(), [float(i + 1) for i in range(8)])
raises("partly overlapping arrays are refused", ValueError, "overlaps", lambda: rev.inc[(1,)](inplace[:6], inplace[2:], 6))
big = np.zeros(1, np.uint64)
rev.wide[(1,)](big, 2**64 - 1)
check("a u64 above INT64_MAX", int(big[0]), 2**64 - 1)
raises("an integer that does not fit", OverflowError, "does not fit", lambda: rev.wide[(1,)](big, 2**64 + 5))
raises("a grid that does not fit", ValueError, "out of range", lambda: rev.inc[(2**64 + 1,)](inplace, inplace, 8))
raises("a float grid", TypeError, "not an integer", lambda: rev.inc[(1.7,)](inplace, inplace, 8))
raises("a float grid of one dimension", TypeError, "not an integer", lambda: rev.inc[1.7](inplace, inplace, 8))
raises("a negative grid", ValueError, "out of range", lambda: rev.inc[(-1,)](inplace, inplace, 8))
inplace[:] = 3
rev.inc[(0,)](inplace, inplace, 8)  # an empty grid runs nothing, as Triton's launcher skips it
check("an empty grid", inplace.tolist(), [3.0] * 8)
inplace[:] = 0
rev.inc[np.int64(1)](inplace, inplace, 8)  # a numpy integer is a grid, as Python's is
check("a numpy integer grid", inplace.tolist(), [1.0] * 8)
raises("a device past C's int", ValueError, "below 2^31", lambda: tkc.Context("interp", 10**20))
# (1,) is cached by now; (1.0,) equals it as a dict key but is no grid.
raises("a float grid equal to a cached one", TypeError, "not an integer", lambda: rev.inc[(1.0,)](inplace, inplace, 8))
# 16.0 and 16 are one dict key: the refused float must not stand for the integer after.
raises("a float for an integer constant", Exception, "16.0", lambda: rev.inc[(1,)](inplace, inplace, 8, BLOCK=16.0))
inplace[:] = 1
rev.inc[(1,)](inplace, inplace, 8, BLOCK=16)
check("the integer constant after the float was refused", inplace[0], 2.0)
inplace[:] = 1
rev.inc[(np.int64(1),)](inplace, inplace, np.int32(8), BLOCK=np.int64(16))
check("numpy integers for arguments, grids and constants", inplace[0], 2.0)
seen = {}
rev.wide[lambda meta: seen.update({k: meta.get(k) for k in ("F", "B", "EPS", "NEG")}) or (1,)](big, 1)
check("a grid function sees every default, with its type", seen, {"F": 2.0, "B": True, "EPS": 1e-6, "NEG": -3})
kept = []
rev.inc[lambda meta: kept.append(meta) or (1,)](inplace, inplace, 8)
raises("a config used after its grid function", RuntimeError, "only inside", lambda: kept[0]["BLOCK"])
raises("a grid function may not launch", ValueError, "may not launch kernels",
       lambda: rev.inc[lambda meta: rev.inc[(1,)](inplace, inplace, 8) or (1,)](inplace, inplace, 8))
raises("a NUL in a path", ValueError, "NUL", lambda: tkc.load("/tmp/a\0b.tk", context=ctx))

def resident_kib():
    return int(open("/proc/self/statm").read().split()[1]) * 4


for i in range(130):  # modules and kernels freed with their handles (a cycle kept them all)
    temporary = ctx.load_string("kernel k(x: ptr<f32>) { store(x + arange(0, 16), 1.0); }", "t%d.tk" % i)
    temporary.k[(1,)](np.zeros(16, np.float32))
    del temporary
    __import__("gc").collect()
    if i == 29:
        before = resident_kib()
check("100 modules launched and dropped keep no memory", resident_kib() - before < 8192, True)

raises("a missing argument is named with its type", TypeError, "missing n: i32", lambda: add[(1,)](x, y, out))
raises("an array of the wrong type names the parameter", TypeError,
       "parameter 'y' (ptr<f32>): the array is float64, not float32", lambda: add[(1,)](x, y.astype(np.float64), out, n))
raises("a strided array is refused", ValueError, "C-contiguous", lambda: add[(1,)](x[::2], y[::2], out[::2], 10))
raises("a float for an integer", TypeError, "parameter 'n' (i32): got the float", lambda: add[(1,)](x, y, out, 1.5))
raises("a list is no buffer", TypeError, "the interpreter takes numpy arrays", lambda: add[(1,)]([1.0], y, out, n))
raises("a compile error carries its diagnostics", tkc.Error, "inline.tk:8:36: error: unknown name 'nope'",
       lambda: src.bad[(1,)](x))
raises("an unknown kernel", AttributeError, "the module has no kernel 'nope' (kernels: vector_add, swiglu)", lambda: va.nope)
raises("an unknown constant", tkc.Error, "has no constant 'NOPE' (its constants: BLOCK", lambda: add[(1,)](x, y, out, n, NOPE=1))
raises("a constant that is no value", TypeError, "constant BLOCK", lambda: add[(1,)](x, y, out, n, BLOCK=[1]))
raises("a grid function's own error", ZeroDivisionError, "division", lambda: add[lambda meta: (1 // 0,)](x, y, out, n))
raises("a grid past the limits", tkc.Error, "grid", lambda: add[(1, 70000)](x, y, out, n))
raises("a grid of four dimensions", ValueError, "1 to 3 dimensions", lambda: add[(1, 1, 1, 1)](x, y, out, n))
raises("a file that does not exist", tkc.Error, "nope.tk", lambda: tkc.load("/nonexistent/nope.tk", context=ctx))
if not os.path.exists("/dev/nvidia0"):
    raises("the GPU where there is none says so", tkc.Error, "CUDA", lambda: tkc.Context("cuda"))

if importlib.util.find_spec("torch"):
    import torch
    t, u = torch.arange(10, dtype=torch.float32), torch.zeros(10)
    add[(1,)](t, torch.ones(10), u, 10)
    check("CPU torch tensors in the interpreter", u.tolist(), [float(i + 1) for i in range(10)])

# The C header is C (the ABI other languages bind to), and the library exports all of it.
header = os.path.join(source, "runtime", "include")
subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-fsyntax-only", "-I", header, "-x", "c", "-"], check=True,
               input=b"#include <tk/tk_c.h>\nint main(void) { return tk_c_api_version() == TK_C_API_VERSION ? 0 : 1; }\n")
print("ok  tk/tk_c.h compiles as C99")
print("tkc (Python): every check passed")

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
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from cases_elementwise import add_conversion_cases, add_float_cases, add_int_cases, add_math_cases
from cases_examples import add_descriptor_cases, add_example_cases
from cases_stdlib import add_stdlib_cases
from cases_structure import add_dtype_cases, add_run_error_cases, add_structure_cases
from numerics import bf16_from_bits
from ptxas_check import check_ptxas
from registry import CASES, ROOT, NpyV2, chosen

# The families in this order: each draws its inputs from the one RNG (registry.RNG) in turn, so
# that a case's inputs stay the same whatever is added elsewhere.
add_int_cases()
add_float_cases()
add_math_cases()
add_conversion_cases()
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

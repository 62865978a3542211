#!/usr/bin/env python3
"""Memory-bound kernels on the GPU: tk (through `tkc run --backend=cuda --time`) against Triton
and torch measured in the same run. Every output is checked against torch before anything is
timed. Prints one table (kernel, shape, tk, Triton, ratio, torch) and writes JSON.

    gpu_bench.py --tkc PATH [--json OUT] [--quick]
"""
import argparse
import json
import time
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import triton
import triton.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Triton's compile-time comparison starts from an empty cache.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")


@triton.jit
def triton_copy(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)


@triton.jit
def triton_add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@triton.jit
def triton_softmax(x, y, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    v = tl.load(x + row * stride + cols, mask=m, other=-float("inf"))
    e = tl.exp(v - tl.max(v, 0))
    tl.store(y + row * stride + cols, e / tl.sum(e, 0), mask=m)


@triton.jit
def triton_layernorm(x, y, w, b, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    xv = tl.load(x + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(xv, 0) / n_cols
    diff = tl.where(m, xv - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(diff * diff, 0) / n_cols + eps)
    wv = tl.load(w + cols, mask=m, other=0.0).to(tl.float32)
    bv = tl.load(b + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(y + row * stride + cols, (diff * rstd * wv + bv).to(tl.float16), mask=m)


@triton.jit
def triton_rmsnorm(x, y, w, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    xv = tl.load(x + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    rstd = 1 / tl.sqrt(tl.sum(xv * xv, 0) / n_cols + eps)
    wv = tl.load(w + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(y + row * stride + cols, (xv * rstd * wv).to(tl.float16), mask=m)


WARPS = (4, 8, 16)  # the space both tk and Triton are tuned over


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


TK_ALL = {}


def tune_tk(run, check_output, label=None):
    """Best median time over num_warps in WARPS; every config's output is checked first."""
    best = None
    for w in WARPS:
        ms, out = run(w)
        check_output(out)
        TK_ALL.setdefault(label or "?", {})[w] = ms
        if best is None or ms < best[0]:
            best = (ms, w)
    return best


def tune_triton(launch, check_output):
    best = None
    for w in WARPS:
        launch(w)
        torch.cuda.synchronize()
        check_output()
        ms = bench(lambda: launch(w))
        if best is None or ms < best[0]:
            best = (ms, w)
    return best


def run_tk(tkc, tmp, example, kernel, grid, args, defines, saves, runs=100):
    cmd = [tkc, "run", os.path.join(ROOT, "examples", example), "--kernel", kernel, "--grid", grid,
           "--backend=cuda", "--time", str(runs)]
    for k, v in defines.items():
        cmd += ["-D", "%s=%s" % (k, v)]
    for name, value in args.items():
        if isinstance(value, np.ndarray):
            path = os.path.join(tmp, name + ".npy")
            np.save(path, value)
            cmd.append("%s=@%s" % (name, path))
        else:
            cmd.append("%s=%s" % (name, value))
    outputs = {}
    for name in saves:
        outputs[name] = os.path.join(tmp, name + ".out.npy")
        cmd += ["--save", "%s=%s" % (name, outputs[name])]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("tkc failed: %s\n%s" % (" ".join(cmd), proc.stderr))
    ms = float(re.search(r": ([0-9.e+-]+) ms \(median", proc.stderr).group(1))
    return ms, {k: np.load(v) for k, v in outputs.items()}


def check(name, got, want, rtol, atol):
    got = torch.as_tensor(got).float().cuda().reshape(want.shape)
    err = ((got - want.float()).norm() / want.float().norm()).item()
    if not torch.allclose(got, want.float(), rtol=rtol, atol=atol) or err != err:
        raise RuntimeError("%s: output differs from the reference (relative error %.3g)" % (name, err))
    return err


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tkc", required=True)
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    rows = []
    gib = 1 << 30
    with tempfile.TemporaryDirectory(prefix="tk-bench-") as tmp:
        # The ceiling: a device-to-device copy.
        n = (gib // 8) if not args.quick else 1 << 24
        src = torch.randn(n, device="cuda")
        dst = torch.empty_like(src)
        copy_ms = bench(lambda: dst.copy_(src))
        copy_bw = 2 * n * 4 / copy_ms / 1e9
        rows.append(dict(kernel="copy (torch)", shape="%d f32" % n, tk_ms=None, peer_ms=copy_ms, peer_tbs=copy_bw))

        # Vector add: against the copy ceiling.
        n = (1 << 26) if not args.quick else 1 << 22
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        ms, out = run_tk(args.tkc, tmp, "vector_add.tk", "vector_add", "cdiv(n, BLOCK)",
                         {"x": x.cpu().numpy(), "y": y.cpu().numpy(), "out": np.zeros(n, np.float32), "n": n}, {}, ["out"])
        check("vector_add", out["out"], x + y, 0, 0)
        o = torch.empty_like(x)
        tri = bench(lambda: triton_add[(triton.cdiv(n, 1024),)](x, y, o, n, BLOCK=1024))
        eager = bench(lambda: torch.add(x, y, out=o))
        rows.append(dict(kernel="vector_add f32", shape=str(n), tk_ms=ms, peer_ms=tri, torch_ms=eager, bytes=3 * n * 4))

        # Softmax f32, about 1 GiB per tensor.
        for N in (1024, 4096, 16384):
            M = (gib // (N * 4)) if not args.quick else 256
            xs = torch.randn(M, N, device="cuda")
            ref = torch.softmax(xs, 1)
            ms, warps = tune_tk(lambda w: run_tk(args.tkc, tmp, "softmax.tk", "softmax", str(M),
                                {"x": xs.cpu().numpy(), "y": np.zeros(M * N, np.float32), "n_cols": N, "stride": N},
                                {"BLOCK": N, "num_warps": w}, ["y"]), lambda out: check("softmax %d" % N, out["y"], ref, 1e-4, 1e-6),
                                "softmax %d" % N)
            ys = torch.empty_like(xs)
            tri, tri_warps = tune_triton(lambda w: triton_softmax[(M,)](xs, ys, N, N, BLOCK=N, num_warps=w),
                                         lambda: check("triton softmax", ys, ref, 1e-4, 1e-6))
            eager = bench(lambda: torch.softmax(xs, 1, out=ys) if False else torch.softmax(xs, 1))
            rows.append(dict(kernel="softmax f32", shape="%dx%d" % (M, N), tk_ms=ms, peer_ms=tri, torch_ms=eager,
                             bytes=2 * M * N * 4, tk_warps=warps, triton_warps=tri_warps))

        # LayerNorm and RMSNorm, f16 65536 x 4096.
        M, N = (65536, 4096) if not args.quick else (512, 4096)
        xh = torch.randn(M, N, device="cuda", dtype=torch.float16)
        w = torch.randn(N, device="cuda", dtype=torch.float16)
        b = torch.randn(N, device="cuda", dtype=torch.float16)
        ref = torch.nn.functional.layer_norm(xh.float(), (N,), w.float(), b.float(), 1e-5)
        ms, warps = tune_tk(lambda wp: run_tk(args.tkc, tmp, "layernorm.tk", "layernorm", str(M),
                            {"x": xh.cpu().numpy(), "y": np.zeros(M * N, np.float16), "w": w.cpu().numpy(), "b": b.cpu().numpy(),
                             "n_cols": N, "stride": N, "eps": 1e-5}, {"BLOCK": N, "num_warps": wp}, ["y"]),
                            lambda out: check("layernorm", out["y"], ref, 2e-2, 2e-2), "layernorm")
        yh = torch.empty_like(xh)
        tri, tri_warps = tune_triton(lambda wp: triton_layernorm[(M,)](xh, yh, w, b, N, N, 1e-5, BLOCK=N, num_warps=wp),
                                     lambda: check("triton layernorm", yh, ref, 2e-2, 2e-2))
        eager = bench(lambda: torch.nn.functional.layer_norm(xh, (N,), w, b, 1e-5))
        rows.append(dict(kernel="layernorm f16", shape="%dx%d" % (M, N), tk_ms=ms, peer_ms=tri, torch_ms=eager,
                         bytes=2 * M * N * 2, tk_warps=warps, triton_warps=tri_warps))

        ref = xh.float() * torch.rsqrt((xh.float() ** 2).mean(1, keepdim=True) + 1e-6) * w.float()
        ms, warps = tune_tk(lambda wp: run_tk(args.tkc, tmp, "rmsnorm.tk", "rmsnorm", str(M),
                            {"x": xh.cpu().numpy(), "y": np.zeros(M * N, np.float16), "w": w.cpu().numpy(),
                             "n_cols": N, "stride": N, "eps": 1e-6}, {"BLOCK": N, "num_warps": wp}, ["y"]),
                            lambda out: check("rmsnorm", out["y"], ref, 2e-2, 2e-2), "rmsnorm")
        tri, tri_warps = tune_triton(lambda wp: triton_rmsnorm[(M,)](xh, yh, w, N, N, 1e-6, BLOCK=N, num_warps=wp),
                                     lambda: check("triton rmsnorm", yh, ref, 2e-2, 2e-2))
        eager = bench(lambda: torch.nn.functional.rms_norm(xh, (N,), w, 1e-6))
        rows.append(dict(kernel="rmsnorm f16", shape="%dx%d" % (M, N), tk_ms=ms, peer_ms=tri, torch_ms=eager,
                         bytes=2 * M * N * 2, tk_warps=warps, triton_warps=tri_warps))

    # Compile time: a cold tkc process to cubin against Triton's first call (empty cache), both
    # for the softmax kernel at BLOCK = 2048, which nothing above compiled.
    tk_compile = []
    for _ in range(3):
        start = time.time()
        subprocess.run([args.tkc, os.path.join(ROOT, "examples", "softmax.tk"), "--emit=cubin", "-D", "BLOCK=2048",
                        "-o", os.path.join(tempfile.gettempdir(), "softmax.cubin")], check=True)
        tk_compile.append(time.time() - start)
    xs = torch.randn(64, 2000, device="cuda")
    ys = torch.empty_like(xs)
    torch.cuda.synchronize()
    start = time.time()
    triton_softmax[(64,)](xs, ys, 2000, 2000, BLOCK=2048, num_warps=4)
    torch.cuda.synchronize()
    triton_warm = time.time() - start
    # The first Triton compile of a fresh process (imports excluded, empty cache): what a user
    # waits for on first use.
    first_call = (
        "import sys, time, torch; sys.path.insert(0, %r); import gpu_bench\n"
        "x = torch.randn(64, 2000, device='cuda'); y = torch.empty_like(x); torch.cuda.synchronize()\n"
        "t = time.time(); gpu_bench.triton_softmax[(64,)](x, y, 2000, 2000, BLOCK=2048, num_warps=4)\n"
        "torch.cuda.synchronize(); print(time.time() - t)" % os.path.dirname(os.path.abspath(__file__)))
    fresh = []
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", first_call], capture_output=True, text=True, check=True)
        fresh.append(float(proc.stdout.strip().splitlines()[-1]))
    triton_compile = sorted(fresh)[1]
    tk_c = sorted(tk_compile)[1]
    print("compile softmax to cubin: tk %.3f s (cold process, median of 3); Triton first call in a fresh process %.3f s "
          "(median of 3; %.1fx tk), in a process that already compiled it at other sizes %.3f s (%.1fx tk)"
          % (tk_c, triton_compile, triton_compile / tk_c, triton_warm, triton_warm / tk_c))
    print("tk times per num_warps (ms):", json.dumps(TK_ALL))
    print("%-16s %-14s %10s %10s %10s %8s %10s %6s" % ("kernel", "shape", "tk TB/s", "Triton", "torch", "tk/Tri", "tk ms", "warps"))
    for r in rows:
        if r["tk_ms"] is None:
            print("%-16s %-14s %10s %10.3f %10s %8s %10s" % (r["kernel"], r["shape"], "-", r["peer_tbs"], "-", "-", "-"))
            continue
        tk_bw, tri_bw, torch_bw = (r["bytes"] / (t * 1e-3) / 1e12 for t in (r["tk_ms"], r["peer_ms"], r["torch_ms"]))
        r.update(tk_tbs=tk_bw, triton_tbs=tri_bw, torch_tbs=torch_bw, ratio=tk_bw / tri_bw)
        warps = "%s/%s" % (r.get("tk_warps", 4), r.get("triton_warps", 4))
        print("%-16s %-14s %10.3f %10.3f %10.3f %8.3f %10.4f %6s" % (r["kernel"], r["shape"], tk_bw, tri_bw, torch_bw, tk_bw / tri_bw, r["tk_ms"], warps))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(rows=rows, tk_compile_s=tk_c, triton_compile_s=triton_compile, triton_warm_compile_s=triton_warm, tk_per_warps=TK_ALL, gpu=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__), f, indent=1)


if __name__ == "__main__":
    sys.exit(main())

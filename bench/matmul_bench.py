#!/usr/bin/env python3
"""f16 and bf16 matmul: tk's examples/matmul.tk against Triton's mma.sync path
(DISABLE_MMA_V3=1; with --triton-wgmma, Triton's default Hopper path) over the same configs (tiles, warps, stages) and cuBLAS through torch, in one
process; every output is checked against cuBLAS (relative error) before timing. Shapes are
M=N=K sizes or MxNxK (ragged).

    matmul_bench.py --tkc PATH [--shapes 2048,4000x3000x1000] [--dtypes f16,bf16]   (GPU machine)
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

import sys

# Triton's Hopper wgmma off (its mma.sync path, the bar) unless --triton-wgmma asks for
# Triton's default; set before Triton is imported.
TRITON_WGMMA = "--triton-wgmma" in sys.argv
if not TRITON_WGMMA:
    os.environ["DISABLE_MMA_V3"] = "1"

import numpy as np
import torch
import triton
import triton.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3), (128, 128, 32, 4, 4), (128, 128, 64, 4, 3),
           (128, 128, 64, 4, 4), (128, 128, 64, 8, 3), (64, 128, 32, 4, 4), (128, 64, 64, 4, 4)]  # BM, BN, BK, warps, stages


@triton.jit
def triton_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    group_size = GROUP_M * num_pid_n
    first_m = (pid // group_size) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size) % group_m
    pid_n = (pid % group_size) // group_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * K + rk[None, :]  # row-major A (M x K), B (K x N), C (M x N)
    pb = b + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        k_left = K - k * BK
        ta = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        tb = tl.load(pb, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(ta, tb)
        pa += BK
        pb += BK * N
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def rel_error(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def save(path, t):
    """A tensor as .npy; bf16 as its bit patterns (<u2), which tkc reads as bf16."""
    if t.dtype == torch.bfloat16:
        np.save(path, t.view(torch.int16).cpu().numpy().view(np.uint16))
    else:
        np.save(path, t.cpu().numpy())


def load(path, dtype):
    arr = np.load(path)
    if dtype == torch.bfloat16:
        return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(arr)


def parse_shape(text):
    dims = [int(x) for x in text.split("x")]
    return tuple(dims * 3) if len(dims) == 1 else tuple(dims)


def run_tk(args, source, tmp, m, n, k, dtype_name, config):
    bm, bn, bk, warps, stages = config
    out = os.path.join(tmp, "c.npy")
    cmd = [args.tkc, "run", source, "--kernel", "matmul", "--grid", "cdiv(M, BM) * cdiv(N, BN)", "--backend=cuda",
           "--time", "20", "-D", "BM=%d" % bm, "-D", "BN=%d" % bn, "-D", "BK=%d" % bk, "-D", "num_warps=%d" % warps,
           "-D", "num_stages=%d" % stages, "a=@" + os.path.join(tmp, "a.npy"), "b=@" + os.path.join(tmp, "b.npy"),
           "c=zeros:%s:%dx%d" % (dtype_name, m, n), "M=%d" % m, "N=%d" % n, "K=%d" % k, "lda=%d" % k, "ldb=%d" % n,
           "ldc=%d" % n, "--save", "c=" + out]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr[-500:]
    ms = float(re.search(r": ([0-9.e+-]+) ms \(median", proc.stderr).group(1))
    return ms, out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tkc", required=True)
    parser.add_argument("--shapes", "--sizes", default="2048,4096")
    parser.add_argument("--dtypes", default="f16")
    parser.add_argument("--json")
    parser.add_argument("--triton-wgmma", action="store_true", help="Triton's default (wgmma) path as the peer")
    args = parser.parse_args()
    peer = "Triton wgmma" if TRITON_WGMMA else "Triton mma.sync"
    torch.manual_seed(0)
    rows = []
    with open(os.path.join(ROOT, "examples", "matmul.tk")) as f:
        f16_source = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        for dtype_name in args.dtypes.split(","):
            dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
            source = os.path.join(tmp, "matmul_%s.tk" % dtype_name)
            with open(source, "w") as f:
                f.write(f16_source.replace("f16", dtype_name))
            for shape in args.shapes.split(","):
                m, n, k = parse_shape(shape)
                a = torch.randn(m, k, device="cuda", dtype=dtype)
                b = torch.randn(k, n, device="cuda", dtype=dtype)
                ref = a @ b
                flops = 2 * m * n * k
                cublas = bench(lambda: a @ b)
                save(os.path.join(tmp, "a.npy"), a)
                save(os.path.join(tmp, "b.npy"), b)
                best_tk, best_tri = None, None
                label = "%s %s" % (dtype_name, shape)
                for config in CONFIGS:
                    bm, bn, bk, warps, stages = config
                    ms, out = run_tk(args, source, tmp, m, n, k, dtype_name, config)
                    if ms is None:
                        print("tk config %s failed: %s" % (config, out))
                    else:
                        err = rel_error(load(out, dtype).cuda().reshape(m, n), ref)
                        print("tk     %-16s %-22s %8.3f ms %7.1f TFLOP/s  rel err %.2e" % (label, config, ms, flops / ms / 1e9, err))
                        if err < 1e-2 and (best_tk is None or ms < best_tk[0]):
                            best_tk = (ms, config)
                    c = torch.empty_like(ref)
                    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
                    run = lambda: triton_matmul[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, GROUP_M=8, num_warps=warps,
                                                      num_stages=stages)
                    try:
                        run()
                    except Exception as e:  # a config Triton cannot fit (shared memory)
                        print("triton config %s failed: %s" % (config, str(e)[:200]))
                        continue
                    err = rel_error(c, ref)
                    tms = bench(run)
                    print("triton %-16s %-22s %8.3f ms %7.1f TFLOP/s  rel err %.2e" % (label, config, tms, flops / tms / 1e9, err))
                    if err < 1e-2 and (best_tri is None or tms < best_tri[0]):
                        best_tri = (tms, config)
                row = dict(dtype=dtype_name, shape=[m, n, k], peer=peer, cublas_ms=cublas, tk_ms=best_tk and best_tk[0],
                           tk_config=best_tk and best_tk[1], triton_ms=best_tri and best_tri[0],
                           triton_config=best_tri and best_tri[1])
                rows.append(row)
                tf = lambda ms: flops / ms / 1e9 if ms else float("nan")
                print("shape %s: tk %.1f TFLOP/s, %s %.1f, cuBLAS %.1f; tk/Triton %.3f, tk/cuBLAS %.3f" %
                      (label, tf(row["tk_ms"]), peer, tf(row["triton_ms"]), tf(cublas),
                       (row["triton_ms"] / row["tk_ms"]) if row["tk_ms"] else float("nan"),
                       (cublas / row["tk_ms"]) if row["tk_ms"] else float("nan")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

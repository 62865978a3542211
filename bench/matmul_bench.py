#!/usr/bin/env python3
"""f16 matmul, M = N = K: tk's examples/matmul.tk (each of its @autotune configs) against
Triton's mma.sync path (DISABLE_MMA_V3=1, the same four configs) and cuBLAS through torch, in
one process; every output is checked against cuBLAS (relative error) before timing.

    matmul_bench.py --tkc PATH [--sizes 2048,4096]     (on the GPU machine)
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

os.environ["DISABLE_MMA_V3"] = "1"  # Triton's Hopper wgmma off: its mma.sync path, tk's bar

import numpy as np
import torch
import triton
import triton.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [(128, 256, 64, 8), (128, 128, 32, 4), (64, 128, 32, 4), (128, 64, 64, 4)]  # BM, BN, BK, warps


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
    pa = a + rm[:, None] * K + rk[None, :]
    pb = b + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        k_left = K - k * BK
        ta = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        tb = tl.load(pb, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(ta, tb)
        pa += BK
        pb += BK * N
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def rel_error(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tkc", required=True)
    parser.add_argument("--sizes", default="2048,4096")
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.manual_seed(0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            a = torch.randn(size, size, device="cuda", dtype=torch.float16)
            b = torch.randn(size, size, device="cuda", dtype=torch.float16)
            ref = a @ b
            flops = 2 * size ** 3
            cublas = bench(lambda: a @ b)
            np.save(os.path.join(tmp, "a.npy"), a.cpu().numpy())
            np.save(os.path.join(tmp, "b.npy"), b.cpu().numpy())
            best_tk, best_tri = None, None
            for bm, bn, bk, warps in CONFIGS:
                out = os.path.join(tmp, "c.npy")
                cmd = [args.tkc, "run", os.path.join(ROOT, "examples", "matmul.tk"), "--kernel", "matmul",
                       "--grid", "cdiv(M, BM) * cdiv(N, BN)", "--backend=cuda", "--time", "20",
                       "-D", "BM=%d" % bm, "-D", "BN=%d" % bn, "-D", "BK=%d" % bk, "-D", "num_warps=%d" % warps,
                       "a=@" + os.path.join(tmp, "a.npy"), "b=@" + os.path.join(tmp, "b.npy"),
                       "c=zeros:f16:%dx%d" % (size, size), "M=%d" % size, "N=%d" % size, "K=%d" % size,
                       "lda=%d" % size, "ldb=%d" % size, "ldc=%d" % size, "--save", "c=" + out]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    print("tk config %s failed: %s" % ((bm, bn, bk, warps), proc.stderr[-500:]))
                    continue
                err = rel_error(torch.from_numpy(np.load(out)).cuda().reshape(size, size), ref)
                ms = float(re.search(r": ([0-9.e+-]+) ms \(median", proc.stderr).group(1))
                print("tk     %5d %-18s %8.3f ms %7.1f TFLOP/s  rel err %.2e" % (size, (bm, bn, bk, warps), ms, flops / ms / 1e9, err))
                if err < 1e-2 and (best_tk is None or ms < best_tk[0]):
                    best_tk = (ms, (bm, bn, bk, warps))
                c = torch.empty_like(ref)
                grid = (triton.cdiv(size, bm) * triton.cdiv(size, bn),)
                run = lambda: triton_matmul[grid](a, b, c, size, size, size, BM=bm, BN=bn, BK=bk, GROUP_M=8, num_warps=warps,
                                                  num_stages=3)
                run()
                err = rel_error(c, ref)
                tms = bench(run)
                print("triton %5d %-18s %8.3f ms %7.1f TFLOP/s  rel err %.2e" % (size, (bm, bn, bk, warps), tms, flops / tms / 1e9, err))
                if err < 1e-2 and (best_tri is None or tms < best_tri[0]):
                    best_tri = (tms, (bm, bn, bk, warps))
            row = dict(size=size, cublas_ms=cublas, tk_ms=best_tk and best_tk[0], tk_config=best_tk and best_tk[1],
                       triton_ms=best_tri and best_tri[0], triton_config=best_tri and best_tri[1])
            rows.append(row)
            tf = lambda ms: flops / ms / 1e9 if ms else float("nan")
            print("size %d: tk %.1f TFLOP/s, Triton mma.sync %.1f, cuBLAS %.1f; tk/Triton %.3f, tk/cuBLAS %.3f" %
                  (size, tf(row["tk_ms"]), tf(row["triton_ms"]), tf(cublas),
                   (row["triton_ms"] / row["tk_ms"]) if row["tk_ms"] else float("nan"),
                   (cublas / row["tk_ms"]) if row["tk_ms"] else float("nan")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

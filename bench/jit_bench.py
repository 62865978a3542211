#!/usr/bin/env python3
"""The JIT's host costs against Triton and torch, in one run on the GPU machine:
  launch     host time of one launch of a cached kernel (tk: Google Benchmark in tk-jit-bench,
             vector add and a TMA matmul;
             Triton and torch add_: 256 launches between synchronizations, median of 200 batches)
  first      a warm process's first launch of a matmul (tk already used by the process for
             another kernel), and the process's first use of tk: from a cold and a warm disk cache;
             Triton's first launch of the matmul from a cold and a warm TRITON_CACHE_DIR
  tune       autotuning 10 matmul configs at 4096^3 on first use (compile + time), tk and Triton,
             then tk's second process (the tuning database)

    jit_bench.py --bench PATH/tk-jit-bench [--json OUT.json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

TRITON_FIRST = r'''
import os, sys, time, torch, triton
sys.path.insert(0, sys.argv[1])
from triton_kernels import matmul_kernel
n = 512
a = torch.randn(n, n, device="cuda", dtype=torch.float16); b = torch.randn(n, n, device="cuda", dtype=torch.float16)
c = torch.empty(n, n, device="cuda", dtype=torch.float16); torch.cuda.synchronize()
start = time.perf_counter()
matmul_kernel[(triton.cdiv(n, 128) * triton.cdiv(n, 128),)](a, b, c, n, n, n, n, 1, n, 1, n, 1, BM=128, BN=128, BK=32, GROUP_M=8, num_warps=4, num_stages=4)
torch.cuda.synchronize()
ms = (time.perf_counter() - start) * 1e3
assert (c.float() - a.float() @ b.float()).abs().max().item() < 0.5
print(f"{ms:.3f}")
'''

TRITON_TUNE = r'''
import os, sys, time, torch, triton
sys.path.insert(0, sys.argv[1])
from triton_kernels import matmul_kernel
space = [(128, 256, 64, 8, 3), (128, 128, 32, 4, 4), (128, 128, 64, 4, 3), (128, 128, 64, 8, 3), (64, 128, 32, 4, 4),
         (128, 64, 64, 4, 4), (64, 64, 32, 4, 4), (128, 128, 32, 8, 3), (64, 256, 32, 8, 3), (256, 128, 32, 8, 3)]
configs = [triton.Config({"BM": m, "BN": n, "BK": k}, num_warps=w, num_stages=s) for m, n, k, w, s in space]
tuned = triton.autotune(configs=configs, key=["M", "N", "K"])(matmul_kernel)
n = int(sys.argv[2])
a = torch.randn(n, n, device="cuda", dtype=torch.float16); b = torch.randn(n, n, device="cuda", dtype=torch.float16)
c = torch.empty(n, n, device="cuda", dtype=torch.float16); torch.cuda.synchronize()
grid = lambda meta: (triton.cdiv(n, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
start = time.perf_counter()
tuned[grid](a, b, c, n, n, n, n, 1, n, 1, n, 1, GROUP_M=8)
torch.cuda.synchronize()
seconds = time.perf_counter() - start
ref = a.float() @ b.float()
assert ((c.float() - ref).norm() / ref.norm()).item() < 1e-2
print(f"{seconds:.3f} {tuned.best_config}")
'''


def launch_host_us(fn, sync):
    for _ in range(100):
        fn()
    sync()
    per = []
    for _ in range(200):
        start = time.perf_counter()
        for _ in range(256):
            fn()
        per.append((time.perf_counter() - start) / 256 * 1e6)
        sync()
    return statistics.median(per)


def peers_launch():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add(x, y, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out + offs, tl.load(x + offs, mask=offs < n) + tl.load(y + offs, mask=offs < n), mask=offs < n)

    n = 1024
    x = torch.full((n,), 1.5, device="cuda")
    y = torch.full((n,), 2.0, device="cuda")
    out = torch.empty_like(x)
    add[(1,)](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.all(out == 3.5)
    triton_us = launch_host_us(lambda: add[(1,)](x, y, out, n, BLOCK=1024), torch.cuda.synchronize)
    torch_us = launch_host_us(lambda: x.add_(y), torch.cuda.synchronize)
    return triton_us, torch_us


def run(cmd, env=None):
    result = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if result.returncode != 0:
        raise RuntimeError(f"{cmd} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    parser.add_argument("--json")
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    results = {}

    out = run([args.bench, "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
               "--benchmark_format=json", "--benchmark_min_time=0.5"])
    for b in json.loads(out)["benchmarks"]:
        if b["aggregate_name"] == "median":
            results["tk " + b["run_name"]] = b["real_time"] / 1e3  # ns -> us
    results["triton launch"], results["torch add_"] = peers_launch()
    print(f"launch host time (us): tk {results['tk BM_LaunchCached']:.2f} "
          f"(with a constant {results['tk BM_LaunchCachedWithConstant']:.2f}; the floor, cuLaunchKernel of packed "
          f"parameters: {results['tk BM_LaunchFloor']:.2f}; a matmul by TMA, its tensor maps from the cache: "
          f"{results['tk BM_LaunchCachedTma']:.2f}, the same by cp.async: {results['tk BM_LaunchCachedCpAsync']:.2f}), "
          f"Triton {results['triton launch']:.2f}, torch add_ {results['torch add_']:.2f}")

    with tempfile.TemporaryDirectory() as tk_cache, tempfile.TemporaryDirectory() as triton_cache:
        for label in ("cold", "warm"):
            line = run([args.bench, "--first-launch", tk_cache]).strip()
            results[f"tk first launch {label} (ms)"] = float(re.search(r"([\d.]+) ms", line).group(1))
            results[f"tk first use of tk {label} (ms)"] = float(re.search(r"first use of tk .*: ([\d.]+) ms", line).group(1))
            t = run([sys.executable, "-c", TRITON_FIRST, os.path.join(ROOT, "bench")], {"TRITON_CACHE_DIR": triton_cache})
            results[f"triton first launch {label} (ms)"] = float(t.strip().splitlines()[-1])
            print(f"first launch, {label} cache: tk {line}; Triton {results[f'triton first launch {label} (ms)']:.3f} ms")

    with tempfile.TemporaryDirectory() as tk_cache, tempfile.TemporaryDirectory() as triton_cache:
        first = run([args.bench, "--tune", tk_cache, str(args.size)])
        second = run([args.bench, "--tune", tk_cache, str(args.size)])
        print(first.strip())
        print("second process:", second.strip().splitlines()[-1])
        results["tk tune (s)"] = float(re.search(r"tune: .*?: ([\d.]+) s", first).group(1))
        results["tk tune second process (s)"] = float(re.search(r"tune: .*?: ([\d.]+) s", second).group(1))
        t = run([sys.executable, "-c", TRITON_TUNE, os.path.join(ROOT, "bench"), str(args.size)],
                {"TRITON_CACHE_DIR": triton_cache}).strip().splitlines()[-1]
        results["triton tune (s)"] = float(t.split()[0])
        print(f"Triton autotune of 10 configs at {args.size}^3: {t}")

    for k, v in results.items():
        print(f"  {k}: {v:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Flash attention forward, f16, [B, H, S, D] contiguous: tk's examples/flash_attention.tk (each
config below) against torch's SDPA on its flash backend (FlashAttention-2, mma.sync), in one
process; every output is checked against torch's math attention (relative error) first.

    attention_bench.py --tkc PATH [--batch 4 --heads 32 --seq 4096] [--dims 64,128]   (GPU machine)
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# BLOCK_M, BLOCK_N, warps, stages: FA2's own tiles (128 x 64 or 128 x 128 on 4 warps) with two
# stages fit two programs per SM at head dim 128; more stages or warps trade that occupancy.
CONFIGS = [(128, 64, 8, 3), (128, 128, 8, 2), (64, 64, 4, 3), (64, 64, 4, 2), (128, 64, 4, 3), (128, 64, 4, 2),
           (128, 128, 4, 2), (128, 32, 4, 3), (128, 32, 4, 2), (64, 128, 4, 2)]


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def rel_error(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tkc", required=True)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--seq", type=int, default=4096)
    parser.add_argument("--dims", default="64,128")
    parser.add_argument("--source", default=os.path.join(ROOT, "examples", "flash_attention.tk"),
                        help="the kernel file (a variant of examples/flash_attention.tk)")
    parser.add_argument("--configs", help="BM:BN:warps:stages,... instead of the built-in list")
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.manual_seed(0)
    b, h, s = args.batch, args.heads, args.seq
    configs = CONFIGS if not args.configs else [tuple(int(x) for x in c.split(":")) for c in args.configs.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in [int(x) for x in args.dims.split(",")]:
            q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
            for name, t in (("q", q), ("k", k), ("v", v)):
                np.save(os.path.join(tmp, name + ".npy"), t.cpu().numpy())
            for causal in (False, True):
                flops = 4 * b * h * s * s * d / (2 if causal else 1)
                with sdpa_kernel(SDPBackend.MATH):
                    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal).half()
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    fa2 = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    fa2_err = rel_error(fa2(), ref)
                    fa2_ms = bench(fa2)
                label = "D=%d %s" % (d, "causal" if causal else "full")
                print("fa2    %-14s %8.3f ms %7.1f TFLOP/s  rel err %.2e" % (label, fa2_ms, flops / fa2_ms / 1e9, fa2_err))
                best = None
                for bm, bn, warps, stages in configs:
                    out = os.path.join(tmp, "o.npy")
                    cmd = [args.tkc, "run", args.source, "--kernel", "flash_attention",
                           "--grid", "cdiv(seq_len, BLOCK_M), %d" % (b * h), "--backend=cuda", "--time", "10",
                           "-D", "BLOCK_M=%d" % bm, "-D", "BLOCK_N=%d" % bn, "-D", "num_warps=%d" % warps,
                           "-D", "num_stages=%d" % stages, "-D", "HEAD_DIM=%d" % d, "-D", "CAUSAL=%s" % str(causal).lower(),
                           "q=@" + os.path.join(tmp, "q.npy"), "k=@" + os.path.join(tmp, "k.npy"), "v=@" + os.path.join(tmp, "v.npy"),
                           "o=zeros:f16:%dx%dx%dx%d" % (b, h, s, d), "seq_len=%d" % s, "scale=%r" % (d ** -0.5), "--save", "o=" + out]
                    proc = subprocess.run(cmd, capture_output=True, text=True)
                    config = (bm, bn, warps, stages)
                    if proc.returncode != 0:
                        print("tk config %s failed: %s" % (config, proc.stderr[-400:]))
                        continue
                    ms = float(re.search(r": ([0-9.e+-]+) ms \(median", proc.stderr).group(1))
                    err = rel_error(torch.from_numpy(np.load(out)).cuda().reshape(b, h, s, d), ref)
                    print("tk     %-14s %-18s %8.3f ms %7.1f TFLOP/s  rel err %.2e" % (label, config, ms, flops / ms / 1e9, err))
                    if err < 1e-2 and (best is None or ms < best[0]):
                        best = (ms, config)
                row = dict(head_dim=d, causal=causal, fa2_ms=fa2_ms, tk_ms=best and best[0], tk_config=best and best[1])
                rows.append(row)
                print("attention %s: tk %.1f TFLOP/s, FA2 %.1f; tk/FA2 %.3f" %
                      (label, flops / row["tk_ms"] / 1e9 if best else float("nan"), flops / fa2_ms / 1e9,
                       fa2_ms / row["tk_ms"] if best else float("nan")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Nsight Compute side by side of tk's and Triton's layernorm (f16 65536x4096), the one
memory-bound kernel below 0.97x Triton: registers, occupancy, throughput, stall reasons.

    profile_layernorm.py --tkc PATH [--warps 4]   (on the GPU machine; needs ncu)
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

os.environ["TK_BENCH_DIR"] = os.path.dirname(os.path.abspath(__file__))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METRICS = ",".join([
    "launch__registers_per_thread", "launch__occupancy_limit_registers", "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "smsp__average_warp_latency_issue_stalled_long_scoreboard", "smsp__average_warp_latency_issue_stalled_barrier",
    "smsp__average_warp_latency_issue_stalled_membar", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "smsp__inst_executed.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
])
TRITON = r'''
import os, sys, torch
sys.path.insert(0, os.environ["TK_BENCH_DIR"])
from triton_kernels import layernorm_kernel as triton_layernorm  # the same kernel run-all times
M, N, warps = 65536, 4096, int(sys.argv[1])
x = torch.randn(M, N, device="cuda", dtype=torch.float16); y = torch.empty_like(x)
w = torch.randn(N, device="cuda", dtype=torch.float16); b = torch.randn(N, device="cuda", dtype=torch.float16)
for _ in range(3):
    k = triton_layernorm[(M,)](x, y, w, b, N, N, 1e-5, BLOCK=N, num_warps=warps)
torch.cuda.synchronize()
print("triton registers", k.n_regs, "spills", k.n_spills, file=sys.stderr)
if len(sys.argv) > 2:
    open(sys.argv[2] + ".ptx", "w").write(k.asm["ptx"])
    open(sys.argv[2] + ".cubin", "wb").write(k.asm["cubin"])
'''


def ncu(cmd, kernel):
    full = ["ncu", "--clock-control", "none", "--kernel-name", kernel, "--launch-skip", "1", "--launch-count", "1",
            "--metrics", METRICS, "--csv"] + cmd
    proc = subprocess.run(full, capture_output=True, text=True)
    rows = {}
    for line in proc.stdout.splitlines():
        cells = [c.strip('"') for c in line.split('","')]
        if len(cells) > 3 and cells[-3] in METRICS.split(","):
            rows[cells[-3]] = cells[-1]
    if not rows:
        print(proc.stdout[-3000:], proc.stderr[-3000:])
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tkc", required=True)
    parser.add_argument("--warps", default="4")
    parser.add_argument("--dump", help="write both kernels' PTX and SASS under this prefix")
    args = parser.parse_args()
    M, N = 65536, 4096
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        for name, shape in (("x", (M, N)), ("w", (N,)), ("b", (N,))):
            np.save(os.path.join(tmp, name + ".npy"), rng.standard_normal(shape).astype(np.float16))
        tk = [args.tkc, "run", os.path.join(ROOT, "examples", "layernorm.tk"), "--kernel", "layernorm", "--grid", str(M),
              "--backend=cuda", "--time", "3", "-D", "BLOCK=%d" % N, "-D", "num_warps=" + args.warps,
              "x=@" + os.path.join(tmp, "x.npy"), "y=zeros:f16:%dx%d" % (M, N), "w=@" + os.path.join(tmp, "w.npy"),
              "b=@" + os.path.join(tmp, "b.npy"), "n_cols=%d" % N, "stride=%d" % N, "eps=1e-5"]
        script = os.path.join(tmp, "triton_ln.py")
        with open(script, "w") as f:
            f.write(TRITON)
        ours = ncu(tk, "layernorm")
        theirs = ncu([sys.executable, script, args.warps], "triton_layernorm")
        if args.dump:
            subprocess.run([sys.executable, script, args.warps, args.dump + "-triton"], check=True)
            ptx = args.dump + "-tk.ptx"
            common = ["-D", "BLOCK=%d" % N, "-D", "num_warps=" + args.warps, "--divisibility", "n_cols=16",
                      "--divisibility", "stride=16"]
            subprocess.run([args.tkc, os.path.join(ROOT, "examples", "layernorm.tk"), "--kernel", "layernorm", "--emit=ptx",
                            "-o", ptx] + common, check=True)
            subprocess.run([args.tkc, os.path.join(ROOT, "examples", "layernorm.tk"), "--kernel", "layernorm", "--emit=cubin",
                            "-o", args.dump + "-tk.cubin"] + common, check=True)
            for who in ("tk", "triton"):
                with open(args.dump + "-%s.sass" % who, "w") as f:
                    subprocess.run(["cuobjdump", "-sass", args.dump + "-%s.cubin" % who], stdout=f)
    print("%-75s %14s %14s" % ("metric (num_warps %s)" % args.warps, "tk", "triton"))
    for m in METRICS.split(","):
        print("%-75s %14s %14s" % (m, ours.get(m, "-"), theirs.get(m, "-")))


if __name__ == "__main__":
    main()

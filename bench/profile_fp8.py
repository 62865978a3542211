#!/usr/bin/env python3
"""Nsight Compute on the scaled FP8 GEMM (stdlib/std/fp8_matmul.tk's fp8_matmul_persistent, per
row and column) beside cuBLASLt's kernel behind torch._scaled_mm(use_fast_accum=True), one launch
each under ncu's base clocks (--set full). Prints one table: cycles, how busy the tensor pipe
was, what the SMs' TMA received against what L2 itself read (H100's L2 request coalescer merges
the same lines asked for by CTAs at about the same time: session 27 found clusters losing that),
instructions, and where the warps' stall samples sit by how often their instruction ran (the
k-loop's, once a tile, ...). Each report's details and SASS stay in --out.

  bench/profile_fp8.py --tkc TKC --out DIR [--shape M N K] [--config "BM BN STAGES WARPS WS CLUSTER GROUP_M" ...]

(on the GPU machine, from the repository root, TK_STDLIB_DIR set; session 27's run 2 is its
first use: bench/results/2026-12-05-h200-session27)
"""
import argparse
import collections
import csv
import io
import os
import re
import subprocess
import sys

METRICS = {
    "cycles": "Elapsed Cycles",
    "tensor %": "SM: Pipe Tensor Cycles Active",
    "TMA received (sectors)": "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum",
    "L2 tex reads (sectors)": "lts__t_sectors_srcunit_tex_op_read.sum",
    "L2 to coalescer (sectors)": "lrc__lts2lrc_sectors_op_read.sum",
    "DRAM read (MB)": "dram__bytes_read.sum",
    "warp instructions": "Instructions Executed",
}

# The Workload Distribution table's SM rows (average, busiest, idlest SM, sum over SMs). The
# busiest SM's active cycles below the kernel's elapsed ones are time no SM of that load was
# working: the launch before the CTAs start and the drain after the last ends (session 49 read
# 11-19k such cycles for tk and Triton at 8192x8192x4096 against nvjet's 3-5k).
SM_ACTIVE = "SM Active Cycles"

PEER = """
import torch
m, n, k = %d, %d, %d
a = (torch.randn(m, k, device="cuda") * 0.5).to(torch.float8_e4m3fn)
b = (torch.randn(n, k, device="cuda") * 0.5).to(torch.float8_e4m3fn)
sa = (torch.rand(m, device="cuda") + 0.5)[:, None].contiguous()
sb = (torch.rand(n, device="cuda") + 0.5)[None, :].contiguous()
for _ in range(3):
    torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=True)
torch.cuda.synchronize()
"""


def ncu(out, name, kernel_regex, command):
    """One launch under `ncu --set full`; returns the report's details page."""
    report = os.path.join(out, name)
    subprocess.run(["ncu", "--set", "full", "--import-source", "no", "-k", "regex:" + kernel_regex, "--launch-count", "1",
                    "-f", "-o", report] + command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, timeout=300,
                   env=dict(os.environ, TK_CACHE_DIR=""))
    details = subprocess.run(["ncu", "--import", report + ".ncu-rep", "--page", "details", "--print-details", "all"],
                             capture_output=True, text=True).stdout
    with open(report + "-details.txt", "w") as f:
        f.write(details)
    sass = subprocess.run(["ncu", "--import", report + ".ncu-rep", "--page", "source", "--csv", "--print-source", "sass"],
                          capture_output=True, text=True).stdout
    with open(report + "-sass.csv", "w") as f:
        f.write(sass)
    return details, sass


def metric(details, label):
    """The first value the details page gives `label` (commas dropped)."""
    match = re.search(r"^\s+" + re.escape(label) + r"\s{2,}\S+\s{2,}([-\d.,]+)\s*$", details, re.M)
    return match.group(1).replace(",", "") if match else "-"


def sm_active(details):
    """The SM active cycles of the Workload Distribution table: (average, max, min) or None."""
    table = details.split("Table Name : Workload Distribution", 1)
    if len(table) < 2:
        return None
    values = re.findall(r"^\s+" + SM_ACTIVE + r"\s+cycle\s+([\d.,]+)\s*$", table[1], re.M)
    if len(values) < 3:
        return None
    return tuple(float(v.replace(",", "")) for v in values[:3])


def idle_rows(details):
    """The rows this report adds beside METRICS: SM active cycles (average / busiest / idlest)
    and the elapsed cycles past the busiest SM's."""
    active = sm_active(details)
    elapsed = metric(details, "Elapsed Cycles")
    if active is None or elapsed == "-":
        return "-", "-"
    return "%.0f / %.0f / %.0f" % active, "%.0f" % (float(elapsed) - active[1])


def samples_by_count(sass):
    """Stall samples grouped by how many times their instruction ran, largest groups first."""
    rows = list(csv.reader(io.StringIO(sass)))
    header = next((r for r in rows if "Instructions Executed" in r), None)
    if header is None:
        return []
    at = rows.index(header)
    executed, sampled = header.index("Instructions Executed"), header.index("Warp Stall Sampling (All Samples)")
    groups = collections.Counter()
    for row in rows[at + 1:]:
        if len(row) > sampled and row[sampled].isdigit():
            groups[int(row[executed] or 0)] += int(row[sampled])
    total = sum(groups.values()) or 1
    return [(count, 100.0 * s / total) for count, s in groups.most_common(4)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tkc", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--shape", nargs=3, type=int, default=[8192, 8192, 4096])
    parser.add_argument("--config", action="append",
                        help='"BM BN STAGES WARPS WS CLUSTER GROUP_M" (default: 128x128 with a producer, 5 stages)')
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    m, n, k = args.shape
    # (workspace: STREAM_K's slots for up to 264 programs of 128x256 tiles, the device tool's
    # 132-multiprocessor GPUs; counters: one a tile of 64x64 or more)
    operands = ("a=rand:f8e4m3:{m}x{k} b=rand:f8e4m3:{n}x{k} c=zeros:bf16:{m}x{n} scale_a=rand:f32:{m} scale_b=rand:f32:{n} "
                "bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:8650752 counters=zeros:i32:{t} "
                "M={m} N={n} K={k} lda={k} ldb={k} ldc={n} "
                "ldr={n} ldm={n}").format(m=m, n=n, k=k, t=(m // 64 + 1) * (n // 64 + 1)).split()
    columns = {}
    for config in args.config or ["128 128 5 4 1 1 8"]:
        bm, bn, stages, warps, ws, cluster, group = config.split()
        programs = 264 if ws == "3" else 132
        name = "tk-%sx%s-s%s-ws%s-cl%s-g%s" % (bm, bn, stages, ws, cluster, group)
        columns[name] = ncu(args.out, name, "fp8_matmul", [
            args.tkc, "run", "stdlib/std/fp8_matmul.tk", "--kernel", "fp8_matmul_persistent", "--grid", str(programs),
            "-D", "BM=" + bm, "-D", "BN=" + bn, "-D", "BK=128", "-D", "num_stages=" + stages, "-D", "num_warps=" + warps,
            "-D", "warp_specialize=" + ws, "-D", "cluster_size=" + cluster, "-D", "GROUP_M=" + group,
            "-D", "SCALE_MODE=1"] + operands)
    peer = os.path.join(args.out, "peer.py")
    with open(peer, "w") as f:
        f.write(PEER % (m, n, k))
    columns["cuBLASLt"] = ncu(args.out, "cublaslt", "nvjet|gemm|sm90", [sys.executable, peer])
    print("%dx%dx%d per row/column, one launch each under Nsight Compute's base clocks" % (m, n, k))
    print("| | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for label, name in METRICS.items():
        print("| %s | %s |" % (label, " | ".join(metric(details, name) for details, _ in columns.values())))
    idle = [idle_rows(details) for details, _ in columns.values()]
    print("| SM active cycles (average / busiest / idlest SM) | %s |" % " | ".join(row[0] for row in idle))
    print("| elapsed cycles past the busiest SM's | %s |" % " | ".join(row[1] for row in idle))
    print("| stall samples by instruction count | %s |" % " | ".join(
        ", ".join("%d: %.0f%%" % group for group in samples_by_count(sass)) for _, sass in columns.values()))


if __name__ == "__main__":
    main()

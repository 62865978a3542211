#!/usr/bin/env python3
"""Every benchmark in one run on the GPU machine (`bench/run-all` calls this): tk against its
strongest peers (bench/peers.py), row by row in the same run, every output checked against a
reference (an output that fails has no number), both timing methods, a roofline for every row
(report.py computes it).

    run_all.py --bin DIR --out DIR [--quick] [SECTION...]
    sections: memory matmul attention llama jit llm (default: all); the ceilings are always measured

Writes OUT/summary.json (every number), OUT/summary.md (the tables, bench/report.py) and
OUT/log.txt. A row whose tk or peer fails is kept with the error, never silently dropped.
"""
import argparse
import contextlib
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import llama_torch  # noqa: E402
import peers  # noqa: E402
import report  # noqa: E402
import tkc  # noqa: E402  (runtime/python, the package bench/run-all puts on PYTHONPATH)



def autotune_configs(example, kernel):
    """The @autotune configs of `kernel` in examples/`example` (or at that absolute path), as dicts of
    integers."""
    with open(os.path.join(ROOT, "examples", example)) as f:
        source = f.read()
    for configs, name in re.findall(r"@autotune\(key = \[[^\]]*\], configs = \[(.*?)\]\)\s*kernel (\w+)\(", source, re.S):
        if name == kernel:
            return [{k: int(v) for k, v in re.findall(r"(\w+): (\d+)", c)} for c in re.findall(r"\{([^}]*)\}", configs)]
    raise RuntimeError("no @autotune configs of %s in examples/%s" % (kernel, example))


def ordered(kernel, values):
    """The arguments of `kernel` in its parameters' order, from a dict by parameter name."""
    missing = [name for name, _ in kernel.params if name not in values]
    if missing or len(values) != len(kernel.params):
        raise RuntimeError("kernel %s takes %s; the benchmark gives %s" % (kernel.name, kernel.params, sorted(values)))
    return [values[name] for name, _ in kernel.params]


def split_k_buffers(m, n):
    """Sizes of matmul_split_k's workspace (f32) and counters (i32) that fit every config it
    may be tuned over: the kernel indexes them without bounds."""
    configs = autotune_configs("matmul.tk", "matmul_split_k")
    workspace = max(c["SPLIT_K"] for c in configs) * m * n
    counters = max(-(-m // c["BM"]) * -(-n // c["BN"]) for c in configs)
    return workspace, counters

SECTIONS = ["memory", "matmul", "fp8", "attention", "jit", "llama", "llm"]  # the model sections last: their compiles take the longest
LLAMA_GEMMS = [(12288, 4096), (4096, 4096), (11008, 4096), (4096, 11008)]  # N x K of QKV, O, gate/up, down
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
# Relative L2 error allowed against an f32 reference: about 5x (f16) and 2.5x (bf16) what the
# 2026-12-01 run saw for every contender (2e-4, 2.3e-3): a wrong tile or mask is far above.
TOLERANCE = {"f16": 1e-3, "bf16": 6e-3}


def log(*parts):
    print(*parts, flush=True)


def save_npy(path, t):
    """A tensor as .npy; bf16 as its bit patterns (<u2), which tk reads as bf16."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        np.save(path, t.view(torch.int16).cpu().numpy().view(np.uint16))
    else:
        np.save(path, t.cpu().numpy())
    return path


def load_npy(path, dtype):
    arr = np.load(path)
    if dtype == torch.bfloat16:
        return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16).cuda()
    return torch.from_numpy(arr).cuda()


def persistent_programs(sms, meta):
    """A persistent kernel's programs: one a multiprocessor, or with two programs a CTA
    (warp_specialize 3) as many as are resident on each (both of its CTA's)."""
    if meta.get("warp_specialize") == 3:
        return sms * meta["resident_programs_per_multiprocessor"]
    return sms


class Bench:
    def __init__(self, args):
        self.args = args
        self.context = tkc.default_context("cuda")
        self.modules = {}
        self.timer = peers.Timer()
        self.tmp = tempfile.mkdtemp(prefix="tk-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.rows = []
        self.ceilings = {}
        self.notes = []

    # -- running tk: in this process, through the tkc package (runtime/python) ------------------
    def kernel(self, source, name):
        """A kernel of a .tk file, its module loaded once per run."""
        if source not in self.modules:
            self.modules[source] = tkc.load(source, context=self.context)
        return self.modules[source].kernel(name)

    def tk_measure(self, kernel, grid, values, constants, reps, output, check, tune=False):
        """The kernel launched as a user launches it, kernel[grid](*args, **constants), on
        torch's current stream: tuned first when asked (the report comes back); its output
        (NaN before) checked, then timed by the peers' own timer. Returns (timing, error,
        report, launch): the launch for a section that times its contenders again together."""
        args = ordered(kernel, values)
        report = kernel.tune(grid, *args, **constants) if tune else None
        output.fill_(float("nan"))  # a launch that writes nothing cannot pass on an earlier output
        launch = lambda: kernel[grid](*args, **constants)  # noqa: E731
        launch()
        torch.cuda.synchronize()
        error = check()
        return self.timer.time(launch, reps), error, report, launch

    def source_for(self, example, dtype_name):
        """The example, with its f16 types renamed when another dtype is benchmarked."""
        path = os.path.join(ROOT, "examples", example)
        if dtype_name == "f16":
            return path
        out = os.path.join(self.tmp, example.replace(".tk", "_%s.tk" % dtype_name))
        with open(path) as f:
            text = f.read().replace("f16", dtype_name)
        with open(out, "w") as f:
            f.write(text)
        return out

    def row(self, section, label, **fields):
        row = dict(section=section, label=label, peers={}, errors={}, **fields)
        self.rows.append(row)
        return row

    def peer(self, row, name, context, fn, check, reps, flush=True, graph=True):
        """Checks the peer's output first (check() returns the error), then times it."""
        try:
            with context():
                fn()
                torch.cuda.synchronize()
                row["errors"][name] = check()
                row["peers"][name] = self.timer.time(fn, reps, flush=flush, graph=graph)
        except Exception as e:  # a peer that cannot run this row (a backend's limits) says so
            row["peers"][name] = dict(failed=str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
            log("  %s failed: %s" % (name, row["peers"][name]["failed"]))

    def interleave(self, row, launches, reps):
        """Times the contenders of `row` that ran and passed (tk under the name "tk") again,
        interleaved: per call (peers.Timer.per_call_interleaved) and back to back from their
        CUDA graphs (back_to_back_interleaved), keeping each one's earlier medians as
        per_call_block_ms and back_to_back_block_ms."""
        entries = {name: (row["tk"] if name == "tk" else row["peers"].get(name)) for name in launches}
        ran = {name: launches[name] for name, entry in entries.items() if entry and "per_call_ms" in entry}
        if len(ran) < 2:
            return
        for name, ms in self.timer.per_call_interleaved(ran, reps).items():
            entries[name]["per_call_block_ms"] = entries[name]["per_call_ms"]
            entries[name]["per_call_ms"] = ms
        graphed = {name: fn for name, fn in ran.items() if entries[name].get("back_to_back") == "graph"}
        for name, ms in self.timer.back_to_back_interleaved(graphed, reps).items():
            entries[name]["back_to_back_block_ms"] = entries[name]["back_to_back_ms"]
            entries[name]["back_to_back_ms"] = ms
        row["per_call"] = "interleaved"

    def finish(self, row):
        tk = row.get("tk") or {}
        best = report.best_peer(row)
        parts = ["%s %-32s" % (row["section"], row["label"])]
        if tk.get("per_call_ms"):
            parts.append("tk %.4f/%.4f ms" % (tk["per_call_ms"], tk["back_to_back_ms"]))
        for name, t in row["peers"].items():
            if "per_call_ms" in t:
                parts.append("%s %.4f/%.4f" % (name, t["per_call_ms"], t["back_to_back_ms"]))
        if best and tk.get("per_call_ms"):
            parts.append("ratio %.3f / %.3f" % report.ratios(row))
        log("  ".join(parts))

    @contextlib.contextmanager
    def failures_kept(self, row):
        """A row whose tk or reference fails keeps the error and the peers measured so far."""
        try:
            yield
        except Exception as e:
            row["failed"] = str(e)[:500]
            log("  %s: %s" % (row["label"], traceback.format_exc()[-800:]))
        self.finish(row)

    # -- sections ------------------------------------------------------------------------------
    def ceilings_section(self):
        self.ceilings["copy_tbs"] = peers.copy_bandwidth(self.timer)
        for name, dtype in DTYPES.items():
            self.ceilings["gemm_%s_tflops" % name] = peers.gemm_peak(self.timer, dtype)
        log("ceilings: copy %.3f TB/s, cuBLAS 8192^3 f16 %.1f TFLOP/s, bf16 %.1f TFLOP/s" %
            (self.ceilings["copy_tbs"], self.ceilings["gemm_f16_tflops"], self.ceilings["gemm_bf16_tflops"]))

    def memory_section(self):
        import triton
        import triton_kernels as tk_triton
        quick = self.args.quick
        warps_space = (4, 8, 16)

        def tune_tk(row, example, kernel, grid, values, constants, out, check, reps):
            best = None
            k = self.kernel(os.path.join(ROOT, "examples", example), kernel)
            for w in warps_space:
                timing, err, _, _ = self.tk_measure(k, grid, values, dict(constants, num_warps=w), reps, out, check)
                row.setdefault("tk_configs", {})["num_warps=%d" % w] = timing
                if best is None or timing["per_call_ms"] < best["per_call_ms"]:
                    best = dict(timing, config="num_warps=%d" % w, error=err)
            row["tk"] = best

        def tune_triton(row, launch, out, check, reps):
            best = None
            for w in warps_space:
                out.fill_(float("nan"))  # a config that writes nothing cannot pass on another's output
                launch(w)
                torch.cuda.synchronize()
                err = check()
                timing = self.timer.time(lambda: launch(w), reps)
                if best is None or timing["per_call_ms"] < best["per_call_ms"]:
                    best = dict(timing, config="num_warps=%d" % w, error=err)
            row["errors"]["Triton"] = best["error"]
            row["peers"]["Triton"] = best

        # vector add, f32
        n = (1 << 26) if not quick else 1 << 22
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        want = x + y
        row = self.row("memory", "vector add f32 %d" % n, bytes=3 * n * 4)
        with self.failures_kept(row):
            reps = peers.reps_for(peers.estimate_ms(lambda: torch.add(x, y)))
            o = torch.empty_like(x)
            tune_tk(row, "vector_add.tk", "vector_add", lambda meta: (tkc.cdiv(n, meta["BLOCK"]),),
                    dict(x=x, y=y, out=o, n=n), {}, o, lambda: peers.check("tk vector add", o, want, 0.0), reps)
            tune_triton(row, lambda w: tk_triton.add_kernel[(triton.cdiv(n, 1024),)](x, y, o, n, BLOCK=1024, num_warps=w), o,
                        lambda: peers.check("Triton add", o, want, 0.0), reps)
            o2 = torch.empty_like(x)
            self.peer(row, "torch", peers.contextlib.nullcontext, lambda: torch.add(x, y, out=o2),
                      lambda: peers.check("torch add", o2, want, 0.0), reps)

        # softmax f32, 256 MiB per tensor
        for cols in (1024, 4096, 16384):
            rows_ = ((256 << 20) // (cols * 4)) if not quick else 256
            xs = torch.randn(rows_, cols, device="cuda")
            want = torch.softmax(xs.double(), 1).float()
            row = self.row("memory", "softmax f32 %dx%d" % (rows_, cols), bytes=2 * rows_ * cols * 4)
            with self.failures_kept(row):
                reps = peers.reps_for(peers.estimate_ms(lambda: torch.softmax(xs, 1)))
                ys = torch.empty_like(xs)
                tune_tk(row, "softmax.tk", "softmax", (rows_,), dict(x=xs, y=ys, n_cols=cols, stride=cols), dict(BLOCK=cols),
                        ys, lambda: peers.check("tk softmax", ys, want, 1e-5), reps)
                tune_triton(row, lambda w: tk_triton.softmax_kernel[(rows_,)](xs, ys, cols, cols, BLOCK=cols, num_warps=w), ys,
                            lambda: peers.check("Triton softmax", ys, want, 1e-5), reps)
                self.peer(row, "torch", peers.contextlib.nullcontext, lambda: torch.softmax(xs, 1),
                          lambda: peers.check("torch softmax", torch.softmax(xs, 1), want, 1e-5), reps, graph=False)

        # LayerNorm and RMSNorm, f16, 256 MiB in
        M, N = (32768, 4096) if not quick else (512, 4096)
        xh = torch.randn(M, N, device="cuda", dtype=torch.float16)
        w = torch.randn(N, device="cuda", dtype=torch.float16)
        b = torch.randn(N, device="cuda", dtype=torch.float16)
        yh = torch.empty_like(xh)
        for kind in ("layernorm", "rmsnorm"):
            if kind == "layernorm":
                want = torch.nn.functional.layer_norm(xh.float(), (N,), w.float(), b.float(), 1e-5)
                values = dict(x=xh, y=yh, w=w, b=b, n_cols=N, stride=N, eps=1e-5)
                triton_launch = lambda wp: tk_triton.layernorm_kernel[(M,)](xh, yh, w, b, N, N, 1e-5, BLOCK=N, num_warps=wp)
                torch_fn = lambda: torch.nn.functional.layer_norm(xh, (N,), w, b, 1e-5)
            else:
                want = xh.float() * torch.rsqrt((xh.float() ** 2).mean(1, keepdim=True) + 1e-6) * w.float()
                values = dict(x=xh, y=yh, w=w, n_cols=N, stride=N, eps=1e-6)
                triton_launch = lambda wp: tk_triton.rmsnorm_kernel[(M,)](xh, yh, w, N, N, 1e-6, BLOCK=N, num_warps=wp)
                torch_fn = lambda: torch.nn.functional.rms_norm(xh, (N,), w, 1e-6)
            row = self.row("memory", "%s f16 %dx%d" % (kind, M, N), bytes=2 * M * N * 2)
            with self.failures_kept(row):
                reps = peers.reps_for(peers.estimate_ms(torch_fn))
                tune_tk(row, kind + ".tk", kind, (M,), values, dict(BLOCK=N), yh, lambda: peers.check("tk " + kind, yh, want, 2e-3),
                        reps)
                tune_triton(row, triton_launch, yh, lambda: peers.check("Triton " + kind, yh, want, 2e-3), reps)
                self.peer(row, "torch", peers.contextlib.nullcontext, torch_fn,
                          lambda: peers.check("torch " + kind, torch_fn(), want, 2e-3), reps, graph=False)

    def matmul_section(self):
        shapes = []
        for dtype_name in self.args.matmul_dtypes.split(","):
            shapes += [(dtype_name, (s, s, s)) for s in (1024, 2048, 4096, 8192)] + [(dtype_name, (4000, 3000, 1000))]
        for dtype_name in self.args.llama_gemm_dtypes.split(","):
            shapes += [(dtype_name, (m, n, k)) for m in (1, 32, 2048) for n, k in LLAMA_GEMMS]
        if self.args.quick:
            shapes = [s for s in shapes if max(s[1]) <= 4096][:6]
        sources = {}
        weights = {}
        for dtype_name, (m, n, k) in shapes:
            dtype = DTYPES[dtype_name]
            label = "%s %dx%dx%d" % (dtype_name, m, n, k)
            flops = 2 * m * n * k
            row = self.row("matmul", label, dtype=dtype_name, shape=[m, n, k], flops=flops,
                           bytes=2 * (m * k + k * n + m * n))
            with self.failures_kept(row):
                a = torch.randn(m, k, device="cuda", dtype=dtype)
                key = (dtype_name, n, k)
                if key not in weights:  # the LLaMA rows share their weight across M
                    weights.clear()
                    weights[key] = torch.randn(k, n, device="cuda", dtype=dtype)
                b = weights[key]
                want = a.float() @ b.float()
                reps = peers.reps_for(peers.estimate_ms(lambda: a @ b))
                for name, context, fn, out in peers.matmul_peers(a, b):
                    self.peer(row, name, context, fn, lambda: peers.check(name, out, want, TOLERANCE[dtype_name]), reps)
                if dtype_name not in sources:
                    sources[dtype_name] = self.source_for("matmul.tk", dtype_name)
                c = torch.empty(m, n, device="cuda", dtype=dtype)
                operands = dict(a=a, b=b, c=c, M=m, N=n, K=k, lda=k, ldb=n, ldc=n)
                # examples/matmul.tk's three kernels, each autotuned over its own configs; the
                # fastest is tk's (as cuBLAS's heuristics pick split-K or a persistent kernel by
                # themselves). Split-K only for grids below two waves of the smallest tiles.
                sms = torch.cuda.get_device_properties(0).multi_processor_count
                tiles = lambda meta: tkc.cdiv(m, meta["BM"]) * tkc.cdiv(n, meta["BN"])  # noqa: E731
                kernels = [("matmul", lambda meta: (tiles(meta),), {}),
                           ("matmul_persistent", lambda meta: (min(persistent_programs(sms, meta), tiles(meta)),), {})]
                if -(-m // 64) * -(-n // 128) < 2 * sms:
                    workspace, counters = split_k_buffers(m, n)
                    kernels.append(("matmul_split_k", lambda meta: (tiles(meta), meta["SPLIT_K"]),
                                    dict(workspace=torch.zeros(workspace, device="cuda"),
                                         counters=torch.zeros(counters, device="cuda", dtype=torch.int32))))
                for kernel, grid, extra in kernels:
                    timing, err, tuning, _ = self.tk_measure(
                        self.kernel(sources[dtype_name], kernel), grid, dict(operands, **extra), {}, reps, c,
                        lambda: peers.check("tk %s %s" % (kernel, label), c, want, TOLERANCE[dtype_name]), tune=True)
                    config = tuning.best_text
                    row.setdefault("tk_configs", {})[kernel] = dict(timing, config=config, error=err)
                    if "tk" not in row or timing["per_call_ms"] < row["tk"]["per_call_ms"]:
                        row["tk"] = dict(timing, config=config if kernel == "matmul" else "%s: %s" % (kernel, config),
                                         error=err)

    def fp8_section(self):
        """Scaled FP8 GEMM (stdlib/std/fp8_matmul.tk, e4m3, bf16 out) against torch._scaled_mm
        (with its default accumulation and with use_fast_accum; the peer named "cuBLASLt" is
        cuBLASLt; with row/column scales its outer-vector-scaled kernel, on the H100
        nvjet_sm90_qqtst_128x128_128x6_1x2_h_bz_ovscale_TNT: 128x128 tiles, BK 128, 6 stages,
        clusters of two CTAs) and Triton's persistent
        TMA kernel (bench/triton_kernels.py, its own autotuning), per-tensor and
        per-row/column scales; tk autotunes over its configs. Then the tuned config again under a
        kernel name with "cutlass" in it (ptxas is reported to special-case such names), and tk
        with PROMOTE (each k-step's product added in f32), tuned on its own. The row's tk (and PROMOTE's)
        is the faster of fp8_matmul and fp8_matmul_persistent, each tuned over its own configs,
        the two timed against each other interleaved."""
        shapes = [(4096, 4096, 4096), (8192, 8192, 4096)] + [(m, n, k) for m in (32, 2048) for n, k in LLAMA_GEMMS]
        if self.args.quick:
            shapes = shapes[:2]
        shapes = report.pick_shapes(shapes, self.args.fp8_shapes)
        import triton_kernels as tk_triton
        source = os.path.join(ROOT, "stdlib", "std", "fp8_matmul.tk")
        with open(source) as f:
            text = f.read()
        renamed = os.path.join(self.tmp, "fp8_matmul_cutlass.tk")
        with open(renamed, "w") as f:
            f.write(text.replace("kernel fp8_matmul(", "kernel fp8_matmul_cutlass(")
                    .replace("kernel fp8_matmul_persistent(", "kernel fp8_matmul_persistent_cutlass("))
        e4m3 = torch.float8_e4m3fn
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        configs = autotune_configs(source, "fp8_matmul")
        for (m, n, k) in shapes:
            # Split-K's partials and per-tile counters, for every config the tuner may try, and
            # the persistent kernel's STREAM_K slots (a tile of at most 128x256 a program).
            workspace = max(max(c["SPLIT_K"] * m * n for c in configs if c["SPLIT_K"] > 1), 2 * sms * 128 * 256)
            counters = max(-(-m // c["BM"]) * -(-n // c["BN"]) for c in configs)
            grid = lambda meta: (tkc.cdiv(m, meta["BM"]) * tkc.cdiv(n, meta["BN"]), meta["SPLIT_K"])  # noqa: E731
            a = (torch.randn(m, k, device="cuda") * 0.5).to(e4m3)
            b = (torch.randn(n, k, device="cuda") * 0.5).to(e4m3)
            for mode in (0, 1):
                label = "e4m3 %dx%dx%d %s" % (m, n, k, "per-tensor" if mode == 0 else "per-row/col")
                row = self.row("fp8", label, dtype="e4m3", shape=[m, n, k], flops=2 * m * n * k,
                               bytes=m * k + n * k + 2 * m * n)
                with self.failures_kept(row):
                    if mode == 0:
                        sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")
                        want = (a.float() @ b.float().t()) * 0.125
                        peer_sa, peer_sb = sa, sb
                    else:
                        sa = torch.rand(m, device="cuda") + 0.5
                        sb = torch.rand(n, device="cuda") + 0.5
                        want = (a.float() @ b.float().t()) * sa[:, None] * sb[None, :]
                        peer_sa, peer_sb = sa[:, None].contiguous(), sb[None, :].contiguous()
                    c_peer = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
                    def scaled_mm(fast=False):
                        torch._scaled_mm(a, b.t(), scale_a=peer_sa, scale_b=peer_sb, out_dtype=torch.bfloat16, out=c_peer,
                                         use_fast_accum=fast)
                    reps = peers.reps_for(peers.estimate_ms(scaled_mm))
                    # cuBLASLt's default promotes partial sums to f32; fast accumulation sums all of K in
                    # the tensor cores, as tk's fp8_matmul does unless PROMOTE.
                    self.peer(row, "cuBLASLt", contextlib.nullcontext, scaled_mm,
                              lambda: peers.check("cuBLASLt fp8", c_peer, want, 1e-2), reps)
                    self.peer(row, "cuBLASLt fast accum", contextlib.nullcontext, lambda: scaled_mm(True),
                              lambda: peers.check("cuBLASLt fp8 fast accum", c_peer, want, 1e-2), reps)
                    # Triton's persistent TMA kernel with its own autotuning, scales in its epilogue.
                    c_triton = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
                    # (Its descriptors made at the first call, inside the peer's own failure handling.)
                    triton_fp8 = functools.cache(lambda: tk_triton.fp8_matmul(a, b, c_triton, sa, sb))  # noqa: B023
                    self.peer(row, "Triton", contextlib.nullcontext, lambda: triton_fp8()(),  # noqa: B023
                              lambda: peers.check("Triton fp8", c_triton, want, 1e-2), reps)
                    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
                    one = torch.zeros(1, device="cuda", dtype=torch.bfloat16)
                    operands = dict(a=a, b=b, c=c, scale_a=sa, scale_b=sb, bias=one, residual=one, mul=one,
                                    workspace=torch.zeros(workspace, device="cuda"),
                                    counters=torch.zeros(counters, device="cuda", dtype=torch.int32),
                                    M=m, N=n, K=k, lda=k, ldb=k, ldc=n, ldr=n, ldm=n)
                    check = lambda: peers.check("tk fp8 %s" % label, c, want, 1e-2)  # noqa: E731

                    def fastest(constants):
                        """fp8_matmul and the persistent kernel (one program per multiprocessor over
                        the tiles), each tuned over its own configs: both entries, the faster one
                        (named by kernel when persistent), and both tunings."""
                        t, e, tuning, tiled_launch = self.tk_measure(
                            self.kernel(source, "fp8_matmul"), grid, operands,  # noqa: B023
                            constants, reps, c, check, tune=True)  # noqa: B023
                        pt, pe, p_tuning, persistent_launch = self.tk_measure(
                            self.kernel(source, "fp8_matmul_persistent"),  # noqa: B023
                            lambda meta: (min(persistent_programs(sms, meta), tkc.cdiv(m, meta["BM"]) * tkc.cdiv(n, meta["BN"])),),  # noqa: B023
                            operands, constants, reps, c, check, tune=True)  # noqa: B023
                        tiled = dict(t, config=tuning.best_text, error=e)
                        persistent = dict(pt, config=p_tuning.best_text, error=pe)
                        # The two tuned kernels timed again interleaved, round by round: a block of
                        # runs each, one after the other, drifted by up to 5% with the power-capped
                        # clocks and picked the slower kernel (session 43, run 1: 2048x12288x4096
                        # per row/column 0.1617 against 0.1461 ms).
                        ab = self.timer.per_call_interleaved({"tiled": tiled_launch, "persistent": persistent_launch},
                                                             reps)
                        tiled["per_call_ab_ms"], persistent["per_call_ab_ms"] = ab["tiled"], ab["persistent"]
                        best = tiled if ab["tiled"] <= ab["persistent"] else \
                            dict(persistent, config="fp8_matmul_persistent: " + p_tuning.best_text)
                        best_launch = tiled_launch if best is tiled else persistent_launch
                        return tiled, persistent, best, (tuning, p_tuning), best_launch

                    tiled, persistent, row["tk"], (tuning, p_tuning), tk_launch = fastest(dict(SCALE_MODE=mode))
                    # Both methods again with the contenders interleaved, round by round (the
                    # large rows run at the GPU's power cap, whose clocks drift between one
                    # contender's block of runs and the next's); the blocks' medians stay.
                    self.interleave(row, dict(tk=tk_launch, **{"cuBLASLt": scaled_mm,
                                                               "cuBLASLt fast accum": lambda: scaled_mm(True),  # noqa: B023
                                                               "Triton": lambda: triton_fp8()()}), reps)  # noqa: B023
                    row["tk_configs"] = {"fp8_matmul": tiled, "fp8_matmul_persistent": persistent}
                    # What each tuner saw: every config's time (ms, its three rounds' median) or why none.
                    row["tk_tuning"] = {name: {c["config"]: c["ms"] if c["ms"] is not None else c["status"]
                                               for c in report.configs}
                                        for name, report in (("fp8_matmul", tuning), ("fp8_matmul_persistent", p_tuning))}
                    # Each kernel's tuned config again, named "..._cutlass".
                    for kernel, kernel_grid, kernel_operands, best in (
                            ("fp8_matmul", grid, operands, tuning.best),
                            ("fp8_matmul_persistent",
                             lambda meta: (min(persistent_programs(sms, meta), tkc.cdiv(m, meta["BM"]) * tkc.cdiv(n, meta["BN"])),),  # noqa: B023
                             operands, p_tuning.best)):
                        named, named_err, _, _ = self.tk_measure(self.kernel(renamed, kernel + "_cutlass"), kernel_grid,
                                                              kernel_operands, dict(best, SCALE_MODE=mode), reps, c, check)
                        row["tk_configs"]["%s_cutlass (%s's config)" % (kernel, kernel)] = dict(named, error=named_err)
                    # With each k-step's product promoted to f32: against cuBLASLt's default; the
                    # faster of the two kernels, as for the row's tk.
                    row["tk_configs"]["PROMOTE"] = fastest(dict(SCALE_MODE=mode, PROMOTE=True))[2]

    def attention_section(self):
        cases = []
        for dtype_name in self.args.attention_dtypes.split(","):
            for d in (64, 128):
                for causal in (False, True):
                    cases.append((dtype_name, 4, 4096, d, causal))
            cases.append((dtype_name, 4, 4096, 256, False))  # issue 19's head-dim-256 target
            for batch, seq in ((16, 1024), (1, 16384)):  # the same 16k tokens
                for causal in (False, True):
                    cases.append((dtype_name, batch, seq, 128, causal))
        if self.args.quick:
            cases = [(dt, b, 1024 if s == 4096 else s, d, c) for dt, b, s, d, c in cases if s == 4096][:4]
        heads = 32
        for dtype_name, batch, seq, d, causal in cases:
            dtype = DTYPES[dtype_name]
            label = "%s B%d H%d S%d D%d%s" % (dtype_name, batch, heads, seq, d, " causal" if causal else "")
            flops = 4 * batch * heads * seq * seq * d // (2 if causal else 1)
            row = self.row("attention", label, dtype=dtype_name, flops=flops, causal=causal)
            with self.failures_kept(row):
                q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=dtype) for _ in range(3))
                scale = d ** -0.5
                pairs = peers.sample_heads(q)
                want = peers.attention_reference(q, k, v, causal, scale, pairs)
                outputs = {}

                def checker(name, get):
                    def check():
                        out = get()
                        err = peers.check(name + " " + label, peers.pick_heads(out, pairs), want, TOLERANCE[dtype_name])
                        outputs[name] = out  # only outputs that passed serve as the full-tensor reference
                        return err
                    return check
                reps = None
                for name, context, fn in peers.attention_peers(q, k, v, causal, scale):
                    if reps is None:  # from the first peer that runs this row
                        try:
                            with context():
                                reps = peers.reps_for(peers.estimate_ms(fn))
                        except Exception:
                            pass
                    self.peer(row, name, context, fn, checker(name, fn), reps or 50)
                reps = reps or 50
                source = self.source_for("flash_attention.tk", dtype_name)
                o = torch.empty_like(q)
                values = dict(q=q, k=k, v=v, o=o, seq_len=seq, scale=scale)
                # The file's kernels, each tuned over its own configs; the row keeps the fastest
                # (the plain loop, the one that overlaps the softmax with PV's MMAs, and the
                # persistent one).
                sms = torch.cuda.get_device_properties(0).multi_processor_count
                per_block = lambda meta: (tkc.cdiv(seq, meta["BLOCK_M"]), batch * heads)
                # (kernel, grid, arguments): the persistent kernel runs one program per
                # multiprocessor over the (query block, head) tiles, and takes the head count.
                launches = [("flash_attention", per_block, values), ("flash_attention_overlap", per_block, values),
                            ("flash_attention_persistent",
                             lambda meta: (min(sms, tkc.cdiv(seq, meta["BLOCK_M"]) * batch * heads),),
                             dict(values, heads=batch * heads))]
                for kernel, grid, kernel_values in launches:
                    versus = {}

                    def check():
                        err = peers.check("tk %s %s" % (kernel, label), peers.pick_heads(o, pairs), want, TOLERANCE[dtype_name])
                        # Every element, not only the sampled heads: against the best-checked peer's output.
                        if outputs:
                            name = "cuDNN" if "cuDNN" in outputs else next(iter(outputs))
                            versus["tk_vs_" + name] = peers.check("tk %s vs %s" % (kernel, name), o, outputs[name],
                                                                  TOLERANCE[dtype_name])
                        return err
                    timing, err, tuning, _ = self.tk_measure(
                        self.kernel(source, kernel), grid, kernel_values,
                        dict(HEAD_DIM=d, CAUSAL=causal), reps, o, check, tune=True)
                    config = tuning.best_text
                    # (The whole tuning table: every config's time, not only the winner's.)
                    row.setdefault("tk_configs", {})[kernel] = dict(timing, config=config, error=err, tuning=tuning.table(),
                                                                    **versus)
                    if "tk" not in row or timing["per_call_ms"] < row["tk"]["per_call_ms"]:
                        row.update(versus)
                        row["tk"] = dict(timing, config=config if kernel == "flash_attention" else "%s: %s" % (kernel, config),
                                         error=err)
                outputs.clear()

    def llama_section(self):
        import re
        torch._dynamo.config.cache_size_limit = 64
        modes = ["eager", "compile", "reduce-overhead"] + (["max-autotune-no-cudagraphs"] if self.args.max_autotune else [])
        shapes = [(32, 1), (8, 128), (1, 2048)] if not self.args.quick else [(32, 1), (2, 128)]
        layer = os.path.join(self.args.bin, "llama_layer")
        d, heads, ffn = llama_torch.D, llama_torch.HEADS, llama_torch.FFN
        for batch, seq in shapes:
            tokens = batch * seq
            label = "B=%d S=%d" % (batch, seq)
            weight_bytes = 2 * (4 * d * d + 3 * d * ffn)
            flops = 2 * tokens * (4 * d * d + 3 * d * ffn) + 2 * batch * heads * seq * seq * (d // heads)
            row = self.row("llama", label, flops=flops, bytes=weight_bytes + 2 * 2 * tokens * d, kernels={})
            with self.failures_kept(row):
                w = llama_torch.make_weights(tokens)
                x = w["x"].view(batch, seq, d)
                with torch.no_grad():
                    # The reference: the same module in f32. The residual x is most of the output's
                    # norm, so the part the layer adds (out - x) is checked on its own too.
                    reference = llama_torch.LlamaLayer(w).float().eval()
                    want = reference(x.float())
                    del reference
                    residual = x.float()

                    def llama_check(name, out):
                        err = peers.check(name, out, want, 2e-2)
                        delta = peers.rel_error(out.float() - residual, want - residual)
                        row.setdefault("delta_errors", {})[name] = delta
                        if not delta <= 0.1:
                            raise RuntimeError("%s: out - x differs from the f32 reference's (relative error %.3g)" % (name, delta))
                        return err
                    module = llama_torch.LlamaLayer(w).eval()
                    reps = peers.reps_for(peers.estimate_ms(lambda: module(x)), budget_ms=300, most=100)
                    for mode in modes:
                        torch._dynamo.reset()
                        if mode == "eager":
                            fn = module
                        elif mode == "compile":
                            fn = torch.compile(module, dynamic=False)
                        else:
                            fn = torch.compile(module, mode=mode, dynamic=False)
                        call = (lambda f: lambda: f(x))(fn)
                        name = "torch " + mode
                        start = time.time()
                        self.peer(row, name, peers.contextlib.nullcontext, call,
                                  lambda: llama_check(name, call()), reps, flush=False, graph=False)
                        row.setdefault("compile_s", {})[name] = time.time() - start
                        if mode in ("eager", "compile"):
                            row["kernels"][name] = kernel_count(call)
                    hf = llama_torch.hf_layer(w)
                    self.peer(row, "HF LlamaDecoderLayer", peers.contextlib.nullcontext, lambda: hf(x),
                              lambda: llama_check("HF", hf(x)), reps, flush=False, graph=False)
                    del hf
                wdir = os.path.join(self.tmp, "llama")
                os.makedirs(wdir, exist_ok=True)
                for name in llama_torch.NAMES:
                    save_npy(os.path.join(wdir, name + ".npy"), w[name])
                out = os.path.join(self.tmp, "llama-out.npy")
                cmd = [layer, "--backend", "cuda", "--dims", "%d,%d,%d,%d,%d" % (d, heads, ffn, seq, batch),
                       "--weights", wdir, "--save", out, "--time", str(reps)]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    raise RuntimeError("llama_layer failed: %s %s" % (proc.stdout[-800:], proc.stderr[-800:]))
                plain = report.parse_tk_timing(proc.stdout.split("CUDA graph replay")[0], "llama_layer")
                replay = report.parse_tk_timing(proc.stdout, "llama_layer")
                err = llama_check("tk", load_npy(out, torch.bfloat16).reshape(batch, seq, d))
                row["kernels"]["tk"] = int(re.search(r": (\d+) kernels", proc.stdout).group(1))
                row["tk_plain"] = plain
                row["tk"] = dict(replay, config="CUDA graph replay", error=err)
                shutil.rmtree(wdir, ignore_errors=True)
            torch.cuda.empty_cache()

    def llm_section(self):
        import llm_generate
        self.llm = llm_generate.run(os.path.join(self.args.bin, "tk-llama"), self.tmp, self.ceilings["copy_tbs"],
                                    self.args.quick, log, sweep=[tuple(map(int, pair.split(":")))
                                                                for pair in self.args.llm_splits_sweep.split(",") if pair],
                                    peers=self.args.llm_peers,
                                    batches=tuple(int(b) for b in self.args.llm_batches.split(",")) if self.args.llm_batches else None)

    def jit_section(self):
        out = os.path.join(self.tmp, "jit.json")
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "jit_bench.py"), "--bench",
                               os.path.join(self.args.bin, "tk-jit-bench"), "--json", out], capture_output=True, text=True)
        log(proc.stdout[-3000:])
        if proc.returncode != 0:
            raise RuntimeError("jit_bench failed: %s" % proc.stderr[-1500:])
        with open(out) as f:
            self.jit = json.load(f)
        # The host cost of a launch from Python: tk's package against Triton and torch, here.
        import python_launch
        self.jit["python_launch"] = python_launch.measure(rounds=30 if self.args.quick else 100)
        for name, us in self.jit["python_launch"]["us"].items():
            log("python launch  %-24s %7.2f us" % (name, us))


def kernel_count(fn):
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the folder with tkc, llama_layer, tk-jit-bench")
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true", help="small shapes: checks the harness, not the numbers")
    parser.add_argument("--matmul-dtypes", default="f16,bf16")
    parser.add_argument("--llama-gemm-dtypes", default="bf16")
    parser.add_argument("--attention-dtypes", default="f16,bf16")
    parser.add_argument("--fp8-shapes", default="", metavar="MxNxK,...", help="the fp8 section's shapes among its own (default: all)")
    parser.add_argument("--no-max-autotune", dest="max_autotune", action="store_false",
                        help="skip torch.compile max-autotune-no-cudagraphs (the slowest peer to compile)")
    parser.add_argument("--llm-splits-sweep", default="", metavar="BATCH:SPLITS,...",
                        help="also time tk-llama's decode at these flash-decoding split counts")
    parser.add_argument("--llm-without-peers", dest="llm_peers", action="store_false",
                        help="llm: tk-llama's rows and correctness only (no transformers timings, no tensor parallelism)")
    parser.add_argument("--llm-batches", default="", metavar="B,...",
                        help="llm: these batch sizes (default 1,8; --quick 1,4)")
    parser.add_argument("--command", default="", help="the command line to record")
    parser.add_argument("sections", nargs="*", default=SECTIONS)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    # A `timeout` that stops the run still leaves the summary of what was measured.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("run-all: terminated (SIGTERM); the summary is partial"))
    torch.manual_seed(0)
    bench = Bench(args)
    started = time.time()
    timings = {}
    gpu_states = []  # clocks, power, temperature and throttle reasons around each section
    bench.jit = None
    bench.llm = None
    try:
        bench.ceilings_section()
        for section in args.sections:
            if section not in SECTIONS:
                raise SystemExit("unknown section '%s' (%s)" % (section, " ".join(SECTIONS)))
            start = time.time()
            gpu_states.append(dict(report.gpu_state(), at="before " + section))
            log("== %s (GPU: %s)" % (section, gpu_states[-1]))
            try:
                getattr(bench, section + "_section")()
            except Exception:
                bench.notes.append("section %s failed: %s" % (section, traceback.format_exc()[-1500:]))
                log(bench.notes[-1])
            timings[section] = time.time() - start
            gpu_states.append(dict(report.gpu_state(), at="after " + section))
            log("== %s took %.0f s" % (section, timings[section]))
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)
        import triton
        summary = dict(machine=report.machine(), command=args.command, sections=args.sections, quick=args.quick,
                       tk_in_process=True, spin_us=bench.timer.SPIN_US if bench.timer.spin_cycles else 0,
                       ceilings=bench.ceilings, rows=bench.rows, jit=bench.jit, llm=bench.llm, notes=bench.notes,
                       section_seconds=timings, total_seconds=time.time() - started, gpu_states=gpu_states,
                       versions=dict(torch=torch.__version__, triton=triton.__version__))
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        text = report.markdown(summary)
        with open(os.path.join(args.out, "summary.md"), "w") as f:
            f.write(text)
        print(text)


if __name__ == "__main__":
    main()

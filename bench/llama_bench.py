#!/usr/bin/env python3
"""One LLaMA-7B-shaped decoder layer (d=4096, 32 heads of 128, FFN 11008, bf16, random weights):
tk's graph layer (examples/llama_layer, plain launches and CUDA-graph replay) against torch
eager, torch.compile and torch.compile(mode="reduce-overhead"), in one run on the GPU machine.
The same weights and input go to both; tk's output is checked against torch eager's (relative
L2 error) before anything is timed. Times: median of N forwards after warm-up, CUDA events,
no L2 flush (the weights are 400 MB). Kernel counts from torch.profiler.

    llama_bench.py --layer PATH/llama_layer [--shapes 1x2048,8x128,32x1] [--json OUT]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

D, HEADS, FFN = 4096, 32, 11008
NAMES = ["x", "attn_norm", "wqkv", "wo", "ffn_norm", "w_gate", "w_up", "w_down"]


def make_weights(batch, seq, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    t = batch * seq

    def uniform(*shape, scale=1.0):
        return ((torch.rand(*shape, generator=g, device="cuda") * 2 - 1) * scale).to(torch.bfloat16)
    return {
        "x": uniform(t, D),
        "attn_norm": (1 + 0.1 * uniform(D).float()).to(torch.bfloat16),
        "wqkv": uniform(D, 3 * D, scale=D ** -0.5),
        "wo": uniform(D, D, scale=D ** -0.5),
        "ffn_norm": (1 + 0.1 * uniform(D).float()).to(torch.bfloat16),
        "w_gate": uniform(D, FFN, scale=D ** -0.5),
        "w_up": uniform(D, FFN, scale=D ** -0.5),
        "w_down": uniform(FFN, D, scale=FFN ** -0.5),
    }


def rmsnorm(x, w, eps=1e-5):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def rope_tables(seq):
    """cos and sin of every position and frequency, made once (as HF's rotary cache is)."""
    half = D // HEADS // 2
    pos = torch.arange(seq, device="cuda", dtype=torch.float32)
    freq = 10000.0 ** (-torch.arange(half, device="cuda", dtype=torch.float32) / half)
    angle = pos[:, None] * freq[None, :]
    cos, sin = angle.cos(), angle.sin()
    return torch.cat([cos, cos], -1)[None, :, None, :], torch.cat([sin, sin], -1)[None, :, None, :]


def rope(x, batch, seq, tables):
    hd = D // HEADS
    cos, sin = tables
    v = x.view(batch, seq, HEADS, hd)
    rotated = torch.cat([-v[..., hd // 2:], v[..., :hd // 2]], -1)  # HF's rotate_half
    return (v.float() * cos + rotated.float() * sin).to(x.dtype).view(batch * seq, D)


def layer(w, batch, seq):
    x = w["x"]
    q, k, v = (rmsnorm(x, w["attn_norm"]) @ w["wqkv"]).split(D, dim=1)
    q, k = rope(q, batch, seq, w["rope"]), rope(k, batch, seq, w["rope"])

    def heads(t):
        return t.view(batch, seq, HEADS, D // HEADS).transpose(1, 2)
    attn = F.scaled_dot_product_attention(heads(q), heads(k), heads(v), is_causal=True)
    h = x + attn.transpose(1, 2).reshape(batch * seq, D) @ w["wo"]
    n2 = rmsnorm(h, w["ffn_norm"])
    return h + (F.silu(n2 @ w["w_gate"]) * (n2 @ w["w_up"])) @ w["w_down"]


def time_ms(fn, reps):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def kernel_count(fn):
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def run_tk(args, w, batch, seq, tmp, replay):
    for name in NAMES:
        np.save(os.path.join(tmp, name + ".npy"), w[name].view(torch.int16).cpu().numpy().view(np.uint16))
    out = os.path.join(tmp, "out.npy")
    cmd = [args.layer, "--backend", "cuda", "--dims", f"{D},{HEADS},{FFN},{seq},{batch}", "--weights", tmp,
           "--save", out, "--time", str(args.reps)] + (["--replay"] if replay else [])
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{cmd} failed:\n{result.stdout}\n{result.stderr}")
    ms = float(re.search(r"layer time: ([\d.]+) ms", result.stdout).group(1))
    kernels = int(re.search(r": (\d+) kernels", result.stdout).group(1))
    got = torch.from_numpy(np.load(out).view(np.int16)).view(torch.bfloat16).cuda()
    return ms, kernels, got, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--layer", required=True)
    parser.add_argument("--shapes", default="1x2048,8x128,32x1")
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    for shape in args.shapes.split(","):
        batch, seq = (int(v) for v in shape.split("x"))
        w = make_weights(batch, seq)
        w["rope"] = rope_tables(seq)
        with torch.no_grad():
            want = layer(w, batch, seq)
            with tempfile.TemporaryDirectory() as tmp:
                tk_ms, tk_kernels, got, log = run_tk(args, w, batch, seq, tmp, replay=False)
                error = ((got.float() - want.float()).norm() / want.float().norm()).item()
                print(log.strip().splitlines()[0])
                print(f"B={batch} S={seq}: tk vs torch eager relative L2 error {error:.3g}")
                if not error < 2e-2:
                    raise RuntimeError(f"tk's layer is wrong at B={batch} S={seq}: relative error {error}")
                tk_replay_ms, _, got_replay, _ = run_tk(args, w, batch, seq, tmp, replay=True)
                assert ((got_replay.float() - want.float()).norm() / want.float().norm()).item() < 2e-2
            eager = time_ms(lambda: layer(w, batch, seq), args.reps)
            compiled = torch.compile(lambda: layer(w, batch, seq))
            compiled_ms = time_ms(compiled, args.reps)
            compiled_kernels = kernel_count(compiled)
            eager_kernels = kernel_count(lambda: layer(w, batch, seq))
            overhead = torch.compile(lambda: layer(w, batch, seq), mode="reduce-overhead")
            overhead_ms = time_ms(overhead, args.reps)
        row = {"batch": batch, "seq": seq, "tk_ms": tk_ms, "tk_replay_ms": tk_replay_ms, "eager_ms": eager,
               "compile_ms": compiled_ms, "reduce_overhead_ms": overhead_ms, "tk_kernels": tk_kernels,
               "eager_kernels": eager_kernels, "compile_kernels": compiled_kernels, "rel_error": error}
        rows.append(row)
        best_tk = min(tk_ms, tk_replay_ms)
        print(f"llama B={batch} S={seq}: tk {tk_ms:.3f} ms (CUDA graph {tk_replay_ms:.3f}), torch eager {eager:.3f}, "
              f"compile {compiled_ms:.3f}, reduce-overhead {overhead_ms:.3f}; best tk / reduce-overhead "
              f"{overhead_ms / best_tk:.2f}x; kernels tk {tk_kernels}, eager {eager_kernels}, compile {compiled_kernels}",
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

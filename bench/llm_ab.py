#!/usr/bin/env python3
"""LLaMA-7B decode A/B of tk-llama builds (binary + stdlib + environment), one model folder, one run.
Usage (on the GPU machine, from anywhere): bench/llm_ab.py ROUNDS MODES NAME=TK_LLAMA:STDLIB_DIR[:ENV=VALUE...] ...  (MODES: comma list of fp8b1, fp8b8, bf16b1).
Rounds interleave the variants; medians printed (the decode step's and the prefill's), ratios
against the first variant, tokens compared with the first variant's. With PROFILE=1 first prints each variant's --profile decode tables (fp8 b1; between events and, on a
CUDA graph, each kernel's cost inside it); MODES "" then times nothing more.
A variant's ARGS=... (space-separated) is not an environment variable: tk-llama's extra arguments
(ARGS=--decode-splits 64)."""
import os, sys, statistics, subprocess, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llm_generate as g
rounds, modes = int(sys.argv[1]), [m for m in sys.argv[2].split(",") if m]  # ("" with PROFILE=1: the profiles alone)
variants = []
for spec in sys.argv[3:]:
    name, rest = spec.split("=", 1)
    exe, lib, *envs = rest.split(":")
    env = dict(e.split("=", 1) for e in envs)
    args = env.pop("ARGS", "").split()
    variants.append((name, os.path.abspath(exe), os.path.abspath(lib), env, args))
folder = "/dev/shm/tk-llm-bench-model"
if not os.path.exists(folder + "/config.json"):  # (the same seed: the same model)
    g.make_folder(folder, g.LLAMA_7B)
rng = np.random.default_rng(1)
prompt = [int(t) for t in rng.integers(3, g.LLAMA_7B["vocab_size"], 2048)]
if os.environ.get("PROFILE") == "1":
    for name, exe, lib, extra_env, args in variants:
        env = dict(os.environ, TK_STDLIB_DIR=lib, LD_LIBRARY_PATH=os.path.dirname(exe), **extra_env)
        res = g.tk_generate(exe, folder, prompt, 3, 1, ["--fp8", "--profile"] + args, env=env)
        out = res["stdout"]
        print("== %s --fp8 --profile, batch 1:\n%s" % (name, out[out.index("decode step profile"):]), flush=True)
def token_agreement(tokens, base):
    """'same', or how far the tokens agree with the base variant's (with random weights the
    logits lie close together: a rounding difference early in the prefill can change a token)."""
    if tokens == base:
        return "same"
    first = next((i for i, (a, b) in enumerate(zip(tokens, base)) if a != b), min(len(tokens), len(base)))
    return "differ from token %d of %d" % (first, len(base))


for mode in modes:
    extra, batch = (["--fp8"] if mode.startswith("fp8") else []), int(mode.split("b")[-1])
    ms, prefill, toks = {v[0]: [] for v in variants}, {v[0]: [] for v in variants}, {}
    for r in range(rounds):
        for name, exe, lib, extra_env, args in variants:
            env = dict(os.environ, TK_STDLIB_DIR=lib, LD_LIBRARY_PATH=os.path.dirname(exe), **extra_env)
            res = g.tk_generate(exe, folder, prompt, 65, batch, extra + args, env=env)
            ms[name].append(res["decode_ms_per_step"]); prefill[name].append(res["prefill_ms"]); toks[name] = res["tokens"]
            print("  round %d %s %s: %.3f ms/step, prefill %.1f ms" % (r, mode, name, res["decode_ms_per_step"],
                                                                      res["prefill_ms"]), flush=True)
    med = {n: statistics.median(v) for n, v in ms.items()}
    base = variants[0][0]
    print("%s (median of %d): " % (mode, rounds) + ", ".join(
        "%s %.3f ms/step (%.3fx %s, tokens %s)" % (n, med[n], med[base] / med[n], base,
                                                   token_agreement(toks[n], toks[base])) for n in med), flush=True)
    pre = {n: statistics.median(v) for n, v in prefill.items()}
    print("%s prefill (median of %d): " % (mode, rounds) + ", ".join(
        "%s %.1f ms (%.3fx %s)" % (n, pre[n], pre[base] / pre[n], base) for n in pre), flush=True)

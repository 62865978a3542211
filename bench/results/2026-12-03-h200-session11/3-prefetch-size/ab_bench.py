"""LLaMA-7B decode A/B of stdlib variants, one model folder, one run. Usage:
ab_bench.py TK_LLAMA ROUNDS MODES NAME=STDLIB_DIR[:0] ...  (MODES: comma list of fp8b1, fp8b8, bf16b1;
a trailing :0 runs that variant with TK_DEPENDENT_LAUNCH=0). Rounds interleave the variants; medians printed,
ratios against the first variant, tokens compared with the first variant's."""
import os, sys, statistics, numpy as np
sys.path.insert(0, "bench")
import llm_generate as g
tk_llama, rounds, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
variants = []
for spec in sys.argv[4:]:
    name, rest = spec.split("=", 1)
    lib, _, pdl = rest.partition(":")
    variants.append((name, os.path.abspath(lib), pdl or "1"))
folder = "/dev/shm/tk-llm-bench-model"
if not os.path.exists(folder + "/config.json"):  # (the same seed: the same model)
    g.make_folder(folder, g.LLAMA_7B)
rng = np.random.default_rng(1)
prompt = [int(t) for t in rng.integers(3, g.LLAMA_7B["vocab_size"], 2048)]
for mode in modes:
    extra, batch = (["--fp8"] if mode.startswith("fp8") else []), int(mode.split("b")[-1])
    ms, toks = {n: [] for n, _, _ in variants}, {}
    for r in range(rounds):
        for name, lib, pdl in variants:
            env = dict(os.environ, TK_DEPENDENT_LAUNCH=pdl, TK_STDLIB_DIR=lib)
            res = g.tk_generate(tk_llama, folder, prompt, 65, batch, extra, env=env)
            ms[name].append(res["decode_ms_per_step"]); toks[name] = res["tokens"]
            print("  round %d %s %s: %.3f ms/step" % (r, mode, name, res["decode_ms_per_step"]), flush=True)
    med = {n: statistics.median(v) for n, v in ms.items()}
    base = variants[0][0]
    print("%s (median of %d): " % (mode, rounds) + ", ".join(
        "%s %.3f ms/step (%.3fx %s, tokens %s)" % (n, med[n], med[base] / med[n], base,
                                                   "same" if toks[n] == toks[base] else "differ") for n in med), flush=True)

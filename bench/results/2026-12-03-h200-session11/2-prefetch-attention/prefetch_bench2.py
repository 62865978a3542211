"""LLaMA-7B FP8 decode, one model folder, one run: weight prefetch before gdc_wait in the FP8 GEMVs.
'prev'  = stdlib of e8651ff (fp8_gemv_row a dependent without prefetch, fp8_gemv plain),
'p1'    = both GEMVs dependents, the first k-step of weights prefetched (0844dea),
'p1a'   = p1 and decode_attention_split prefetching its first block of cache rows before its wait,
'plain' = p1's stdlib, TK_DEPENDENT_LAUNCH=0.
Rounds interleave the variants; the median of the rounds is printed."""
import os, sys, statistics, numpy as np
sys.path.insert(0, "bench")
import llm_generate as g
tk_llama, rounds = sys.argv[1], int(sys.argv[2])
root = os.getcwd()
folder = "/dev/shm/tk-llm-bench-model"
g.make_folder(folder, g.LLAMA_7B)
rng = np.random.default_rng(1)
prompt = [int(t) for t in rng.integers(3, g.LLAMA_7B["vocab_size"], 2048)]
variants = [("prev", root + "/.pack/stdlib_prev", "1"),
            ("p1", root + "/stdlib", "1"), ("p1a", root + "/.pack/stdlib_A", "1"), ("plain", root + "/stdlib", "0")]
for extra, batch in [(["--fp8"], 1), (["--fp8"], 8)]:
    ms, toks = {n: [] for n, _, _ in variants}, {}
    for r in range(rounds):
        for name, lib, pdl in variants:
            env = dict(os.environ, TK_DEPENDENT_LAUNCH=pdl, TK_STDLIB_DIR=lib)
            res = g.tk_generate(tk_llama, folder, prompt, 65, batch, extra, env=env)
            ms[name].append(res["decode_ms_per_step"]); toks[name] = res["tokens"]
            print("  round %d %s batch %d %s: %.3f ms/step" % (r, " ".join(extra), batch, name, res["decode_ms_per_step"]), flush=True)
    med = {n: statistics.median(v) for n, v in ms.items()}
    print("%s batch %d (median of %d): " % (" ".join(extra), batch, rounds) + ", ".join(
        "%s %.3f ms/step (%.3fx plain, tokens %s)" % (n, med[n], med["plain"] / med[n],
                                                      "same" if toks[n] == toks["plain"] else "DIFFER") for n in med), flush=True)

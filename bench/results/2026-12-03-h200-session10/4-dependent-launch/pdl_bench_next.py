"""A/B/C of programmatic dependent launch in tk-llama's decode step, one model folder, one run:
'top' = every decode kernel starts with gdc_wait(); gdc_launch_dependents() (stdlib/),
'small' = the same but the big kernels (GEMVs, matmul_epilogue, decode_attention_split) never call
gdc_launch_dependents (.pack/stdlib_S/), 'plain' = TK_DEPENDENT_LAUNCH=0 (no kernel launched as a dependent)."""
import os, sys, numpy as np
sys.path.insert(0, "bench")
import llm_generate as g
tk_llama = sys.argv[1]
root = os.getcwd()
folder = "/dev/shm/tk-llm-bench-model"
g.make_folder(folder, g.LLAMA_7B)
rng = np.random.default_rng(1)
prompt = [int(t) for t in rng.integers(3, g.LLAMA_7B["vocab_size"], 2048)]
variants = [("small", root + "/.pack/stdlib_S", "1"), ("plain", root + "/stdlib", "0")]
for extra, batch in [(["--fp8"], 1), ([], 1), (["--fp8"], 8)]:
    res = {}
    for name, lib, pdl in variants:
        env = dict(os.environ, TK_DEPENDENT_LAUNCH=pdl, TK_STDLIB_DIR=lib)
        res[name] = g.tk_generate(tk_llama, folder, prompt, 65, batch, extra, env=env)
    base = res["plain"]
    print("%s batch %d: " % (" ".join(extra) or "bf16", batch) + ", ".join(
        "%s %.3f ms/step (%.3fx plain, tokens %s)" % (n, r["decode_ms_per_step"], base["decode_ms_per_step"] / r["decode_ms_per_step"],
                                                      "same" if r["tokens"] == base["tokens"] else "DIFFER") for n, r in res.items()), flush=True)

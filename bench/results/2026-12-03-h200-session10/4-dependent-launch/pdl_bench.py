"""A/B of programmatic dependent launch in tk-llama's decode step: the same model folder, runs
alternating TK_DEPENDENT_LAUNCH=1 (default) and 0; decode ms a step and the tokens."""
import os, sys, numpy as np
sys.path.insert(0, "bench")
import llm_generate as g
tk_llama = sys.argv[1]
folder = "/dev/shm/tk-llm-bench-model"
g.make_folder(folder, g.LLAMA_7B)
rng = np.random.default_rng(1)
prompt = [int(t) for t in rng.integers(3, g.LLAMA_7B["vocab_size"], 2048)]
for extra, batch in [(["--fp8"], 1), ([], 1), (["--fp8"], 8)]:
    for rep in range(1):
        res = {}
        for pdl in ("1", "0"):
            env = dict(os.environ, TK_DEPENDENT_LAUNCH=pdl)
            r = g.tk_generate(tk_llama, folder, prompt, 65, batch, extra, env=env)
            res[pdl] = r
        same = res["1"]["tokens"] == res["0"]["tokens"]
        print("%s batch %d rep %d: dependent launch %.3f ms/step, plain %.3f ms/step (%.3fx), tokens %s" % (
            " ".join(extra) or "bf16", batch, rep, res["1"]["decode_ms_per_step"], res["0"]["decode_ms_per_step"],
            res["0"]["decode_ms_per_step"] / res["1"]["decode_ms_per_step"], "same" if same else "DIFFER"), flush=True)

#!/usr/bin/env python3
"""tk-llama --profile on the LLaMA-7B-shaped random model (bench/llm_ab.py's folder and prompt):
prints the prefill profile table and the prefill's time, --fp8 and bf16, batch 1."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
import numpy as np
import llm_generate as g
folder = "/dev/shm/tk-llm-bench-model"
if not os.path.exists(folder + "/config.json"):
    g.make_folder(folder, g.LLAMA_7B)
prompt = [int(t) for t in np.random.default_rng(1).integers(3, g.LLAMA_7B["vocab_size"], 2048)]
exe = "/tmp/tkgpu/tk/bin/tk-llama"
for extra in (["--fp8"], []):
    res = g.tk_generate(exe, folder, prompt, 3, 1, extra + ["--profile"])
    out = res["stdout"]
    print("%s batch 1 (--profile run): prefill %.1f ms" % (" ".join(extra) or "bf16", res["prefill_ms"]), flush=True)
    print(out[out.index("prefill profile"):out.index("decode step profile")], flush=True)

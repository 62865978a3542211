#!/usr/bin/env bash
# Session 16 run 5: what the KV cache costs inside a batch-1 FP8 decode step (the CUDA graph,
# dependent launches): the same LLaMA-7B-shaped model decoding 65 tokens after prompts of 16,
# 512 and 2048 tokens (2 interleaved rounds, ms a step). The difference between contexts against
# the cache's bytes over the copy bandwidth says whether flash-decoding or the rest of the step
# holds the step back.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
cd bench && timeout 500 python3 - <<'PY' 2>&1 | grep -v "Writing model" | tee $out/context.txt
import os, statistics, numpy as np
import llm_generate as g
folder = "/dev/shm/tk-llm-bench-model"
if not os.path.exists(folder + "/config.json"):
    g.make_folder(folder, g.LLAMA_7B)
x = "/tmp/tkgpu/tk/bin/tk-llama"
env = dict(os.environ, TK_STDLIB_DIR=os.path.abspath("../stdlib"), LD_LIBRARY_PATH=os.path.dirname(x))
rng = np.random.default_rng(1)
full = [int(t) for t in rng.integers(3, g.LLAMA_7B["vocab_size"], 2048)]
ms = {n: [] for n in (16, 512, 2048)}
for r in range(2):
    for n in ms:
        res = g.tk_generate(x, folder, full[:n], 65, 1, ["--fp8"], env=env)
        ms[n].append(res["decode_ms_per_step"])
        print("round %d prompt %d: %.3f ms/step" % (r, n, ms[n][-1]), flush=True)
for n, v in ms.items():
    print("prompt %d: median %.3f ms/step" % (n, statistics.median(v)))
PY

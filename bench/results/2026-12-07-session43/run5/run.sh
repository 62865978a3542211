#!/usr/bin/env bash
# Session 43, run 5 (pack of the review fixes, tools/gpu-check; repository root, $OUT; carry
# .pack): a short check for a short device budget, in place of run 3.
#  - the GPU unit tests of the JIT (the interleaved timing's rotation, the final round);
#  - tk-llama --fp8 on bench/llm_generate.py's SMALL model (2 layers, hidden 512, grouped-query
#    heads) with a 600-token prompt, so that the prefill's FP8 matmuls have more than 128 rows:
#    --fp8-kernel tiled, persistent and auto (the default), the tokens compared and each
#    prefill profile's FP8 matmul lines (which kernel ran).
set -u
. bench/gpu-env.sh
/tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='JitGpu*' 2>&1 | tail -12 > $OUT/gtest.txt
grep -E "PASSED|FAILED" $OUT/gtest.txt
timeout 150 python3 - > $OUT/small.txt 2>&1 <<'PY'
import os, sys
sys.path.insert(0, "bench")
import llm_generate as g
folder = "/dev/shm/tk-small-model"
g.make_folder(folder, g.SMALL)
exe = "/tmp/tkgpu/tk/bin/tk-llama"
prompt = [3 + (i * 37) % 990 for i in range(600)]
tokens = {}
for kernel in ("tiled", "persistent", "auto"):
    r = g.tk_generate(exe, folder, prompt, 8, 1, ["--fp8", "--fp8-kernel", kernel, "--profile"])
    tokens[kernel] = r["tokens"]
    lines = [l for l in r["stdout"].splitlines() if "fp8_matmul" in l]
    print("%s: prefill %.2f ms, tokens %s" % (kernel, r["prefill_ms"], r["tokens"]), flush=True)
    print("\n".join(lines[:4]), flush=True)
print("tokens equal:", tokens["tiled"] == tokens["persistent"] == tokens["auto"])
PY
tail -16 $OUT/small.txt

#!/usr/bin/env bash
# Session 33, run 6 (pack of 930b713): run 2's A/B of greedy decoding's tokens chosen on the GPU
# against --greedy-on-host, on whichever GPU the device tool lends (run 2's was an H100),
# tk-llama's LLaMA-7B-shaped decode (2048-token prompt, 65 new tokens), FP8 at batch 1 and 8,
# rounds interleaved (bench/llm_ab.py). (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
tkl=/tmp/tkgpu/tk/bin/tk-llama
timeout 230 python3 bench/llm_ab.py 2 fp8b1,fp8b8 "host=$tkl:stdlib:ARGS=--greedy-on-host" device=$tkl:stdlib 2>&1 \
  | grep -v "Writing model" | tee $out/ab.txt

#!/usr/bin/env bash
# Session 33, run 4: greedy_advance no longer @autotune (run 3: the tuner timed its one config by
# running it many times, each run advancing the positions again, in the first generation that
# kept logits; later runs found it tuned). Run 3's paths again, each with a cache of its own,
# then tests/llm/tiny_llama.py on CUDA. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 150 python3 bench/results/2026-12-06-session33/run3/tiny_paths.py /tmp/tkgpu/tk/bin/tk-llama 2>&1 | tee $out/tiny-paths.txt
TK_CACHE_DIR=$(mktemp -d) timeout 300 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda \
  --skip-tokenizer > $out/llm-tiny.txt 2>&1; echo "tiny llama exit $?"; cat $out/llm-tiny.txt | cut -c1-200

#!/usr/bin/env bash
# Session 38, run 3 (prepared for the next session's device time; needs a pack of 18e5554 or
# later: Executable::profileInGraph as reviewed). Run 1 found decode attention 0.43 ms of a 2.72 ms FP8
# batch-1 step on an H200, of which the cache's 1.09 GB at the copy rate is about 0.25: the
# split kernel's 2048 programs (32 heads x 64 splits; at 2113 cached rows only 34 splits have
# rows, the rest end at once) cost some 5 us a layer beyond their bytes. This run:
#  - tk-llama --fp8 --profile at batch 1 with the chosen 64 splits and with 34 (no split without
#    rows at this context): the decode step's table inside its CUDA graph (each kernel's cost,
#    the step captured without it);
#  - the step's time at 64, 34, 32 and 48 splits (bench/llm_ab.py, rounds interleaved).
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
L=/tmp/tkgpu/tk/bin/tk-llama
PROFILE=1 timeout 200 python3 bench/llm_ab.py 1 "" base=$L:stdlib "splits34=$L:stdlib:ARGS=--decode-splits 34" 2>&1 \
  | grep -v "Writing model" | tee $out/profile-b1.txt
timeout 330 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib "splits34=$L:stdlib:ARGS=--decode-splits 34" \
  "splits32=$L:stdlib:ARGS=--decode-splits 32" "splits48=$L:stdlib:ARGS=--decode-splits 48" 2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt

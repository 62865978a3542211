#!/usr/bin/env bash
# Session 15 run 5: batch-1 FP8 decode with flash-decoding's split sizes a multiple of BLOCK_N
# (`round`: .pack/v-round, the stdlib with decode_attention-round.tk), and 64 splits against
# the default 32 (tk-llama --decode-splits), 2 rounds.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
x=/tmp/tkgpu/tk/bin/tk-llama
timeout 570 python3 bench/llm_ab.py 2 fp8b1 base=$x:stdlib "s64=$x:stdlib:ARGS=--decode-splits 64" round=$x:.pack/v-round \
  "round64=$x:.pack/v-round:ARGS=--decode-splits 64" 2>&1 | grep -v "Writing model" | tee $out/ab.txt

#!/usr/bin/env bash
# Session 33, run 2: greedy decoding's tokens chosen on the GPU (std/sampling.tk's
# greedy_advance between steps enqueued back to back) against the host's choice
# (--greedy-on-host: each step synchronized, its logits downloaded, the tokens, positions and
# lengths uploaded). First the new kernel on CUDA against the interpreter and the tiny LLaMA on
# CUDA (both paths' tokens compared there), then tk-llama's LLaMA-7B-shaped decode (2048-token
# prompt, 65 new tokens), rounds interleaved (bench/llm_ab.py). (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k greedy > $out/conformance.txt 2>&1
tail -2 $out/conformance.txt
TK_CACHE_DIR=$(mktemp -d) timeout 150 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda \
  --skip-tokenizer > $out/llm-tiny.txt 2>&1; echo "tiny llama exit $?"; tail -3 $out/llm-tiny.txt
tkl=/tmp/tkgpu/tk/bin/tk-llama
timeout 330 python3 bench/llm_ab.py 2 fp8b1,bf16b1,fp8b8 "host=$tkl:stdlib:ARGS=--greedy-on-host" device=$tkl:stdlib 2>&1 \
  | grep -v "Writing model" | tee $out/ab.txt

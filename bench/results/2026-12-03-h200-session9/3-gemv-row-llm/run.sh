#!/usr/bin/env bash
# Final: CUDA conformance of the FP8 kernels, the tiny LLaMA on CUDA, LLaMA-7B (tk only): batch 1 on fp8_gemv_row, batch 8 on fp8_gemv.
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$root/stdlib PYTHONUNBUFFERED=1
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
for f in fp8_gemv fp8_matmul loaded; do
  TK_CACHE_DIR=$(mktemp -d) timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 15 -k $f 2>&1 | tail -3
done 2>&1 | tee $out/conformance.txt
TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tail -14 > $out/llm-tiny.txt
OUT=$out/bench timeout 330 bench/run-all --llm-without-peers llm > $out/log.txt 2>&1; grep "llm:" $out/log.txt | head -14
rm -f $out/bench/log.txt

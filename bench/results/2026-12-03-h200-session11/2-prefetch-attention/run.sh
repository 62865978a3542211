#!/usr/bin/env bash
# prefetch_l2 before gdc_wait: the tiny LLaMA on CUDA (every check, with the attention prefetch variant), then
# LLaMA-7B FP8 decode A/B over 2 rounds (prefetch_bench2.py).
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin PYTHONUNBUFFERED=1
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$root/.pack/stdlib_A TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tail -14 | tee $out/llm-tiny.txt
timeout 440 python3 .pack/prefetch_bench2.py /tmp/tkgpu/tk/bin/tk-llama ${ROUNDS:-2} 2>&1 | grep -v "Writing model" | tee $out/prefetch.txt

#!/usr/bin/env bash
# prefetch_l2 before gdc_wait and load prefetch_size: the tiny LLaMA on CUDA (every check, with all the variants'
# changes: stdlib_AL), then LLaMA-7B FP8 decode A/B (ab_bench.py): batch 1, one round (the device budget)
# (run 33 measured A, plain and prev against p1).
#   p1    = stdlib (6ad2cc2: FP8 GEMVs dependents, their first k-step of weights prefetched before gdc_wait)
#   A     = p1 + decode_attention_split prefetching its first block of cache rows before gdc_wait
#   L     = p1 + prefetch_size = 256 on the GEMVs' weight loads;  AL = both;  plain = p1, TK_DEPENDENT_LAUNCH=0
#   prev  = stdlib of e8651ff (fp8_gemv_row a dependent without prefetch, fp8_gemv plain)
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin PYTHONUNBUFFERED=1
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$root/.pack/stdlib_AL TK_CACHE_DIR=$(mktemp -d) timeout 45 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tail -14 | tee $out/llm-tiny.txt
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 160 python3 .pack/ab_bench.py $L 1 fp8b1 p1=stdlib AL=.pack/stdlib_AL L=.pack/stdlib_L 2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt
# (batch 8: not run, the device budget)

#!/usr/bin/env bash
# Programmatic dependent launch (gdc_wait / gdc_launch_dependents in the decode-step kernels): CUDA conformance of
# the kernels touched, the tiny LLaMA on CUDA, then LLaMA-7B decode A/B (TK_DEPENDENT_LAUNCH=1 vs 0, same run).
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$root/stdlib PYTHONUNBUFFERED=1
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
for f in gemv decode rope kv_append rmsnorm embedding; do
  TK_CACHE_DIR=$(mktemp -d) timeout 45 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 15 -k $f 2>&1 | tail -2
done 2>&1 | tee $out/conformance.txt
TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tail -14 | tee $out/llm-tiny.txt
timeout 420 python3 .pack/pdl_bench.py /tmp/tkgpu/tk/bin/tk-llama 2>&1 | tee $out/pdl.txt

#!/usr/bin/env bash
# prefetch_l2 before gdc_wait in the FP8 GEMVs: GPU unit tests (the dependent-launch chain), CUDA conformance
# of the GEMVs, then LLaMA-7B FP8 decode A/B (prefetch_bench.py).
root=$PWD; out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin TK_STDLIB_DIR=$root/stdlib PYTHONUNBUFFERED=1
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_CACHE_DIR=$(mktemp -d) timeout 120 .pack/tk-unit-tests --gtest_filter='JitGpuTest.*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|error" | head -20 | tee $out/unit-gpu.txt
for f in gemv; do
  TK_CACHE_DIR=$(mktemp -d) timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 15 -k $f 2>&1 | tail -2
done 2>&1 | tee $out/conformance.txt
timeout 420 python3 .pack/prefetch_bench.py /tmp/tkgpu/tk/bin/tk-llama ${ROUNDS:-1} 2>&1 | grep -v "Writing model" | tee $out/prefetch.txt

#!/usr/bin/env bash
# Session 16 run 4: batch 1's gate and up projections in one fp8_gemv_row launch (GATE_UP).
# The fp8_gemv_row conformance cases on CUDA against the interpreter; the tiny LLaMA on CUDA
# against numpy (its --fp8 decode merges them); then the LLaMA-7B FP8 decode step, this build
# (`new`) against the build before (`old`: the same binaries with 1c636ee's libtkc-graph,
# .pack/old-graph, and stdlib, .pack/stdlib_old), 3 interleaved rounds, and the profile of each.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 12 \
  -k fp8_gemv_row 2>&1 | grep -v "^ok " | tee $out/conformance.txt
TK_STDLIB_DIR=$PWD/stdlib TK_CACHE_DIR=$(mktemp -d) timeout 150 python3 tests/llm/tiny_llama.py \
  --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer > $out/llm-tiny.txt 2>&1
echo "tiny LLaMA exit $?"; tail -4 $out/llm-tiny.txt
rm -rf /tmp/old && cp -r /tmp/tkgpu/tk/bin /tmp/old && cp .pack/old-graph/* /tmp/old/
x=/tmp/tkgpu/tk/bin/tk-llama
PROFILE=1 timeout 400 python3 bench/llm_ab.py 3 fp8b1 new=$x:stdlib old=/tmp/old/tk-llama:.pack/stdlib_old 2>&1 \
  | grep -v "Writing model" | tee $out/ab.txt

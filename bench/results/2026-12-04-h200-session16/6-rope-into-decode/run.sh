#!/usr/bin/env bash
# Session 16 run 6: decode's rope and cache appends folded into flash-decoding's split (one
# launch fewer a layer). The decode conformance cases on CUDA against the interpreter; the tiny
# LLaMA on CUDA against numpy; then the LLaMA-7B FP8 batch-1 step, this build (`new`) against
# the one before (`old`: the same binaries with the previous commit's libtkc-graph,
# .pack/old-graph, and stdlib, .pack/stdlib_old), 2 interleaved rounds.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 12 \
  -k decode 2>&1 | grep -v "^ok " | tee $out/conformance.txt
TK_STDLIB_DIR=$PWD/stdlib TK_CACHE_DIR=$(mktemp -d) timeout 90 python3 tests/llm/tiny_llama.py \
  --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda --skip-tokenizer > $out/llm-tiny.txt 2>&1
echo "tiny LLaMA exit $?"; tail -3 $out/llm-tiny.txt
rm -rf /tmp/old && cp -r /tmp/tkgpu/tk/bin /tmp/old && cp .pack/old-graph/* /tmp/old/
x=/tmp/tkgpu/tk/bin/tk-llama
timeout 175 python3 bench/llm_ab.py 2 fp8b1 new=$x:stdlib old=/tmp/old/tk-llama:.pack/stdlib_old 2>&1 \
  | grep -v "Writing model" | tee $out/ab.txt

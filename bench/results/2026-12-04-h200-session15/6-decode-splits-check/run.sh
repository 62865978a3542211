#!/usr/bin/env bash
# Session 15 run 6: the committed flash-decoding change (splits of whole blocks, 64 at batch 1)
# checked (conformance on CUDA against the interpreter; the tiny LLaMA on CUDA against numpy),
# then A/B against the build before it (.pack/base.tar.xz with .pack/v-base, the stdlib before):
# FP8 batch 1 and 8, 2 rounds.
out=$OUT
mkdir -p /tmp/tkgpu /tmp/base && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu && tar -xJf .pack/base.tar.xz -C /tmp/base
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 8 -k decode 2>&1 | tail -3
TK_STDLIB_DIR=$PWD/stdlib TK_CACHE_DIR=$(mktemp -d) timeout 150 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda \
    --skip-tokenizer > $out/llm-tiny.txt 2>&1; echo "tiny llama exit $?"; tail -4 $out/llm-tiny.txt
timeout 400 python3 bench/llm_ab.py 2 fp8b1,fp8b8 base=/tmp/base/tk/bin/tk-llama:.pack/v-base new=/tmp/tkgpu/tk/bin/tk-llama:stdlib \
  2>&1 | grep -v "Writing model" | tee $out/ab.txt

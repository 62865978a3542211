#!/usr/bin/env bash
# Session 12 run 1: rope + cache append in one launch, decode attention without its combine launch.
# Checks on CUDA (GPU unit tests, the changed stdlib kernels' conformance + memcheck, the tiny
# LLaMA), then LLaMA-7B decode A/B: base = c42944b (session 11's commit, its stdlib), new = this pack.
root=$PWD; out=$OUT
mkdir -p /tmp/new /tmp/base && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new && tar -xJf .pack/base.tar.xz -C /tmp/base
cp .pack/tk-unit-tests /tmp/new/tk/bin/
export PYTHONUNBUFFERED=1
{ date -u; cat /tmp/new/tk/commit; echo "base: $(cat /tmp/base/tk/commit)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
LD_LIBRARY_PATH=/tmp/new/tk/bin timeout 100 /tmp/new/tk/bin/tk-unit-tests --gtest_filter='CudaBackend*:Jit*' 2>&1 | tail -6 | tee $out/gtest.txt
for k in decode_attention rope; do
  LD_LIBRARY_PATH=/tmp/new/tk/bin timeout 60 python3 tests/conformance/run.py --tkc /tmp/new/tk/bin/tkc --backend cuda --compare-interp -j 12 -k $k 2>&1 | grep -v "^ok" | tail -6
  LD_LIBRARY_PATH=/tmp/new/tk/bin timeout 60 python3 tests/conformance/run.py --tkc /tmp/new/tk/bin/tkc --backend cuda --sanitize -j 12 -k $k 2>&1 | grep -v "^ok" | tail -4
done 2>&1 | tee $out/conformance.txt
TK_STDLIB_DIR=$root/.pack/new-stdlib LD_LIBRARY_PATH=/tmp/new/tk/bin TK_CACHE_DIR=$(mktemp -d) timeout 60 python3 tests/llm/tiny_llama.py --tk-llama /tmp/new/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tail -14 | tee $out/llm-tiny.txt
PROFILE=1 timeout 420 python3 .pack/ab2.py 2 fp8b1,fp8b8 base=/tmp/base/tk/bin/tk-llama:.pack/base-stdlib new=/tmp/new/tk/bin/tk-llama:.pack/new-stdlib 2>&1 | grep -v "Writing model" | tee $out/ab.txt

#!/usr/bin/env bash
# Session 18 run 6: the whole conformance suite on CUDA against the interpreter after the
# review of the rereading broadcasts (7b009fe); then `bench/run-all fp8` on the four M=32 shapes
# with Triton's config list grown by BM=16 and 32 (mma.sync below 64 rows).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
TK_STDLIB_DIR=$PWD/stdlib timeout 300 python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 14 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
OUT=$out/fp8-m32 timeout 200 bench/run-all fp8 --fp8-shapes 32x12288x4096,32x4096x4096,32x11008x4096,32x4096x11008 > /dev/null 2>&1
grep "^fp8\|Worst\|failed\|rror" $out/fp8-m32/log.txt | cut -c1-240

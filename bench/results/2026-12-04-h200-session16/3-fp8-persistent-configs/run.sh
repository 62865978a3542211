#!/usr/bin/env bash
# Session 16 run 3: fp8_matmul_persistent with four more configs in its tuning space (128x256
# with 4 stages, BK 64 with 6 stages and with 5 and a producer, 256x128 with a producer): the
# persistent cases on CUDA against the interpreter, then `bench/run-all fp8`.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 12 \
  -k fp8_matmul_persistent 2>&1 | grep -v "^ok " | tee $out/conformance.txt
OUT=$out/bench timeout 300 bench/run-all fp8 > /dev/null 2>&1
grep "^fp8\|Worst" $out/bench/log.txt

#!/usr/bin/env bash
# Session 15 run 2: the fp8 section at M=32 with run 1's winning SWAP_AB config and five more
# (two programs a multiprocessor: 4-stage rings of 24 KB, or BK 128; BN 128), checked first.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-} TK_STDLIB_DIR=$PWD/stdlib
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 8 -k stdlib.fp8_matmul.tma 2>&1 | tail -3
OUT=$out/bench timeout 400 bench/run-all --fp8-shapes 32x12288x4096,32x4096x4096,32x11008x4096,32x4096x11008 fp8 > /dev/null 2>&1
grep "^fp8\|Worst" $out/bench/log.txt; grep "^| e4m3" $out/bench/log.txt | awk -F'|' '{print $2, $NF}'

#!/usr/bin/env bash
# Session 23 run 1, at 4aa2835 (TMA stores staged in parts, so 128x256 in 4 stages stores by TMA): the whole conformance suite on CUDA
# against the interpreter (after e3253b1's f8e5m2 NaN code and reductions_nan's tolerance), then
# `bench/run-all fp8` and `bench/run-all matmul` (do cdiv's extra integer instructions cost time?).
# Pack: tools/gpu-check --bench; carry .pack.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
TK_STDLIB_DIR=$PWD/stdlib timeout 170 python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda \
  --compare-interp -j 14 2>&1 | grep -v "^ok " | tee $out/conformance.txt
date -u
for section in fp8 matmul; do
  OUT=$out/$section timeout 200 bench/run-all $section > /dev/null 2>&1
  grep "^$section\|Worst\|failed" $out/$section/log.txt | cut -c1-220
  date -u
done

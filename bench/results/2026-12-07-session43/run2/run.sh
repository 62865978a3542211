#!/usr/bin/env bash
# Session 43, run 2 (pack of 099249f or later, tools/gpu-check; repository root, $OUT; carry .pack):
# the tuner's final round (configs within 5% of the best run in turn) and bench/run-all fp8
# choosing between the tiled and the persistent kernel by an interleaved A/B.
#  - the GPU unit tests of the JIT (two new: the final round, Context::timeInterleaved) and the
#    Python package on torch tensors (its tuning check now knows the final round);
#  - bench/run-all fp8, the SM clock and power sampled every 100 ms.
set -u
. bench/gpu-env.sh
/tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='JitGpu*:JitInterpreter*' 2>&1 | tail -15 > $OUT/gtest.txt
grep -E "PASSED|FAILED" $OUT/gtest.txt
export TKC_LIBRARY=$(ls /tmp/tkgpu/tk/bin/libtkc.so.*) PYTHONPATH=$PWD/runtime/python
TK_CACHE_DIR=$(mktemp -d) timeout 120 python3 tests/python/gpu_torch.py $PWD > $OUT/python.txt 2>&1
grep -ci "fail" $OUT/python.txt; tail -2 $OUT/python.txt
unset TKC_LIBRARY PYTHONPATH
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $OUT/clocks.csv &
sampler=$!
OUT=$OUT/fp8 timeout 420 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
rm -f $OUT/fp8/summary.md
grep "^fp8\|Worst\|failed\|took" $OUT/fp8/log.txt | cut -c1-220

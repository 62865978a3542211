#!/usr/bin/env bash
# Session 45, run 4 (pack of the rested tuning rounds' commit: tools/gpu-check; repository root,
# $OUT; carry .pack): the tuner's rounds rest the GPU before each run, as its final round does.
#  - the GPU unit tests of the JIT (JitGpuTest.TuningRoundsRestBeforeEachRun new);
#  - `tkc tune` over session 44 run 3's eight tile orders at 8192x8192x4096 per row/column,
#    twice: does it now choose GROUP_M 4, as per call ranks it (run 3)?
#  - bench/run-all fp8 at 8192x8192x4096 alone: the row below 1.0x in run 1.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=/tmp/tk-cache-run4
/tmp/tkgpu/tk/bin/tk-unit-tests --gtest_filter='JitGpu*' 2>&1 | tail -8 > $OUT/gtest.txt
grep -E "PASSED|FAILED|Failure" $OUT/gtest.txt
for pass in 1 2; do
  TK_CACHE_DIR= timeout 100 $tkc tune bench/results/2026-12-07-session44/run3/fp8_group_m.tk --kernel fp8_matmul_persistent \
    -D BK=128 -D SCALE_MODE=1 --grid 'multiprocessors * resident_programs_per_multiprocessor' $(fp8_args 8192 8192 4096) \
    2>&1 | grep -v "^\["
done 2>&1 | tee $OUT/tune.txt
OUT=$OUT/fp8 timeout 150 bench/run-all fp8 --fp8-shapes 8192x8192x4096 > /dev/null 2>&1
grep "^fp8\|Worst\|took" $OUT/fp8/log.txt | cut -c1-220

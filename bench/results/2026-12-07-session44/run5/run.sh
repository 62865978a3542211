#!/usr/bin/env bash
# Session 44, run 5 (pack of 641ffa8; repository root, $OUT; carry .pack): run5/ab.py, the
# persistent kernel's variants per call against cuBLASLt fast accumulation, per call and back to back, at the M >= 2048 shapes.
set -u
. bench/gpu-env.sh
export TK_STDLIB_DIR=$PWD/stdlib TKC_LIBRARY=$(ls /tmp/tkgpu/tk/bin/libtkc.so.*) PYTHONPATH=$PWD/runtime/python
export TK_CACHE_DIR=/tmp/tk-cache-run5
# Every shape, then the first three again.
for shapes in "8192x8192x4096 4096x4096x4096 2048x12288x4096 2048x11008x4096 2048x4096x11008 2048x4096x4096" \
              "8192x8192x4096 4096x4096x4096 2048x12288x4096"; do
  timeout 200 python3 bench/results/2026-12-07-session44/run5/ab.py $shapes 2>&1 | tee -a $OUT/ab.txt
done

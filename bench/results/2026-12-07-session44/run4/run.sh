#!/usr/bin/env bash
# Session 44, run 4 (pack of 641ffa8; repository root, $OUT; carry .pack): run4/ab.py, the
# persistent kernel's variants per call against cuBLASLt fast accumulation, twice over.
set -u
. bench/gpu-env.sh
export TK_STDLIB_DIR=$PWD/stdlib TKC_LIBRARY=$(ls /tmp/tkgpu/tk/bin/libtkc.so.*) PYTHONPATH=$PWD/runtime/python
export TK_CACHE_DIR=/tmp/tk-cache-run4
for i in 1 2; do
  timeout 200 python3 bench/results/2026-12-07-session44/run4/ab.py 8192x8192x4096 4096x4096x4096 2048x12288x4096 2>&1 | tee -a $OUT/ab.txt
done

#!/usr/bin/env bash
# Session 34, run 8 (.pack/gemv_ring8 and .pack/gemv_ring16 built here from this folder's
# gemv_ring.cu by `nvcc -O3 -arch=sm_90a -std=c++17 -DCONSUMER_WARPS=W -o .pack/gemv_ringW
# gemv_ring.cu`): the persistent chain (mega forms) with 8 and with 16 consumer warps, and
# mega-queue (the producers take the items from a queue; its check against the CPU first).
# (run from the repository root with $OUT)
set -u
out=$OUT
{ date -u; git log -1 --format=%h; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
for w in 8 16; do
  echo "== $w consumer warps"
  timeout 60 .pack/gemv_ring$w 2>&1 | grep -E "check mega|plain read|mega" | grep -v "round 1"
done 2>&1 | tee $out/gemv_ring.txt

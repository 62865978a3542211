#!/usr/bin/env bash
# Session 35, run 6: are the persistent GEMV chain's products' cost conversions? Session 34's
# run8/gemv_ring.cu with this folder's patch (-DDOT_HALF=1: 12 conversions and 8 f16x2 FMAs a
# 16-byte dot, against 24 conversions and 16 f32 FMAs), built here and carried in .pack:
#   cp bench/results/2026-12-06-session34/run8/gemv_ring.cu /tmp/gemv_ring.cu
#   patch /tmp/gemv_ring.cu bench/results/2026-12-06-session35/run6/dot_half.patch
#   nvcc -O3 -arch=sm_90a -std=c++17 -o .pack/gemv_ring_smem /tmp/gemv_ring.cu
#   nvcc -O3 -arch=sm_90a -std=c++17 -DDOT_HALF=1 -o .pack/gemv_ring_half /tmp/gemv_ring.cu
# (run from the repository root with $OUT)
set -u
out=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
for form in smem half; do
  echo "== products in $form"
  timeout 60 .pack/gemv_ring_$form 2>&1 | grep -E "check mega |plain read|mega " | grep -v "round 1"
done 2>&1 | tee $out/gemv_ring.txt

#!/usr/bin/env bash
# Session 35, run 5 (NVIDIA H100): is the persistent GEMV chain's products' cost (session
# 34 run 7: 82% of the read with products and no waits, 99% with neither) shared-memory
# traffic for the activations? Session 34's run8/gemv_ring.cu with this folder's patch, built both
# ways here, carried in .pack:
#   cp bench/results/2026-12-06-session34/run8/gemv_ring.cu /tmp/gemv_ring.cu
#   patch /tmp/gemv_ring.cu bench/results/2026-12-06-session35/run5/x_in_registers.patch
#   nvcc -O3 -arch=sm_90a -std=c++17 -o .pack/gemv_ring_smem /tmp/gemv_ring.cu
#   nvcc -O3 -arch=sm_90a -std=c++17 -DX_IN_REGISTERS=1 -o .pack/gemv_ring_xreg /tmp/gemv_ring.cu
# (X_IN_REGISTERS: mega's consumers 168 registers, no spills; the two-CTA `ring` kernel spills
# with it, so only the mega lines count.) (run from the repository root with $OUT)
set -u
out=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
for form in smem xreg; do
  echo "== activations from $form"
  timeout 60 .pack/gemv_ring_$form 2>&1 | grep -E "check mega |plain read|mega " | grep -v "round 1"
done 2>&1 | tee $out/gemv_ring.txt

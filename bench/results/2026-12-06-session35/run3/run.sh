#!/usr/bin/env bash
# Session 35, run 3: session 34's prepared run 8, as it is (.pack/gemv_ring8 and gemv_ring16 built
# by `nvcc -O3 -arch=sm_90a -std=c++17 -DCONSUMER_WARPS=W` of session 34's run8/gemv_ring.cu):
# the persistent GEMV chain with 8 and 16 consumer warps, and fed by a queue. (The call was
#   OUT=$OUT timeout 150 bash bench/results/2026-12-06-session34/run8/run.sh
# from the repository root; its machine.txt names the commit session 34's script printed.)
OUT=$OUT timeout 150 bash bench/results/2026-12-06-session34/run8/run.sh

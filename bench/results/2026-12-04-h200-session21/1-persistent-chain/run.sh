#!/usr/bin/env bash
# Session 21 run 1: a LLaMA-7B batch-1 decode step's 160 FP8 GEMVs (32 layers, 6.48 GB of e4m3
# weights) as one launch per GEMV in a CUDA graph against one persistent kernel taking work items
# from a ticket counter (variants (a) plain, (b) early register loads, (c) L2 prefetch, (b+c);
# items of 8 and 4 rows); correctness on 2 layers against a CPU chain first.
# The binary is prebuilt (this machine need not have nvcc; carry .pack/gemv_chain_persistent):
#   nvcc -arch=sm_90a -O3 -std=c++17 -o .pack/gemv_chain_persistent bench/results/2026-12-04-h200-session21/1-persistent-chain/gemv_chain_persistent.cu
out=$OUT
bin=.pack/gemv_chain_persistent
{ date -u; git rev-parse --short HEAD 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -r; } | tee $out/machine.txt
timeout 300 $bin 2>&1 | tee $out/chain.txt
echo "exit status ${PIPESTATUS[0]}" | tee -a $out/chain.txt
# Registers and the SASS of the early-load kernel (do its weight loads come before the spin?), where
# the toolkit is installed here.
if command -v cuobjdump >/dev/null; then
  cuobjdump -res-usage $bin > $out/res-usage.txt 2>&1
  cuobjdump -sass -fun '_Z10persistentILi2ELi1EEv5ChainPj' $bin > $out/sass-persistent-rows2-early.txt 2>&1
fi

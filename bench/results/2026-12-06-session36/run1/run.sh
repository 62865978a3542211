#!/usr/bin/env bash
# Session 36, run 1: session 35's prepared runs 6 (the GEMV chain's dot in f32 against f16x2:
# is conversion throughput the products' cost?) and 4 (`bench/run-all --llm-without-peers llm`),
# plus the SASS of run 6's two binaries and of tk's fp8_gemv_row (BN 8, BK 1024, 4 warps, sm_90a,
# the JIT's divisibility), built here as
#   tkc stdlib/std/fp8_matmul.tk --kernel fp8_gemv_row -D BN=8 -D BK=1024 -D num_warps=4 \
#     --arch sm_90a --divisibility X=16 (a b c scale_b K N lda ldb ldc ldr ldm residual mul bias) \
#     --emit cubin -o .pack/sass/gemv_row.cubin
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
R=bench/results/2026-12-06-session35
mkdir -p $out/run6 $out/run4 $out/sass
OUT=$out/run6 bash $R/run6/run.sh
for f in .pack/gemv_ring_smem .pack/gemv_ring_half .pack/sass/gemv_row.cubin; do
  cuobjdump --dump-sass $f > $out/sass/$(basename $f).sass 2>&1
done
xz -9 $out/sass/*.sass
OUT=$out/run4 bash $R/run4/run.sh

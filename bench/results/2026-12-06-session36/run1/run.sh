#!/usr/bin/env bash
# Session 36, run 1: session 35's prepared runs 6 (the GEMV chain's dot in f32 against f16x2:
# is conversion throughput the products' cost?) and 4 (`bench/run-all --llm-without-peers llm`),
# plus the SASS of run 6's two binaries and of tk's fp8_gemv_row (BN 8, BK 1024, 4 warps, sm_90a,
# the JIT's divisibility), built here as
#   tkc stdlib/std/fp8_matmul.tk --kernel fp8_gemv_row -D BN=8 -D BK=1024 -D num_warps=4 \
#     --arch sm_90a --divisibility X=16 (a b c scale_b K N lda ldb ldc ldr ldm residual mul bias) \
#     --emit cubin -o .pack/sass/gemv_row.cubin
# and of fp8_gemv (BM 8, BN 64, BK 512, SPLIT_K 1, 4 warps, 1 stage; also workspace counters) as gemv_mma.cubin,
# conv_rate.cu (the products' instruction rates with no memory traffic; nvcc -O3 -arch=sm_90a
# -std=c++17 -o .pack/conv_rate conv_rate.cu), and gemv_tune.sh (fp8_gemv's tensor cores at batch 1 over more configs, against fp8_gemv_row).
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
R=bench/results/2026-12-06-session35
mkdir -p $out/run6 $out/run4 $out/sass
OUT=$out/run6 bash $R/run6/run.sh
timeout 60 .pack/conv_rate 2>&1 | tee $out/conv_rate.txt
for f in .pack/gemv_ring_smem .pack/gemv_ring_half .pack/sass/gemv_row.cubin .pack/sass/gemv_mma.cubin .pack/conv_rate; do
  cuobjdump --dump-sass $f > $out/sass/$(basename $f).sass 2>&1
done
xz -9 $out/sass/*.sass
(OUT=$out/run4; . bench/gpu-env.sh >/dev/null; . bench/results/2026-12-06-session36/run1/gemv_tune.sh) > $out/gemv_tune.txt 2>&1
OUT=$out/run4 bash $R/run4/run.sh

#!/usr/bin/env bash
# Session 37, run 5 (written for the next session's device time): two A/Bs by stdlib variants
# made here, one build, rounds interleaved (bench/llm_ab.py, which prints the prefill's medians too):
#  a. fp8_gemv (batch 8's GEMV) reading its weights with evict = "first", as fp8_gemv_row does
#     (taken out in session 37 until measured): tk-llama --fp8 batch 8;
#  b. matmul_epilogue sending the tile's gate (mul) and residual rows to L2 before its K loop,
#     so that the epilogue's loads of them hit L2 (the SwiGLU matmuls ran at 532 TFLOP/s against
#     651-670 for the others in run 3): the bf16 prefill (and its decode, unchanged in form).
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1; }
mk gemv_ef
perl -0pi -e 's/(let w = load\(b \+ rn\[:, None\] \* ldb \+ kk\[None, :\], mask = rn\[:, None\] < N && kk\[None, :\] < K, other = 0\.0)\);/$1, evict = "first");/' /tmp/sl-gemv_ef/std/fp8_matmul.tk
mk epi
perl -0pi -e 's/(    var sum_sq = zeros\(\[BM\], f32\);\n)(    for k in range\(0, cdiv\(K, BK\)\) \{)/$1    if HAS_MUL { prefetch_l2(mul + rm * ldm + pid_n * BN, minimum(BN, N - pid_n * BN), mask = rm < M); }\n    if HAS_RESIDUAL { prefetch_l2(residual + rm * ldr + pid_n * BN, minimum(BN, N - pid_n * BN), mask = rm < M); }\n$2/' /tmp/sl-epi/std/matmul.tk
{ diff stdlib/std/fp8_matmul.tk /tmp/sl-gemv_ef/std/fp8_matmul.tk; diff stdlib/std/matmul.tk /tmp/sl-epi/std/matmul.tk; } | tee $out/variants.txt
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 250 python3 bench/llm_ab.py 2 fp8b8 base=$L:stdlib gemv_ef=$L:/tmp/sl-gemv_ef 2>&1 | grep -v "Writing model" | tee $out/ab-b8.txt
timeout 250 python3 bench/llm_ab.py 2 bf16b1 base=$L:stdlib epi=$L:/tmp/sl-epi 2>&1 | grep -v "Writing model" | tee $out/ab-epi.txt

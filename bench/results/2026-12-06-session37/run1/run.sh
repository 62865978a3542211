#!/usr/bin/env bash
# Session 37, run 1: streamed data read once with an L2 evict-first policy (01af411: `evict =
# "first"` now also sets the line's L2 priority, createpolicy + .L2::cache_hint). Stdlib variants
# made here by sed, all on one build:
#   base    the stdlib as committed (no hints)
#   gemv    fp8_gemv_row's and fp8_gemv's weight loads evict = "first"
#   all     gemv + decode attention's K and V cache loads evict = "first"
#   all_p2  all + PREFETCH_STEPS 2 (the GEMVs' weights sent to L2 before their gdc_wait)
# 1. fp8_gemv_row alone, base against gemv (per call, tkc run --time 100);
# 2. tk-llama --fp8 batch 1 decode A/B, two rounds interleaved (bench/llm_ab.py).
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1; }
gemv_ef='s|kk\[None, :\] < K, other = 0.0)|kk[None, :] < K, other = 0.0, evict = "first")|'
mk gemv; sed -i "$gemv_ef" /tmp/sl-gemv/std/fp8_matmul.tk
mk all; sed -i "$gemv_ef" /tmp/sl-all/std/fp8_matmul.tk
sed -i 's|mask = in_range\[:, None\], other = 0.0) as f32;|mask = in_range[:, None], other = 0.0, evict = "first") as f32;|' /tmp/sl-all/std/decode_attention.tk
mk all_p2; cp /tmp/sl-all/std/*.tk /tmp/sl-all_p2/std/
sed -i 's|const PREFETCH_STEPS: i32 = 1|const PREFETCH_STEPS: i32 = 2|' /tmp/sl-all_p2/std/fp8_matmul.tk
for v in gemv all all_p2; do diff -r stdlib /tmp/sl-$v | grep -c "^>" | sed "s/^/$v: lines changed /"; done | tee $out/variants.txt
gemv_time() { # stdlib N K
  timeout 30 $tkc run $1/std/fp8_matmul.tk --kernel fp8_gemv_row --backend=cuda -D BN=8 -D BK=1024 -D num_warps=4 \
    --grid $(( $2 / 8 )),1 --time 100 a=rand:bf16:1x$3 b=rand:f8e4m3:$2x$3 c=zeros:bf16:1x$2 scale_b=rand:f32:$2 \
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2 \
    norm_x=zeros:bf16:1 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1 2>&1 | tail -1 | sed "s|^|$1 1x$2x$3: |"
}
for r in 1 2; do for s in "12288 4096" "4096 11008"; do gemv_time stdlib $s; gemv_time /tmp/sl-gemv $s; done; done | tee $out/gemv.txt
timeout 470 python3 bench/llm_ab.py 2 fp8b1 base=/tmp/tkgpu/tk/bin/tk-llama:stdlib gemv=/tmp/tkgpu/tk/bin/tk-llama:/tmp/sl-gemv \
  all=/tmp/tkgpu/tk/bin/tk-llama:/tmp/sl-all all_p2=/tmp/tkgpu/tk/bin/tk-llama:/tmp/sl-all_p2 2>&1 | grep -v "Writing model" | tee $out/ab.txt

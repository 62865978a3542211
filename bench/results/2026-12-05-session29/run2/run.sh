#!/usr/bin/env bash
# Session 29, run 2: run 1's synccheck reported 224 errors on ws 3 with TAIL_SPLIT 2 (6 stages,
# 330x264x800 per row/column, 6 programs). Which errors, at which instructions, and whether the
# tuned ws 3 config without TAIL_SPLIT and ws 3 TAIL_SPLIT at an even shape have them too.
# (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
export PATH=$PATH:/usr/local/cuda/bin
. bench/gpu-env.sh
check() { # name M N K grid tail stages
  rm -rf /tmp/dump-$1; mkdir -p /tmp/dump-$1
  TK_CACHE_DIR= TK_DUMP_DIR=/tmp/dump-$1 timeout 120 compute-sanitizer --tool synccheck --print-limit 4000 $tkc run stdlib/std/fp8_matmul.tk \
    --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_stages=$7 -D num_warps=4 \
    -D warp_specialize=3 -D TAIL_SPLIT=$6 -D SCALE_MODE=1 --grid $5 $(fp8_args $2 $3 $4) > /tmp/sc-$1.txt 2>&1
  echo "== $1: $2x$3x$4 grid $5 tail $6 stages $7: $(grep 'ERROR SUMMARY' /tmp/sc-$1.txt)"
  grep -v "^=========     \(Thread\|Block\)" /tmp/sc-$1.txt | grep -E "^=========" | sed 's/(.*)//' | sort | uniq -c | sort -rn | head -12
  grep -A3 -m2 "Barrier error\|Invalid\|Divergent" /tmp/sc-$1.txt
  ls /tmp/dump-$1 | head -3
}
{
check ts2 330 264 800 6 2 6
check ts1 330 264 800 6 1 6
check ts2even 1024 1024 512 16 2 6
check ts2s5 330 264 800 6 2 5
} 2>&1 | tee $out/synccheck.txt
# The SASS around the reported instructions (the PTX the JIT compiled, through ptxas here).
ptx=$(ls /tmp/dump-ts2/*.ptx 2>/dev/null | head -1)
if [ -n "$ptx" ]; then
  ptxas -arch=sm_90a "$ptx" -o /tmp/ts2.cubin && cuobjdump -sass /tmp/ts2.cubin > $out/ts2.sass
  grep -o "at 0x[0-9a-f]*" /tmp/sc-ts2.txt | sort | uniq -c | sort -rn | head -20 > $out/pcs.txt
fi
cp /tmp/sc-ts2.txt $out/sc-ts2-full.txt 2>/dev/null; xz -9 $out/sc-ts2-full.txt 2>/dev/null

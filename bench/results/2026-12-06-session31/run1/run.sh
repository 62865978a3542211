#!/usr/bin/env bash
# Session 31, run 1: HEAD on CUDA. 1598d88 (the consumers' ring start from tkg.program_in_cta,
# a constant in each program's copy) has not run on a GPU yet, nor has the 7-program TAIL_SPLIT
# case (4d95f0a). About 5 minutes.
#  1. conformance on CUDA against the interpreter: the whole tuned space of
#     fp8_matmul_persistent, ping-pong (its cluster cases too) and TAIL_SPLIT cases;
#  2. synccheck and racecheck on ws 3 with TAIL_SPLIT 2 on 7 programs (two CTAs without a
#     part) and on 6, and on ws 3 clusters;
#  (the timings of these configs: run 2, without its switches)
# (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
for k in fp8_matmul_persistent.tma ping_pong tail; do
  echo "== -k $k" >> $out/conformance.txt
  timeout 170 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k $k > /tmp/conf.txt 2>&1
  cat /tmp/conf.txt >> $out/conformance.txt
  echo "$k: $(grep -E "conformance cases passed" /tmp/conf.txt)"; grep -E "^FAIL|mismatch" /tmp/conf.txt | head -3
done
{
for tool in synccheck racecheck; do
  fp8_sanitize $tool 7 384 384 896 -D TAIL_SPLIT=2
  fp8_sanitize $tool 6 330 264 800 -D TAIL_SPLIT=2
  fp8_sanitize $tool 8 520 264 576 -D cluster_size=2
done
} 2>&1 | tee $out/sanitizers.txt

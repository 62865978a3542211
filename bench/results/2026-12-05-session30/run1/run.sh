#!/usr/bin/env bash
# Session 30, run 1: the CTA-major numbering of two programs a CTA (bench/pending patch, applied
# in this pack) validated on CUDA and timed. About 5 minutes.
# The patch numbers two programs a CTA as CUTLASS's ping-pong numbers its warpgroups' tiles
# (program w of CTA c is w * nctaid + c, was 2c + w): a loop over tiles' first pass then gives
# every CTA one program's tile before any CTA a second, so TAIL_SPLIT's parts (fewer than the
# programs) spread over the CTAs instead of pairing up in the first ones (session 29, run 1).
#  1. conformance on CUDA against the interpreter: ping-pong (with its cluster cases) and
#     TAIL_SPLIT cases; synccheck and racecheck on ws 3 TAIL_SPLIT 2 and 4 and on ws 3 clusters;
#  2. per row/column timings, two rounds: ws 3 in 6 stages with TAIL_SPLIT 1, 2, 4 and the
#     tuned ws 1 128x128 TAIL_SPLIT 2 in 5 stages at 8192x8192x4096, 2048x11008x4096 and
#     2048x12288x4096.
# (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
for k in ping_pong tail; do
  timeout 150 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k $k > $out/conformance-$k.txt 2>&1
  grep -E "conformance cases passed" $out/conformance-$k.txt; grep -E "^FAIL|mismatch" $out/conformance-$k.txt | head -3
done
{
for tool in synccheck racecheck; do
  fp8_sanitize $tool 6 330 264 800 -D TAIL_SPLIT=2
  fp8_sanitize $tool 16 1024 1024 512 -D TAIL_SPLIT=4
  fp8_sanitize $tool 8 520 264 576 -D cluster_size=2
done
} 2>&1 | tee $out/sanitizers.txt
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096" "2048 12288 4096"; do
    for cfg in "6 3 1" "6 3 2" "6 3 4" "5 1 2"; do fp8_time $shape $cfg; done
  done
done 2>&1 | tee $out/timing.txt

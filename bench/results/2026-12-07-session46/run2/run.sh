#!/usr/bin/env bash
# Session 46, run 2 (pack of 9f98edd plus an uncommitted experiment, TK_EXPERIMENT_RELEASE_PER_WARPGROUP:
# on clusters a consumer warpgroup's thread 0 alone releases a stage, once on each CTA's empty
# barrier, as CUTLASS's PipelineTmaAsync does, instead of lane 0 of each of its 4 warps;
# repository root, $OUT; carry .pack): fp8_matmul_persistent per row and column, 128x128x128
# ws 3 in 6 stages, GROUP_M 4 and 8, without clusters, on clusters of 2 CTAs, and on clusters
# with that release, at 8192x8192x4096 (two rounds) and 4096^3 (one) (session 32 measured clusters only on an
# H200 and only at GROUP_M 8; GROUP_M 4 came in session 44). `tkc run --time 200` (per call
# flushed and rested / back to back), the variants interleaved; no JIT cache (TK_CACHE_DIR empty).
set -u
. bench/gpu-env.sh
# The SASS of the three variants at GROUP_M 4 (cubins made by tkc --emit cubin on the build machine, carried in .pack).
for v in cl1 cl2 cl2-wg; do $(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump) -sass .pack/$v.cubin > $OUT/$v.sass 2>&1; done
xz -9 $OUT/*.sass
export TK_CACHE_DIR=
for round in 1 2 3; do
  shape="8192 8192 4096"; [ $round = 3 ] && shape="4096 4096 4096"
  for g in 4 8; do
    for variant in cl1 cl2 cl2-wg; do
      cl=${variant:2:1}
      if [ $variant = cl2-wg ]; then export TK_EXPERIMENT_RELEASE_PER_WARPGROUP=1; else unset TK_EXPERIMENT_RELEASE_PER_WARPGROUP; fi
      echo -n "$variant "
      fp8_persistent_time $shape 264 -D BM=128 -D BN=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 \
        -D GROUP_M=$g -D cluster_size=$cl
    done
  done
done 2>&1 | tee $OUT/timing.txt
# The experiment's correctness: the conformance cases on clusters (ws 1 and ws 3) on CUDA against the interpreter.
TK_EXPERIMENT_RELEASE_PER_WARPGROUP=1 timeout 80 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp \
  -j 14 -k cluster2 > $OUT/conformance-wg.txt 2>&1
tail -3 $OUT/conformance-wg.txt

#!/usr/bin/env bash
# Session 31, run 2: two experiments, each an environment switch of experiments.patch (in the
# pack for this run only; each timed variant with its own cache). About 5 minutes.
#  1. Do tk's consumers starve because they release a stage one k-step late? With its MMAs in
#     flight (wgmma.wait_group 1) a consumer releases iteration k - 1's stage in iteration k;
#     in session 27's profile tk's consumers waited on full barriers at 6-7% of the samples and
#     nvjet's, which wait for all their MMAs each k-step (WARPGROUP.DEPBAR.LE gsb0, 0x0), not at
#     all. TK_EXPERIMENT_MMA_WAIT_ALL waits for all MMAs each k-step and releases the stage at
#     once. Per row/column, per call, with and without, two rounds.
#  2. ws 3 on clusters with each program its own copy of the code: 1.8x slower in session 28
#     (runs 7-8), under the numbering of programs then (2c + w); the CTA-major numbering
#     (w * nctaid + c, session 30) changed which programs pair up across a cluster.
#     TK_EXPERIMENT_COPIES_ON_CLUSTERS makes the copies there too: conformance -k cluster on
#     CUDA with it, then ws 3 s6 without clusters, on clusters (one copy), on clusters (copies).
# (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
TK_CACHE_DIR=/tmp/cache-copies TK_EXPERIMENT_COPIES_ON_CLUSTERS=1 timeout 150 python3 -u tests/conformance/run.py --tkc $tkc \
  --backend cuda --compare-interp -j 14 -k cluster > $out/conformance-copies-on-clusters.txt 2>&1
echo "copies on clusters: $(grep -E "conformance cases passed" $out/conformance-copies-on-clusters.txt)"
grep -E "^FAIL|mismatch" $out/conformance-copies-on-clusters.txt | head -3
cluster_time() { # M N K cluster
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D cluster_size=$4 -D SCALE_MODE=1 --grid 264 --time 100 \
    $(fp8_args $1 $2 $3) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 s6 ws3 cluster$4/"
}
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096" "4096 4096 4096"; do
    for cfg in "6 3 1" "6 3 2"; do
      fp8_time $shape $cfg | sed "s/^/in-flight /"
      TK_CACHE_DIR=/tmp/cache-wait-all TK_EXPERIMENT_MMA_WAIT_ALL=1 fp8_time $shape $cfg | sed "s/^/wait-all  /"
    done
  done
  for shape in "8192 8192 4096" "2048 11008 4096"; do
    cluster_time $shape 1 | sed "s/^/one copy  /"
    cluster_time $shape 2 | sed "s/^/one copy  /"
    TK_CACHE_DIR=/tmp/cache-copies TK_EXPERIMENT_COPIES_ON_CLUSTERS=1 cluster_time $shape 2 | sed "s/^/copies    /"
  done
done 2>&1 | tee $out/timing.txt

#!/usr/bin/env bash
# Session 31, run 4: clusters with the wgmma wait on both paths after a tile's k-loop. Run 2's
# Nsight Compute pass (run2/ncu) found ptxas serializing every wgmma of ws 3 on clusters with
# each program its own code (C7518, "compiler-inserted WG.DP in divergent path": the tensor
# pipe 41% busy against 85%) and injecting a wait into the one-copy kernels (C7517): clusters
# waited for the MMAs in flight only where the k-loop ran, and on the other path ptxas saw the
# accumulators used without a wait. Now an untied wgmma.wait_group 0 stands there too (ptxas
# reports neither). Correctness on CUDA (-k cluster, with the copies switch too), then per
# row/column per call: ws 3 s6 and ws 1 s5 without clusters, on clusters (one copy), ws 3 on
# clusters with copies (TK_EXPERIMENT_COPIES_ON_CLUSTERS, run 2's patch), one round; then -k cluster
# with the copies. About 4 minutes.
# (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 80 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k cluster > $out/conformance.txt 2>&1
grep -E "conformance cases passed|^FAIL|mismatch" $out/conformance.txt | head -6
cluster_time() { # M N K stages ws cluster grid
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=$4 -D num_warps=4 -D warp_specialize=$5 -D cluster_size=$6 -D SCALE_MODE=1 --grid $7 --time 100 \
    $(fp8_args $1 $2 $3) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 s$4 ws$5 cluster$6/"
}
for round in 1; do
  for shape in "8192 8192 4096" "2048 11008 4096"; do
    for cfg in "5 1 1 132" "5 1 2 132" "6 3 1 264" "6 3 2 264"; do cluster_time $shape $cfg | sed "s/^/one copy /"; done
    TK_CACHE_DIR=/tmp/cache-copies TK_EXPERIMENT_COPIES_ON_CLUSTERS=1 cluster_time $shape 6 3 2 264 | sed "s/^/copies   /"
  done
done 2>&1 | tee $out/timing.txt
TK_CACHE_DIR=/tmp/cache-copies TK_EXPERIMENT_COPIES_ON_CLUSTERS=1 timeout 80 python3 -u tests/conformance/run.py --tkc $tkc \
  --backend cuda --compare-interp -j 14 -k cluster > $out/conformance-copies.txt 2>&1
grep -E "conformance cases passed|^FAIL|mismatch" $out/conformance-copies.txt | head -6

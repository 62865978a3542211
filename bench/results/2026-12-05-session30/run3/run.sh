#!/usr/bin/env bash
# Session 30, run 3: pairs of tiles along N on clusters. fp8_matmul_group_n.tk is
# stdlib/std/fp8_matmul.tk with GROUP_N (runs of GROUP_N adjacent tiles of a row in the
# persistent kernel's order): with cluster_size 2 and GROUP_N 2 a cluster's two CTAs take two
# tiles of one row and multicast a's copy, as cuBLASLt's 1x2 clusters do (tk's clusters so far
# paired two tiles of a column and multicast b's, which L2 already served to both).
#  1. correctness: outputs bit for bit against the same config without clusters (GROUP_N 1),
#     at a shape with a padded column of tiles (N = 300: 3 tiles, 4 with the padding), ws 1
#     and ws 3; racecheck (and synccheck on ws 3) with GROUP_N 2;
#  2. per row/column timings (ms per call), two rounds: ws 1 s5 and ws 3 s6, each without
#     clusters and on clusters pairing a row (GROUP_N 2), at 8192x8192x4096 and 2048x11008x4096.
# (run from the repository root with $OUT; pack: tools/gpu-check --bench, carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
src=bench/results/2026-12-05-session30/run3/fp8_matmul_group_n.tk
base="--kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_warps=4 -D SCALE_MODE=1"
{
for cfg in "1 5" "3 6"; do
  set -- $cfg
  progs=$(( $1 == 3 ? 16 : 8 ))
  for v in "-D GROUP_N=1" "-D GROUP_N=2 -D cluster_size=2" "-D GROUP_N=1 -D cluster_size=2"; do
    tag=$(echo "ws$1 $v" | tr -d ' =-')
    timeout 60 $tkc run $src $base -D warp_specialize=$1 -D num_stages=$2 $v --grid $progs $(fp8_args 520 300 576) --save c=$out/$tag.npy > /dev/null 2>&1 || echo "$tag: run failed"
  done
  for v in "-D GROUP_N=2 -D cluster_size=2" "-D GROUP_N=1 -D cluster_size=2"; do
    tag=$(echo "ws$1 $v" | tr -d ' =-')
    cmp -s $out/ws$1DGROUPN1.npy $out/$tag.npy && echo "$tag: same bits as without clusters" || echo "$tag: DIFFERS"
  done
  v="-D GROUP_N=2 -D cluster_size=2"
  for tool in racecheck $( [ $1 = 3 ] && echo synccheck ); do
    timeout 60 compute-sanitizer --tool $tool $tkc run $src $base -D warp_specialize=$1 -D num_stages=$2 $v --grid $progs $(fp8_args 520 300 576) 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sed "s/^/$tool ws$1 $v: /"
  done
done
rm -f $out/*.npy
} 2>&1 | tee $out/correctness.txt
time_one() { # M N K WS STAGES extra...
  local M=$1 N=$2 K=$3 ws=$4 st=$5; shift 5
  local progs=$(( ws == 3 ? 264 : 132 ))
  timeout 30 $tkc run $src $base -D warp_specialize=$ws -D num_stages=$st "$@" --grid $progs --time 100 $(fp8_args $M $N $K) 2>&1 | tail -1 | sed "s/^kernel 'fp8_matmul_persistent'/${M}x${N}x$K ws$ws s$st $* :/"
}
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096"; do
    for cfg in "1 5" "3 6"; do
      time_one $shape $cfg -D GROUP_N=1
      time_one $shape $cfg -D GROUP_N=2 -D cluster_size=2
    done
  done
done 2>&1 | tee $out/timing.txt

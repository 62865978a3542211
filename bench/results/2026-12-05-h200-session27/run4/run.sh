#!/usr/bin/env bash
# Session 27, run 4: two programs a CTA (ws 3) with the program index broadcast from lane 0
# (b7492e5, .pack/tk-gpu.tar.xz) against the same tree without it (.pack/old.tar.xz):
# its SASS (the cubins of both, built here by ptxas), conformance of the ws 3 cases on CUDA
# against the interpreter, and per row/column timings of ws 3 in 5 and 6 stages beside ws 1,
# two rounds, old and new in turn. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
mkdir -p /tmp/tkold && tar -xJf .pack/old.tar.xz -C /tmp/tkold
old=/tmp/tkold/tk/bin/tkc
for v in old new; do
  echo "$v: $(cuobjdump -sass .pack/ws3-$v.cubin | grep -cE '^ +/\*[0-9a-f]{4}\*/') instructions, $(cuobjdump -sass .pack/ws3-$v.cubin | grep -c R2UR) R2UR"
done 2>&1 | tee $out/sass.txt
timeout 150 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k tiles_ping_pong > $out/conformance.txt 2>&1
tail -3 $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head -5
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
run() { # which M N K stages ws
  bin=$([ $1 = old ] && echo $old || echo $tkc); progs=$(( $6 == 3 ? 264 : 132 ))
  LD_LIBRARY_PATH=$(dirname $bin) timeout 30 $bin run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=128 -D BN=128 -D BK=128 \
    -D num_stages=$5 -D num_warps=4 -D warp_specialize=$6 -D SCALE_MODE=1 --grid $progs --time 100 $(args $2 $3 $4) 2>&1 | tail -1 \
    | sed "s/^kernel 'fp8_matmul_persistent'/$1 ${2}x${3}x$4 128x128 s$5 ws$6/"
}
for round in 1 2; do
  for shape in "8192 8192 4096" "2048 11008 4096"; do
    run new $shape 5 1
    for st in 5 6; do run old $shape $st 3; run new $shape $st 3; done
  done
done 2>&1 | tee $out/timing.txt

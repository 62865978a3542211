#!/usr/bin/env bash
# Session 28, run 2: run 1's ws 3 SASS still moved the ring stage into uniform registers
# before each wgmma (160 R2UR, as without the programs' own copies). Here the copies are
# chosen by tid.x < 128 rather than tid.x / 128 == 0 (a comparison ptxas may know to be the
# same across a warp): the SASS of ws 3 in 4 (a power of two: no division of the ring
# position by the stages), 5 and 6 stages against ws 1's, and, where the R2UR went, timings.
# (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
for c in .pack/*.cubin; do
  cuobjdump -sass $c > /tmp/$(basename $c .cubin).sass
  echo "$(basename $c): $(grep -cE '^ +/\*[0-9a-f]{4}\*/' /tmp/$(basename $c .cubin).sass) instructions, $(grep -c R2UR /tmp/$(basename $c .cubin).sass) R2UR"
done 2>&1 | tee $out/sass.txt
tar -cJf $out/sass.tar.xz -C /tmp ws3-s4.sass ws3-s5.sass ws3-s6.sass ws1-s5.sass
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
run() { # M N K BM BN stages warps ws [extra tkc args]
  progs=$(( $8 == 3 ? 264 : 132 ))
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$4 -D BN=$5 -D BK=128 \
    -D num_stages=$6 -D num_warps=$7 -D warp_specialize=$8 -D SCALE_MODE=1 --grid $progs "${@:9}" $(args $1 $2 $3) 2>&1 | tail -1 \
    | sed "s/^kernel 'fp8_matmul_persistent'/${1}x${2}x$3 $4x$5 s$6 ws$8/"
}
if [ "$(grep -c R2UR /tmp/ws3-s5.sass)" -lt 120 ]; then
  timeout 170 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k tiles_ping_pong > $out/conformance.txt 2>&1
  tail -1 $out/conformance.txt
  for shape in "8192 8192 4096" "4096 4096 4096" "2048 11008 4096" "2048 12288 4096"; do
    for cfg in "128 128 5 4 1" "128 128 4 4 3" "128 128 5 4 3" "128 128 6 4 3" "128 256 4 8 1"; do
      run $shape $cfg --time 100
    done
  done 2>&1 | tee $out/timing.txt
fi

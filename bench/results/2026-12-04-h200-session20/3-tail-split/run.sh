#!/usr/bin/env bash
# Session 20 run 3: TAIL_SPLIT in fp8_matmul_persistent (kernel: ../1-conformance-tail/
# fp8_matmul.tail-split.tk; the tiles after the last whole wave cut by columns into TAIL_SPLIT
# parts, a second loop over tiles) now that its second loop copies by TMA (9214f84), the two
# loops' rings, staging buffers and exchanges share their bytes (4bed48a and the next commit)
# and both loops store by TMA. Correctness on CUDA against the interpreter, the sanitizers,
# then timings (tkc run --time: per call after an L2 flush, and back to back).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
lib=/tmp/taillib; mkdir -p $lib/std
cp bench/results/2026-12-04-h200-session20/1-conformance-tail/fp8_matmul.tail-split.tk $lib/std/fp8_matmul.tk
cp stdlib/std/math.tk $lib/std/
args() { # M N K
  local m=$1 n=$2 k=$3
  echo "a=rand:f8e4m3:${m}x$k b=rand:f8e4m3:${n}x$k c=zeros:bf16:${m}x$n scale_a=rand:f32:$m scale_b=rand:f32:$n
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$m N=$n K=$k lda=$k ldb=$k ldc=$n ldr=$n ldm=$n"
}
s3="--kernel fp8_matmul_persistent -D BM=128 -D BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=0"
s4="--kernel fp8_matmul_persistent -D BM=128 -D BN=256 -D BK=128 -D num_warps=8 -D num_stages=4 -D warp_specialize=0"
q5="--kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D BK=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1"
{
  # 300x600x256 on 5 programs: 9 tiles of 128x256, 5 whole, 4 in the tail (8 or 16 parts).
  TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk $s3 -D SCALE_MODE=1 -D TAIL_SPLIT=1 --backend interp --grid 5 $(args 300 600 256) --save c=/tmp/ref.npy > /dev/null
  for t in 1 2 4; do
    TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk $s3 -D SCALE_MODE=1 -D TAIL_SPLIT=$t --backend cuda --grid 5 $(args 300 600 256) --save c=/tmp/c$t.npy > /dev/null
    python3 -c "
import numpy as np; r=np.load('/tmp/ref.npy').astype(np.float32); c=np.load('/tmp/c$t.npy').astype(np.float32)
print('TAIL_SPLIT=$t max |cuda - interp| / max|interp|:', float(np.abs(c-r).max()/np.abs(r).max()), 'bitwise equal:', bool((c==r).all()))"
  done
} 2>&1 | tee $out/correctness.txt
for tool in memcheck racecheck synccheck; do
  for t in 2 4; do
    echo "-- $tool TAIL_SPLIT=$t 300x600x256 on 5 programs"
    TK_STDLIB_DIR=$lib compute-sanitizer --tool $tool --error-exitcode 9 $tkc run $lib/std/fp8_matmul.tk $s3 -D SCALE_MODE=1 \
      -D TAIL_SPLIT=$t --backend cuda --grid 5 $(args 300 600 256) 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
{
for round in 1; do
  for shape in "2048 11008 4096" "8192 8192 4096" "2048 4096 4096" "4096 4096 4096"; do
    for cfg in "q5 1" "s3 1" "s3 2" "s3 4" "s4 1" "s4 4"; do
      set -- $cfg
      [ $1 = q5 ] && [ "$shape" != "2048 11008 4096" ] && continue
      echo "== round $round $shape $1 TAIL_SPLIT=$2"
      TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk ${!1} -D SCALE_MODE=0 -D TAIL_SPLIT=$2 --grid 132 $(args $shape) --time 50 2>&1 | tail -1
    done
  done
done
} 2>&1 | tee $out/timing.txt

#!/usr/bin/env bash
# Session 19 run 1: stream-K in fp8_matmul_persistent (STREAM_K: the last partial wave's tiles and
# one whole wave's shared out by k-steps). Each large bench shape by `tkc run --time`: the
# kernel before (the session's start, .pack/old-stdlib, same tkc), and the new kernel without
# and with STREAM_K, interleaved; then the FP8 conformance cases on CUDA against the interpreter
# and the sanitizers on a stream-K kernel with shared tiles.
out=$OUT
mkdir -p /tmp/new && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new
{ date -u; cat /tmp/new/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/new/tk/bin
tkc=/tmp/new/tk/bin/tkc
run() { # stdlib dir, then tkc run's arguments
  local lib=$1; shift
  TK_STDLIB_DIR=$lib $tkc run $lib/std/fp8_matmul.tk "$@" --time 50 2>&1 | tail -1
}
args() { # M N K [with workspace]
  local m=$1 n=$2 k=$3
  echo "a=rand:f8e4m3:${m}x$k b=rand:f8e4m3:${n}x$k c=zeros:bf16:${m}x$n scale_a=rand:f32:$m scale_b=rand:f32:$n
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$m N=$n K=$k lda=$k ldb=$k ldc=$n ldr=$n ldm=$n"
}
ws="workspace=zeros:f32:$((2 * 132 * 128 * 256)) counters=zeros:i32:264"
s3="-D BM=128 -D BN=256 -D BK=128 -D num_warps=8 -D num_stages=3 -D warp_specialize=1"
s6="-D BM=128 -D BN=256 -D BK=64 -D num_warps=8 -D num_stages=6 -D warp_specialize=0"
q5="-D BM=128 -D BN=128 -D BK=128 -D num_warps=4 -D num_stages=5 -D warp_specialize=1"
{
for round in 1; do
  for shape in "8192 8192 4096" "4096 4096 4096" "2048 12288 4096" "2048 4096 4096" "2048 11008 4096" "2048 4096 11008"; do
    a=$(args $shape)
    for cfg in s3 s6 q5; do
      [ $cfg = q5 ] && [ "$shape" != "2048 11008 4096" ] && continue
      for mode in 0 1; do
        [ $cfg = s6 ] && [ $mode = 1 ] && continue
        echo "== round $round $shape $cfg SCALE_MODE=$mode: before / STREAM_K=false / STREAM_K=true"
        run .pack/old-stdlib/stdlib --kernel fp8_matmul_persistent ${!cfg} -D SCALE_MODE=$mode --grid 132 $a
        run stdlib --kernel fp8_matmul_persistent ${!cfg} -D SCALE_MODE=$mode -D STREAM_K=false --grid 132 $a $ws
        run stdlib --kernel fp8_matmul_persistent ${!cfg} -D SCALE_MODE=$mode -D STREAM_K=true --grid 132 $a $ws
      done
    done
  done
done
} 2>&1 | tee $out/timing.txt
for tool in memcheck racecheck synccheck; do
  for w in 0 1; do
    echo "-- $tool stream-K warp_specialize=$w M=1000 N=1000 K=1056 on 13 programs (64 tiles of 128x128: 25 shared)"
    compute-sanitizer --tool $tool --error-exitcode 9 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
      --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_warps=4 -D num_stages=4 -D warp_specialize=$w -D SCALE_MODE=1 \
      -D STREAM_K=true --grid 13 $(args 1000 1000 1056) workspace=zeros:f32:$((2 * 13 * 128 * 128)) counters=zeros:i32:26 2>&1 | tail -1
  done
done 2>&1 | tee $out/sanitizer.txt
TK_STDLIB_DIR=$PWD/stdlib timeout 300 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 12 -k fp8 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt

#!/usr/bin/env bash
# In this order: session 20's TAIL_SPLIT (below); decode-sized FP8 GEMMs (M = 32) back to back: run 3's one row under 1.0x back to back was
# 32x4096x4096 per tensor (0.90x; its tuned SWAP_AB config runs 64 programs on 132
# multiprocessors). Per call and back to back by `tkc run --time`, fp8_matmul's configs against
# split-K variants of the swapped one (128 and 256 programs); the whole conformance suite on CUDA
# against the interpreter at a6652b6 (the pack; run.py from the tree), never run whole on a GPU
# since session 23's 79d4a97.
set -u
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
# Session 20's TAIL_SPLIT (its fp8_matmul.tail-split.tk, which the run used as a copy here:
# fp8_matmul_persistent whose tiles
# after the last whole wave are cut by columns into TAIL_SPLIT parts, a second loop over tiles
# that the producer walks after the first) on the 128x128 producer config, never run: correct
# against the interpreter on a ragged shape (9 whole tiles on 3 programs, one tile in 4 parts),
# then timed at 2048x11008x4096 (1376 tiles of 128x128: 10 whole waves of 132 and 56 more; 688
# of 128x256: 5 and 28), two rounds.
lib=/tmp/taillib; mkdir -p $lib/std
cp bench/results/2026-12-04-h200-session20/1-conformance-tail/fp8_matmul.tail-split.tk $lib/std/fp8_matmul.tk
cp stdlib/std/math.tk $lib/std/
args() { # M N K
  local m=$1 n=$2 k=$3
  echo "a=rand:f8e4m3:${m}x$k b=rand:f8e4m3:${n}x$k c=zeros:bf16:${m}x$n scale_a=rand:f32:$m scale_b=rand:f32:$n
    bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$m N=$n K=$k lda=$k ldb=$k ldc=$n ldr=$n ldm=$n"
}
tail_run() { # BN warps stages TAIL_SPLIT grid backend M N K [more]
  local bn=$1 w=$2 s=$3 t=$4 g=$5 be=$6 m=$7 n=$8 k=$9; shift 9
  TK_STDLIB_DIR=$lib timeout 120 $tkc run $lib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=$bn -D BK=128 \
    -D num_warps=$w -D num_stages=$s -D warp_specialize=1 -D SCALE_MODE=1 -D TAIL_SPLIT=$t --grid $g --backend=$be \
    $(args $m $n $k) "$@"
}
{
for t in 1 4; do
  tail_run 128 4 5 $t 3 cuda 200 520 256 --save c=/tmp/c_cuda_$t.npy > /dev/null || echo "cuda TAIL_SPLIT=$t failed"
done
tail_run 128 4 5 4 3 interp 200 520 256 --save c=/tmp/c_interp.npy > /dev/null || echo "interp failed"
python3 - <<'PY'
import numpy as np
def f(p):
    x = np.load(p)
    return (x.astype(np.uint32) << 16).view(np.float32) if x.dtype == np.uint16 else x.astype(np.float32)
ref = f("/tmp/c_interp.npy")
for t in (1, 4):
    g = f("/tmp/c_cuda_%d.npy" % t)
    err = np.abs(g - ref).max() / np.abs(ref).max()
    print("TAIL_SPLIT=%d on CUDA against the interpreter: max error / max |c| = %.2e %s" % (t, err, "ok" if err < 1e-2 else "FAIL"))
PY
for round in 1 2; do
  for cfg in "128 4 5 1" "128 4 5 2" "128 4 5 4" "128 4 4 2" "256 8 3 1" "256 8 3 4" "256 8 4 4"; do
    set -- $cfg
    echo "== round $round 2048x11008x4096 BN=$1 num_warps=$2 num_stages=$3 warp_specialize=1 TAIL_SPLIT=$4"
    tail_run $1 $2 $3 $4 132 cuda 2048 11008 4096 --time 200 2>&1 | tail -1
  done
done
} 2>&1 | tee $out/tail-split.txt
for shape in "32 4096 4096" "32 4096 11008" "32 12288 4096"; do
  set -- $shape; M=$1 N=$2 K=$3
  args="a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:1 scale_b=rand:f32:1"
  args="$args bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:$((8 * M * N)) counters=zeros:i32:4096"
  args="$args M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"
  # BM BN BK SPLIT_K stages SWAP_AB
  for config in "32 64 256 1 8 1" "32 64 256 2 8 1" "32 64 256 2 4 1" "32 64 128 2 8 1" "32 64 256 4 4 1" \
                "32 64 128 4 8 1" "64 32 256 2 6 0" "64 32 512 1 4 0" "64 64 256 2 4 0"; do
    set -- $config
    grid="$(( (M + $1 - 1) / $1 * (N / $2) )),$4"
    echo "-- ${M}x${N}x$K BM=$1 BN=$2 BK=$3 SPLIT_K=$4 stages=$5 SWAP_AB=$6 grid=$grid"
    timeout 60 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul --backend=cuda -D BM=$1 -D BN=$2 -D BK=$3 \
      -D SPLIT_K=$4 -D num_stages=$5 -D num_warps=4 -D warp_specialize=1 -D SWAP_AB=$6 -D SCALE_MODE=0 --grid $grid \
      --time 500 $args 2>&1 | tail -1
  done
done 2>&1 | tee $out/timing.txt
TK_STDLIB_DIR=$PWD/stdlib timeout 200 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 \
  > $out/conformance.txt 2>&1
grep -v "^ok " $out/conformance.txt | cut -c1-400 | head -60

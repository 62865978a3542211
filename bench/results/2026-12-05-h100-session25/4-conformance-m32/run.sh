#!/usr/bin/env bash
# The whole conformance suite on CUDA against the interpreter at a6652b6 (the pack; run.py
# from the tree), never run whole on a GPU since session 23's 79d4a97. Then decode-sized FP8 GEMMs (M = 32) back to back: run 3's one row under 1.0x back to back was
# 32x4096x4096 per tensor (0.90x; its tuned SWAP_AB config runs 64 programs on 132
# multiprocessors). Per call and back to back by `tkc run --time`, fp8_matmul's configs against
# split-K variants of the swapped one (128 and 256 programs).
set -u
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
TK_STDLIB_DIR=$PWD/stdlib timeout 260 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 \
  > $out/conformance.txt 2>&1
grep -v "^ok " $out/conformance.txt | cut -c1-400 | head -60
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

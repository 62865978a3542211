#!/usr/bin/env bash
# Run 1's third step (its gate had counted `tkc run`'s refusal of a 520x0 tensor, rc 1, as a
# failure), and the 5 bf16 cases that failed at --arch sm_80, in full.
set -u
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 --arch sm_80 -k bf16 > $out/conformance-sm80-bf16.txt 2>&1
grep -v "^ok " $out/conformance-sm80-bf16.txt | cut -c1-300 | head -40
for shape in "2048 11008 4096" "2048 4096 4096" "8192 8192 4096"; do
  set -- $shape; M=$1 N=$2 K=$3
  args="a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:1 scale_b=rand:f32:1"
  args="$args bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"
  for config in "128 256 3 8 1 132" "128 256 4 8 0 132" "128 128 5 4 1 132" "128 128 4 4 3 264" "128 128 5 4 3 264" \
                "64 256 4 4 3 264"; do
    set -- $config
    echo "-- ${M}x${N}x$K BM=$1 BN=$2 stages=$3 warps=$4 ws=$5 programs=$6"
    timeout 60 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$1 -D BN=$2 -D BK=128 \
      -D num_stages=$3 -D num_warps=$4 -D warp_specialize=$5 -D SCALE_MODE=0 --grid $6 --time 200 $args 2>&1 | tail -2
  done
done 2>&1 | tee $out/timing.txt

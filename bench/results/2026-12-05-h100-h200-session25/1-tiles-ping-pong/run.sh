#!/usr/bin/env bash
# Not yet run: the first GPU run of two programs a CTA (warp_specialize 3, session 24) and of
# fp8_matmul's dependent launch. Copy it into the session's bench/results folder and run it
# there on the GPU machine from the repository root with $OUT (pack: tools/gpu-check --bench;
# carry .pack). Every step is under `timeout`: a hang (a barrier phase or turn miscounted)
# shows as a failure, not a lost device call.
#  1. the conformance cases of warp_specialize 3 on CUDA against the interpreter;
#  2. compute-sanitizer synccheck and racecheck on matmul_persistent and fp8_matmul_persistent
#     with warp_specialize 3 (one program, odd and even grids; K 136, 512 = a lap of the ring
#     skipped, 0);
#  3. only if 1-2 passed: per call and back to back by `tkc run --time`, warp_specialize 1's
#     best configs against 3's at 2048x11008x4096, 2048x4096x4096 and 8192x8192x4096 per
#     tensor (grid: 132 programs, or 264 with two a CTA);
# Then, in a second device call, fp8-bench.sh (the bench's fp8 section, which the 10-minute
# limit leaves no room for here).
set -u
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
timeout 150 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k ping_pong 2>&1 \
  | tee $out/conformance.txt | grep -v "^ok "
ok=$(grep -c "conformance cases passed" $out/conformance.txt)
grep -q "^FAIL\|Traceback" $out/conformance.txt && ok=0
# (Also from session 24: 64-bit integers to bf16 before sm_90, rounded once.)
timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 --arch sm_80 -k bf16 2>&1 \
  | tail -3 | tee $out/conformance-sm80-bf16.txt
fp8="a=rand:f8e4m3:200x544 b=rand:f8e4m3:264x544 c=zeros:bf16:200x264 scale_a=rand:f32:200 scale_b=rand:f32:264"
fp8="$fp8 bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=200 N=264 K=544 lda=544 ldb=544 ldc=264 ldr=264 ldm=264"
for tool in synccheck racecheck; do
  for variant in "1 136" "3 136" "4 136" "3 512" "3 0"; do
    set -- $variant
    echo "-- $tool matmul_persistent ws=3 programs=$1 M=520 N=264 K=$2"
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $tkc run examples/matmul.tk --kernel matmul_persistent \
      --backend=cuda -D BM=128 -D BN=128 -D BK=64 -D num_warps=4 -D num_stages=4 -D warp_specialize=3 --grid $1 \
      a=rand:f16:520x$2 b=rand:f16:${2}x264 c=zeros:f16:520x264 M=520 N=264 K=$2 lda=$2 ldb=264 ldc=264 > /tmp/run.log 2>&1
    echo "rc=$? $(tail -1 /tmp/run.log)"
  done
  for variant in "128 128 3" "64 256 2"; do
    set -- $variant
    echo "-- $tool fp8_matmul_persistent ws=3 ${1}x$2 programs=$3 M=200 N=264 K=544"
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $tkc run stdlib/std/fp8_matmul.tk \
      --kernel fp8_matmul_persistent --backend=cuda -D BM=$1 -D BN=$2 -D BK=128 -D num_warps=4 -D num_stages=4 \
      -D warp_specialize=3 -D SCALE_MODE=1 --grid $3 $fp8 > /tmp/run.log 2>&1
    echo "rc=$? $(tail -1 /tmp/run.log)"
  done
done 2>&1 | tee $out/sanitizer.txt
grep -q "^rc=[1-9]" $out/sanitizer.txt && ok=0 # (a hang: 124 from timeout; a finding: 9)
echo "conformance and sanitizers passed: $ok"
if [ "$ok" = 1 ]; then
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
fi
